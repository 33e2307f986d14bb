//! Renderers: one module per format, all reading the same data.
//!
//! Invariants every renderer keeps:
//!
//! - **No verdict is changed.** `ready`, the run state and the counts come from the report as the
//!   producer built it; a renderer only chooses words for them.
//! - **Nothing is un-redacted.** Evidence is printed from the JSON values as they are (credential
//!   values are already `[redacted]`); renderers may cut text, never add to it.
//! - **Stable order.** Findings are listed in [`Finding::report_order`] (rule id, title,
//!   observed), sorted on a copy of the references; the input is never mutated.
//! - **Pure.** A renderer returns a `String`; writing it (and deciding on colour) is the caller's.
//!
//! The probe report is one user of these renderers; surface drift reports (`check`, `diff`) reuse
//! the finding-level pieces: [`render_findings_text`], [`render_findings_markdown`] and
//! [`render_findings_sarif`].

mod anonymous;
mod document;
mod drift;
mod evidence;
pub(crate) mod json;
pub(crate) mod markdown;
pub mod palette;
mod profiles;
mod review;
mod rules;
pub(crate) mod sarif;
mod terminal;
pub(crate) mod text;
pub mod wrap;

use crate::format::Format;
use crate::model::{AccessRefusal, Finding, ProbeReport, RunState};

pub use document::{error_text, probe_notes, render_error, render_rpc, render_snapshot, rpc_notes};
pub use drift::{
    DriftOptions, check_notes, lock_notes, need_phrase, render_changes_text, render_check,
    render_diff, render_lock, render_verify, verify_notes,
};
pub use markdown::render_findings_markdown;
pub use profiles::{RenderProfile, profiles_notes, render_profiles};
pub use rules::render_rule_list;
pub use sarif::{ExecutionNotification, SarifRun, render_findings_sarif};
pub use terminal::Look;
pub use text::render_findings_text;

/// How to render, beyond the format.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RenderOptions {
    /// Text only: add the wire traffic behind each finding and the server's diagnostics.
    pub verbose: bool,
    /// Text only: emit ANSI colour escapes. Set it from the terminal decision (`--color`,
    /// `NO_COLOR`, tty); JSON, SARIF and Markdown ignore it and are never coloured.
    pub color: bool,
    /// SARIF only: the base URL of mcpseal's documentation, as [`DriftOptions::docs_url`]
    /// (`None`: no link to mcpseal's own pages).
    pub docs_url: Option<String>,
}

/// Renders a probe report in `format`.
///
/// The result ends with a newline. It is the same for the same report and options (no clock, no
/// environment), so it can be snapshot-tested.
pub fn render_probe(report: &ProbeReport, format: Format, opts: &RenderOptions) -> String {
    match format {
        Format::Text => text::render_probe(report, opts),
        Format::Json => json::render_probe(report),
        Format::Sarif => sarif::render_probe(report, opts.docs_url.as_deref()),
        Format::Markdown => markdown::render_probe(report),
    }
}

/// The access note of a run with authorization refusals, in one line: the metadata URL and
/// what was served without a credential (a note for people, never a finding).
pub(crate) fn access_note(a: &AccessRefusal) -> String {
    let mut parts = Vec::new();
    if let Some(url) = &a.resource_metadata {
        parts.push(format!("protected-resource metadata {url}"));
    }
    if a.credential_sent {
        parts.push("the credential sent was refused".to_owned());
    } else if a.anonymous.is_empty() {
        parts.push("nothing was served without a credential".to_owned());
    } else {
        parts.push(format!(
            "served without a credential (enumerable anonymously): {}",
            a.anonymous.join(", ")
        ));
    }
    parts.join("; ")
}

/// `findings` in report order, without copying or mutating them.
pub(crate) fn sorted(findings: &[Finding]) -> Vec<&Finding> {
    let mut refs: Vec<&Finding> = findings.iter().collect();
    refs.sort_by(|a, b| a.report_order(b));
    refs
}

/// How a probe run reads, in one word and one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// `READY`, `NOT READY`, `UNREACHABLE` or `INCOMPLETE`.
    pub word: &'static str,
    /// The rest of the line, after an em dash (may be empty).
    pub detail: String,
    /// True only for `READY`.
    pub good: bool,
}

impl Verdict {
    /// The verdict of `report`, from its state, `ready` flag and summary — never recomputed.
    pub fn of(report: &ProbeReport) -> Verdict {
        let errors = report.summary.errors;
        let checks = report.summary.checks;
        let breaking = || {
            format!(
                "{} across {}",
                plural(errors, "breaking issue", "breaking issues"),
                plural(checks, "check", "checks")
            )
        };
        match report.state {
            RunState::Unreachable => Verdict {
                word: "UNREACHABLE",
                // The reason is printed once, in the unreachable block above the verdict (text)
                // or the note under the heading (Markdown); the verdict line does not repeat it.
                detail: "no probe was answered".to_owned(),
                good: false,
            },
            RunState::Incomplete => Verdict {
                word: "INCOMPLETE",
                detail: match &report.incomplete {
                    Some(inc) => format!(
                        "{} of {} went unanswered, so the findings are partial; {}",
                        inc.failed,
                        plural(inc.probes, "probe", "probes"),
                        breaking()
                    ),
                    None => format!("some probes went unanswered; {}", breaking()),
                },
                good: false,
            },
            RunState::Measured if report.ready => Verdict {
                word: "READY",
                detail: match report.summary.warnings {
                    0 => format!(
                        "no breaking issues across {}",
                        plural(checks, "check", "checks")
                    ),
                    n => format!(
                        "no breaking issues across {}; {}",
                        plural(checks, "check", "checks"),
                        plural(n, "advisory", "advisories")
                    ),
                },
                good: true,
            },
            RunState::Measured => Verdict {
                word: "NOT READY",
                detail: breaking(),
                good: false,
            },
        }
    }

    /// `WORD — detail`.
    pub fn line(&self) -> String {
        if self.detail.is_empty() {
            self.word.to_owned()
        } else {
            format!("{} — {}", self.word, self.detail)
        }
    }
}

/// The sentence that splits error findings by who fixes them, or `None` without errors.
pub(crate) fn remediation_sentence(report: &ProbeReport) -> Option<String> {
    let s = &report.summary;
    if s.errors == 0 {
        return None;
    }
    let sdk = s.sdk_errors;
    let app = s.application_errors;
    Some(format!(
        "{sdk} of these {} when you upgrade your SDK; {app} {} your code",
        if sdk == 1 { "vanishes" } else { "vanish" },
        if app == 1 { "needs" } else { "need" },
    ))
}

/// `1 check`, `2 checks`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `850 ms`, `1.2 s`, `2 min 5 s`.
pub(crate) fn duration(ms: u64) -> String {
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{}.{} s", ms / 1_000, (ms % 1_000) / 100)
    } else {
        format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1_000)
    }
}

/// `text` on one line: control characters (newlines, tabs, escapes) shown as `\n`, `\t`,
/// `\u{1b}`, so a hostile server cannot draw on the terminal or break a table.
pub(crate) fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// `text` cut to at most `max` characters (on a character boundary), with `…` when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_counts_characters_not_bytes() {
        assert_eq!(cut("abc", 3), "abc");
        assert_eq!(cut("abcd", 3), "abc…");
        assert_eq!(cut("ééééé", 2), "éé…");
        assert_eq!(cut("", 0), "");
    }

    #[test]
    fn one_line_escapes_controls() {
        assert_eq!(one_line("a\nb\tc\u{1b}[31m"), "a\\nb\\tc\\u{1b}[31m");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(0), "0 ms");
        assert_eq!(duration(999), "999 ms");
        assert_eq!(duration(1_234), "1.2 s");
        assert_eq!(duration(125_000), "2 min 5 s");
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "check", "checks"), "1 check");
        assert_eq!(plural(0, "check", "checks"), "0 checks");
    }
}
