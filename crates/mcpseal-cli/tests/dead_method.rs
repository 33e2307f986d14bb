//! One timeout per dead method (issue 11 item 2), end to end: the probe against a server whose
//! `tools/list` never answers asks it once, waits out one `--timeout`, then fails every later
//! `tools/list` probe at once with that reason: the run is *incomplete*, names `tools/list`,
//! and ends in less than 3 × `--timeout` (before the memo it waited the timeout out four times
//! over stdio and nine over HTTP). The bound is the acceptance line; it is a ratio of
//! the run's own timeout with two timeouts of slack for a loaded machine, not a benchmark.

use std::time::{Duration, Instant};

use assert_cmd::Command;
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(3);

fn probe(target: &[String]) -> (i32, Value, String, Duration) {
    let start = Instant::now();
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(Duration::from_secs(120))
        .env("NO_COLOR", "1")
        .args(["probe", "--format", "json", "--timeout", "3s"])
        .args(target)
        .output()
        .expect("runs");
    let took = start.elapsed();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap_or(-1),
        doc,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        took,
    )
}

fn assert_incomplete_once(label: &str, (code, doc, err, took): (i32, Value, String, Duration)) {
    assert_eq!(code, 2, "{label}: {err}");
    assert_eq!(doc["state"], "incomplete", "{label}: {doc}");
    let reason = doc["incomplete"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("tools/list"), "{label}: {doc}");
    assert!(
        err.contains("incomplete") && err.contains("tools/list"),
        "{label}: {err}"
    );
    assert!(
        took < 3 * TIMEOUT,
        "{label}: the probe took {took:?}, not less than 3 x {TIMEOUT:?}: the dead method was waited out again"
    );
}

#[test]
fn the_probe_waits_out_a_hanging_tools_list_once_over_stdio() {
    let mut target = vec!["--".to_owned()];
    target.extend(stdio_argv(&["--hang-on", "tools/list"]));
    assert_incomplete_once("stdio", probe(&target));
}

#[test]
fn the_probe_waits_out_a_hanging_tools_list_once_over_http() {
    let fx = HttpFixture::start(&["--hang-on", "tools/list"]);
    assert_incomplete_once("HTTP", probe(std::slice::from_ref(&fx.url)));
}
