//! `mcpseal probe --call NAME=JSON` end to end: opt-in tool calls judged by SEAL039, usage
//! errors (bad JSON, unknown tool) exit 2 before any tool is called, and `--list-rules` shows
//! the rules beyond the anchors (SEAL030–SEAL039).

use std::time::Duration;

use assert_cmd::Command;
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::Value;

fn mcpseal() -> Command {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    cmd.timeout(Duration::from_secs(30)).env("NO_COLOR", "1");
    cmd
}

/// `mcpseal probe --format json ARGS -- fixture --call-tools`: (exit code, stdout, stderr).
fn probe(args: &[&str]) -> (i32, String, String) {
    let out = mcpseal()
        .arg("probe")
        .args(["--timeout", "3s", "--format", "json"])
        .args(args)
        .arg("--")
        .args(stdio_argv(&["--call-tools"]))
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn seal039(stdout: &str) -> Vec<Value> {
    let report: Value = serde_json::from_str(stdout).expect("stdout is JSON");
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["ruleId"] == "SEAL039")
        .cloned()
        .collect()
}

#[test]
fn a_well_formed_call_passes_and_a_malformed_one_is_found() {
    let (code, out, err) = probe(&["--call", r#"add={"a":1,"b":2}"#, "--call", "ask={}"]);
    assert_eq!(code, 0, "{err}");
    assert!(seal039(&out).is_empty(), "{out}");
    let (code, out, err) = probe(&["--call", "bad_output={}"]);
    assert_eq!(code, 1, "{err}");
    let found = seal039(&out);
    assert_eq!(found.len(), 1, "{out}");
    let observed = found[0]["observed"].as_str().unwrap_or_default();
    assert!(observed.contains("`bad_output`"), "{observed}");
    assert!(observed.contains("outputSchema"), "{observed}");
}

#[test]
fn calls_work_over_http_too() {
    let fx = HttpFixture::start(&["--call-tools"]);
    let out = mcpseal()
        .args(["probe", "--timeout", "3s", "--format", "json"])
        .args(["--call", "ask_badly={}", &fx.url])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let found = seal039(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(found.len(), 1);
}

#[test]
fn bad_call_syntax_is_a_usage_error_before_the_server_starts() {
    for bad in ["echo", r#"echo={"message":"#, "echo=[1]", "={}"] {
        let out = mcpseal()
            .args(["probe", "--call", bad, "--"])
            .arg("/nonexistent/mcpseal-server-that-must-not-start")
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--call"), "{bad}: {err}");
        assert!(!err.contains("unreachable"), "{bad}: {err}");
    }
}

#[test]
fn an_unknown_tool_is_a_usage_error_and_nothing_is_called() {
    let (code, out, err) = probe(&["--call", "bad_output={}", "--call", "nope={}"]);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("no tool named `nope`"), "{err}");
    // No report: the JSON error document (a usage error) is all that is written.
    let doc: serde_json::Value = serde_json::from_str(&out).expect("the error document");
    assert_eq!(doc["error"]["kind"], "usage", "{out}");
    assert!(doc.get("findings").is_none(), "no report is written: {out}");
}

#[test]
fn list_rules_shows_the_rules_beyond_the_anchors() {
    let out = mcpseal()
        .args(["probe", "--list-rules"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    for n in 30..=39 {
        assert!(text.contains(&format!("SEAL0{n}")), "SEAL0{n}: {text}");
    }
}
