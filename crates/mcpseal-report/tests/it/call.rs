//! `mcpseal call`: the committed schema of its document is the one its type generates, and the
//! document of a real-looking report validates against it.

use std::path::Path;

use mcpseal_report::call::{
    CallReport, CallState, CallSummary, ControlOutcome, NegativeControls, Round, Subject,
    SubjectKind, TamperingRecord, render_call,
};
use mcpseal_report::{Format, RenderOptions, ToolInfo};
use serde_json::json;

#[test]
fn the_committed_call_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/call-report.schema.json");
    let mut want =
        serde_json::to_string_pretty(&mcpseal_report::call::schema()).expect("serialises");
    want.push('\n');
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "schemas/call-report.schema.json is stale: run `cargo xtask generate schemas`"
    );
}

fn report() -> CallReport {
    let controls = NegativeControls {
        contract: json!({"type": "object"}),
        skipped: None,
        tamperings: vec![TamperingRecord {
            id: "noStructuredContent".into(),
            kind: "noStructuredContent".into(),
            field: String::new(),
            schema_path: String::new(),
            description: "`structuredContent` removed".into(),
            note: None,
            patch: vec![json!({"op": "remove", "path": "/structuredContent"})],
            outcome: ControlOutcome::Trap,
            rejected_by: vec![],
        }],
    };
    let findings = vec![mcpseal_report::call::rule("CALL012").finding(
        "o",
        "e",
        "f",
        vec![
            json!({"transport": "stdio", "request": {}, "requestHeaders": [], "response": null,
            "responseHeaders": [], "httpStatus": null, "notifications": [], "durationMs": 0,
            "transportError": null}),
        ],
    )];
    CallReport {
        schema_version: 1,
        tool: ToolInfo {
            name: "mcpseal".into(),
            version: "0.1.0".into(),
        },
        target: "http://127.0.0.1:1/mcp".into(),
        transport: "http".into(),
        revision: Some("2026-07-28".into()),
        subject: Subject {
            kind: SubjectKind::Tool,
            name: "t".into(),
            arguments: json!({}),
        },
        started_at: "2026-11-29T12:00:00Z".into(),
        duration_ms: 3,
        state: CallState::Judged,
        passed: CallReport::compute_passed(CallState::Judged, &findings, Some(&controls)),
        expect_error: false,
        definition: Some(json!({"name": "t"})),
        rounds: vec![Round {
            round: 1,
            exchange: json!({}),
            result_type: Some("complete".into()),
            input_requests: vec![],
        }],
        result: Some(json!({"content": []})),
        summary: CallSummary::of(&findings, Some(&controls)),
        findings,
        negative_controls: Some(controls),
        diagnostics: vec![],
        error: None,
    }
}

#[test]
fn a_report_validates_and_its_verdict_is_data() {
    let r = report();
    assert!(!r.passed);
    assert_eq!(r.exit_code(), 1);
    assert_eq!(r.summary.traps, 1);
    let schema = mcpseal_report::call::schema();
    let v = jsonschema::validator_for(&schema).expect("compiles");
    let doc: serde_json::Value =
        serde_json::from_str(&render_call(&r, Format::Json, &RenderOptions::default()))
            .expect("json");
    let errors: Vec<String> = v.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let text = render_call(&r, Format::Text, &RenderOptions::default());
    assert!(
        text.starts_with("FAIL — 1 breaking issue; 1 negative control (0 rejected, 1 trap)"),
        "{text}"
    );
}

/// A change to a report document.
type Tamper = fn(&mut serde_json::Value);

#[test]
fn the_schema_can_say_no() {
    // Negative controls for the report's own contract: a green schema check above proves
    // something only if the schema rejects a document that breaks it.
    let schema = mcpseal_report::call::schema();
    let v = jsonschema::validator_for(&schema).expect("compiles");
    let doc: serde_json::Value = serde_json::from_str(&render_call(
        &report(),
        Format::Json,
        &RenderOptions::default(),
    ))
    .expect("json");
    assert!(v.is_valid(&doc));
    let tampered: [(&str, Tamper); 5] = [
        ("an outcome that is neither rejected nor trap", |d| {
            d["negativeControls"]["tamperings"][0]["outcome"] = json!("passed");
        }),
        ("no schemaVersion", |d| {
            if let Some(o) = d.as_object_mut() {
                o.remove("schemaVersion");
            }
        }),
        ("an unknown state", |d| d["state"] = json!("done")),
        ("passed as a string", |d| d["passed"] = json!("false")),
        ("a negative trap count", |d| {
            d["summary"]["traps"] = json!(-1)
        }),
    ];
    for (what, tamper) in tampered {
        let mut d = doc.clone();
        tamper(&mut d);
        assert!(!v.is_valid(&d), "the schema accepts {what}");
    }
}
