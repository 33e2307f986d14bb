//! Shared helpers for the integration tests: loading vector files, converting mcp-surface's
//! raw-capture shape into ours, and running the Python second implementation.
#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

pub mod random;

/// `crates/mcpseal-surface/tests/data/<name>`.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads and parses a JSON test data file.
pub fn read_json(name: &str) -> Value {
    let bytes = std::fs::read(data(name)).expect("test data readable");
    serde_json::from_slice(&bytes).expect("test data is JSON")
}

/// mcp-surface's raw capture `{initialize, tools, resources, resourceTemplates, prompts}` →
/// an mcpseal raw capture (era 2025-11-25, one page per served list, `error` failure for a
/// list that is null or absent).
pub fn anchor_to_capture(v: &Value) -> Value {
    let mut lists = serde_json::Map::new();
    for key in ["tools", "resources", "resourceTemplates", "prompts"] {
        let entry = match v.get(key) {
            Some(Value::Array(a)) => json!({"pages": [{ key: a }]}),
            _ => json!({"pages": [], "failure": {"kind": "error", "message": "not served"}}),
        };
        lists.insert(key.to_owned(), entry);
    }
    json!({
        "era": "2025-11-25",
        "server": v.get("initialize").cloned().unwrap_or(Value::Null),
        "lists": lists,
    })
}

/// Path of `tools/fingerprint.py` at the repository root.
pub fn python_tool() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tools/fingerprint.py")
}

/// Runs `python3 tools/fingerprint.py ARGS -` with `stdin`; returns (exit code, stdout).
/// Panics (fails the test) when python3 cannot be started: the second implementation is a
/// required check, never skipped.
pub fn python(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>) {
    let mut all = args.to_vec();
    all.push("-");
    python_raw(&all, stdin)
}

#[expect(
    clippy::disallowed_methods,
    reason = "the independent implementation (tools/fingerprint.py) runs as a process"
)]
fn python_raw(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>) {
    let mut child = Command::new("python3")
        .arg(python_tool())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 must be installed: the second implementation is a required check");
    child
        .stdin
        .take()
        .expect("stdin piped")
        .write_all(stdin)
        .expect("write stdin");
    let out = child.wait_with_output().expect("python3 ran");
    (out.status.code().unwrap_or(-1), out.stdout)
}

/// Runs many `tools/fingerprint.py ARGS -` command lines in one Python process
/// (`--batch`); returns (exit code, stdout) per job, in order. Fails the test when python3
/// cannot be started.
pub fn python_batch(jobs: &[(Vec<&str>, &str)]) -> Vec<(i32, String)> {
    let input: Vec<Value> = jobs
        .iter()
        .map(|(args, stdin)| {
            let mut args: Vec<&str> = args.clone();
            args.push("-");
            json!({"args": args, "input": stdin})
        })
        .collect();
    let (code, out) = python_raw(&["--batch"], &serde_json::to_vec(&input).expect("jobs"));
    assert_eq!(code, 0, "python --batch failed");
    let results: Vec<Value> = serde_json::from_slice(&out).expect("batch output is JSON");
    assert_eq!(results.len(), jobs.len());
    results
        .iter()
        .map(|r| {
            (
                i32::try_from(r["code"].as_i64().expect("code")).expect("small"),
                r["stdout"].as_str().expect("stdout").to_owned(),
            )
        })
        .collect()
}
