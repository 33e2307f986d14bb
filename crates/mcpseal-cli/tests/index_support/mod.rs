//! Shared helpers of the `mcpseal index` end-to-end tests (`index*.rs`): running the binary,
//! checking its exit code, finding a row of a run document.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// The bound on one `mcpseal` run (a 200-target cohort in a debug build on a loaded 2-core
/// machine stays well inside it); a run past it is killed and the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(900);

/// Runs `mcpseal ARGS…` in `dir` (else the test's directory) with `env` added.
pub fn mcpseal_in(dir: Option<&Path>, env: &[(String, String)], args: &[&str]) -> Output {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .timeout(TIMEOUT);
    cmd.output().expect("runs")
}

/// Runs `mcpseal ARGS…` and asserts it exited 0.
pub fn mcpseal_ok(args: &[&str]) -> Output {
    let out = mcpseal_in(None, &[], args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "mcpseal {args:?}\nstdout {}\nstderr {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Asserts `out` exited 0 (stdout and stderr in the message when not).
pub fn ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout {}\nstderr {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The row of `id` in a run document.
pub fn row<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no row {id} in {doc:#}"))
}
