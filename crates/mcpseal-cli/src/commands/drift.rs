//! Rendering shared by `lock`, `check`, `verify` and `diff`: change lists, the four formats,
//! and the errors of the lock workflows.

use std::fmt::Write as _;
use std::path::Path;

use mcpseal::diff::engine::SurfaceDiff;
use mcpseal::diff::{document, drift_rules, findings};
use mcpseal::lock::WorkflowError;
use mcpseal::report::{
    Format, SarifRun, ToolInfo, render_findings_markdown, render_findings_sarif,
};
use mcpseal::surface::lock::{Need, Version};
use mcpseal::version_source::{self, VersionRequest};
use serde_json::{Map, Value};

use crate::error::CliError;
use crate::lock_args::VersionArgs;

/// Resolves the version flags (before any server is started).
pub fn version_request(args: &VersionArgs) -> Result<VersionRequest, CliError> {
    let cwd = std::env::current_dir()?;
    version_source::resolve(
        args.server_version.as_deref(),
        args.manifest.as_deref(),
        &cwd,
    )
    .map_err(|e| {
        let hint = e.hint();
        CliError::usage(e.to_string()).hint(hint)
    })
}

/// Refuses a missing lock file before any server is started: `check` and `verify` need one,
/// and a server process or connection would be wasted on a run that cannot judge.
pub fn require_lock(path: &Path) -> Result<(), CliError> {
    if path.exists() {
        Ok(())
    } else {
        Err(workflow_error(WorkflowError::NoLock(path.to_owned()), &[]))
    }
}

/// What a change needs, in words relative to the locked version ("a new minor", "a new major
/// or 0.x line"…); "a higher version" when the locked version does not parse. Shared so that
/// `lock` refusals and `check` errors name the same requirement.
pub fn need_phrase(need: Need, locked: &str) -> &'static str {
    Version::parse(locked).map_or("a higher version", |v| need.phrase(&v))
}

/// A workflow error for people; for an unreachable server, the server's last stderr line.
pub fn workflow_error(e: WorkflowError, diagnostics: &[String]) -> CliError {
    let hint = e.hint();
    let mut message = e.to_string();
    if matches!(
        e,
        WorkflowError::Capture(mcpseal::SnapshotError::Unreachable(_))
    ) && let Some(last) = diagnostics.iter().rev().find(|l| l.starts_with("[stderr]"))
    {
        let _ = write!(message, "\n  {last}");
    }
    CliError::usage(message).hint(hint)
}

/// The changes as text lines, most severe class first within the engine's path order.
pub fn changes_text(diff: &SurfaceDiff) -> String {
    let mut out = String::new();
    if diff.is_empty() {
        return out;
    }
    let s = diff.summary();
    let _ = writeln!(
        out,
        "changes: {} breaking, {} security, {} additive, {} cosmetic, {} unjudged (semver bump: {})",
        s.breaking,
        s.security,
        s.additive,
        s.cosmetic,
        s.unjudged,
        diff.required_bump().as_str()
    );
    for c in &diff.changes {
        let class = c.class.as_str().to_uppercase();
        let _ = writeln!(out, "  {class:<9} {}  {}", c.path, c.explanation);
    }
    out
}

/// What a command report is made of, before choosing a format.
pub struct Rendered<'a> {
    /// The command (`check`, `verify`, ...), for headings.
    pub command: &'a str,
    /// The server or file judged.
    pub target: &'a str,
    /// The verdict line for people.
    pub verdict: String,
    /// The text form (verdict included).
    pub text: String,
    /// The JSON document.
    pub json: Value,
    /// The diff behind it.
    pub diff: &'a SurfaceDiff,
}

/// Renders in `format`: text and JSON as given, Markdown and SARIF through the report crate's
/// finding renderers.
pub fn render(format: Format, r: &Rendered<'_>) -> Result<String, CliError> {
    Ok(match format {
        Format::Text => r.text.clone(),
        Format::Json => {
            let mut s = serde_json::to_string_pretty(&r.json)
                .map_err(|e| CliError::usage(e.to_string()))?;
            s.push('\n');
            s
        }
        Format::Markdown => format!(
            "## mcpseal {}\n\n{}\n\n{}",
            r.command,
            r.verdict,
            render_findings_markdown(&findings(r.diff))
        ),
        Format::Sarif => {
            let tool = ToolInfo {
                name: "mcpseal".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            };
            let rules = drift_rules();
            let found = findings(r.diff);
            let mut properties = Map::new();
            properties.insert("command".into(), Value::from(r.command));
            properties.insert("verdict".into(), Value::from(r.verdict.clone()));
            properties.insert("report".into(), r.json.clone());
            render_findings_sarif(&SarifRun {
                tool: &tool,
                target: r.target,
                rules: &rules,
                findings: &found,
                execution_successful: true,
                notifications: Vec::new(),
                start_time_utc: None,
                properties,
            })
        }
    })
}

/// The diff document (`mcpseal diff --format json`), for embedding.
pub fn diff_json(diff: &SurfaceDiff) -> Value {
    document(diff)
}
