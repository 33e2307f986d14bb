//! mcpseal against real servers written by others, pinned in `tests/peers` and installed by
//! `tests/peers/install.sh`: `rpc` with the 2025 handshake, and `snapshot` twice with the same
//! fingerprint, agreeing with the independent Python implementation. (The whole cohort, with
//! probe expectations, is `tests/peers.rs`.)

mod python_support;

use std::path::PathBuf;
use std::time::Duration;

use assert_cmd::Command;
use python_support::python_fingerprint;
use serde_json::Value;

fn peers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers")
}

fn installed(relative: &str) -> String {
    let path = peers_dir().join(relative);
    assert!(
        path.exists(),
        "{} is missing: run `bash tests/peers/install.sh` (scripts/test does) before the tests",
        path.display()
    );
    path.to_string_lossy().into_owned()
}

fn everything() -> Vec<String> {
    vec![
        "node".into(),
        installed("npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "stdio".into(),
    ]
}

/// `mcpseal SUBCOMMAND --timeout 60s`. The default 10 s request timeout is too short for the
/// first answer of a fresh Python server on a loaded 2-core machine (interpreter start and SDK
/// import: a whole `snapshot` of a Python peer took 19 s at load 15–18); a timed-out request
/// fails the run, so this is a deadline, not a bound any assertion depends on.
fn mcpseal(subcommand: &str) -> Command {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    cmd.timeout(Duration::from_secs(90))
        .args([subcommand, "--timeout", "60s"]);
    cmd
}

#[test]
fn legacy_handshake_lists_the_real_servers_tools() {
    let out = mcpseal("rpc")
        .args(["--era", "2025-11-25", "--handshake", "tools/list", "--"])
        .args(everything())
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(doc["handshake"][0]["response"]["result"]["serverInfo"]["name"].is_string());
    let tools = doc["exchange"]["response"]["result"]["tools"]
        .as_array()
        .expect("tools");
    assert!(tools.len() >= 5, "{} tools", tools.len());
    assert!(tools.iter().any(|t| t["name"] == "echo"), "{tools:?}");
}

#[test]
fn a_2026_request_to_a_2025_server_is_answered_with_an_error() {
    let out = mcpseal("rpc")
        .args(["server/discover", "--"])
        .args(everything())
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(
        doc["exchange"]["response"]["error"]["code"].is_i64(),
        "{doc}"
    );
}

/// Snapshots `argv` twice in `form`; asserts the fingerprints agree with each other and with
/// `tools/fingerprint.py`; returns the snapshot.
fn snapshot_twice(argv: &[String], form: &str, expected_era: &str) -> Value {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut seen = Vec::new();
    for run in 0..2 {
        let capture = dir.path().join(format!("capture-{run}.json"));
        let out = mcpseal("snapshot")
            .args(["--format", "json", "--form", form, "--save-capture"])
            .arg(&capture)
            .arg("--")
            .args(argv)
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(doc["era"], expected_era, "{argv:?}");
        assert_eq!(
            doc["sha256"].as_str(),
            Some(python_fingerprint(&capture, form).as_str()),
            "Rust and Python disagree on {argv:?} ({form})"
        );
        seen.push(doc);
    }
    assert_eq!(seen[0]["sha256"], seen[1]["sha256"], "{argv:?} twice");
    seen.remove(0)
}

#[test]
fn server_everything_snapshots_stably_in_both_forms() {
    let doc = snapshot_twice(&everything(), "mcpseal/1", "2025-11-25");
    assert!(doc["counts"]["tools"].as_u64().is_some_and(|n| n >= 5));
    snapshot_twice(&everything(), "mcp-surface/1", "2025-11-25");
}

#[test]
fn server_filesystem_snapshots_stably() {
    let dir = tempfile::tempdir().expect("tempdir");
    let argv = vec![
        "node".to_owned(),
        installed("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"),
        dir.path().to_string_lossy().into_owned(),
    ];
    let doc = snapshot_twice(&argv, "mcpseal/1", "2025-11-25");
    assert!(
        doc["counts"]["tools"].as_u64().is_some_and(|n| n >= 5),
        "{doc}"
    );
}

#[test]
fn mcp_server_time_snapshots_stably() {
    let argv = vec![
        installed(".venv/bin/mcp-server-time"),
        "--local-timezone".to_owned(),
        "UTC".to_owned(),
    ];
    // mcp-server-time 2026.10.19 runs on the Python SDK 2.x, which answers `server/discover`.
    let doc = snapshot_twice(&argv, "mcpseal/1", "2026-07-28");
    assert!(
        doc["counts"]["tools"].as_u64().is_some_and(|n| n >= 1),
        "{doc}"
    );
}
