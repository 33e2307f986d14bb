//! The JSON output against the shipped probe-report schema, and the SARIF output against the
//! official SARIF 2.1.0 schema (copied from the `serde-sarif` crate into `tests/data`). Both
//! validators are shown to say no on tampered documents, so a pass means something.

use jsonschema::Validator;
use mcpseal_report::{
    ExecutionNotification, Finding, Format, PROBE_REPORT_SCHEMA, RenderOptions, SarifRun, Severity,
    render_findings_sarif, render_probe,
};
use serde_json::{Value, json};

use crate::support;

/// The official schema, byte for byte as `serde-sarif` 0.8.0 ships it (`src/schema.json`).
///
/// How it is handled:
/// - It is draft-07 and says so in `$schema`, so the validator picks draft 7 by itself.
/// - Every `$ref` in it is local (`#/definitions/…`), resolved against its `$id` with no network
///   access (the `jsonschema` crate is built without its HTTP resolver, so a remote `$ref` would
///   be a build error, not a fetch).
/// - One erratum: `run.language` and `toolComponent.language` have `"pattern": "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$"`
///   (stray `]`), which is not a valid ECMA-262 regex in unicode mode, so the draft-07
///   meta-schema's `format: regex` rejects the schema itself (`jsonschema` always asserts formats
///   when it checks a schema against its meta-schema). We do not edit the official file; the
///   test replaces that pattern in memory with `^[a-zA-Z]{2}(-[a-zA-Z]{2})?$` (what it
///   means: `en` or `en-US`), after checking the erratum is there exactly twice
///   ([`sarif_validator`]). Our logs set neither property, so this changes nothing we test.
const SARIF_SCHEMA: &str = include_str!("../data/sarif-2.1.0.schema.json");

/// A validator for `schema` that also checks formats (`date-time`, `uri`, …).
fn validator(schema: &str) -> Validator {
    let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("schema compiles")
}

/// The SARIF 2.1.0 validator, formats checked, with the erratum above worked around.
fn sarif_validator() -> Validator {
    const ERRATUM: &str = r#""^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$""#;
    const FIXED: &str = r#""^[a-zA-Z]{2}(-[a-zA-Z]{2})?$""#;
    assert_eq!(
        SARIF_SCHEMA.matches(ERRATUM).count(),
        2,
        "the copied SARIF schema changed: revisit the erratum work-around"
    );
    validator(&SARIF_SCHEMA.replace(ERRATUM, FIXED))
}

fn errors(validator: &Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("renderer wrote JSON")
}

#[test]
fn probe_schema_uses_draft_2020_12() {
    let schema = parse(PROBE_REPORT_SCHEMA);
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
}

#[test]
fn json_reports_validate() {
    let v = validator(PROBE_REPORT_SCHEMA);
    for (name, report) in support::all() {
        let json = parse(&render_probe(
            &report,
            Format::Json,
            &RenderOptions::default(),
        ));
        assert_eq!(errors(&v, &json), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn probe_schema_says_no() {
    let v = validator(PROBE_REPORT_SCHEMA);
    let good = parse(&render_probe(
        &support::legacy(),
        Format::Json,
        &RenderOptions::default(),
    ));
    type Tamper = Box<dyn Fn(&mut Value)>;
    let tampered: Vec<(&str, Tamper)> = vec![
        (
            "renamed key",
            Box::new(|r| {
                let id = r["findings"][0]["ruleId"].take();
                r["findings"][0]
                    .as_object_mut()
                    .expect("object")
                    .remove("ruleId");
                r["findings"][0]["rule_id"] = id;
            }),
        ),
        (
            "unknown severity",
            Box::new(|r| r["findings"][0]["severity"] = json!("fatal")),
        ),
        ("ready with errors", Box::new(|r| r["ready"] = json!(true))),
        (
            "missing summary",
            Box::new(|r| {
                r.as_object_mut().expect("object").remove("summary");
            }),
        ),
        (
            "unreachable with findings",
            Box::new(|r| {
                r["state"] = json!("unreachable");
                r["unreachable"] = json!("refused");
            }),
        ),
        (
            "incomplete without reason",
            Box::new(|r| r["state"] = json!("incomplete")),
        ),
        (
            "evidence of no known shape",
            Box::new(|r| {
                r["findings"][0]["evidence"] = json!([{"hello": "world"}]);
            }),
        ),
        (
            "bad start time",
            Box::new(|r| r["startedAt"] = json!("yesterday")),
        ),
    ];
    assert!(v.is_valid(&good));
    for (what, tamper) in tampered {
        let mut bad = good.clone();
        tamper(&mut bad);
        assert!(!v.is_valid(&bad), "the schema accepted: {what}");
    }
}

#[test]
fn sarif_logs_validate() {
    let v = sarif_validator();
    for (name, report) in support::all() {
        let sarif = parse(&render_probe(
            &report,
            Format::Sarif,
            &RenderOptions::default(),
        ));
        assert_eq!(errors(&v, &sarif), Vec::<String>::new(), "{name}");
    }
}

#[test]
fn sarif_schema_says_no() {
    let v = sarif_validator();
    let good = parse(&render_probe(
        &support::legacy(),
        Format::Sarif,
        &RenderOptions::default(),
    ));
    assert!(v.is_valid(&good));
    let mut bad = good.clone();
    bad["version"] = json!("2.0.0");
    assert!(!v.is_valid(&bad), "wrong version accepted");
    let mut bad = good.clone();
    bad["runs"][0]["results"][0]["level"] = json!("fatal");
    assert!(!v.is_valid(&bad), "unknown level accepted");
    let mut bad = good;
    bad["runs"][0]["invocations"][0]
        .as_object_mut()
        .expect("object")
        .remove("executionSuccessful");
    assert!(
        !v.is_valid(&bad),
        "invocation without executionSuccessful accepted"
    );
}

#[test]
fn drift_style_sarif_validates() {
    // A report type other than the probe: no rule catalogue, rule ids of another family.
    let findings = vec![Finding {
        rule_id: "drift/breaking".into(),
        severity: Severity::Error,
        remediation: mcpseal_report::Remediation::Application,
        title: "Tool removed".into(),
        observed: "tool `search` is gone".into(),
        expected: "every locked tool is still served".into(),
        fix: "Restore `search`, or bump the major version and re-lock".into(),
        spec_ref: String::new(),
        evidence: Vec::new(),
    }];
    let tool = mcpseal_report::ToolInfo {
        name: "mcpseal".into(),
        version: "0.1.0".into(),
    };
    let out = render_findings_sarif(&SarifRun {
        tool: &tool,
        target: "surface.lock.json",
        rules: &[],
        findings: &findings,
        execution_successful: true,
        notifications: vec![ExecutionNotification {
            level: Severity::Warning,
            rule_id: Some("drift/breaking".into()),
            message: "lock written by a newer mcpseal".into(),
        }],
        start_time_utc: None,
        properties: serde_json::Map::new(),
        docs_url: None,
    });
    let sarif = parse(&out);
    assert_eq!(errors(&sarif_validator(), &sarif), Vec::<String>::new());
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "drift/breaking");
    assert_eq!(run["results"][0]["ruleIndex"], 0);
    assert!(
        run["results"][0]["locations"][0]
            .get("physicalLocation")
            .is_none()
    );
}
