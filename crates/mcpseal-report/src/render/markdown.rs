//! Markdown, for `$GITHUB_STEP_SUMMARY` and pull-request comments (GitHub-flavoured tables).
//!
//! Layout: a verdict heading, a line `target · transport · duration · revision · tool`, a note
//! when the run was unreachable or incomplete, a "Breaking" table (rule | issue | observed |
//! fixed by), an "Advisories" table, the SDK-versus-your-code sentence, and crashed rules.
//!
//! Everything that came from a server or a rule is escaped for a table cell: `\`, `|`, `<`, `>`
//! and `&` are escaped, newlines become `<br>`, other control characters are shown as
//! `\u{…}`; so a hostile value cannot break the table or inject HTML. Rule ids link to their spec
//! page. Cells longer than [`MAX_CELL`] characters are cut.

use std::fmt::Write as _;

use super::{Verdict, cut, duration, plural, sorted};
use crate::model::{Finding, ProbeReport, Remediation, RunState, Severity};

/// The most characters of server-supplied text a table cell shows.
pub(crate) const MAX_CELL: usize = 300;

/// `text` made safe for one GitHub-flavoured Markdown table cell.
pub(crate) fn cell(text: &str) -> String {
    let text = cut(text.trim(), MAX_CELL);
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' | '\n' => out.push_str("<br>"),
            c if c.is_control() => out.push_str(&c.escape_unicode().to_string()),
            c => out.push(c),
        }
    }
    out
}

/// `text` as an inline code span that survives backticks and pipes inside it.
pub(crate) fn code(text: &str) -> String {
    let one = super::one_line(text);
    let longest = one.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if one.starts_with('`') || one.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{one}{pad}{fence}")
}

/// A URL made safe for `[text](url)` inside a table cell.
fn link_target(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.trim().chars() {
        match c {
            '|' => out.push_str("%7C"),
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '`' => out.push_str("%60"),
            '\\' => out.push_str("%5C"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

fn fixed_by(remediation: Remediation) -> &'static str {
    match remediation {
        Remediation::Sdk => "SDK upgrade",
        Remediation::Application => "your code",
    }
}

fn rule_cell(f: &Finding) -> String {
    let id = cell(&f.rule_id);
    let spec = f.spec_ref.trim();
    if spec.starts_with("http://") || spec.starts_with("https://") {
        format!("[{id}]({})", link_target(spec))
    } else {
        id
    }
}

fn table(out: &mut String, findings: &[&Finding]) {
    out.push_str("| rule | issue | observed | fixed by |\n");
    out.push_str("| --- | --- | --- | --- |\n");
    for f in findings {
        let issue = if f.fix.trim().is_empty() {
            cell(&f.title)
        } else {
            format!("{}<br>*Fix:* {}", cell(&f.title), cell(&f.fix))
        };
        let _ = writeln!(
            out,
            "| {} | {issue} | {} | {} |",
            rule_cell(f),
            cell(&f.observed),
            fixed_by(f.remediation)
        );
    }
}

/// The "Breaking (N)" and "Advisories (N)" tables (level-3 headings) for `findings` of any
/// report type. Empty tables are left out; no findings at all renders as `No findings.`
pub fn render_findings_markdown(findings: &[Finding]) -> String {
    let mut out = String::new();
    let sorted = sorted(findings);
    for (heading, severity) in [
        ("Breaking", Severity::Error),
        ("Advisories", Severity::Warning),
    ] {
        let list: Vec<&Finding> = sorted
            .iter()
            .copied()
            .filter(|f| f.severity == severity)
            .collect();
        if list.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "### {heading} ({})\n", list.len());
        table(&mut out, &list);
    }
    if out.is_empty() {
        out.push_str("No findings.\n");
    }
    out
}

/// The whole probe report as Markdown.
pub(crate) fn render_probe(report: &ProbeReport) -> String {
    let mut out = String::new();
    let verdict = Verdict::of(report);
    let _ = writeln!(
        out,
        "## mcpseal probe: **{}**{}\n",
        verdict.word,
        if verdict.detail.is_empty() {
            String::new()
        } else {
            format!(" — {}", cell(&verdict.detail))
        }
    );
    let _ = writeln!(
        out,
        "{} · {} · {} · MCP {}{} · {} {}\n",
        code(&report.target),
        cell(&report.transport),
        duration(report.duration_ms),
        cell(&report.target_revision),
        report
            .protocol_version
            .as_ref()
            .map(|v| format!(" (server negotiated {})", cell(v)))
            .unwrap_or_default(),
        cell(&report.tool.name),
        cell(&report.tool.version),
    );
    match report.state {
        RunState::Measured => {}
        RunState::Unreachable => {
            let _ = writeln!(
                out,
                "> **Unreachable:** {}. No rule ran, so zero findings says nothing about the \
                 server.\n",
                cell(
                    report
                        .unreachable
                        .as_deref()
                        .unwrap_or("no probe was answered")
                )
            );
        }
        RunState::Incomplete => {
            let what = match &report.incomplete {
                Some(inc) => format!(
                    "{} of {} went unanswered (first failure: {})",
                    inc.failed,
                    plural(inc.probes, "probe", "probes"),
                    cell(&inc.reason)
                ),
                None => "some probes went unanswered".to_owned(),
            };
            let _ = writeln!(
                out,
                "> **Incomplete:** {what}. The findings below are what the answered probes \
                 proved; the run can never be ready.\n"
            );
            if let Some(a) = &report.access {
                let _ = writeln!(out, "> **Access:** {}\n", cell(&super::access_note(a)));
            }
        }
    }
    if report.state != RunState::Unreachable {
        out.push_str(&render_findings_markdown(&report.findings));
        let s = &report.summary;
        if s.errors > 0 {
            let _ = writeln!(
                out,
                "\nOf the {}, {} when you upgrade your SDK; {} your code.",
                plural(s.errors, "breaking issue", "breaking issues"),
                if s.sdk_errors == 1 {
                    "1 vanishes".to_owned()
                } else {
                    format!("{} vanish", s.sdk_errors)
                },
                if s.application_errors == 1 {
                    "1 needs".to_owned()
                } else {
                    format!("{} need", s.application_errors)
                },
            );
        }
    }
    if !report.crashed_rules.is_empty() {
        let _ = writeln!(
            out,
            "\n### Crashed rules ({})\n\n| rule | error |\n| --- | --- |",
            report.crashed_rules.len()
        );
        let mut crashed: Vec<_> = report.crashed_rules.iter().collect();
        crashed.sort_by(|a, b| a.rule_id.cmp(&b.rule_id));
        for rule in crashed {
            let _ = writeln!(out, "| {} | {} |", cell(&rule.rule_id), cell(&rule.error));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_cannot_break_the_table() {
        assert_eq!(cell("a|b"), "a\\|b");
        assert_eq!(cell("a\\|b"), "a\\\\\\|b");
        assert_eq!(cell("one\r\ntwo\nthree"), "one<br>two<br>three");
        assert_eq!(cell("<script>&"), "&lt;script&gt;&amp;");
        assert_eq!(cell("x\u{1b}[31m"), "x\\u{1b}[31m");
    }

    /// GitHub renders a code span inside a table cell; an escaped backtick shows as a literal
    /// one. Backticks cannot break a row (cells split on unescaped `|` first).
    #[test]
    fn cells_keep_code_spans() {
        assert_eq!(cell("tool `clock` removed"), "tool `clock` removed");
        assert_eq!(cell("`a|b`"), "`a\\|b`");
    }

    #[test]
    fn code_spans_survive_backticks() {
        assert_eq!(code("npx server"), "`npx server`");
        assert_eq!(code("a `b` c"), "``a `b` c``");
        assert_eq!(code("`x`"), "`` `x` ``");
    }

    #[test]
    fn links_are_escaped() {
        assert_eq!(
            link_target("https://x/a b|(c)"),
            "https://x/a%20b%7C%28c%29"
        );
    }
}
