//! Rendering the publishing documents: text for people, the JSON document, Markdown (verdict +
//! the checks that did not pass as finding tables) and SARIF 2.1.0 (those checks as results,
//! `run.properties.report` = the JSON document). The verdict line comes from the document.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

use super::card::{CardCheckReport, CardVerdict};
use super::registry::{
    RegistryCheckReport, RegistryListReport, RegistryVerifyReport, RemoteVerdict, StampOutcome,
    StampReport,
};
use super::{Check, CheckState, SPEC_REF};
use crate::format::Format;
use crate::model::{Finding, Remediation, RuleInfo, ToolInfo};
use crate::render::markdown::render_findings_markdown;
use crate::render::sarif::{SarifRun, render_findings_sarif};

/// A publishing document, ready for any format.
pub trait Rendered: Serialize {
    /// `registry verify`, `card check`, …
    fn command(&self) -> &'static str;
    /// What was judged (a URL, a file, a registry name).
    fn target(&self) -> String;
    /// One line saying how it came out.
    fn verdict(&self) -> String;
    /// The text form's body after the verdict line.
    fn details(&self) -> String;
    /// Every check, in order.
    fn checks(&self) -> Vec<&Check>;
    /// A Markdown table of what was compared, one row each (matches too), before the
    /// findings; empty when the document has none.
    fn rows_markdown(&self) -> String {
        String::new()
    }
}

fn state_word(s: CheckState) -> &'static str {
    match s {
        CheckState::Pass => "ok  ",
        CheckState::Fail => "FAIL",
        CheckState::Warn => "warn",
        CheckState::Skipped => "skip",
    }
}

fn check_lines(out: &mut String, checks: &[&Check], indent: &str) {
    for c in checks {
        let subject = c
            .subject
            .as_deref()
            .map(|s| format!(" [{s}]"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{indent}{} {}{subject}: {}",
            state_word(c.state),
            c.id,
            c.observed
        );
        if matches!(c.state, CheckState::Fail | CheckState::Warn) {
            let _ = writeln!(out, "{indent}     expected: {}", c.expected);
        }
    }
}

/// Renders `doc` in `format` (see the module docs). Ends with a newline.
///
/// `docs_url` is the base URL of mcpseal's documentation (as [`crate::DriftOptions::docs_url`]):
/// SARIF links the publishing rules' page against it, and links nothing of mcpseal's without it.
pub fn render<D: Rendered>(
    doc: &D,
    format: Format,
    tool: &ToolInfo,
    docs_url: Option<&str>,
) -> String {
    let json = serde_json::to_value(doc).unwrap_or(Value::Null);
    let findings: Vec<Finding> = doc.checks().iter().filter_map(|c| c.finding()).collect();
    match format {
        Format::Text => format!("{}\n{}", doc.verdict(), doc.details()),
        Format::Json => {
            let mut out = serde_json::to_string_pretty(&json).unwrap_or_default();
            out.push('\n');
            out
        }
        Format::Markdown => format!(
            "## mcpseal {}\n\n{}\n\n{}{}",
            doc.command(),
            doc.verdict(),
            doc.rows_markdown(),
            render_findings_markdown(&findings)
        ),
        Format::Sarif => {
            let mut ids: Vec<&str> = doc.checks().iter().map(|c| c.id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            let rules: Vec<RuleInfo> = ids
                .iter()
                .map(|id| RuleInfo {
                    id: (*id).to_owned(),
                    title: doc
                        .checks()
                        .iter()
                        .find(|c| c.id == *id)
                        .map(|c| c.title.clone())
                        .unwrap_or_default(),
                    severity: crate::model::Severity::Error,
                    remediation: Remediation::Application,
                    spec_ref: SPEC_REF.into(),
                    transports: vec!["http".into()],
                    anchor_id: None,
                    rationale: String::new(),
                })
                .collect();
            let mut properties = Map::new();
            properties.insert("command".into(), Value::from(doc.command()));
            properties.insert("verdict".into(), Value::from(doc.verdict()));
            properties.insert("report".into(), json);
            let target = doc.target();
            render_findings_sarif(&SarifRun {
                tool,
                target: &target,
                rules: &rules,
                findings: &findings,
                execution_successful: true,
                notifications: Vec::new(),
                start_time_utc: None,
                properties,
                docs_url,
            })
        }
    }
}

impl Rendered for StampReport {
    fn command(&self) -> &'static str {
        "registry stamp"
    }
    fn target(&self) -> String {
        self.server_json.clone()
    }
    fn verdict(&self) -> String {
        match self.outcome {
            StampOutcome::Written => format!(
                "stamped: `{}` carries the {} fingerprint of `{}` ({})",
                self.server_json, self.form, self.lock, self.locked_at
            ),
            StampOutcome::Unchanged => format!(
                "up to date: `{}` already carries the fingerprint of `{}` ({})",
                self.server_json, self.lock, self.locked_at
            ),
            StampOutcome::TooLarge => format!(
                "refused: publisher-provided would be {} bytes (limit {}); `{}` not changed",
                self.publisher_provided_bytes, self.limit_bytes, self.server_json
            ),
            StampOutcome::Invalid => format!(
                "refused: the stamped file would not validate; `{}` not changed",
                self.server_json
            ),
        }
    }
    fn details(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "endpoint  {}", self.endpoint);
        let _ = writeln!(out, "sha256    {}", self.sha256);
        let _ = writeln!(out, "keys      {}", self.keys.join(", "));
        let _ = writeln!(
            out,
            "size      {} of {} bytes",
            self.publisher_provided_bytes, self.limit_bytes
        );
        for v in &self.violations {
            let _ = writeln!(out, "invalid   {v}");
        }
        out
    }
    fn checks(&self) -> Vec<&Check> {
        Vec::new()
    }
}

impl Rendered for RegistryCheckReport {
    fn command(&self) -> &'static str {
        "registry check"
    }
    fn target(&self) -> String {
        self.server_json.clone()
    }
    fn verdict(&self) -> String {
        if self.matches {
            format!(
                "ok: `{}` carries what `{}` produces ({})",
                self.server_json, self.lock, self.locked_version
            )
        } else {
            format!(
                "stale: `{}` does not carry what `{}` produces ({})",
                self.server_json, self.lock, self.locked_version
            )
        }
    }
    fn details(&self) -> String {
        let mut out = String::new();
        check_lines(&mut out, &self.checks.iter().collect::<Vec<_>>(), "");
        out
    }
    fn checks(&self) -> Vec<&Check> {
        self.checks.iter().collect()
    }
}

impl Rendered for RegistryVerifyReport {
    fn command(&self) -> &'static str {
        "registry verify"
    }
    fn target(&self) -> String {
        self.entry.url.clone()
    }
    fn verdict(&self) -> String {
        let status = self
            .entry
            .status
            .as_deref()
            .filter(|s| *s != "active")
            .map(|s| format!(" (entry {s})"))
            .unwrap_or_default();
        if !self.verified {
            format!("could not verify: {}{status}", self.asked)
        } else if self.matches {
            format!("verified: {} is served as published{status}", self.asked)
        } else {
            format!(
                "mismatch: {} is not served as published{status}",
                self.asked
            )
        }
    }
    fn details(&self) -> String {
        let mut out = String::new();
        let e = &self.entry;
        let _ = writeln!(
            out,
            "entry     {} {} status {} (latest: {})",
            e.name,
            e.version.as_deref().unwrap_or("?"),
            e.status.as_deref().unwrap_or("?"),
            e.is_latest.map_or("?".into(), |l| l.to_string())
        );
        let b = &self.block;
        let _ = writeln!(
            out,
            "block     {} ({}) {} locked at {}",
            b.source, b.form, b.declared_sha256, b.locked_at
        );
        check_lines(&mut out, &self.checks.iter().collect::<Vec<_>>(), "");
        for r in &self.remotes {
            let _ = writeln!(
                out,
                "remote    {} ({}) {}",
                r.url,
                r.transport,
                verdict_word(r.verdict)
            );
            if let Some(reason) = &r.reason {
                let _ = writeln!(out, "          {reason}");
            }
            check_lines(&mut out, &r.checks.iter().collect::<Vec<_>>(), "          ");
        }
        for p in &self.packages {
            let _ = writeln!(
                out,
                "package   {}:{}@{} {}",
                p.registry_type,
                p.identifier,
                p.version.as_deref().unwrap_or("?"),
                verdict_word(p.verdict)
            );
            if let Some(reason) = &p.reason {
                let _ = writeln!(out, "          {reason}");
            }
            check_lines(&mut out, &p.checks.iter().collect::<Vec<_>>(), "          ");
        }
        out
    }
    fn checks(&self) -> Vec<&Check> {
        self.checks
            .iter()
            .chain(self.remotes.iter().flat_map(|r| r.checks.iter()))
            .chain(self.packages.iter().flat_map(|p| p.checks.iter()))
            .collect()
    }
    fn rows_markdown(&self) -> String {
        let mut out = String::from(
            "| compared | what | verdict | live sha256 |\n| --- | --- | --- | --- |\n",
        );
        let cell = |s: &str| s.replace('|', "\\|");
        for r in &self.remotes {
            let _ = writeln!(
                out,
                "| remote | {} ({}) | {} | {} |",
                cell(&r.url),
                cell(&r.transport),
                verdict_word(r.verdict),
                r.live_sha256
                    .as_deref()
                    .or(r.reason.as_deref())
                    .map(cell)
                    .unwrap_or_default()
            );
        }
        for p in &self.packages {
            let _ = writeln!(
                out,
                "| package | {}:{}@{} | {} | {} |",
                cell(&p.registry_type),
                cell(&p.identifier),
                cell(p.version.as_deref().unwrap_or("?")),
                verdict_word(p.verdict),
                p.live_sha256
                    .as_deref()
                    .or(p.reason.as_deref())
                    .map(cell)
                    .unwrap_or_default()
            );
        }
        out.push('\n');
        out
    }
}

fn verdict_word(v: RemoteVerdict) -> &'static str {
    match v {
        RemoteVerdict::Match => "match",
        RemoteVerdict::Mismatch => "MISMATCH",
        RemoteVerdict::Unverifiable => "unverifiable",
    }
}

impl Rendered for RegistryListReport {
    fn command(&self) -> &'static str {
        "registry list"
    }
    fn target(&self) -> String {
        self.registry.clone()
    }
    fn verdict(&self) -> String {
        format!(
            "{} server(s) in {} page(s) of {}{}",
            self.servers.len(),
            self.pages,
            self.registry,
            if self.truncated {
                " (page cap reached)"
            } else {
                ""
            }
        )
    }
    fn details(&self) -> String {
        let mut out = String::new();
        for s in &self.servers {
            let blocks = if s.blocks.is_empty() {
                "-".to_owned()
            } else {
                s.blocks.join("+")
            };
            let _ = writeln!(
                out,
                "{}  {}  {}  fingerprint:{}  {}",
                s.name,
                s.version.as_deref().unwrap_or("?"),
                s.status.as_deref().unwrap_or("?"),
                blocks,
                s.remotes.join(" ")
            );
        }
        out
    }
    fn checks(&self) -> Vec<&Check> {
        Vec::new()
    }
}

impl Rendered for CardCheckReport {
    fn command(&self) -> &'static str {
        "card check"
    }
    fn target(&self) -> String {
        self.url.clone()
    }
    fn verdict(&self) -> String {
        match self.verdict {
            CardVerdict::Consistent => format!(
                "consistent: {} card(s) of `{}` are valid and agree with the live server",
                self.cards.len(),
                self.url
            ),
            CardVerdict::Mismatch => format!(
                "mismatch: a card of `{}` is invalid or contradicts the live server",
                self.url
            ),
            CardVerdict::NoCard => format!("no card: none of the places of `{}` has one", self.url),
            CardVerdict::Unreachable => format!(
                "unreachable: `{}` could not be reached to reconcile its card: {}",
                self.url,
                self.live_error.as_deref().unwrap_or("no answer")
            ),
        }
    }
    fn details(&self) -> String {
        let mut out = String::new();
        for p in &self.probed {
            let status = p.status.map_or("-".into(), |s| s.to_string());
            let _ = writeln!(out, "asked     {} {status} ({})", p.url, p.place);
        }
        if let Some(l) = &self.live {
            let _ = writeln!(
                out,
                "live      {} {} era {} versions {}",
                l.name.as_deref().unwrap_or("?"),
                l.version.as_deref().unwrap_or("?"),
                l.era,
                l.supported_versions.join(",")
            );
        }
        for c in &self.cards {
            let _ = writeln!(out, "card      {} ({}, {})", c.url, c.place, c.shape);
            check_lines(&mut out, &c.checks.iter().collect::<Vec<_>>(), "          ");
        }
        out
    }
    fn checks(&self) -> Vec<&Check> {
        self.cards.iter().flat_map(|c| c.checks.iter()).collect()
    }
}
