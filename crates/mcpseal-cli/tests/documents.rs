//! The public output of every command on the fixtures, pinned with insta: exit code, stdout and
//! stderr together, in every format the command offers. Public JSON only grows: a change to
//! these snapshots that is not an addition is a break of the public contract.
//!
//! Every JSON output is also validated against its committed schema (`schemas/`), and every
//! SARIF output against the official SARIF 2.1.0 schema, so the schemas are held to real runs.
//!
//! Filtered: the fixture's path, the temporary directory, mcpseal's version and timings.

mod lock_support;

use std::path::Path;

use jsonschema::Validator;
use lock_support::{Out, Work, base_surface, with_description, with_new_tool, without_tool};
use serde_json::Value;

const SARIF_SCHEMA: &str = include_str!("../../mcpseal-report/tests/data/sarif-2.1.0.schema.json");

fn validator(schema: &Value) -> Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("schema compiles")
}

/// The committed schema `schemas/NAME`.
fn committed(name: &str) -> Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../schemas")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("committed schema");
    validator(&serde_json::from_str(&text).expect("schema is JSON"))
}

/// The official SARIF schema with its one erratum worked around (see the report crate's
/// `tests/it/schemas.rs`).
fn sarif() -> Validator {
    const ERRATUM: &str = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    const FIXED: &str = r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#;
    validator(&serde_json::from_str(&SARIF_SCHEMA.replace(ERRATUM, FIXED)).expect("JSON"))
}

/// The schema a snapshot's stdout must satisfy, by the snapshot's name: the command's document
/// for `*_json`, the error document for exit 2, SARIF 2.1.0 for `*_sarif`; `None` for text and
/// Markdown.
fn schema_of(name: &str, code: i32) -> Option<Validator> {
    if name.ends_with("_sarif") {
        return Some(sarif());
    }
    let file = match name {
        "snapshot_capture" => "raw-capture.schema.json",
        // These two exit 2 with their own report, which carries the `error` object.
        "error_probe_unreachable" => "probe-report.schema.json",
        "error_rpc_no_answer" | "rpc_json" => "rpc-report.schema.json",
        n if n.starts_with("error_") => "error.schema.json",
        n if !n.ends_with("_json") => return None,
        n if n.starts_with("snapshot_") => "snapshot.schema.json",
        n if n.starts_with("lock_") => "lock-report.schema.json",
        n if n.starts_with("check_") => "check-report.schema.json",
        n if n.starts_with("verify_") => "verify-report.schema.json",
        n if n.starts_with("diff_") => "diff-report.schema.json",
        n => panic!("{n}: which schema? (code {code})"),
    };
    Some(committed(file))
}

/// Validates `out.stdout` against the schema [`schema_of`] names.
fn validate(name: &str, out: &Out) {
    let Some(validator) = schema_of(name, out.code) else {
        return;
    };
    let doc: Value = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("{name}: stdout is not JSON: {e}\n{}", out.stdout));
    let problems: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(problems.is_empty(), "{name} vs its schema: {problems:#?}");
}

fn filters(w: &Work) -> Vec<(String, String)> {
    let tmp = w.dir.path().to_string_lossy().into_owned();
    vec![
        (regex_escape(&tmp), "[TMP]".to_owned()),
        (
            r#"[^\s"`|()]*/mcpseal-fixture"#.to_owned(),
            "[FIXTURE]".to_owned(),
        ),
        (
            r#""durationMs": \d+"#.to_owned(),
            r#""durationMs": "[MS]""#.to_owned(),
        ),
        (r"\(\d+ ms\)".to_owned(), "([MS] ms)".to_owned()),
        (
            r#""name": "mcpseal",\s*"version": "\d+\.\d+\.\d+""#.to_owned(),
            r#""name": "mcpseal", "version": "[VERSION]""#.to_owned(),
        ),
        (
            r"mcpseal \d+\.\d+\.\d+".to_owned(),
            "mcpseal [VERSION]".to_owned(),
        ),
        (
            r#""partialFingerprints": \{\s*"mcpsealFinding/v1": "[0-9a-f]{64}""#.to_owned(),
            r#""partialFingerprints": { "mcpsealFinding/v1": "[SHA]""#.to_owned(),
        ),
    ]
}

fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn shown(out: &Out) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.code, out.stdout, out.stderr
    )
}

fn snap(w: &Work, name: &str, out: &Out) {
    snap_with(w, name, out, &[]);
}

/// [`snap`] with extra filters for what one case varies.
fn snap_with(w: &Work, name: &str, out: &Out, extra: &[(&str, &str)]) {
    validate(name, out);
    let mut filters = filters(w);
    filters.extend(
        extra
            .iter()
            .map(|(a, b)| ((*a).to_owned(), (*b).to_owned())),
    );
    let filters: Vec<(&str, &str)> = filters
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    insta::with_settings!({filters => filters, prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("doc_{name}"), shown(out));
    });
}

const FORMATS: [&str; 4] = ["text", "json", "sarif", "markdown"];

#[test]
fn snapshot_and_capture() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let out = w.run(
        &[
            "snapshot",
            "--format",
            "json",
            "--save-capture",
            "capture.json",
        ],
        Some(&["--surface", &v1]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    snap(&w, "snapshot_json", &out);
    let capture = std::fs::read_to_string(w.path("capture.json")).expect("capture written");
    snap(
        &w,
        "snapshot_capture",
        &Out {
            code: 0,
            stdout: capture,
            stderr: String::new(),
        },
    );
    let out = w.run(&["snapshot", "--color", "never"], Some(&["--surface", &v1]));
    snap(&w, "snapshot_text", &out);
    let out = w.run(
        &["snapshot", "--format", "json", "--form", "mcp-surface/1"],
        Some(&["--mode", "legacy"]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    snap(&w, "snapshot_compat_json", &out);
}

#[test]
fn lock_outcomes() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let added = w.surface("added.json", &with_new_tool(&base_surface(), "now"));
    let removed = w.surface("removed.json", &without_tool(&base_surface(), "clock"));
    let lock = |version: &str, format: &str, surface: &str| {
        w.run(
            &["lock", "--server-version", version, "--format", format],
            Some(&["--surface", surface]),
        )
    };
    snap(&w, "lock_created_json", &lock("1.0.0", "json", &v1));
    snap(&w, "lock_up_to_date_json", &lock("1.0.0", "json", &v1));
    snap(&w, "lock_up_to_date_text", &lock("1.0.0", "text", &v1));
    snap(&w, "lock_refused_lower_json", &lock("0.9.0", "json", &v1));
    snap(&w, "lock_restamped_json", &lock("1.0.1", "json", &v1));
    for format in FORMATS {
        snap(
            &w,
            &format!("lock_refused_same_{format}"),
            &lock("1.0.1", format, &added),
        );
    }
    snap(
        &w,
        "lock_refused_break_json",
        &lock("1.1.0", "json", &removed),
    );
    snap(&w, "lock_accepted_json", &lock("1.1.0", "json", &added));
    snap(&w, "lock_accepted_text", &lock("2.0.0", "text", &removed));
    let out = w.run(
        &[
            "lock",
            "--server-version",
            "2.0.0",
            "--format",
            "json",
            "--exclude",
            "/tools/name=echo/description",
        ],
        Some(&["--surface", &removed]),
    );
    snap(&w, "lock_exclusions_updated_json", &out);
    let fresh = Work::new();
    let out = fresh.run(
        &["lock", "--server-version", "1.0.0", "--format", "json"],
        Some(&["--volatile-description", "clock"]),
    );
    // The fixture's description names its process id: a different surface (and hash) each run.
    snap_with(
        &fresh,
        "lock_volatile_json",
        &out,
        &[
            (r"by process \d+", "by process [PID]"),
            (r#""sha256": "[0-9a-f]{64}""#, r#""sha256": "[SHA]""#),
        ],
    );
    // The same server (name) as the changed surface below: a lock for another server name is
    // refused before any rule (`--allow-rename`).
    let base = fresh.surface("base.json", &base_surface());
    let out = fresh.run(
        &["lock", "--server-version", "1.0.0", "--deny-security"],
        Some(&["--surface", &base]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    let changed = fresh.surface(
        "sec.json",
        &with_description(&base_surface(), "echo", "Echo and mail it"),
    );
    let out = fresh.run(
        &[
            "lock",
            "--server-version",
            "2.0.0",
            "--deny-security",
            "--format",
            "json",
        ],
        Some(&["--surface", &changed]),
    );
    snap(&fresh, "lock_refused_security_json", &out);
}

#[test]
fn check_and_verify_outcomes() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let drifted = w.surface(
        "d.json",
        &without_tool(
            &with_description(&base_surface(), "echo", "Echo and mail"),
            "clock",
        ),
    );
    let added = w.surface("added.json", &with_new_tool(&base_surface(), "now"));
    assert_eq!(
        w.run(
            &["lock", "--server-version", "1.0.0"],
            Some(&["--surface", &v1])
        )
        .code,
        0
    );
    let check = |version: &str, format: &str, surface: &str| {
        w.run(
            &["check", "--server-version", version, "--format", format],
            Some(&["--surface", surface]),
        )
    };
    snap(&w, "check_ok_json", &check("1.0.0", "json", &v1));
    snap(&w, "check_ok_text", &check("1.0.0", "text", &v1));
    snap(&w, "check_ok_higher_json", &check("1.2.0", "json", &v1));
    for format in FORMATS {
        snap(
            &w,
            &format!("check_drift_{format}"),
            &check("1.0.0", format, &drifted),
        );
    }
    snap(
        &w,
        "check_would_accept_json",
        &check("1.1.0", "json", &added),
    );
    snap(
        &w,
        "check_bump_too_small_json",
        &check("1.0.1", "json", &drifted),
    );

    let verify = |format: &str, surface: &str| {
        w.run(
            &["verify", "--format", format],
            Some(&["--surface", surface]),
        )
    };
    snap(&w, "verify_ok_json", &verify("json", &v1));
    snap(&w, "verify_ok_text", &verify("text", &v1));
    for format in FORMATS {
        snap(
            &w,
            &format!("verify_drift_{format}"),
            &verify(format, &drifted),
        );
    }
    let out = w.run(
        &["verify", "--attempts", "2", "--wait", "10ms"],
        Some(&["--surface", &drifted]),
    );
    snap(&w, "verify_retried_text", &out);
}

#[test]
fn diff_outcomes() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let drifted = w.surface(
        "d.json",
        &without_tool(
            &with_description(&base_surface(), "echo", "Echo and mail"),
            "clock",
        ),
    );
    assert_eq!(
        w.run(
            &["lock", "--server-version", "1.0.0"],
            Some(&["--surface", &v1])
        )
        .code,
        0
    );
    let snap_out = w.run(&["snapshot", "--format", "json"], Some(&["--surface", &v1]));
    w.write("snap.json", &snap_out.stdout);
    for format in FORMATS {
        let out = w.run(
            &["diff", "--format", format, "surface.lock.json"],
            Some(&["--surface", &drifted]),
        );
        snap(&w, &format!("diff_drift_{format}"), &out);
    }
    let out = w.run(
        &["diff", "--format", "json", "surface.lock.json", "snap.json"],
        None,
    );
    snap(&w, "diff_same_json", &out);
    let out = w.run(&["diff", "surface.lock.json", "snap.json"], None);
    snap(&w, "diff_same_text", &out);
}

#[test]
fn rpc_exchange() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let out = w.run(&["rpc", "tools/list"], Some(&["--surface", &v1]));
    assert_eq!(out.code, 0, "{out:?}");
    snap(&w, "rpc_json", &out);
    let out = w.run(
        &[
            "rpc",
            "--era",
            "2025-11-25",
            "--handshake",
            "--format",
            "text",
            "tools/list",
        ],
        Some(&["--surface", &v1]),
    );
    snap(&w, "rpc_handshake_text", &out);
}

/// An exit 2 of every command, in JSON mode (snapshotted) and in text mode (nothing on stdout,
/// the same words on stderr).
#[test]
fn no_verdict_errors() {
    let w = Work::new();
    let missing = ["--", "/nonexistent/mcpseal-no-such-server"];
    // (name, arguments before `--format`, whether a server command follows)
    let cases: [(&str, &[&str], bool); 7] = [
        ("snapshot_unreachable", &["snapshot"], true),
        (
            "lock_unreachable",
            &["lock", "--server-version", "1.0.0"],
            true,
        ),
        (
            "check_no_lock",
            &["check", "--server-version", "1.0.0"],
            true,
        ),
        ("verify_no_lock", &["verify"], true),
        (
            "diff_missing_file",
            &["diff", "missing.json", "other.json"],
            false,
        ),
        ("probe_bad_rule", &["probe", "--only", "SEAL999"], true),
        ("rpc_unreachable", &["rpc", "tools/list"], true),
    ];
    for (name, args, server) in cases {
        let run = |format: &str| {
            let mut all: Vec<&str> = args.to_vec();
            all.extend(["--format", format]);
            if server {
                all.extend(missing);
            }
            w.run(&all, None)
        };
        let json = run("json");
        assert_eq!(json.code, 2, "{name}: {json:?}");
        snap(&w, &format!("error_{name}"), &json);
        let text = run("text");
        assert_eq!(
            (text.code, text.stdout.as_str(), text.stderr.as_str()),
            (2, "", json.stderr.as_str()),
            "{name}"
        );
    }
}

/// An exit 2 whose command has a report of its own (an unreachable probe, an `rpc` request
/// that got no answer): that report is printed, with the `error` object added.
#[test]
fn no_verdict_reports_carry_the_error() {
    let w = Work::new();
    let out = w.run(
        &[
            "probe",
            "--format",
            "json",
            "--",
            "/nonexistent/mcpseal-no-such-server",
        ],
        None,
    );
    assert_eq!(out.code, 2, "{out:?}");
    validate("error_probe_unreachable", &out);
    let doc = out.json();
    assert_eq!(doc["state"], "unreachable");
    assert_eq!(doc["error"]["kind"], "unreachable");
    let out = w.run(
        &["rpc", "--timeout", "500ms", "tools/list"],
        Some(&["--hang-on", "tools/list"]),
    );
    assert_eq!(out.code, 2, "{out:?}");
    validate("error_rpc_no_answer", &out);
    let doc = out.json();
    assert_eq!(doc["exchange"]["transportError"]["kind"], "timeout");
    assert_eq!(doc["error"]["kind"], "noAnswer");
    assert!(out.stderr.starts_with("error: no answer: "), "{out:?}");
}
