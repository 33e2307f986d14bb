//! `mcpseal rpc` end to end: the built binary against the fixture over stdio and HTTP.
#![expect(
    clippy::disallowed_methods,
    reason = "tests write the params files they pass"
)]

use std::time::Duration;

use assert_cmd::Command;
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::Value;

fn mcpseal() -> Command {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    cmd.timeout(Duration::from_secs(30)).env_remove("NO_COLOR");
    cmd
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("stdout is JSON")
}

#[test]
fn tools_list_over_stdio_prints_the_exchange() {
    let out = mcpseal()
        .args(["rpc", "tools/list", "--"])
        .args(stdio_argv(&["--mode", "modern"]))
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json_of(&out.stdout);
    assert_eq!(doc["schemaVersion"], 1);
    let tools = doc["exchange"]["response"]["result"]["tools"]
        .as_array()
        .expect("tools");
    assert_eq!(tools.len(), 3);
    assert_eq!(
        doc["exchange"]["request"]["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

#[test]
fn discover_over_http() {
    let fx = HttpFixture::start(&["--mode", "modern"]);
    let out = mcpseal()
        .args(["rpc", "server/discover", &fx.url])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out.stdout);
    assert_eq!(doc["exchange"]["httpStatus"], 200);
    assert_eq!(
        doc["exchange"]["response"]["result"]["supportedVersions"][0],
        "2026-07-28"
    );
}

#[test]
fn legacy_handshake_then_list_over_stdio_and_http() {
    let out = mcpseal()
        .args([
            "rpc",
            "--era",
            "2025-11-25",
            "--handshake",
            "tools/list",
            "--",
        ])
        .args(stdio_argv(&["--mode", "legacy"]))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out.stdout);
    assert_eq!(doc["handshake"][0]["request"]["method"], "initialize");
    assert!(
        doc["exchange"]["response"]["result"]["tools"].is_array(),
        "{doc}"
    );
    assert!(
        doc["exchange"]["request"]["params"].is_null(),
        "no _meta in 2025"
    );

    let fx = HttpFixture::start(&["--mode", "legacy"]);
    let out = mcpseal()
        .args([
            "rpc",
            "--era",
            "2025-11-25",
            "--handshake",
            "tools/list",
            &fx.url,
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out.stdout);
    assert!(
        doc["exchange"]["response"]["result"]["tools"].is_array(),
        "{doc}"
    );
    let headers = doc["exchange"]["requestHeaders"]
        .as_array()
        .expect("headers");
    assert!(
        headers.iter().any(|h| h["name"]
            .as_str()
            .is_some_and(|n| n.eq_ignore_ascii_case("mcp-session-id"))),
        "the session id is echoed: {headers:?}"
    );
}

#[test]
fn without_the_handshake_a_legacy_server_refuses() {
    let out = mcpseal()
        .args(["rpc", "--era", "2025-11-25", "tools/list", "--"])
        .args(stdio_argv(&["--mode", "legacy"]))
        .output()
        .expect("runs");
    // A JSON-RPC error is an answer: exit 0, the error in the exchange.
    assert_eq!(out.status.code(), Some(0));
    let doc = json_of(&out.stdout);
    assert!(
        doc["exchange"]["response"]["error"]["code"].is_i64(),
        "{doc}"
    );
}

#[test]
fn a_bearer_token_appears_in_no_output() {
    let token = "tok-3f9a1c77-never-print-me";
    let fx = HttpFixture::start(&["--mode", "modern"]);
    for format in ["json", "text"] {
        let out = mcpseal()
            .args(["rpc", "--format", format, "-H"])
            .arg(format!("Authorization: Bearer {token}"))
            .args(["tools/list", &fx.url])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(0));
        let all = [out.stdout, out.stderr].concat();
        let text = String::from_utf8_lossy(&all);
        assert!(!text.contains(token), "{format}: {text}");
        assert!(!text.contains("never-print-me"), "{format}");
    }
    // From the environment, too.
    let out = mcpseal()
        .env("MCPSEAL_TEST_TOKEN", token)
        .args([
            "rpc",
            "-H",
            "Authorization: Bearer ${MCPSEAL_TEST_TOKEN}",
            "tools/list",
            &fx.url,
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stdout).contains(token));
    let out = mcpseal()
        .env("MCPSEAL_TEST_TOKEN", token)
        .args([
            "rpc",
            "--header-env",
            "X-Api-Key=MCPSEAL_TEST_TOKEN",
            "tools/list",
            &fx.url,
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    assert!(!String::from_utf8_lossy(&out.stdout).contains(token));
}

#[test]
fn no_answer_is_exit_2() {
    let out = mcpseal()
        .args(["rpc", "--timeout", "300ms", "tools/list", "--"])
        .args(stdio_argv(&["--mode", "modern", "--hang-on", "tools/list"]))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let doc = json_of(&out.stdout);
    assert_eq!(doc["exchange"]["transportError"]["kind"], "timeout");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no answer"));
}

#[test]
fn usage_errors_are_exit_2_with_a_hint() {
    let cases: &[&[&str]] = &[
        &["rpc", "tools/list"],
        &["rpc", "tools/list", "ftp://example"],
        &[
            "rpc",
            "--timeout",
            "soon",
            "tools/list",
            "http://127.0.0.1:9/mcp",
        ],
        &[
            "rpc",
            "--params",
            "{not json",
            "tools/list",
            "http://127.0.0.1:9/mcp",
        ],
        &[
            "rpc",
            "-H",
            "no-colon",
            "tools/list",
            "http://127.0.0.1:9/mcp",
        ],
        &[
            "rpc",
            "--era",
            "2024-01-01",
            "tools/list",
            "http://127.0.0.1:9/mcp",
        ],
    ];
    for args in cases {
        let out = mcpseal().args(*args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("error"), "{args:?}: {err}");
        // JSON is rpc's default format: the error document, nothing else, on stdout.
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("error document");
        assert_eq!(doc["error"]["kind"], "usage", "{args:?}");
        assert!(doc.get("exchange").is_none(), "{args:?}");
    }
    let out = mcpseal()
        .args(["rpc", "tools/list", "--", "/nonexistent/server"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hint:"));
}

/// A params file of about `bytes` bytes: one object with a long string.
fn big_params(dir: &tempfile::TempDir, bytes: usize) -> std::path::PathBuf {
    let path = dir.path().join("big.json");
    let doc = serde_json::json!({"pad": "x".repeat(bytes)});
    std::fs::write(&path, doc.to_string()).expect("write params");
    path
}

#[test]
fn params_come_from_a_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("params.json");
    std::fs::write(&path, r#"{"_meta": {"progressToken": 7}}"#).expect("write");
    let out = mcpseal()
        .args(["rpc", "--params"])
        .arg(format!("@{}", path.display()))
        .args(["tools/list", "--"])
        .args(stdio_argv(&["--mode", "modern"]))
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json_of(&out.stdout);
    assert_eq!(
        doc["exchange"]["request"]["params"]["_meta"]["progressToken"],
        7
    );
    assert!(doc["exchange"]["response"]["result"]["tools"].is_array());
}

#[test]
fn a_params_file_that_is_missing_or_not_json_is_exit_2_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let missing = dir.path().join("nope.json");
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{not json").expect("write");
    for (path, why) in [(&missing, "cannot read"), (&broken, "not valid JSON")] {
        let out = mcpseal()
            .args(["rpc", "--params"])
            .arg(format!("@{}", path.display()))
            .args(["tools/list", "http://127.0.0.1:9/mcp"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{why}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(err.contains(why), "{err}");
        assert!(err.contains("hint:"), "{err}");
        // JSON is rpc's default format: the error document, and no exchange.
        let doc = json_of(&out.stdout);
        assert_eq!(doc["error"]["kind"], "usage", "{why}");
        assert!(doc.get("exchange").is_none(), "{why}");
    }
}

/// Issue 10's acceptance case: a 1 MB request to a server that never reads its stdin ends
/// with a timeout at `--timeout`, not when the server exits 30 s later.
#[expect(
    clippy::print_stdout,
    reason = "the measured time goes into the test log"
)]
#[test]
fn a_large_request_to_a_server_that_does_not_read_times_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = big_params(&dir, 1024 * 1024);
    let started = std::time::Instant::now();
    let out = mcpseal()
        .args(["rpc", "--timeout", "1s", "--params"])
        .arg(format!("@{}", path.display()))
        .args(["tools/list", "--", "sleep", "30"])
        .output()
        .expect("runs");
    let took = started.elapsed();
    println!("rpc with a 1 MB request to `sleep 30` ended after {took:?}");
    assert_eq!(out.status.code(), Some(2));
    let doc = json_of(&out.stdout);
    assert_eq!(
        doc["exchange"]["transportError"]["kind"], "timeout",
        "{doc}"
    );
    let message = doc["exchange"]["transportError"]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(message.contains("tools/list"), "{message}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no answer"), "{err}");
    // Generous for a loaded machine; what matters is that it is not the 30 s of `sleep`.
    assert!(took < Duration::from_secs(10), "{took:?}");
}
