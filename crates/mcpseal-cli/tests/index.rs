//! `mcpseal index run|merge` end to end, against real things: fixture servers (clean, legacy,
//! crashing, hanging, drifting between two runs, a remote over loopback HTTP), a real test peer
//! (`@modelcontextprotocol/server-memory` from `tests/peers`), and a package installed from a
//! real local npm registry (Verdaccio) by the same installer as `replay`. Two runs; three
//! shards merged byte-identical to the unsharded run; the drift found in the second run;
//! unreachable rows never clean; evidence that hashes to its address; the documents valid
//! against the committed schema.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod index_support;

use std::path::{Path, PathBuf};

use mcpseal_fixtures::HttpFixture;
use mcpseal_fixtures::packages::{NPM_NAME, Verdaccio};
use serde_json::Value;
use sha2::{Digest, Sha256};

use index_support::{mcpseal_in, ok, row};

fn read(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).expect("document")).expect("json")
}

fn schema_check(doc: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/index-run.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("committed schema"))
            .expect("json");
    let v = jsonschema::validator_for(&schema).expect("compiles");
    let errors: Vec<String> = v.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
}

fn states(doc: &Value) -> Vec<(String, String)> {
    doc["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or("").to_owned(),
                r["state"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

/// Every evidence address of `doc` exists under `dir` and hashes to itself.
fn evidence_checks(doc: &Value, dir: &Path) -> usize {
    let mut n = 0;
    for r in doc["rows"].as_array().expect("rows") {
        for kind in ["capture", "probe"] {
            let Some(address) = r["evidence"][kind].as_str() else {
                continue;
            };
            let hex = address.strip_prefix("sha256:").expect("sha256 address");
            let path = dir
                .join("evidence/sha256")
                .join(&hex[..2])
                .join(format!("{hex}.json"));
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let digest: String = Sha256::digest(&bytes)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(digest, hex, "{}", path.display());
            n += 1;
        }
    }
    n
}

fn peer_memory_entry() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/peers/npm/node_modules/@modelcontextprotocol/server-memory/dist/index.js",
    )
}

/// The cohort: `tools` is the drifting fixture's generated tool count (1 in the first run, 2 in
/// the second, under the same reported version).
///
/// The request timeout is a minute, not the product's 10 s default: two of the targets are node
/// servers (`memory-peer`, `npm-echo`), and on a loaded 2-core machine a node start-up competing
/// with the probe's own fresh processes was seen to leave `server/discover` unanswered for over
/// 10 s, which the index rightly records as `incomplete` — and then the unsharded run and the
/// shards measure different rows. A server that answers is never waited on, so the longer
/// deadline costs nothing when the machine is idle; `hanging` keeps its own 2 s.
fn cohort(fixture: &str, remote: &str, registry: &str, memory_file: &Path, tools: u32) -> String {
    format!(
        r#"[defaults]
budget-seconds = 240
request-timeout-seconds = 60

[[target]]
id = "clean"
install = "cmd:{fixture}"

[[target]]
id = "legacy"
install = "cmd:{fixture}"
args = ["--mode", "legacy"]
era = "2025-11-25"

[[target]]
id = "crashing"
install = "cmd:{fixture}"
args = ["--crash-after", "0"]

[[target]]
id = "hanging"
install = "cmd:{fixture}"
args = ["--hang-on", "server/discover", "--hang-on", "initialize"]
request-timeout-seconds = 2

[[target]]
id = "drifting"
install = "cmd:{fixture}"
args = ["--tools", "{tools}"]

[[target]]
id = "remote"
install = "url:{remote}"

[[target]]
id = "memory-peer"
install = "cmd:node"
args = ["{memory}"]
env = {{ MEMORY_FILE_PATH = "{memory_file}" }}

[[target]]
id = "npm-echo"
install = "npm:{NPM_NAME}@1.0.0"
registry = "{registry}"
"#,
        memory = peer_memory_entry().display(),
        memory_file = memory_file.display(),
    )
}

#[test]
fn a_cohort_is_run_sharded_merged_and_compared_with_its_previous_run() {
    let work = tempfile::tempdir().expect("work");
    let w = work.path();
    let npm = Verdaccio::start(&w.join("verdaccio"));
    npm.publish_history();
    let env = npm.npm_env();
    let remote = HttpFixture::start(&[]);
    let fixture = mcpseal_fixtures::binary();
    let fixture = fixture.to_str().expect("utf-8");
    let cache = w.join("cache");
    let cache = cache.to_str().expect("utf-8");
    let first = w.join("cohort-1.toml");
    let memory_file = w.join("memory.jsonl");
    std::fs::write(
        &first,
        cohort(fixture, &remote.url, &npm.url(), &memory_file, 1),
    )
    .expect("cohort");
    let first = first.to_str().expect("utf-8");
    let dir = |name: &str| w.join(name).to_string_lossy().into_owned();
    // `mcpseal index merge DIR… --out OUT [--history DB]`, each DIR and OUT under the work dir.
    let merge = |dirs: &[&str], out: &str, history: Option<&str>| {
        let mut args = vec!["index".to_owned(), "merge".to_owned()];
        args.extend(dirs.iter().map(|d| dir(d)));
        args.extend(["--out".to_owned(), dir(out)]);
        if let Some(db) = history {
            args.extend(["--history".to_owned(), db.to_owned()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        mcpseal_in(None, &env, &args)
    };

    // Run 1, unsharded.
    let out = mcpseal_in(
        None,
        &env,
        &[
            "index",
            "run",
            first,
            "--out",
            &dir("run1"),
            "--run-id",
            "r1",
            "--cache",
            cache,
            "--jobs",
            "2",
            "--format",
            "json",
        ],
    );
    ok(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(doc, read(&w.join("run1/shard-0-of-1.json")));
    schema_check(&doc);
    let got = states(&doc);
    let want: Vec<(String, String)> = [
        ("clean", "ready"),
        ("crashing", "unreachable"),
        ("drifting", "ready"),
        ("hanging", "unreachable"),
        ("legacy", "findings"),
        ("memory-peer", "findings"),
        (
            "npm-echo",
            got.iter()
                .find(|(i, _)| i == "npm-echo")
                .map_or("", |(_, s)| s.as_str()),
        ),
        ("remote", "ready"),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(got, want, "{doc:#}");
    // The npm package was installed and measured, not merely listed.
    let npm_row = row(&doc, "npm-echo");
    assert!(
        matches!(npm_row["state"].as_str(), Some("ready" | "findings")),
        "{npm_row:#}"
    );
    assert_eq!(npm_row["version"], "1.0.0");
    assert!(npm_row["fingerprint"].is_string());
    // Unreachable is its own state: no fingerprint, no evidence, not counted as ready.
    for id in ["crashing", "hanging"] {
        let r = row(&doc, id);
        assert!(
            r["fingerprint"].is_null() && r["evidence"]["capture"].is_null(),
            "{r:#}"
        );
        assert!(r["reason"].as_str().is_some_and(|s| !s.is_empty()), "{r:#}");
    }
    assert_eq!(doc["summary"]["targets"], 8);
    assert_eq!(doc["summary"]["unreachable"], 2);
    assert_eq!(
        doc["summary"]["ready"].as_u64().unwrap_or(0)
            + doc["summary"]["findings"].as_u64().unwrap_or(0),
        6
    );
    assert_eq!(row(&doc, "legacy")["era"], "2025-11-25");
    assert_eq!(row(&doc, "clean")["era"], "2026-07-28");
    assert!(row(&doc, "legacy")["errors"].as_u64().unwrap_or(0) > 0);
    assert_eq!(row(&doc, "clean")["errors"], 0);
    assert_eq!(row(&doc, "clean")["change"]["kind"], "first");
    // Evidence: 6 captured targets × (capture + probe), each hashing to its address.
    assert_eq!(evidence_checks(&doc, &w.join("run1")), 12);

    // The same run in 3 shards, merged: byte-identical to the unsharded run merged.
    for i in 0..3 {
        let shard = format!("{i}/3");
        ok(&mcpseal_in(
            None,
            &env,
            &[
                "index",
                "run",
                first,
                "--shard",
                &shard,
                "--out",
                &dir(&format!("s{i}")),
                "--run-id",
                "r1",
                "--cache",
                cache,
                "--jobs",
                "2",
            ],
        ));
    }
    ok(&merge(&["s2", "s0", "s1"], "m3", None));
    let db = dir("history.sqlite");
    ok(&merge(&["run1"], "m1", Some(&db)));
    // Byte-identical before the history sees the shards; on a difference, name the rows that
    // differ and how (two independent measurements of the same targets).
    let m1 = std::fs::read(w.join("m1/index.json")).expect("m1");
    let m3 = std::fs::read(w.join("m3/index.json")).expect("m3");
    if m1 != m3 {
        let (a, b): (Value, Value) = (
            serde_json::from_slice(&m1).expect("m1 json"),
            serde_json::from_slice(&m3).expect("m3 json"),
        );
        let rows = |d: &Value| d["rows"].as_array().cloned().unwrap_or_default();
        let differing: Vec<String> = rows(&a)
            .iter()
            .zip(rows(&b).iter())
            .filter(|(x, y)| x != y)
            .map(|(x, y)| format!("unsharded {x}\n  sharded {y}"))
            .collect();
        panic!(
            "3 shards merged != unsharded merged:\n{}\nsummary {} vs {}",
            differing.join("\n"),
            a["summary"],
            b["summary"]
        );
    }
    // The same run merged again from its shards: recorded once (idempotent on the run id).
    let again = merge(&["s0", "s1", "s2"], "m3b", Some(&db));
    ok(&again);
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already recorded"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let merged: Value = serde_json::from_slice(&m1).expect("json");
    schema_check(&merged);
    assert!(merged.get("shard").is_none());
    assert_eq!(evidence_checks(&merged, &w.join("m3")), 12);

    // A missing shard is refused with a hint (exit 2), nothing written.
    let refused = merge(&["s0", "s1"], "bad", None);
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("is missing") && err.contains("hint:"), "{err}");
    assert!(!w.join("bad/index.json").exists());

    // Run 2: the drifting server gained a tool under the same version.
    let second = w.join("cohort-2.toml");
    std::fs::write(
        &second,
        cohort(fixture, &remote.url, &npm.url(), &memory_file, 2),
    )
    .expect("cohort");
    let out = mcpseal_in(
        None,
        &env,
        &[
            "index",
            "run",
            second.to_str().expect("utf-8"),
            "--out",
            &dir("run2"),
            "--run-id",
            "r2",
            "--previous",
            &dir("m1"),
            "--cache",
            cache,
            "--format",
            "json",
        ],
    );
    ok(&out);
    let doc2: Value = serde_json::from_slice(&out.stdout).expect("json");
    schema_check(&doc2);
    let drift = &row(&doc2, "drifting")["change"];
    assert_eq!(drift["kind"], "changed", "{drift:#}");
    assert_eq!(drift["withoutBump"], true);
    assert_eq!(drift["previousRun"], "r1");
    assert!(
        drift["changes"].as_array().is_some_and(|c| c
            .iter()
            .any(|x| x.as_str().is_some_and(|s| s.contains("`tool_00002`")))),
        "{drift:#}"
    );
    // Quiet on the good case: the servers that did not change are unchanged.
    for id in ["clean", "legacy", "remote", "npm-echo"] {
        assert_eq!(row(&doc2, id)["change"]["kind"], "unchanged", "{id}");
    }
    // Unreachable on either side: not compared, never "unchanged".
    assert_eq!(row(&doc2, "crashing")["change"]["kind"], "notCompared");
    assert_eq!(doc2["summary"]["changed"], 1);
    assert_eq!(doc2["summary"]["changedWithoutBump"], 1);

    // History: both runs, oldest first, every rate with its denominator.
    ok(&merge(&["run2"], "m2", Some(&db)));
    let h = mcpseal_in(None, &env, &["index", "history", "--db", &db]);
    ok(&h);
    let text = String::from_utf8_lossy(&h.stdout);
    let runs: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(runs.len(), 2, "{text}");
    assert!(
        runs[0].starts_with("r1: ready 3 of 8") && runs[0].contains("unreachable 2 of 8"),
        "{text}"
    );
    assert!(runs[1].starts_with("r2: "), "{text}");
    assert!(text.contains("without a bump 1 of 8 (12.5%)"), "{text}");

    // The site: one row per target, the chart, a page per server with both runs, evidence
    // links that resolve, no script, the same bytes twice.
    let site = |out: &str| {
        ok(&mcpseal_in(
            None,
            &env,
            &[
                "index",
                "site",
                "--from",
                &dir("m2"),
                "--db",
                &db,
                "--out",
                out,
            ],
        ))
    };
    site(&dir("public"));
    site(&dir("public2"));
    let html = std::fs::read_to_string(w.join("public/index.html")).expect("index.html");
    assert_eq!(html.matches("<tr class=\"target ").count(), 8, "{html}");
    assert_eq!(
        html.matches("<tr class=\"target state-unreachable\">")
            .count(),
        2
    );
    for chart in ["chart-states", "chart-rules", "chart-changes"] {
        assert!(html.contains(&format!("<svg id=\"{chart}\" class=\"chart\" role=\"img\"")));
    }
    assert_eq!(
        html.matches("<rect class=\"bar state-unreachable\"")
            .count(),
        2
    );
    assert!(
        html.contains("<th scope=\"col\">unreachable</th>")
            && html.contains("<td>2 of 8 (25.0%)</td>"),
        "{html}"
    );
    assert!(!html.contains("<script"));
    assert_eq!(
        std::fs::read(w.join("public2/index.html")).expect("again"),
        html.as_bytes()
    );
    let page = std::fs::read_to_string(w.join("public/servers/drifting.html")).expect("page");
    assert!(
        page.contains("<th scope=\"row\">r1</th>") && page.contains("<th scope=\"row\">r2</th>")
    );
    assert!(page.contains("changed without a bump"), "{page}");
    for href in html
        .split("href=\"")
        .skip(1)
        .filter_map(|h| h.split('"').next())
    {
        assert!(w.join("public").join(href).is_file(), "dead link {href}");
    }
    for href in page
        .split("href=\"")
        .skip(1)
        .filter_map(|h| h.split('"').next())
    {
        assert!(
            w.join("public/servers").join(href).is_file(),
            "dead link {href}"
        );
    }
}

#[test]
fn a_bad_cohort_is_exit_2_with_a_hint() {
    let work = tempfile::tempdir().expect("work");
    let cohort = work.path().join("cohort.toml");
    std::fs::write(
        &cohort,
        "[[target]]\nid = \"x\"\ninstall = \"npm:left-pad\"\n",
    )
    .expect("write");
    let out = mcpseal_in(
        None,
        &[],
        &[
            "index",
            "run",
            cohort.to_str().expect("utf-8"),
            "--out",
            &work.path().join("out").to_string_lossy(),
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("target `x`") && err.contains("hint:"), "{err}");
    let doc: Value = serde_json::from_slice(&out.stdout).expect("error document");
    assert_eq!(doc["error"]["kind"], "usage", "{doc:#}");
    assert!(!work.path().join("out").exists());
}

/// A package registry that accepts connections and never answers: the target's budget ends
/// its install. The row says so, and the stage timing on stderr holds the time the install used
/// (it read `install 0.0 s`, so the cost split lost the budget's worth); a target beside it
/// whose install fails at once is timed as the short failure it is.
#[test]
fn an_install_cut_by_the_budget_is_timed_as_install() {
    let work = tempfile::tempdir().expect("work");
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let silent_url = format!("http://{}", silent.local_addr().expect("addr"));
    // Held, unanswered: every connection is accepted by the kernel and then left waiting.
    let held = std::thread::spawn(move || {
        let mut streams = Vec::new();
        for s in silent.incoming().take(8) {
            streams.push(s);
        }
        streams.len()
    });
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let closed_url = format!("http://{}", closed.local_addr().expect("addr"));
    drop(closed);
    let cohort = work.path().join("cohort.toml");
    std::fs::write(
        &cohort,
        format!(
            "[[target]]\nid = \"silent\"\ninstall = \"npm:left-pad@1.3.0\"\nregistry = \"{silent_url}\"\nbudget-seconds = 4\n\n[[target]]\nid = \"refused\"\ninstall = \"npm:left-pad@1.3.0\"\nregistry = \"{closed_url}\"\nbudget-seconds = 120\n"
        ),
    )
    .expect("write");
    let out = mcpseal_in(
        None,
        &[],
        &[
            "index",
            "run",
            cohort.to_str().expect("utf-8"),
            "--out",
            &work.path().join("out").to_string_lossy(),
            "--cache",
            &work.path().join("cache").to_string_lossy(),
            "--jobs",
            "2",
            "--format",
            "json",
        ],
    );
    ok(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let silent_row = row(&doc, "silent");
    assert_eq!(silent_row["state"], "installFailed", "{silent_row:#}");
    assert!(
        silent_row["reason"]
            .as_str()
            .is_some_and(|r| r.contains("budget of 4 s ran out during")),
        "{silent_row:#}"
    );
    let refused_row = row(&doc, "refused");
    assert_eq!(refused_row["state"], "installFailed", "{refused_row:#}");
    assert!(
        !refused_row["reason"]
            .as_str()
            .is_some_and(|r| r.contains("ran out")),
        "{refused_row:#}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let install_seconds = |id: &str| -> f64 {
        err.lines()
            .find_map(|l| l.strip_prefix(&format!("{id}: install ")))
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no timing line for {id}: {err}"))
    };
    // The deadline fires no earlier than the budget after the target began, so the cut
    // install used most of it; half is a bound no load can break.
    assert!(install_seconds("silent") >= 2.0, "{err}");
    // The refused one is timed too (a number, not the budget's 120 s).
    assert!(install_seconds("refused") < 120.0, "{err}");
    drop(held);
}
