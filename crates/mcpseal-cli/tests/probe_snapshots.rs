//! Real probe runs against the fixture, rendered in all four formats from one run (`--emit`),
//! pinned with insta snapshots (timings, timestamps and machine paths filtered), and checked
//! against the shipped probe-report JSON Schema and the official SARIF 2.1.0 schema.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use jsonschema::Validator;
use mcpseal_fixtures::stdio_argv;
use serde_json::Value;

const SARIF_SCHEMA: &str = include_str!("../../mcpseal-report/tests/data/sarif-2.1.0.schema.json");

/// The official SARIF schema with its one erratum worked around (see the report crate's
/// `tests/it/schemas.rs` for why: an invalid `language` regex the meta-schema refuses).
fn sarif_validator() -> Validator {
    const ERRATUM: &str = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    const FIXED: &str = r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#;
    assert_eq!(
        SARIF_SCHEMA.matches(ERRATUM).count(),
        2,
        "revisit the erratum"
    );
    let schema: Value =
        serde_json::from_str(&SARIF_SCHEMA.replace(ERRATUM, FIXED)).expect("schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("SARIF schema compiles")
}

fn report_validator() -> Validator {
    let schema: Value =
        serde_json::from_str(mcpseal::report::PROBE_REPORT_SCHEMA).expect("schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("report schema compiles")
}

fn errors(validator: &Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

/// Runs one probe with text on stdout and the three other formats emitted to files.
fn probe_all_formats(mode: &str, dir: &Path) -> (i32, [String; 4]) {
    let path = |ext: &str| dir.join(format!("{mode}.{ext}"));
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(Duration::from_secs(60))
        .args(["probe", "--color", "never"])
        .arg("--emit")
        .arg(format!("json:{}", path("json").display()))
        .arg("--emit")
        .arg(format!("sarif:{}", path("sarif").display()))
        .arg("--emit")
        .arg(format!("markdown:{}", path("md").display()))
        .arg("--")
        .args(stdio_argv(&["--mode", mode]))
        .output()
        .expect("runs");
    let read = |ext: &str| std::fs::read_to_string(path(ext)).expect("emitted file");
    (
        out.status.code().unwrap_or(-1),
        [
            String::from_utf8_lossy(&out.stdout).into_owned(),
            read("json"),
            read("sarif"),
            read("md"),
        ],
    )
}

/// Filters for what changes from run to run or machine to machine.
fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        // The fixture's absolute path.
        (r#"[^\s"`|()]*/mcpseal-fixture"#, "[FIXTURE]"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "[TIME]"),
        (r#""durationMs": \d+"#, r#""durationMs": "[MS]""#),
        // Any duration the text renderer writes (`850 ms`, `1.2 s`, `2 min 5 s`): a loaded
        // machine may take over a second.
        (
            r"Run time: (\d+ ms|\d+\.\d s|\d+ min \d+ s)",
            "Run time: [MS] ms",
        ),
        (r"\d+ ms\b", "[MS] ms"),
        (r" · (\d+\.\d s|\d+ min \d+ s) · ", " · [MS] ms · "),
        (r#""version": "\d+\.\d+\.\d+""#, r#""version": "[VERSION]""#),
        (r"mcpseal \d+\.\d+\.\d+", "mcpseal [VERSION]"),
        (
            r#""partialFingerprints": \{\s*"mcpsealFinding/v1": "[0-9a-f]{64}""#,
            r#""partialFingerprints": { "mcpsealFinding/v1": "[SHA]""#,
        ),
    ]
}

fn check_and_snapshot(mode: &str, expected_exit: i32) {
    let dir = tempfile::tempdir().expect("tempdir");
    let (code, [text, json, sarif, markdown]) = probe_all_formats(mode, dir.path());
    assert_eq!(code, expected_exit, "{text}");
    let json_doc: Value = serde_json::from_str(&json).expect("json report");
    let problems = errors(&report_validator(), &json_doc);
    assert!(
        problems.is_empty(),
        "{mode} report vs its schema: {problems:#?}"
    );
    let sarif_doc: Value = serde_json::from_str(&sarif).expect("sarif");
    let problems = errors(&sarif_validator(), &sarif_doc);
    assert!(
        problems.is_empty(),
        "{mode} SARIF vs SARIF 2.1.0: {problems:#?}"
    );
    insta::with_settings!({filters => filters(), prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("probe_{mode}_text"), text);
        insta::assert_snapshot!(format!("probe_{mode}_json"), json);
        insta::assert_snapshot!(format!("probe_{mode}_sarif"), sarif);
        insta::assert_snapshot!(format!("probe_{mode}_markdown"), markdown);
    });
}

#[test]
fn legacy_fixture_in_all_formats() {
    check_and_snapshot("legacy", 1);
}

#[test]
fn modern_fixture_in_all_formats() {
    check_and_snapshot("modern", 0);
}
