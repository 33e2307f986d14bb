//! Every profile of a lock, over HTTP (issue 13 item 6): two fixture servers on loopback, one
//! with `--hide-tool echo` (a read-only mode), each the target of its `[profiles.NAME]` in
//! `mcpseal.toml`. Locked one profile at a time, then `check` and `verify` without `--profile`
//! judge both: quiet while both serve their locked surface (in text, JSON, Markdown and SARIF),
//! and when one profile's server changes its surface the change is reported under that
//! profile's name only, with exit 1. A profile without a target, a target on the command line
//! and an unreachable profile are exit 2, never a silent skip.
mod lock_support;

use lock_support::{Out, Work, assert_schema, base_surface};
use mcpseal_fixtures::HttpFixture;
use serde_json::Value;

/// The full configuration: every tool.
fn full(w: &Work) -> HttpFixture {
    let v1 = w.surface("v1.json", &base_surface());
    HttpFixture::start(&["--surface", &v1, "--server-version", "1.0.0"])
}

/// The read-only configuration: `echo` hidden.
fn read_only(w: &Work) -> HttpFixture {
    let v1 = w.surface("v1.json", &base_surface());
    HttpFixture::start(&[
        "--surface",
        &v1,
        "--server-version",
        "1.0.0",
        "--hide-tool",
        "echo",
    ])
}

/// `mcpseal.toml` with one `[profiles.NAME]` per `(name, url)`.
fn config(w: &Work, profiles: &[(&str, &str)]) {
    let mut toml = String::new();
    for (name, url) in profiles {
        toml.push_str(&format!("[profiles.{name}]\nurl = \"{url}\"\n\n"));
    }
    w.write("mcpseal.toml", &toml);
}

fn sections(doc: &Value) -> Vec<(String, String)> {
    doc["profiles"]
        .as_array()
        .expect("profiles")
        .iter()
        .map(|p| {
            (
                p["profile"].as_str().unwrap_or_default().to_owned(),
                p["verdict"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn paths(doc: &Value) -> Vec<String> {
    doc["diff"]["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| c["path"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn sarif_results(out: &Out) -> Vec<Value> {
    let log: Value = serde_json::from_str(&out.stdout).expect("SARIF is JSON");
    log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn lock_both(w: &Work) {
    for profile in ["full", "read-only"] {
        // No target: each comes from its `[profiles.NAME]`.
        let out = w.run(&["lock", "--profile", profile, "--format", "json"], None);
        assert_eq!(out.code, 0, "{profile}: {out:?}");
        assert_eq!(out.json()["profile"], profile);
    }
}

#[test]
fn every_profile_is_judged_against_its_own_server_and_a_change_names_its_profile() {
    let w = Work::new();
    let fx_full = full(&w);
    let fx_ro = read_only(&w);
    config(&w, &[("full", &fx_full.url), ("read-only", &fx_ro.url)]);
    lock_both(&w);
    let lock: Value = serde_json::from_slice(&w.lock_bytes()).expect("lock is JSON");
    assert_eq!(lock["schemaVersion"], 2);
    assert_ne!(
        lock["declared"]["profiles"]["full"]["sha256"],
        lock["declared"]["profiles"]["read-only"]["sha256"]
    );

    // Both serve their locked surface: quiet in every command and format.
    for cmd in ["check", "verify"] {
        let out = w.run(&[cmd, "--format", "json"], None);
        assert_eq!(out.code, 0, "{cmd}: {out:?}");
        let doc = out.json();
        assert_schema(&format!("{cmd}-profiles-report.schema.json"), &doc);
        assert_eq!(doc["matches"], true, "{doc:#}");
        assert_eq!(
            sections(&doc),
            [
                ("full".to_owned(), "passed".to_owned()),
                ("read-only".to_owned(), "passed".to_owned())
            ]
        );
        assert!(paths(&doc).is_empty(), "{doc:#}");
        for p in doc["profiles"].as_array().expect("profiles") {
            // Each section is the whole single-profile report.
            assert_schema(&format!("{cmd}-report.schema.json"), &p["report"]);
            assert_eq!(p["report"]["profile"], p["profile"]);
        }
        assert!(doc.get("error").is_none(), "{doc:#}");
    }
    let text = w.run(&["check"], None);
    assert_eq!(text.code, 0, "{text:?}");
    assert!(
        text.stdout.starts_with(
            "ok: every profile is the one locked in `surface.lock.json` (full, read-only)"
        ),
        "{text:?}"
    );
    assert!(
        text.stdout.contains("== profile read-only: passed"),
        "{text:?}"
    );
    let md = w.run(&["check", "--format", "markdown"], None);
    assert_eq!(md.code, 0, "{md:?}");
    assert!(md.stdout.starts_with("## mcpseal check\n"), "{}", md.stdout);
    assert!(
        md.stdout.contains("### profile `full`: passed"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("### profile `read-only`: passed"),
        "{}",
        md.stdout
    );
    assert_eq!(
        md.stdout.matches("No surface change.").count(),
        2,
        "{}",
        md.stdout
    );
    assert!(!md.stdout.contains("/profiles/"), "{}", md.stdout);
    let sarif = w.run(&["check", "--format", "sarif"], None);
    assert_eq!(sarif.code, 0, "{sarif:?}");
    assert!(sarif_results(&sarif).is_empty(), "{}", sarif.stdout);
    let log: Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"], true,
        "{log:#}"
    );

    // The read-only configuration starts showing `echo` (its server redeployed without the
    // flag, at a new address): reported under `read-only` only, exit 1.
    drop(fx_ro);
    let fx_ro2 = full(&w);
    config(&w, &[("full", &fx_full.url), ("read-only", &fx_ro2.url)]);
    for cmd in ["check", "verify"] {
        let out = w.run(&[cmd, "--format", "json"], None);
        assert_eq!(out.code, 1, "{cmd}: {out:?}");
        let doc = out.json();
        assert_schema(&format!("{cmd}-profiles-report.schema.json"), &doc);
        assert_eq!(doc["matches"], false);
        assert_eq!(
            sections(&doc),
            [
                ("full".to_owned(), "passed".to_owned()),
                ("read-only".to_owned(), "failed".to_owned())
            ],
            "{cmd}"
        );
        let all = paths(&doc);
        assert!(
            all.iter()
                .any(|p| p == "/profiles/read-only/tools/name=echo"),
            "{cmd}: {all:?}"
        );
        for p in &all {
            assert!(p.starts_with("/profiles/read-only/"), "{cmd}: {p}");
        }
        let full_changes = doc["profiles"][0]["report"]["diff"]["changes"]
            .as_array()
            .map(Vec::len);
        assert_eq!(full_changes, Some(0), "{cmd}: {doc:#}");
        assert!(
            out.stderr.contains("error: profile `read-only`: "),
            "{cmd}: {}",
            out.stderr
        );
        assert!(
            !out.stderr.contains("profile `full`"),
            "{cmd}: {}",
            out.stderr
        );
    }
    // `verify --attempts` asks the drifted profile again, and says which profile it is.
    let out = w.run(&["verify", "--attempts", "2", "--wait", "10ms"], None);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("note: profile `read-only`: attempt 1/2: the surface differs from the lock"),
        "{}",
        out.stderr
    );
    assert!(
        !out.stderr.contains("profile `full`: attempt"),
        "{}",
        out.stderr
    );
    let text = w.run(&["check"], None);
    assert_eq!(text.code, 1, "{text:?}");
    assert!(
        text.stdout.starts_with(
            "drift: profile `read-only` differs from the one locked in `surface.lock.json` (1 of 2 profiles)"
        ),
        "{text:?}"
    );
    assert!(
        text.stdout.contains("/profiles/read-only/tools/name=echo"),
        "{text:?}"
    );
    assert!(!text.stdout.contains("/profiles/full/"), "{text:?}");

    // Markdown and SARIF name the profile in every path, and only the drifted one.
    let md = w.run(&["check", "--format", "markdown"], None);
    assert_eq!(md.code, 1, "{md:?}");
    assert!(
        md.stdout.contains("### profile `full`: passed"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("### profile `read-only`: failed"),
        "{}",
        md.stdout
    );
    assert!(
        md.stdout.contains("`/profiles/read-only/tools/name=echo`"),
        "{}",
        md.stdout
    );
    assert!(!md.stdout.contains("/profiles/full/"), "{}", md.stdout);
    assert_eq!(
        md.stdout.matches("No surface change.").count(),
        1,
        "{}",
        md.stdout
    );
    let sarif = w.run(&["check", "--format", "sarif"], None);
    assert_eq!(sarif.code, 1, "{sarif:?}");
    let results = sarif_results(&sarif);
    assert!(!results.is_empty(), "{}", sarif.stdout);
    for r in &results {
        let text = r.to_string();
        assert!(text.contains("/profiles/read-only/"), "{r:#}");
        assert!(!text.contains("/profiles/full/"), "{r:#}");
    }
    assert!(
        results.iter().any(
            |r| r["properties"]["evidence"][0]["path"] == "/profiles/read-only/tools/name=echo"
        ),
        "{}",
        sarif.stdout
    );

    // One profile with `--profile` and its own target renders the same paths (Markdown and
    // SARIF of the single-profile report), and is quiet on its own configuration.
    let one = w.run(
        &[
            "check",
            "--profile",
            "read-only",
            "--format",
            "markdown",
            &fx_ro2.url,
        ],
        None,
    );
    assert_eq!(one.code, 1, "{one:?}");
    assert!(
        one.stdout.contains("`/profiles/read-only/tools/name=echo`"),
        "{}",
        one.stdout
    );
    let one = w.run(
        &[
            "check",
            "--profile",
            "read-only",
            "--format",
            "sarif",
            &fx_ro2.url,
        ],
        None,
    );
    assert_eq!(one.code, 1, "{one:?}");
    assert!(
        sarif_results(&one)
            .iter()
            .all(|r| r.to_string().contains("/profiles/read-only/")),
        "{}",
        one.stdout
    );
    let quiet = w.run(
        &[
            "check",
            "--profile",
            "full",
            "--format",
            "sarif",
            &fx_full.url,
        ],
        None,
    );
    assert_eq!(quiet.code, 0, "{quiet:?}");
    assert!(sarif_results(&quiet).is_empty(), "{}", quiet.stdout);
    let quiet = w.run(
        &[
            "check",
            "--profile",
            "full",
            "--format",
            "markdown",
            &fx_full.url,
        ],
        None,
    );
    assert_eq!(quiet.code, 0, "{quiet:?}");
    assert!(
        quiet.stdout.contains("No surface change."),
        "{}",
        quiet.stdout
    );
    assert!(!quiet.stdout.contains("/profiles/"), "{}", quiet.stdout);
}

#[test]
fn a_profile_without_a_target_or_with_a_dead_server_is_no_verdict() {
    let w = Work::new();
    let fx_full = full(&w);
    let fx_ro = read_only(&w);
    config(&w, &[("full", &fx_full.url), ("read-only", &fx_ro.url)]);
    lock_both(&w);

    // A profile the config gives no target: refused naming it and the table, never skipped.
    config(&w, &[("full", &fx_full.url)]);
    for cmd in ["check", "verify"] {
        let out = w.run(&[cmd], None);
        assert_eq!(out.code, 2, "{cmd}: {out:?}");
        assert!(
            out.stderr.contains(
                "`surface.lock.json` has profile `read-only`, but mcpseal.toml gives no target for it: add `[profiles.read-only]`"
            ),
            "{cmd}: {}",
            out.stderr
        );
        assert!(out.stderr.contains("\nhint: "), "{cmd}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{cmd}: {}", out.stdout);
    }
    let out = w.run(&["check", "--format", "json"], None);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(out.json()["error"]["kind"], "usage", "{}", out.stdout);
    // No config at all.
    std::fs::remove_file(w.path("mcpseal.toml")).expect("remove config");
    let out = w.run(&["check"], None);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("has profiles `full`, `read-only`, and no project config gives a target for them: add `[profiles.full]`, `[profiles.read-only]` to mcpseal.toml"),
        "{}",
        out.stderr
    );
    // A target on the command line is one profile's.
    let out = w.run(&["verify", &fx_full.url], None);
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr
            .contains("holds configuration profiles (full, read-only): a target on the command line is one profile's")
            && out.stderr.contains("\nhint: pass `--profile NAME`"),
        "{}",
        out.stderr
    );

    // One profile's server is gone, the other drifted: both reported, exit 2 (the worst).
    let fx_ro2 = full(&w);
    config(&w, &[("full", &fx_full.url), ("read-only", &fx_ro2.url)]);
    drop(fx_full);
    let out = w.run(&["check", "--format", "json"], None);
    assert_eq!(out.code, 2, "{out:?}");
    let doc = out.json();
    assert_schema("check-profiles-report.schema.json", &doc);
    assert_eq!(
        sections(&doc),
        [
            ("full".to_owned(), "noVerdict".to_owned()),
            ("read-only".to_owned(), "failed".to_owned())
        ]
    );
    assert_eq!(
        doc["profiles"][0]["error"]["kind"], "unreachable",
        "{doc:#}"
    );
    assert!(
        doc["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("profile `full`: ")),
        "{doc:#}"
    );
    assert!(
        paths(&doc)
            .iter()
            .any(|p| p == "/profiles/read-only/tools/name=echo"),
        "{doc:#}"
    );
    let sarif = w.run(&["check", "--format", "sarif"], None);
    assert_eq!(sarif.code, 2, "{sarif:?}");
    let log: Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    let invocation = &log["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], false, "{log:#}");
    assert!(
        invocation
            .to_string()
            .contains("profile `full` could not be judged"),
        "{log:#}"
    );
}
