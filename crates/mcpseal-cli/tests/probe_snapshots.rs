//! Real probe runs against the fixture, rendered in all four formats from one run (`--emit`),
//! checked against the shipped probe-report JSON Schema and the official SARIF 2.1.0 schema, and
//! pinned with insta snapshots.
//!
//! The clock is fixed, not filtered: each output the binary wrote must be exactly what the report
//! renderer makes of the JSON report it emitted, and the snapshots are that report rendered with
//! its start time, run time and exchange durations set to fixed values. So a slow run (`Run time:
//! 1.1 s`, `2 min 5 s`) pins the same snapshot as a fast one, and no duration format can slip past
//! a pattern. Only the machine-dependent values (the fixture's path, the crate version and the
//! finding fingerprints that hash them) are filtered.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use jsonschema::Validator;
use mcpseal::report::{Format, ProbeReport, RenderOptions, render_probe};
use mcpseal_fixtures::stdio_argv;
use serde_json::{Value, json};

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

/// Filters for what changes from machine to machine (the clock is fixed instead: [`fix_clock`]).
fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        // The fixture's absolute path.
        (r#"[^\s"`|()]*/mcpseal-fixture"#, "[FIXTURE]"),
        (r#""version": "\d+\.\d+\.\d+""#, r#""version": "[VERSION]""#),
        (r"mcpseal \d+\.\d+\.\d+", "mcpseal [VERSION]"),
        (
            r#""partialFingerprints": \{\s*"mcpsealFinding/v1": "[0-9a-f]{64}""#,
            r#""partialFingerprints": { "mcpsealFinding/v1": "[SHA]""#,
        ),
    ]
}

/// The report with its clock fixed: the start time, the run time and each exchange's
/// `durationMs` are the only values that depend on when and how fast the probe ran. 1 234 ms
/// renders as `1.2 s`, so the snapshots also pin the seconds form of the run time.
fn fix_clock(report: &mut ProbeReport) {
    report.started_at = "2026-07-28T12:00:00Z".to_owned();
    report.duration_ms = 1_234;
    for finding in &mut report.findings {
        for exchange in &mut finding.evidence {
            if let Some(ms) = exchange.get_mut("durationMs") {
                *ms = json!(5);
            }
        }
    }
}

/// `report` in `format` as the binary renders it (`--color never`, not verbose).
fn render(report: &ProbeReport, format: Format) -> String {
    render_probe(report, format, &RenderOptions::default())
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
    // Every output of the run is the renderer's reading of the one report it emitted ...
    let mut report: ProbeReport = serde_json::from_str(&json).expect("a typed probe report");
    assert_eq!(
        render(&report, Format::Json),
        json,
        "{mode}: JSON round trip"
    );
    assert_eq!(render(&report, Format::Text), text, "{mode}: stdout (text)");
    assert_eq!(
        render(&report, Format::Sarif),
        sarif,
        "{mode}: --emit sarif"
    );
    assert_eq!(
        render(&report, Format::Markdown),
        markdown,
        "{mode}: --emit markdown"
    );
    // ... so pinning that report's renderings at a fixed clock pins what the binary printed.
    fix_clock(&mut report);
    insta::with_settings!({filters => filters(), prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!(format!("probe_{mode}_text"), render(&report, Format::Text));
        insta::assert_snapshot!(format!("probe_{mode}_json"), render(&report, Format::Json));
        insta::assert_snapshot!(format!("probe_{mode}_sarif"), render(&report, Format::Sarif));
        insta::assert_snapshot!(
            format!("probe_{mode}_markdown"),
            render(&report, Format::Markdown)
        );
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
