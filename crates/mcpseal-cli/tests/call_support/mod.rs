//! Shared by the `mcpseal call` tests: the fixture as a target (stdio or HTTP, either era), the
//! command run end to end, and the report checked against its committed schema.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::Value;

/// A transport and era to run the fixture in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Setup {
    /// Streamable HTTP (else stdio).
    pub http: bool,
    /// 2025-11-25 (`--mode legacy`; else 2026-07-28).
    pub legacy: bool,
}

/// The four setups: stdio and HTTP, both eras.
pub const SETUPS: [Setup; 4] = [
    Setup {
        http: false,
        legacy: false,
    },
    Setup {
        http: true,
        legacy: false,
    },
    Setup {
        http: false,
        legacy: true,
    },
    Setup {
        http: true,
        legacy: true,
    },
];

impl Setup {
    /// The revision the fixture speaks in this setup.
    pub fn revision(self) -> &'static str {
        if self.legacy {
            "2025-11-25"
        } else {
            "2026-07-28"
        }
    }
}

/// A running fixture with `--contract-tools` (and `--call-log`), as mcpseal's target.
pub struct Target {
    /// `[URL]` or `["--", fixture, args…]`.
    pub argv: Vec<String>,
    /// The fixture's own argv (for other clients).
    pub fixture: Vec<String>,
    /// The HTTP URL, when HTTP.
    pub url: Option<String>,
    /// The call log.
    pub log: PathBuf,
    _http: Option<HttpFixture>,
    _dir: tempfile::TempDir,
}

impl Target {
    /// Starts (HTTP) or prepares (stdio) the fixture for `setup`, with `extra` knobs.
    pub fn start(setup: Setup, extra: &[&str]) -> Target {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("calls.log");
        let log_arg = log.to_string_lossy().into_owned();
        let mut knobs: Vec<&str> = vec!["--contract-tools", "--call-log", &log_arg];
        if setup.legacy {
            knobs.extend(["--mode", "legacy"]);
        }
        knobs.extend(extra);
        if setup.http {
            let fx = HttpFixture::start(&knobs);
            let url = fx.url.clone();
            let mut fixture = stdio_argv(&["--http"]);
            fixture.extend(knobs.iter().map(|k| (*k).to_owned()));
            Target {
                argv: vec![url.clone()],
                fixture,
                url: Some(url),
                log,
                _http: Some(fx),
                _dir: dir,
            }
        } else {
            let fixture = stdio_argv(&knobs);
            let mut argv = vec!["--".to_owned()];
            argv.extend(fixture.clone());
            Target {
                argv,
                fixture,
                url: None,
                log,
                _http: None,
                _dir: dir,
            }
        }
    }

    /// The tools the fixture was asked to call, in order.
    pub fn calls(&self) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

/// What one run printed.
pub struct Run {
    /// Exit code.
    pub code: i32,
    /// stdout.
    pub stdout: String,
    /// stderr.
    pub stderr: String,
}

impl Run {
    /// stdout as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!("stdout is not JSON ({e}): {}\n{}", self.stdout, self.stderr)
        })
    }
}

/// `mcpseal call ARGS… TARGET`.
pub fn call(args: &[&str], target: &Target) -> Run {
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(Duration::from_secs(60))
        .env("NO_COLOR", "1")
        .arg("call")
        .args(["--timeout", "20s"])
        .args(args)
        .args(&target.argv)
        .output()
        .expect("runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `mcpseal call --format json ARGS… TARGET`, the report checked against its schema.
pub fn call_json(args: &[&str], target: &Target) -> (i32, Value, String) {
    let mut all = vec!["--format", "json"];
    all.extend(args);
    let run = call(&all, target);
    let report = run.json();
    assert_schema(&report);
    (run.code, report, run.stderr)
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Asserts `doc` validates against `schemas/call-report.schema.json`.
pub fn assert_schema(doc: &Value) {
    let path = repo_root().join("schemas/call-report.schema.json");
    let schema: Value =
        serde_json::from_slice(&std::fs::read(&path).expect("schema file")).expect("schema json");
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = v.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "call-report schema: {errors:?}\n{doc:#}");
}

/// The tamperings of a report, as `(kind, field, outcome)`.
pub fn controls(report: &Value) -> Vec<(String, String, String)> {
    report["negativeControls"]["tamperings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            (
                t["kind"].as_str().unwrap_or_default().to_owned(),
                t["field"].as_str().unwrap_or_default().to_owned(),
                t["outcome"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// The rule ids of a report's findings.
pub fn rule_ids(report: &Value) -> Vec<String> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| f["ruleId"].as_str().unwrap_or_default().to_owned())
        .collect()
}
