//! The human-readable report.
//!
//! Layout: a header (tool, revision, target, transport), a prominent block when the run was
//! unreachable or incomplete, "Breaking (N)" (errors, `×`) and "Advisories (N)" (warnings, `!`)
//! with observed / expected / fix / spec per finding and a `(SDK)` or `(your code)` tag, crashed
//! rules, and a closing verdict (`READY`, `NOT READY — …`, `UNREACHABLE — …`, `INCOMPLETE — …`)
//! with the SDK-versus-your-code sentence and the run time. `verbose` adds the wire traffic behind
//! each finding and the server's diagnostics.
//!
//! Colour is ANSI escapes in the one palette ([`super::palette`]), only when asked for; every piece of meaning is also in
//! the words and symbols, so the text reads right without colour. Text that came from a server
//! (observed values, traffic, diagnostics) has its control characters escaped, so it cannot move
//! the cursor or recolour the terminal.

use std::fmt::Write as _;

use anstyle::Style;

use super::evidence::{self, Direction};
use super::{
    RenderOptions, Verdict, cut, duration, one_line, plural, remediation_sentence, sorted,
};
use crate::model::{Finding, ProbeReport, Remediation, RunState, Severity};

const INDENT: &str = "  ";
const DETAIL: &str = "      ";
const TRAFFIC: &str = "        ";

use super::palette::{
    bold, dim, error as error_style, good as good_style, warning as warning_style,
};

/// `text` wrapped in `style` when colour is on.
fn paint(text: &str, style: Style, opts: &RenderOptions) -> String {
    super::palette::paint(text, style, opts.color)
}

/// `(SDK)` or `(your code)`.
pub(crate) fn remediation_tag(remediation: Remediation) -> &'static str {
    match remediation {
        Remediation::Sdk => "(SDK)",
        Remediation::Application => "(your code)",
    }
}

/// The "Breaking (N)" and "Advisories (N)" sections for `findings` (any report type: probe or
/// surface drift), each finding with observed / expected / fix / spec, its remediation tag, and
/// with `opts.verbose` the traffic behind it. Empty sections are left out; no findings at all
/// renders as the line `No findings.`
pub fn render_findings_text(findings: &[Finding], opts: &RenderOptions) -> String {
    let mut out = String::new();
    let sorted = sorted(findings);
    let errors: Vec<&Finding> = sorted
        .iter()
        .copied()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    let warnings: Vec<&Finding> = sorted
        .iter()
        .copied()
        .filter(|f| f.severity == Severity::Warning)
        .collect();
    if errors.is_empty() && warnings.is_empty() {
        out.push_str("No findings.\n");
        return out;
    }
    for (heading, symbol, style, list) in [
        ("Breaking", "×", error_style(), &errors),
        ("Advisories", "!", warning_style(), &warnings),
    ] {
        if list.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        let heading = format!("{heading} ({})", list.len());
        let _ = writeln!(out, "{}\n", paint(&heading, bold(), opts));
        for (i, finding) in list.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            finding_block(&mut out, finding, symbol, style, opts);
        }
    }
    out
}

fn finding_block(out: &mut String, f: &Finding, symbol: &str, style: Style, opts: &RenderOptions) {
    let _ = writeln!(
        out,
        "{INDENT}{} {}  {}  {}",
        paint(symbol, style, opts),
        paint(&one_line(&f.rule_id), style, opts),
        one_line(&f.title),
        paint(remediation_tag(f.remediation), dim(), opts),
    );
    for (label, value) in [
        ("observed", &f.observed),
        ("expected", &f.expected),
        ("fix     ", &f.fix),
        ("spec    ", &f.spec_ref),
    ] {
        if value.is_empty() {
            continue;
        }
        let _ = writeln!(
            out,
            "{DETAIL}{} {}",
            paint(label, dim(), opts),
            one_line(value)
        );
    }
    if !opts.verbose {
        return;
    }
    if f.evidence.is_empty() {
        let _ = writeln!(
            out,
            "{DETAIL}{}",
            paint("traffic: none recorded", dim(), opts)
        );
        return;
    }
    let _ = writeln!(out, "{DETAIL}{}", paint("traffic:", dim(), opts));
    for item in &f.evidence {
        for line in evidence::lines(item) {
            let arrow = match line.direction {
                Direction::About => paint(line.direction.arrow(), dim(), opts),
                _ => line.direction.arrow().to_owned(),
            };
            let _ = writeln!(out, "{TRAFFIC}{arrow} {}", line.text);
        }
    }
}

/// The whole probe report as text.
pub(crate) fn render_probe(report: &ProbeReport, opts: &RenderOptions) -> String {
    let mut out = String::new();
    header(&mut out, report, opts);
    state_block(&mut out, report, opts);

    if report.state != RunState::Unreachable {
        out.push_str(&render_findings_text(&report.findings, opts));
        out.push('\n');
    }

    if !report.crashed_rules.is_empty() {
        let heading = format!("Crashed rules ({})", report.crashed_rules.len());
        let _ = writeln!(out, "{}\n", paint(&heading, bold(), opts));
        let mut crashed: Vec<_> = report.crashed_rules.iter().collect();
        crashed.sort_by(|a, b| a.rule_id.cmp(&b.rule_id));
        for rule in crashed {
            let error = if opts.verbose {
                one_line(&rule.error)
            } else {
                cut(&one_line(&rule.error), 200)
            };
            let _ = writeln!(
                out,
                "{INDENT}{} {}: {error}",
                paint("×", error_style(), opts),
                one_line(&rule.rule_id)
            );
        }
        let _ = writeln!(
            out,
            "{INDENT}A crashed rule proves nothing either way; its check did not count.\n"
        );
    }

    if !report.diagnostics.is_empty() {
        if opts.verbose {
            let heading = format!("Diagnostics ({})", report.diagnostics.len());
            let _ = writeln!(out, "{}\n", paint(&heading, bold(), opts));
            for line in &report.diagnostics {
                let _ = writeln!(out, "{INDENT}{}", one_line(line));
            }
            out.push('\n');
        } else {
            let _ = writeln!(
                out,
                "{}\n",
                paint(
                    &format!(
                        "{} from the server outside the protocol; --verbose shows them",
                        plural(report.diagnostics.len(), "diagnostic", "diagnostics")
                    ),
                    dim(),
                    opts
                )
            );
        }
    }

    let verdict = Verdict::of(report);
    let style = match report.state {
        _ if verdict.good => good_style(),
        RunState::Measured => error_style(),
        RunState::Unreachable | RunState::Incomplete => warning_style(),
    };
    let _ = writeln!(out, "{}", paint(&verdict.line(), style, opts));
    if let Some(sentence) = remediation_sentence(report) {
        let _ = writeln!(out, "{sentence}");
    }
    let _ = writeln!(out, "Run time: {}", duration(report.duration_ms));
    out
}

fn header(out: &mut String, report: &ProbeReport, opts: &RenderOptions) {
    let title = format!(
        "{} {} · probe against MCP {}",
        report.tool.name, report.tool.version, report.target_revision
    );
    let _ = writeln!(out, "{}", paint(&one_line(&title), bold(), opts));
    let protocol = report
        .protocol_version
        .as_ref()
        .map(|v| format!("{v} (negotiated by the server)"));
    for (label, value) in [
        ("target   ", Some(&report.target)),
        ("transport", Some(&report.transport)),
        ("protocol ", protocol.as_ref()),
        ("started  ", Some(&report.started_at)),
    ]
    .into_iter()
    .filter_map(|(l, v)| Some((l, v?)))
    {
        let _ = writeln!(
            out,
            "{INDENT}{} {}",
            paint(label, dim(), opts),
            one_line(value)
        );
    }
    out.push('\n');
}

fn state_block(out: &mut String, report: &ProbeReport, opts: &RenderOptions) {
    match report.state {
        RunState::Measured => {}
        RunState::Unreachable => {
            let _ = writeln!(
                out,
                "{}",
                paint("UNREACHABLE: no probe was answered", warning_style(), opts)
            );
            if let Some(reason) = &report.unreachable {
                let _ = writeln!(out, "{INDENT}reason: {}", one_line(reason));
            }
            let _ = writeln!(
                out,
                "{INDENT}No rule ran: zero findings here says nothing about the server.\n\
                 {INDENT}Check the target, and that the server starts and answers.\n"
            );
        }
        RunState::Incomplete => {
            let line = match &report.incomplete {
                Some(inc) => format!(
                    "INCOMPLETE: {} of {} went unanswered",
                    inc.failed,
                    plural(inc.probes, "probe", "probes")
                ),
                None => "INCOMPLETE: some probes went unanswered".to_owned(),
            };
            let _ = writeln!(out, "{}", paint(&line, warning_style(), opts));
            if let Some(inc) = &report.incomplete {
                let _ = writeln!(out, "{INDENT}first failure: {}", one_line(&inc.reason));
            }
            if let Some(a) = &report.access {
                let _ = writeln!(out, "{INDENT}access: {}", one_line(&super::access_note(a)));
            }
            let _ = writeln!(
                out,
                "{INDENT}The findings below are what the answered probes proved; what the others \
                 would have shown is unknown, so this run can never be READY.\n"
            );
        }
    }
}
