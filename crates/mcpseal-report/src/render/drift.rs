//! `lock`, `check`, `verify` and `diff` reports in every format, and the lines they add on
//! stderr for people.
//!
//! * text: the verdict line, the details, then the changes (most severe class first within
//!   the engine's path order);
//! * JSON: the report serialised with its keys sorted (objects at every level), pretty, one
//!   trailing newline;
//! * Markdown: `## mcpseal COMMAND`, the verdict, and the changes as finding tables;
//! * SARIF: each change a result of rule `drift/<class>`, `run.properties` = `{command,
//!   verdict, report}` (the JSON report).
//!
//! The verdict comes from the report (`matches`, `outcome`), never from a renderer.

use std::fmt::Write as _;

use mcpseal_surface::lock::{Need, Relation, Version};
use serde::Serialize;
use serde_json::{Map, Value};

use super::anonymous::{SKIPPED_LINE, anonymous_line, anonymous_table};
use super::review::{Line, REVIEW_ORDER, review, summary_line};
use super::sarif::{SarifRun, render_findings_sarif};
use crate::document::{
    CheckReport, DiffDocument, DiffReport, LockOutcome, LockReport, RefusalReason, VerifyReport,
    drift_findings, drift_rules,
};
use crate::format::Format;
use crate::model::ToolInfo;

/// What a drift report is made of, before choosing a format.
struct Drift<'a> {
    command: &'static str,
    target: &'a str,
    verdict: String,
    text: String,
    json: Value,
    diff: &'a DiffDocument,
    options: &'a DriftOptions,
}

/// How to render a drift report, beyond the format.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DriftOptions {
    /// Text and Markdown: every change on its own line in path order (`--full`), instead of
    /// the review order with repeated `$schema` changes folded.
    pub full: bool,
    /// Markdown: the base URL of mcpseal's documentation (the repository's tree, e.g.
    /// `https://github.com/OWNER/mcpseal/blob/main`); `None` names `SPEC.md` without a link,
    /// so a report never links to a page that may not exist.
    pub docs_url: Option<String>,
}

pub(super) fn pretty(value: &Value) -> String {
    let mut out = serde_json::to_string_pretty(value).unwrap_or_else(|e| {
        serde_json::json!({ "error": format!("cannot serialise the report: {e}") }).to_string()
    });
    out.push('\n');
    out
}

pub(super) fn json_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

fn render(format: Format, d: &Drift<'_>, tool: &ToolInfo) -> String {
    match format {
        Format::Text => d.text.clone(),
        Format::Json => pretty(&d.json),
        Format::Markdown => format!(
            "## mcpseal {}\n\n{}\n\n{}",
            d.command,
            super::markdown::cell(&d.verdict),
            render_changes_markdown(d.diff, d.options)
        ),
        Format::Sarif => {
            let rules = drift_rules();
            let found = drift_findings(&d.diff.changes);
            let mut properties = Map::new();
            properties.insert("command".into(), Value::from(d.command));
            properties.insert("verdict".into(), Value::from(d.verdict.clone()));
            properties.insert("report".into(), d.json.clone());
            render_findings_sarif(&SarifRun {
                tool,
                target: d.target,
                rules: &rules,
                findings: &found,
                execution_successful: true,
                notifications: Vec::new(),
                start_time_utc: None,
                properties,
                docs_url: d.options.docs_url.as_deref(),
            })
        }
    }
}

/// The changes as text: the summary line, then one line per change in review order
/// (security, breaking, additive, cosmetic, unjudged), or every change in path order with `full`; empty without
/// changes.
pub fn render_changes_text(diff: &DiffDocument, full: bool) -> String {
    let mut out = String::new();
    if diff.is_empty() {
        return out;
    }
    let _ = writeln!(out, "{}", summary_line(diff));
    for line in review(diff, full) {
        let class = line.class().as_str().to_uppercase();
        let (path, why) = line.words();
        let _ = writeln!(out, "  {class:<9} {path}  {why}");
    }
    out
}

/// The changes as Markdown: the summary line, one table per class in review order (`full`:
/// without folding), and where the classes are defined.
fn render_changes_markdown(diff: &DiffDocument, options: &DriftOptions) -> String {
    changes_markdown(diff, options, "###")
}

/// [`render_changes_markdown`] with each class under a `heading` (`###`, or `####` inside a
/// profile's section).
pub(super) fn changes_markdown(
    diff: &DiffDocument,
    options: &DriftOptions,
    heading: &str,
) -> String {
    use super::markdown::{cell, code};
    let mut out = String::new();
    if diff.is_empty() {
        out.push_str("No surface change.\n");
        return out;
    }
    let _ = writeln!(out, "{}", cell(&summary_line(diff)));
    let lines = review(diff, options.full);
    for class in REVIEW_ORDER {
        let group: Vec<_> = lines.iter().filter(|l| l.class() == class).collect();
        if group.is_empty() {
            continue;
        }
        let count: usize = group
            .iter()
            .map(|l| match l {
                Line::One(_) => 1,
                Line::Folded(cs) => cs.len(),
            })
            .sum();
        let _ = writeln!(
            out,
            "\n{heading} {} ({count})\n\n| item | where | change |\n| --- | --- | --- |",
            class.as_str().to_uppercase()
        );
        for line in group {
            let (path, why) = line.words();
            let item = match line {
                Line::One(c) => c.item.as_deref().unwrap_or("—"),
                Line::Folded(_) => "several",
            };
            let _ = writeln!(out, "| {} | {} | {} |", cell(item), code(&path), cell(&why));
        }
    }
    let spec = "SPEC.md#93-rules";
    let _ = match &options.docs_url {
        Some(base) => writeln!(
            out,
            "\nClasses and the bumps they need: [SPEC §9.3]({}/{spec}).",
            base.trim_end_matches('/')
        ),
        None => writeln!(
            out,
            "\nClasses and the bumps they need: SPEC §9.3 (`SPEC.md` in mcpseal's repository)."
        ),
    };
    out
}

/// What a change needs, in words relative to the locked version ("a new minor", "a new major
/// or 0.x line"…); "a higher version" when the locked version does not parse. `lock` refusals
/// and `check` errors name the same requirement.
pub fn need_phrase(need: Need, locked: &str) -> &'static str {
    Version::parse(locked).map_or("a higher version", |v| need.phrase(&v))
}

fn lock_verdict(r: &LockReport) -> String {
    let v = r.version.clone().unwrap_or_default();
    let path = &r.lock;
    let locked = r.locked_version.clone().unwrap_or_default();
    match r.outcome {
        LockOutcome::Created => format!("locked `{path}` at {v}"),
        LockOutcome::Restamped => {
            format!("surface unchanged: re-stamped `{path}` from {locked} to {v}")
        }
        LockOutcome::Accepted => format!("surface changed: locked `{path}` at {v} (was {locked})"),
        LockOutcome::ExclusionsUpdated => {
            format!("surface unchanged: updated the exclusions of `{path}`")
        }
        LockOutcome::AnonymousRecorded => {
            format!("surface unchanged: recorded anonymous access in `{path}` at {v}")
        }
        LockOutcome::UpToDate => format!("up to date: `{path}` already locks this surface at {v}"),
        LockOutcome::Refused => format!("refused: `{path}` is untouched"),
        LockOutcome::Volatile => {
            format!("refused: the surface changed between two captures; `{path}` is untouched")
        }
    }
}

/// A lock report in `format`.
pub fn render_lock(
    r: &LockReport,
    format: Format,
    tool: &ToolInfo,
    options: &DriftOptions,
) -> String {
    let verdict = lock_verdict(r);
    let mut text = format!("{verdict}\n");
    if let (Some(v), Some(source)) = (&r.version, &r.version_source) {
        let _ = writeln!(text, "version  {v} (from {source})");
    }
    if let Some(rv) = &r.reported_version {
        let _ = writeln!(text, "server   reports {rv}");
    }
    let _ = writeln!(text, "{}  {}", r.form, r.sha256);
    for p in &r.exclude {
        let _ = writeln!(text, "exclude  {p}");
    }
    if let Some(a) = &r.anonymous {
        text.push_str(&anonymous_table(a));
    }
    if r.anonymous_skipped {
        text.push_str(SKIPPED_LINE);
    }
    if let Some(p) = &r.profile {
        let _ = writeln!(text, "profile  {p}");
    }
    text.push_str(&render_changes_text(&r.diff, options.full));
    render(
        format,
        &Drift {
            command: "lock",
            target: &r.target,
            verdict,
            text,
            json: json_value(r),
            diff: &r.diff,
            options,
        },
        tool,
    )
}

/// The lines `lock` adds on stderr: why it refused and what to do, or a warning that
/// security-class changes were locked.
pub fn lock_notes(r: &LockReport) -> Vec<String> {
    let mut notes: Vec<String> = r.warnings.iter().map(|w| format!("warning: {w}")).collect();
    let security = r.diff.summary.security;
    if r.outcome.written() && security > 0 {
        notes.push(format!(
            "warning: {security} security-class change(s) locked (see SECURITY above): review them; `--deny-security` refuses them"
        ));
    }
    let path = &r.lock;
    match (r.outcome, &r.refusal) {
        (LockOutcome::Refused, Some(refusal)) => {
            let v = r.version.clone().unwrap_or_else(|| "?".into());
            let locked = r.locked_version.clone().unwrap_or_default();
            let accepted = r.accepted_from.clone().unwrap_or_default();
            let (message, hint) = match refusal.reason {
                RefusalReason::UnchangedLowerVersion => (
                    format!("refused: the surface is unchanged but {v} is lower than the locked {locked} (an old branch or a wrong tag?); `{path}` is untouched"),
                    format!("lock from the release that carries {locked} or a later version; a lock is never re-stamped downwards"),
                ),
                RefusalReason::Security => (
                    format!("refused: the surface has security-class changes and `--deny-security` is set; `{path}` is untouched"),
                    "review the SECURITY changes; lock without `--deny-security` once they are intended".to_owned(),
                ),
                reason => {
                    let why = match reason {
                        RefusalReason::SameVersion => format!("the surface changed but the version is still {v}"),
                        RefusalReason::LowerVersion => format!("the surface changed under {v}, lower than the locked {locked}"),
                        RefusalReason::BreakWithoutNewLine => format!("a contract break needs {}, and {locked} → {v} stays on the same compatibility line", need_phrase(refusal.need, &locked)),
                        _ => format!("`--strict-semver`: additive or security changes need a new minor, and {locked} → {v} is not one"),
                    };
                    (
                        format!("refused: {why}; `{path}` is untouched"),
                        format!("bump the server's version to {accepted} or higher, then run `mcpseal lock` again"),
                    )
                }
            };
            notes.push(format!("error: {message}\nhint: {hint}"));
        }
        (LockOutcome::Volatile, _) => {
            let mut items: Vec<String> = r
                .diff
                .changes
                .iter()
                .map(|c| c.item.clone().unwrap_or_else(|| c.path.clone()))
                .collect();
            items.dedup();
            let first = r
                .diff
                .changes
                .first()
                .map_or("/…".to_owned(), |c| c.path.clone());
            notes.push(format!(
                "error: the surface changed between two captures ({}); a volatile surface cannot be locked\nhint: leave the volatile part out of the hash: `--exclude {first}`",
                items.join(", ")
            ));
        }
        _ => {}
    }
    notes
}

pub(super) fn check_verdict(r: &CheckReport) -> String {
    let (path, locked, v) = (&r.lock, &r.locked_version, &r.version);
    if r.matches && !r.passed() {
        let reported = r.reported_version.as_deref().unwrap_or_default();
        format!(
            "version: the surface is the one locked in `{path}` ({locked}), but the server reports {reported}, lower"
        )
    } else if r.matches {
        format!("ok: the surface is the one locked in `{path}` ({locked})")
    } else {
        format!("drift: the surface differs from the one locked in `{path}` ({locked}) under {v}")
    }
}

/// A check report in `format`.
pub fn render_check(
    r: &CheckReport,
    format: Format,
    tool: &ToolInfo,
    options: &DriftOptions,
) -> String {
    let verdict = check_verdict(r);
    let mut text = format!("{verdict}\n");
    let _ = writeln!(text, "version  {} (from {})", r.version, r.version_source);
    for p in &r.exclude {
        let _ = writeln!(text, "exclude  {p} (not compared)");
    }
    text.push_str(anonymous_line(r.anonymous));
    if let Some(p) = &r.profile {
        let _ = writeln!(text, "profile  {p}");
    }
    text.push_str(&render_changes_text(&r.diff, options.full));
    render(
        format,
        &Drift {
            command: "check",
            target: &r.target,
            verdict,
            text,
            json: json_value(r),
            diff: &r.diff,
            options,
        },
        tool,
    )
}

/// The lines `check` adds on stderr: why the surface does not pass and what to do, or a note
/// that the lock can be re-stamped.
pub fn check_notes(r: &CheckReport) -> Vec<String> {
    let (path, locked, v) = (&r.lock, &r.locked_version, &r.version);
    let failed_version = r.strict_version && r.reported_below_lock;
    let mut notes: Vec<String> = r
        .warnings
        .iter()
        .map(|w| {
            if failed_version && r.matches {
                format!("error: {w}\nhint: deploy the locked build (or a newer one), or drop `--strict-version`")
            } else {
                format!("warning: {w}")
            }
        })
        .collect();
    if r.matches {
        if r.relation == Relation::Higher {
            notes.push(format!(
                "note: the server is at {v}, the lock at {locked}: `mcpseal lock` will re-stamp it, so that a later change under {v} is caught"
            ));
        }
        return notes;
    }
    let accepted = r.accepted_from.clone().unwrap_or_default();
    let need = need_phrase(r.need, locked);
    // The need is in mcpseal's words (on 0.x a break needs a new minor); semver's generic
    // bump would contradict it there ("a new minor … (semver bump: major)"), so it is left out.
    notes.push(match r.relation {
        Relation::Higher if r.lock_would_accept => format!(
            "error: the surface changed and the version went up ({locked} → {v}), but the lock was not rewritten; the bump satisfies the rules\nhint: re-lock with `mcpseal lock` and commit `{path}`"
        ),
        Relation::Higher => format!(
            "error: the surface changed under {v}, and {locked} → {v} does not satisfy the rules: the change needs {need} ({accepted} or higher)\nhint: bump the version to {accepted} or higher, then re-lock with `mcpseal lock`"
        ),
        _ => format!(
            "error: the surface changed but the version is {v} (locked: {locked}); the change needs {need}\nhint: bump the server's version to {accepted} or higher, then run `mcpseal lock`"
        ),
    });
    notes
}

pub(super) fn verify_verdict(r: &VerifyReport) -> String {
    let (shown, path, locked) = (&r.target, &r.lock, &r.locked_version);
    if r.matches {
        format!("verified: `{shown}` serves the surface locked in `{path}` ({locked})")
    } else {
        format!("drift: `{shown}` does not serve the surface locked in `{path}` ({locked})")
    }
}

fn version_line(r: &VerifyReport) -> String {
    let locked = &r.locked_version;
    match (&r.reported_version, r.reported_is_locked) {
        (Some(v), Some(true)) => format!("the server reports {v}, the locked version"),
        (Some(v), Some(false)) => format!("the server reports {v}, not the locked {locked}"),
        (Some(v), None) => format!("the server reports `{v}` (not semver; locked: {locked})"),
        (None, _) => format!("the server reports no version (locked: {locked})"),
    }
}

/// A verify report in `format`.
pub fn render_verify(
    r: &VerifyReport,
    format: Format,
    tool: &ToolInfo,
    options: &DriftOptions,
) -> String {
    let verdict = verify_verdict(r);
    let mut text = format!("{verdict}\n");
    let _ = writeln!(text, "version  {}", version_line(r));
    let _ = writeln!(text, "locked   {}", r.locked_sha256);
    let _ = writeln!(text, "live     {}", r.live_sha256);
    for p in &r.exclude {
        let _ = writeln!(text, "exclude  {p} (not compared)");
    }
    text.push_str(anonymous_line(r.anonymous));
    if let Some(p) = &r.profile {
        let _ = writeln!(text, "profile  {p}");
    }
    text.push_str(&render_changes_text(&r.diff, options.full));
    render(
        format,
        &Drift {
            command: "verify",
            target: &r.target,
            verdict,
            text,
            json: json_value(r),
            diff: &r.diff,
            options,
        },
        tool,
    )
}

/// The lines `verify` adds on stderr when the endpoint drifted.
pub fn verify_notes(r: &VerifyReport) -> Vec<String> {
    if r.matches {
        return Vec::new();
    }
    vec![format!(
        "error: the deployed surface drifted from the lock ({} change(s))\nhint: deploy the locked build, or bump the version and run `mcpseal lock` for the new surface",
        r.diff.changes.len().max(1)
    )]
}

/// A diff report in `format`.
pub fn render_diff(
    r: &DiffReport,
    format: Format,
    tool: &ToolInfo,
    options: &DriftOptions,
) -> String {
    let diff = &r.diff;
    let verdict = if diff.is_empty() {
        "no surface change".to_owned()
    } else {
        format!(
            "{} change(s); semver bump needed: {}",
            diff.changes.len(),
            diff.required_bump.as_str()
        )
    };
    let text = if diff.is_empty() {
        format!("{verdict}\n")
    } else {
        render_changes_text(diff, options.full)
    };
    render(
        format,
        &Drift {
            command: "diff",
            target: &r.b.source,
            verdict,
            text,
            json: json_value(r),
            diff,
            options,
        },
        tool,
    )
}
