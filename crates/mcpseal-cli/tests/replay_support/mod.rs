//! Shared helpers of the `mcpseal replay` end-to-end tests (`replay.rs`, `replay_registry.rs`):
//! the real binary run with a long deadline (installs and sandboxed starts), and its JSON report.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

/// `mcpseal replay ARGS` with `env` added, its whole output.
pub fn replay(env: &[(String, String)], args: &[&str]) -> Output {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    cmd.arg("replay")
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)));
    cmd.timeout(std::time::Duration::from_secs(900));
    cmd.output().expect("runs")
}

/// The JSON report on stdout (a failure quotes stdout and stderr).
pub fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// The document validates against the committed `schemas/replay-report.schema.json`.
pub fn schema_check(doc: &Value) {
    crate::lock_support::assert_schema("replay-report.schema.json", doc);
}
