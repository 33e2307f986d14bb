//! `check` and `verify` of every profile of a lock, in every format, and their stderr lines.
//!
//! * text: the overall verdict line, then one section per profile (`== profile NAME: VERDICT`)
//!   holding what `--profile NAME` prints for it, or its error and hint;
//! * JSON: the report, pretty, keys as typed;
//! * Markdown: `## mcpseal COMMAND`, the overall verdict, then `### profile NAME` with that
//!   profile's verdict and change tables (or its error);
//! * SARIF: one run whose results are every profile's changes (their paths name the profile);
//!   a profile without a verdict is an error notification and makes the run unsuccessful. The
//!   run's location is the lock file: the profiles have different targets, and one run per
//!   profile would be several runs of one tool, which code scanning refuses.
//!
//! The verdict comes from the report (each section's `verdict`), never from a renderer.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Map, Value};

use super::drift::{
    DriftOptions, changes_markdown, check_notes, check_verdict, json_value, pretty, render_check,
    render_verify, verify_notes, verify_verdict,
};
use super::sarif::{ExecutionNotification, SarifRun, render_findings_sarif};
use crate::document::{
    CheckReport, DiffDocument, ErrorBody, ProfileOutcome, ProfileVerdict, ProfilesReport,
    VerifyReport, drift_findings, drift_rules,
};
use crate::format::Format;
use crate::model::{Severity, ToolInfo};

/// One profile's section, whatever the command.
struct Section<'a> {
    name: &'a str,
    verdict: ProfileVerdict,
    /// The profile's own report: its verdict line, its text and its changes.
    judged: Option<(String, String, &'a DiffDocument)>,
    error: Option<&'a ErrorBody>,
}

/// A whole report, whatever the command.
struct Profiles<'a> {
    command: &'static str,
    lock: &'a str,
    sections: Vec<Section<'a>>,
    json: Value,
    diff: &'a DiffDocument,
}

fn word(v: ProfileVerdict) -> &'static str {
    match v {
        ProfileVerdict::Passed => "passed",
        ProfileVerdict::Failed => "failed",
        ProfileVerdict::NoVerdict => "no verdict",
    }
}

fn names(p: &Profiles<'_>, verdict: ProfileVerdict) -> Vec<String> {
    p.sections
        .iter()
        .filter(|s| s.verdict == verdict)
        .map(|s| format!("`{}`", s.name))
        .collect()
}

fn verdict(p: &Profiles<'_>) -> String {
    let lock = p.lock;
    let all: Vec<String> = p.sections.iter().map(|s| s.name.to_owned()).collect();
    let failed = names(p, ProfileVerdict::Failed);
    let unjudged = names(p, ProfileVerdict::NoVerdict);
    if !unjudged.is_empty() {
        let mut line = format!(
            "no verdict: profile {} of `{lock}` could not be judged",
            unjudged.join(", ")
        );
        if !failed.is_empty() {
            let _ = write!(line, "; profile {} differs", failed.join(", "));
        }
        line
    } else if !failed.is_empty() {
        format!(
            "drift: profile {} differs from the one locked in `{lock}` ({} of {} profiles)",
            failed.join(", "),
            failed.len(),
            all.len()
        )
    } else {
        format!(
            "ok: every profile is the one locked in `{lock}` ({})",
            all.join(", ")
        )
    }
}

fn render(format: Format, p: &Profiles<'_>, tool: &ToolInfo, options: &DriftOptions) -> String {
    let verdict = verdict(p);
    match format {
        Format::Json => pretty(&p.json),
        Format::Text => {
            let mut out = format!("{verdict}\n");
            for s in &p.sections {
                let _ = writeln!(out, "\n== profile {}: {}", s.name, word(s.verdict));
                if let Some((_, text, _)) = &s.judged {
                    out.push_str(text);
                }
                if let Some(e) = s.error {
                    let _ = writeln!(out, "error: {}", e.message);
                    if let Some(h) = &e.hint {
                        let _ = writeln!(out, "hint: {h}");
                    }
                }
            }
            out
        }
        Format::Markdown => {
            use super::markdown::{cell, code};
            let mut out = format!("## mcpseal {}\n\n{}\n", p.command, cell(&verdict));
            for s in &p.sections {
                let _ = writeln!(out, "\n### profile {}: {}\n", code(s.name), word(s.verdict));
                if let Some((line, _, diff)) = &s.judged {
                    let _ = writeln!(out, "{}\n", cell(line));
                    out.push_str(&changes_markdown(diff, options, "####"));
                }
                if let Some(e) = s.error {
                    let _ = writeln!(out, "{}", cell(&format!("error: {}", e.message)));
                    if let Some(h) = &e.hint {
                        let _ = writeln!(out, "\n{}", cell(&format!("hint: {h}")));
                    }
                }
            }
            out
        }
        Format::Sarif => {
            let rules = drift_rules();
            let found = drift_findings(&p.diff.changes);
            let notifications: Vec<ExecutionNotification> = p
                .sections
                .iter()
                .filter_map(|s| {
                    s.error.map(|e| ExecutionNotification {
                        level: Severity::Error,
                        rule_id: None,
                        message: format!("profile `{}` could not be judged: {}", s.name, e.message),
                    })
                })
                .collect();
            let mut properties = Map::new();
            properties.insert("command".into(), Value::from(p.command));
            properties.insert("verdict".into(), Value::from(verdict));
            properties.insert("report".into(), p.json.clone());
            render_findings_sarif(&SarifRun {
                tool,
                target: p.lock,
                rules: &rules,
                findings: &found,
                execution_successful: notifications.is_empty(),
                notifications,
                start_time_utc: None,
                properties,
                docs_url: options.docs_url.as_deref(),
            })
        }
    }
}

/// What the renderer needs of one profile's own report: its verdict line, its text and its
/// stderr lines, as `COMMAND --profile NAME` has them.
pub trait RenderProfile: ProfileOutcome + Serialize {
    /// The report's verdict line.
    fn verdict_line(&self) -> String;
    /// The report in text.
    fn text(&self, tool: &ToolInfo, options: &DriftOptions) -> String;
    /// The lines the command adds on stderr for the report.
    fn notes(&self) -> Vec<String>;
}

impl RenderProfile for CheckReport {
    fn verdict_line(&self) -> String {
        check_verdict(self)
    }

    fn text(&self, tool: &ToolInfo, options: &DriftOptions) -> String {
        render_check(self, Format::Text, tool, options)
    }

    fn notes(&self) -> Vec<String> {
        check_notes(self)
    }
}

impl RenderProfile for VerifyReport {
    fn verdict_line(&self) -> String {
        verify_verdict(self)
    }

    fn text(&self, tool: &ToolInfo, options: &DriftOptions) -> String {
        render_verify(self, Format::Text, tool, options)
    }

    fn notes(&self) -> Vec<String> {
        verify_notes(self)
    }
}

/// `check` or `verify` of every profile in `format` (see the module docs).
pub fn render_profiles<R: RenderProfile>(
    r: &ProfilesReport<R>,
    format: Format,
    tool: &ToolInfo,
    options: &DriftOptions,
) -> String {
    let sections = r
        .profiles
        .iter()
        .map(|s| Section {
            name: &s.profile,
            verdict: s.verdict,
            judged: s
                .report
                .as_ref()
                .map(|one| (one.verdict_line(), one.text(tool, options), one.diff())),
            error: s.error.as_ref(),
        })
        .collect();
    let p = Profiles {
        command: R::COMMAND,
        lock: &r.lock,
        sections,
        json: json_value(r),
        diff: &r.diff,
    };
    render(format, &p, tool, options)
}

/// `note` (an `error: …`, `warning: …` or `note: …` line, maybe with a `hint:` line) with the
/// profile named after its prefix.
fn named(profile: &str, note: &str) -> String {
    for prefix in ["error: ", "warning: ", "note: "] {
        if let Some(rest) = note.strip_prefix(prefix) {
            return format!("{prefix}profile `{profile}`: {rest}");
        }
    }
    format!("profile `{profile}`: {note}")
}

fn error_note(profile: &str, e: &ErrorBody) -> String {
    match &e.hint {
        Some(h) => format!("error: profile `{profile}`: {}\nhint: {h}", e.message),
        None => format!("error: profile `{profile}`: {}", e.message),
    }
}

/// The lines `check` or `verify` of every profile adds on stderr: each profile's own, naming it.
pub fn profiles_notes<R: RenderProfile>(r: &ProfilesReport<R>) -> Vec<String> {
    let mut notes = Vec::new();
    for s in &r.profiles {
        if let Some(one) = &s.report {
            notes.extend(one.notes().iter().map(|n| named(&s.profile, n)));
        }
        if let Some(e) = &s.error {
            notes.push(error_note(&s.profile, e));
        }
    }
    notes
}
