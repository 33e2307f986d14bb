//! Truthful details: the protocol version a server negotiated is recorded and printed beside
//! the era, and each wording slip of issue 22 stays fixed. Every case both ways: the detail
//! shows (or the right words appear) on the case that needs it, and nothing extra on the good
//! one.

mod lock_support;

use lock_support::Work;

#[test]
fn a_server_negotiating_an_older_revision_is_shown_as_such() {
    let w = Work::new();
    let older = ["--mode", "legacy", "--negotiate-version", "2024-11-05"];
    let out = w.run(&["snapshot"], Some(&older));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("era      2025-11-25 (the server negotiated 2024-11-05)\n"),
        "{out:?}"
    );
    let doc = w
        .run(&["snapshot", "--format", "json"], Some(&older))
        .json();
    assert_eq!(doc["era"], "2025-11-25");
    assert_eq!(doc["protocolVersion"], "2024-11-05");
    // The era's own revision: recorded, and the text says nothing extra.
    let out = w.run(&["snapshot"], Some(&["--mode", "legacy"]));
    assert!(out.stdout.contains("era      2025-11-25\n"), "{out:?}");
    assert!(!out.stdout.contains("negotiated"), "{out:?}");
    let doc = w
        .run(
            &["snapshot", "--format", "json"],
            Some(&["--mode", "legacy"]),
        )
        .json();
    assert_eq!(doc["protocolVersion"], "2025-11-25");
    let doc = w.run(&["snapshot", "--format", "json"], Some(&[])).json();
    assert_eq!(doc["protocolVersion"], "2026-07-28");
}

#[test]
fn the_probe_records_the_negotiated_revision() {
    let w = Work::new();
    let older = ["--mode", "legacy", "--negotiate-version", "2024-11-05"];
    let out = w.run(&["probe", "--fail-on", "never"], Some(&older));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("  protocol  2024-11-05 (negotiated by the server)\n"),
        "{out:?}"
    );
    let doc = w
        .run(
            &["probe", "--format", "json", "--fail-on", "never"],
            Some(&older),
        )
        .json();
    assert_eq!(doc["protocolVersion"], "2024-11-05");
    let md = w
        .run(
            &["probe", "--format", "markdown", "--fail-on", "never"],
            Some(&older),
        )
        .stdout;
    assert!(
        md.contains("MCP 2026-07-28 (server negotiated 2024-11-05)"),
        "{md}"
    );
    let doc = w.run(&["probe", "--format", "json"], Some(&[])).json();
    assert_eq!(doc["protocolVersion"], "2026-07-28");
    // Nothing answered: nothing claimed.
    let out = w.run(
        &[
            "probe",
            "--format",
            "json",
            "--",
            "/nonexistent/mcpseal-server",
        ],
        None,
    );
    assert_eq!(out.code, 2);
    assert!(out.json().get("protocolVersion").is_none(), "{out:?}");
}

#[test]
fn a_bad_server_version_flag_is_not_told_to_pass_the_flag() {
    let w = Work::new();
    let out = w.run(&["lock", "--server-version", "notaversion"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("`notaversion` is not a semver version"),
        "{out:?}"
    );
    let hint = out
        .stderr
        .lines()
        .find(|l| l.starts_with("hint: "))
        .unwrap_or_default();
    assert!(hint.contains("`1.2.3`"), "{out:?}");
    assert!(!hint.contains("--server-version"), "{out:?}");
    // A manifest with a bad version: there the flag is the way out, and the hint says so.
    w.write("package.json", r#"{"version": "notaversion"}"#);
    let out = w.run(&["lock"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.contains("pass `--server-version X` to override"),
        "{out:?}"
    );
}

#[test]
fn a_zero_timeout_is_called_zero_not_a_non_duration() {
    let w = Work::new();
    let out = w.run(&["snapshot", "--timeout", "0"], Some(&[]));
    assert_eq!(out.code, 2, "{out:?}");
    assert!(
        out.stderr.starts_with("error: `0` is a zero duration"),
        "{out:?}"
    );
    assert!(!out.stderr.contains("is not a duration"), "{out:?}");
    let out = w.run(&["snapshot", "--timeout", "ten"], Some(&[]));
    assert!(
        out.stderr.starts_with("error: `ten` is not a duration"),
        "{out:?}"
    );
    let out = w.run(&["snapshot", "--timeout", "5"], Some(&[]));
    assert_eq!(out.code, 0, "a bare number is seconds: {out:?}");
}

#[test]
fn an_unstartable_probe_says_why_once_and_claims_no_server_diagnostic() {
    let w = Work::new();
    let out = w.run(&["probe", "--", "/nonexistent/mcpseal-server"], None);
    assert_eq!(out.code, 2, "{out:?}");
    let reason = "could not start `/nonexistent/mcpseal-server`";
    assert_eq!(out.stdout.matches(reason).count(), 1, "{out:?}");
    assert!(!out.stdout.contains("diagnostic"), "{out:?}");
    assert!(
        out.stdout.contains("UNREACHABLE — no probe was answered\n"),
        "{out:?}"
    );
    let doc = w
        .run(
            &[
                "probe",
                "--format",
                "json",
                "--",
                "/nonexistent/mcpseal-server",
            ],
            None,
        )
        .json();
    assert_eq!(doc["diagnostics"], serde_json::json!([]));
    assert!(
        doc["unreachable"]
            .as_str()
            .is_some_and(|r| r.contains(reason))
    );
    // A server that starts and then dies does leave its own words as diagnostics.
    let out = w.run(
        &["probe", "--format", "json"],
        Some(&["--exit-after-discover"]),
    );
    assert!(
        out.json()["diagnostics"]
            .as_array()
            .is_some_and(|d| !d.is_empty()),
        "{out:?}"
    );
}

#[test]
fn a_corrupt_first_side_of_diff_gets_a_hint_for_either_side() {
    let w = Work::new();
    w.write("bad.json", "garbage");
    assert_eq!(w.run(&["lock"], Some(&[])).code, 0);
    for args in [
        ["diff", "bad.json", "surface.lock.json"],
        ["diff", "surface.lock.json", "bad.json"],
    ] {
        let out = w.run(&args, None);
        assert_eq!(out.code, 2, "{out:?}");
        assert!(
            out.stderr.contains("`bad.json` is not a lock file"),
            "{out:?}"
        );
        assert!(
            out.stderr
                .contains("hint: each side is a `surface.lock.json`"),
            "{out:?}"
        );
        assert!(!out.stderr.contains("as the second side"), "{out:?}");
    }
    assert_eq!(
        w.run(&["diff", "surface.lock.json", "surface.lock.json"], None)
            .code,
        0
    );
}
