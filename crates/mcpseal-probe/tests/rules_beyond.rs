//! SEAL030–SEAL039 ("probe beyond the anchors") in both directions against the real fixture:
//! each knob provokes exactly its rule among SEAL030–039, and the neighbours that already own
//! a behaviour (SEAL010 for an open GET stream, SEAL014 for rejected headers) keep it alone.
//! Only this range is compared, so rules added elsewhere cannot make these tests drift.

mod common;

use std::collections::BTreeSet;

use mcpseal_client::Target;
use mcpseal_fixtures::stdio_argv;
use mcpseal_probe::{ProbeOptions, ToolCall, parse_call};
use mcpseal_report::Severity::{Error as E, Warning as W};
use mcpseal_report::{ProbeReport, Severity};

use common::{Case, all_rules, among, http_with, measured, options, set, stdio_with};

/// Probes the fixture over stdio with every rule.
async fn stdio(args: &[&str]) -> ProbeReport {
    stdio_with(args, &all_rules()).await
}

/// Probes the fixture over HTTP with every rule.
async fn http(args: &[&str]) -> ProbeReport {
    http_with(args, &all_rules()).await
}

/// `(rule id, severity)` of the findings in SEAL030–SEAL039.
fn mine(report: &ProbeReport) -> BTreeSet<(String, Severity)> {
    among(report, |id| ("SEAL030"..="SEAL039").contains(&id))
}

/// Tool-definition knobs: the same verdict over stdio and HTTP.
const TOOL_CASES: &[Case] = &[
    (&["--mode", "modern"], &[]),
    (&["--tool-defs", "invalid"], &[("SEAL036", E)]),
    // Not also "does not compile": the remote reference is the one finding.
    (&["--tool-defs", "remote-ref"], &[("SEAL037", W)]),
    (&["--tool-defs", "sloppy"], &[("SEAL038", W)]),
    // Extra tools that are only judged when called.
    (&["--call-tools"], &[]),
    (&["--tools", "30", "--page-size", "7", "--call-tools"], &[]),
    // A legacy server's tool definitions are judged the same way.
    (
        &["--mode", "legacy", "--tool-defs", "invalid"],
        &[("SEAL036", E)],
    ),
];

#[tokio::test]
async fn tool_definition_rules_over_stdio() {
    for (args, expected) in TOOL_CASES {
        let report = stdio(args).await;
        measured(&report, &format!("stdio {args:?}"));
        assert_eq!(mine(&report), set(expected), "stdio {args:?}");
    }
}

#[tokio::test]
async fn tool_definition_rules_over_http() {
    for (args, expected) in TOOL_CASES {
        let report = http(args).await;
        measured(&report, &format!("http {args:?}"));
        assert_eq!(mine(&report), set(expected), "http {args:?}");
    }
}

#[tokio::test]
async fn http_rules_fire_on_their_knob_and_only_on_modern_servers() {
    let cases: &[Case] = &[
        (&["--mode", "modern"], &[]),
        (&["--lenient-headers"], &[("SEAL030", E)]),
        // Every error at 200: one cause, SEAL044's one finding (not the header refusal, the
        // unknown method and the Origin refusal each again).
        (&["--errors-200"], &[]),
        // One error at 200: that rule's finding alone.
        (&["--status-200-code", "-32020"], &[("SEAL030", E)]),
        (&["--status-200-code", "-32601"], &[("SEAL031", E)]),
        (&["--notify-200"], &[("SEAL032", E)]),
        (&["--no-405"], &[("SEAL033", W)]),
        (&["--error-id-null"], &[("SEAL034", E)]),
        (&["--no-origin-check"], &[("SEAL035", W)]),
        // A dual-era server may answer GET/DELETE the 2025 way.
        (&["--mode", "dual", "--no-405"], &[]),
        // An open GET stream is SEAL010's finding alone.
        (&["--get-events"], &[]),
        (&["--get-stream"], &[]),
        // Legacy servers are not judged by the 2026 transport rules.
        (&["--mode", "legacy"], &[]),
        (
            &["--mode", "legacy", "--no-origin-check", "--error-id-null"],
            &[],
        ),
        // Headers rejected outright: SEAL014 alone, no header-validation cascade.
        (&["--mode", "strict-headers"], &[]),
        (&["--mode", "strict-params"], &[]),
        // Release-candidate codes are SEAL012's alone.
        (&["--old-error-codes"], &[]),
        (&["--sse"], &[]),
    ];
    for (args, expected) in cases {
        let report = http(args).await;
        measured(&report, &format!("http {args:?}"));
        assert_eq!(mine(&report), set(expected), "http {args:?}");
    }
}

#[tokio::test]
async fn neighbours_keep_their_findings() {
    let get = http(&["--get-events"]).await;
    assert!(get.findings.iter().any(|f| f.rule_id == "SEAL010"));
    let strict = http(&["--mode", "strict-headers"]).await;
    assert!(strict.findings.iter().any(|f| f.rule_id == "SEAL014"));
}

#[tokio::test]
async fn header_findings_quote_each_accepted_probe() {
    let report = http(&["--lenient-headers"]).await;
    let f = report
        .findings
        .iter()
        .find(|f| f.rule_id == "SEAL030")
        .expect("SEAL030");
    for probe in [
        "without `Mcp-Method`",
        "`Mcp-Method: tools/call`",
        "`prompts/get` without `Mcp-Name`",
        "`resources/read` with `Mcp-Name: mcpseal-probe-other-name`",
        "without `MCP-Protocol-Version`",
    ] {
        assert!(f.observed.contains(probe), "{probe}: {}", f.observed);
    }
    assert!(f.observed.contains("served anyway"), "{}", f.observed);
    // No tool was ever called: every tools/call in the run names a tool that does not exist.
    let report = http(&["--lenient-headers", "--mode", "modern"]).await;
    assert!(report.findings.iter().all(|f| f.evidence.iter().all(|e| {
        e["request"]["method"] != "tools/call"
            || e["request"]["params"]["name"] == "mcpseal-probe-no-such-tool"
    })));
}

#[tokio::test]
#[expect(
    clippy::disallowed_methods,
    reason = "tests write their input files; nothing here is a lock"
)]
async fn header_probes_never_call_a_listed_tool() {
    // Only tools listed: the `Mcp-Name` probe falls back to `tools/call` of a made-up tool
    // with another made-up name in the header, and judges only a -32020 at the wrong status.
    let dir = std::env::temp_dir().join(format!("mcpseal-tools-only-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let surface = dir.join("surface.json");
    let tools = serde_json::json!({
        "tools": [{"name": "delete_everything", "description": "Destructive",
                   "inputSchema": {"type": "object"}}],
        "resources": null, "resourceTemplates": null, "prompts": null
    });
    std::fs::write(&surface, tools.to_string()).expect("surface file");
    let path = surface.to_string_lossy().into_owned();
    let status_200: &[&str] = &["--status-200-code", "-32020"];
    for (knob, expected) in [
        (&["--lenient-headers"][..], set(&[("SEAL030", E)])),
        // -32020 at 200 (alone: every error at 200 is SEAL044's).
        (status_200, set(&[("SEAL030", E)])),
        (&["--sse"][..], set(&[])),
    ] {
        let mut args = vec!["--surface", path.as_str()];
        args.extend_from_slice(knob);
        let report = http(&args).await;
        measured(&report, &format!("{knob:?}"));
        assert_eq!(mine(&report), expected, "{knob:?}");
        if knob == status_200 {
            let f = report
                .findings
                .iter()
                .find(|f| f.rule_id == "SEAL030")
                .expect("SEAL030");
            assert!(
                f.observed.contains("`tools/call` of a non-existent tool"),
                "{}",
                f.observed
            );
        }
        let called = report
            .findings
            .iter()
            .flat_map(|f| f.evidence.iter())
            .any(|e| e["request"]["params"]["name"] == "delete_everything");
        assert!(!called, "{knob:?}: a listed tool was called");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn calls(raw: &[&str]) -> Vec<ToolCall> {
    raw.iter()
        .map(|c| parse_call(c).expect("valid call"))
        .collect()
}

async fn probe_calls(http_transport: bool, raw: &[&str]) -> ProbeReport {
    let popts = ProbeOptions {
        calls: calls(raw),
        ..all_rules()
    };
    if http_transport {
        http_with(&["--call-tools"], &popts).await
    } else {
        stdio_with(&["--call-tools"], &popts).await
    }
}

#[tokio::test]
async fn tool_calls_are_judged_only_when_asked_for() {
    for over_http in [false, true] {
        let good = probe_calls(
            over_http,
            &[r#"add={"a":1,"b":2}"#, r#"echo={"message":"hi"}"#, "ask={}"],
        )
        .await;
        measured(&good, "good calls");
        assert_eq!(mine(&good), set(&[]), "http={over_http}");
        let bad = probe_calls(
            over_http,
            &["bad_output={}", "bad_error={}", "ask_badly={}"],
        )
        .await;
        measured(&bad, "bad calls");
        let findings: Vec<_> = bad
            .findings
            .iter()
            .filter(|f| f.rule_id == "SEAL039")
            .collect();
        assert_eq!(findings.len(), 3, "http={over_http}: {findings:#?}");
        let text: String = findings.iter().map(|f| f.observed.clone()).collect();
        assert!(
            text.contains("does not conform to the `outputSchema`"),
            "{text}"
        );
        assert!(text.contains("no `content` array"), "{text}");
        assert!(
            text.contains("`tools/call`, which is not an input method"),
            "{text}"
        );
        // Without --call, no tool is ever called.
        let none = probe_calls(over_http, &[]).await;
        let called = none
            .findings
            .iter()
            .flat_map(|f| f.evidence.iter())
            .any(|e| e["request"]["params"]["name"] == "bad_output");
        assert!(!called);
    }
}

#[tokio::test]
async fn unknown_tool_calls_are_refused_before_anything_is_called() {
    let conn =
        mcpseal_client::Connection::open(&Target::stdio(stdio_argv(&["--call-tools"])), options())
            .await
            .expect("open");
    let popts = ProbeOptions {
        calls: calls(&["bad_output={}", "nope={}"]),
        ..all_rules()
    };
    let err = mcpseal_probe::probe_checked(&conn, &popts)
        .await
        .expect_err("unknown tool");
    assert_eq!(err.0, vec!["nope".to_owned()]);
    conn.close().await;
}
