//! The 200-target version of the index scale benchmark (BENCHMARKS.md, "mcpseal index"): the
//! simulated cohort of `benches/index/cohort.sh` — fixture servers with generated surfaces,
//! 1 in 50 crashing, 2 in 50 legacy, 2 in 50 without cache hints — run in two shards, merged
//! into the SQLite history, and rendered as the site. Every target is a row, the states are the
//! ones the cohort was built to give (a crashing server is never clean), the history holds each
//! row once, the site has a row and a page per target, and two renders are the same bytes.
//!
//! Sized for CI: 200 targets is about a minute on a loaded 2-core machine (debug build).
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod index_support;

use std::path::{Path, PathBuf};

use serde_json::Value;

use index_support::mcpseal_ok;

const TARGETS: usize = 200;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn a_simulated_cohort_of_200_goes_through_run_merge_history_and_site() {
    let work = tempfile::tempdir().expect("work");
    let w = work.path();
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    let fixture = mcpseal_fixtures::binary();
    let generated = std::process::Command::new("bash")
        .arg(root().join("benches/index/cohort.sh"))
        .arg(TARGETS.to_string())
        .arg(&fixture)
        .output()
        .expect("cohort.sh runs");
    assert!(generated.status.success(), "{generated:?}");
    let cohort = w.join("cohort.toml");
    std::fs::write(&cohort, &generated.stdout).expect("cohort");
    let cohort = s(cohort);
    let cache = s(w.join("cache"));
    let db = s(w.join("history.sqlite"));

    let mut shards = Vec::new();
    for i in 0..2 {
        let out = s(w.join(format!("shard{i}")));
        mcpseal_ok(&[
            "index",
            "run",
            &cohort,
            "--shard",
            &format!("{i}/2"),
            "--out",
            &out,
            "--run-id",
            "sim",
            "--cache",
            &cache,
            "--jobs",
            "3",
        ]);
        shards.push(out);
    }
    let merged = s(w.join("merged"));
    mcpseal_ok(&[
        "index",
        "merge",
        &shards[0],
        &shards[1],
        "--out",
        &merged,
        "--history",
        &db,
    ]);
    let doc: Value =
        serde_json::from_slice(&std::fs::read(w.join("merged/index.json")).expect("index.json"))
            .expect("json");
    let rows = doc["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), TARGETS);
    let state = |i: usize| rows[i - 1]["state"].as_str().unwrap_or("?").to_owned();
    for i in 1..=TARGETS {
        assert_eq!(rows[i - 1]["id"], format!("sim-{i:05}"));
        let want = match i % 50 {
            0 => "unreachable",
            10 | 30 | 20 | 40 => "findings",
            _ => "ready",
        };
        assert_eq!(state(i), want, "sim-{i:05}: {}", rows[i - 1]);
    }
    let summary = &doc["summary"];
    assert_eq!(summary["targets"], TARGETS);
    assert_eq!(summary["unreachable"], TARGETS / 50);
    assert_eq!(summary["findings"], 4 * TARGETS / 50);
    // Generated surfaces differ: 13 tool counts, and the legacy targets' own surfaces.
    let mut prints: Vec<&str> = rows
        .iter()
        .filter_map(|r| r["fingerprint"].as_str())
        .collect();
    prints.sort_unstable();
    prints.dedup();
    assert!(prints.len() >= 13, "{} distinct fingerprints", prints.len());

    let history = mcpseal_ok(&["index", "history", "--db", &db]);
    let history = String::from_utf8_lossy(&history.stdout);
    assert!(history.contains("unreachable 4 of 200 (2.0%)"), "{history}");
    // Merging the same shards again records nothing new.
    let again = mcpseal_ok(&[
        "index",
        "merge",
        &shards[0],
        &shards[1],
        "--out",
        &s(w.join("merged-again")),
        "--history",
        &db,
    ]);
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already recorded"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    let site = |out: &str| {
        mcpseal_ok(&[
            "index", "site", "--from", &merged, "--db", &db, "--out", out,
        ]);
    };
    let (p1, p2) = (s(w.join("public")), s(w.join("public2")));
    site(&p1);
    site(&p2);
    let html = std::fs::read_to_string(w.join("public/index.html")).expect("index.html");
    assert_eq!(html.matches("<tr class=\"target ").count(), TARGETS);
    assert!(html.contains("<td>4 of 200 (2.0%)</td>"), "unreachable");
    let pages = std::fs::read_dir(w.join("public/servers"))
        .expect("servers/")
        .count();
    assert_eq!(pages, TARGETS);
    for rel in [
        "index.html",
        "servers/sim-00050.html",
        "servers/sim-00001.html",
    ] {
        assert_eq!(
            std::fs::read(w.join("public").join(rel)).expect("page"),
            std::fs::read(w.join("public2").join(rel)).expect("page again"),
            "{rel}: two renders, the same bytes"
        );
    }
}
