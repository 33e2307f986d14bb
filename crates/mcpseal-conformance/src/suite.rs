//! Reading the suite's machine output: `-o DIR` holds one directory per scenario,
//! `server-<scenario>-<ISO timestamp, ':' and '.' as '-'>/checks.json`, a JSON array of checks
//! `{id, name, description, status, errorMessage?, …}`. A scenario that threw leaves an empty
//! directory: that is "threw", never "no checks". stdout is for people (colours, progress) and
//! is never read.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What one check of the suite said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckOutcome {
    /// `SUCCESS`.
    Pass,
    /// `WARNING` (a SHOULD, or advice).
    Warn,
    /// `FAILURE` for a reason about the server.
    Fail,
    /// `FAILURE` that says it could not test (`Not testable: …`, `Prerequisite failed: …`,
    /// `Check was not observed: …`): the suite scores these as failures (conformance PR #372),
    /// but they say nothing about the server.
    NotTestable,
    /// `FAILURE` because the suite's own fixed read window (500 ms to 1.5 s, an `AbortController`
    /// on one POST) closed before the server's first frame: a statement about the load of the
    /// machine as much as about the server, so no verdict (a timeout is never recorded as an
    /// answer), and a record does not drift on it (see `ServerRecord::differences`).
    TooSlow,
    /// `SKIPPED`.
    Skipped,
    /// `INFO`.
    Info,
}

/// Messages the suite (0.2.0-alpha.12, server-stateless) gives when its read window closed with
/// no frame read: `sep-2575-server-no-log-without-loglevel` (500 ms),
/// `sep-2575-http-server-no-independent-requests-on-stream` (600 ms) and the subscription
/// filter check (1.5 s). Seen on the Python peer under load: the same server passes when it
/// answers within the window.
const TOO_SLOW: &[&str] = &[
    "Logging target endpoint context dropped or failed to yield frame structures",
    "Failed to receive progressive stream chunk execution frames",
    "Strict subscription filtering line failed to return communication frames",
];

/// Messages with which the suite reports that a check could not run.
const NOT_TESTABLE: &[&str] = &[
    "Not testable:",
    "Prerequisite failed:",
    "Check was not observed:",
];

impl CheckOutcome {
    /// The outcome of a `checks.json` entry.
    pub fn of(status: &str, message: &str) -> CheckOutcome {
        match status {
            "SUCCESS" => CheckOutcome::Pass,
            "WARNING" => CheckOutcome::Warn,
            "SKIPPED" => CheckOutcome::Skipped,
            "INFO" => CheckOutcome::Info,
            _ if NOT_TESTABLE.iter().any(|p| message.starts_with(p)) => CheckOutcome::NotTestable,
            _ if TOO_SLOW.iter().any(|p| message.starts_with(p)) => CheckOutcome::TooSlow,
            _ => CheckOutcome::Fail,
        }
    }

    /// Whether it is a verdict about the server (pass, warn or fail).
    pub fn is_verdict(self) -> bool {
        matches!(
            self,
            CheckOutcome::Pass | CheckOutcome::Warn | CheckOutcome::Fail
        )
    }

    /// The word used in records and the page.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckOutcome::Pass => "pass",
            CheckOutcome::Warn => "warn",
            CheckOutcome::Fail => "fail",
            CheckOutcome::NotTestable => "not-testable",
            CheckOutcome::TooSlow => "too-slow",
            CheckOutcome::Skipped => "skipped",
            CheckOutcome::Info => "info",
        }
    }
}

/// One check as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteCheck {
    /// Its id (`sep-2575-server-implements-discover`, `wire-schema-valid`, …).
    pub id: String,
    /// What it said.
    pub outcome: CheckOutcome,
    /// The suite's message, cut (non-passing checks only).
    pub message: Option<String>,
}

/// Every scenario of one run: its checks, or `None` when it threw.
pub type SuiteRun = BTreeMap<String, Option<Vec<SuiteCheck>>>;

/// The scenario name of an output directory: `server-<scenario>-YYYY-MM-DDTHH-MM-SS-mmmZ`.
fn scenario_of(dir_name: &str) -> Option<&str> {
    let rest = dir_name.strip_prefix("server-")?;
    // The timestamp is 24 characters (`2026-12-01T12-50-28-308Z`) after a `-`.
    let cut = rest.len().checked_sub(25)?;
    let (name, stamp) = rest.split_at(cut);
    let stamp = stamp.strip_prefix('-')?;
    let shape_ok = stamp.len() == 24
        && stamp.ends_with('Z')
        && stamp.as_bytes()[10] == b'T'
        && stamp
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'T' | b'Z'));
    (shape_ok && !name.is_empty()).then_some(name)
}

fn cut(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

/// Reads a suite `-o` directory. Errors name the file and what is wrong with it; a directory
/// that is not a scenario's is an error too (the layout changed: the reader must be fixed).
pub fn read_suite_output(dir: &Path) -> Result<SuiteRun, String> {
    let mut run = SuiteRun::new();
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("reading `{}`: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("listing `{}`: {e}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(scenario) = scenario_of(&name) else {
            return Err(format!(
                "`{}` is not a scenario directory (`server-<scenario>-<timestamp>`)",
                entry.path().display()
            ));
        };
        let checks_path = entry.path().join("checks.json");
        let checks = match std::fs::read_to_string(&checks_path) {
            Ok(text) => {
                Some(parse_checks(&text).map_err(|e| format!("`{}`: {e}", checks_path.display()))?)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(format!("reading `{}`: {e}", checks_path.display())),
        };
        if run.insert(scenario.to_owned(), checks).is_some() {
            return Err(format!(
                "scenario `{scenario}` appears twice in `{}`: use a fresh output directory per run",
                dir.display()
            ));
        }
    }
    Ok(run)
}

/// Parses one `checks.json`.
pub fn parse_checks(text: &str) -> Result<Vec<SuiteCheck>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let items = value.as_array().ok_or("not a JSON array")?;
    let mut out = Vec::new();
    for item in items {
        let id = item
            .get("id")
            .and_then(Value::as_str)
            .ok_or("a check without a string `id`")?;
        let status = item
            .get("status")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("check `{id}` has no string `status`"))?;
        let message = item
            .get("errorMessage")
            .and_then(Value::as_str)
            .unwrap_or("");
        let outcome = CheckOutcome::of(status, message);
        out.push(SuiteCheck {
            id: id.to_owned(),
            outcome,
            message: (outcome != CheckOutcome::Pass && !message.is_empty())
                .then(|| cut(message, 200)),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_names_come_out_of_directory_names() {
        assert_eq!(
            scenario_of("server-tools-list-2026-12-01T12-50-28-308Z"),
            Some("tools-list")
        );
        assert_eq!(
            scenario_of("server-sep-2164-resource-not-found-2026-12-01T12-50-28-308Z"),
            Some("sep-2164-resource-not-found")
        );
        assert_eq!(scenario_of("client-x-2026-12-01T12-50-28-308Z"), None);
        assert_eq!(scenario_of("server-x"), None);
    }

    #[test]
    fn not_testable_failures_are_told_apart() {
        let checks = parse_checks(
            r#"[{"id":"a","status":"FAILURE","errorMessage":"Not testable: no tool"},
                {"id":"b","status":"FAILURE","errorMessage":"Expected 400"},
                {"id":"c","status":"SUCCESS"},{"id":"d","status":"WARNING","errorMessage":"SHOULD"},
                {"id":"e","status":"FAILURE","errorMessage":"Logging target endpoint context dropped or failed to yield frame structures"}]"#,
        )
        .expect("parses");
        let outcomes: Vec<_> = checks.iter().map(|c| c.outcome).collect();
        assert_eq!(
            outcomes,
            [
                CheckOutcome::NotTestable,
                CheckOutcome::Fail,
                CheckOutcome::Pass,
                CheckOutcome::Warn,
                CheckOutcome::TooSlow
            ]
        );
        assert!(!CheckOutcome::TooSlow.is_verdict());
        assert_eq!(checks[2].message, None);
        assert!(parse_checks("{}").is_err());
        assert!(parse_checks(r#"[{"status":"SUCCESS"}]"#).is_err());
    }
}
