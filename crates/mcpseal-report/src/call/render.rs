//! `mcpseal call` in each format. Text and Markdown: the verdict line, each round (with what
//! the server asked), the result, each negative control, then the findings. JSON: the document
//! as it is. SARIF: the findings as results, the call rules as the driver's rules, and the whole
//! document in `run.properties.report`. The verdict comes from the document, never from here.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::{CallReport, CallState, ControlOutcome, InputRequest, NegativeControls, rules};
use crate::format::Format;
use crate::model::Severity;
use crate::render::markdown::render_findings_markdown;
use crate::render::sarif::{ExecutionNotification, SarifRun, render_findings_sarif};
use crate::render::text::render_findings_text;
use crate::render::{RenderOptions, cut, one_line, plural};

/// Renders `report` in `format` (ends with a newline; the same report gives the same text).
pub fn render_call(report: &CallReport, format: Format, opts: &RenderOptions) -> String {
    match format {
        Format::Json => {
            let mut s = serde_json::to_string_pretty(report).unwrap_or_else(|e| {
                json!({"error": format!("cannot serialise the report: {e}")}).to_string()
            });
            s.push('\n');
            s
        }
        Format::Text => text(report, opts),
        Format::Markdown => markdown(report),
        Format::Sarif => sarif(report, opts.docs_url.as_deref()),
    }
}

/// `PASS — …`, `FAIL — …` or `NEEDS INPUT — …`: the verdict in one line.
fn verdict(r: &CallReport) -> String {
    let s = &r.summary;
    let controls = if s.tamperings > 0 {
        format!(
            "; {} ({} rejected, {})",
            plural(s.tamperings, "negative control", "negative controls"),
            s.rejected,
            plural(s.traps, "trap", "traps")
        )
    } else {
        String::new()
    };
    match r.state {
        CallState::Judged if r.passed => format!(
            "PASS — {}{}{controls}",
            if r.expect_error {
                "the call failed, as expected"
            } else {
                "a strict client accepts the result"
            },
            match s.warnings {
                0 => String::new(),
                n => format!(", {}", plural(n, "advisory", "advisories")),
            }
        ),
        CallState::Judged => format!(
            "FAIL — {}{controls}",
            plural(s.errors, "breaking issue", "breaking issues")
        ),
        CallState::NeedsInput => "NEEDS INPUT — the server asked for input nobody gave".into(),
        CallState::Unreachable => "UNREACHABLE — the server could not be reached".into(),
        CallState::NoAnswer => "NO ANSWER — a request got no valid answer".into(),
        CallState::Incomplete => "INCOMPLETE — the server kept asking for input".into(),
    }
}

fn what(r: &CallReport) -> String {
    format!(
        "{} `{}` ({} over {})",
        r.subject.kind.as_str(),
        one_line(&r.subject.name),
        r.revision.as_deref().unwrap_or("no revision"),
        r.transport
    )
}

fn request_line(q: &InputRequest) -> String {
    let message = q
        .params
        .get("message")
        .and_then(Value::as_str)
        .map(|m| format!(": {}", cut(&one_line(m), 100)))
        .unwrap_or_default();
    let answered = match (&q.answer, q.answered_from) {
        (Some(a), _) => format!(" → answered {}", cut(&a.to_string(), 100)),
        (None, _) => " → not answered".into(),
    };
    if q.key == q.method {
        format!("the server asks {}{message}{answered}", one_line(&q.method))
    } else {
        format!(
            "`{}` asks {}{message}{answered}",
            one_line(&q.key),
            one_line(&q.method)
        )
    }
}

fn control_lines(out: &mut String, c: &NegativeControls, bullet: &str) {
    if let Some(why) = &c.skipped {
        let _ = writeln!(out, "{bullet}not run: {}", one_line(why));
        return;
    }
    for t in &c.tamperings {
        let (word, why) = match t.outcome {
            ControlOutcome::Rejected => (
                "rejected",
                t.rejected_by
                    .first()
                    .map(|r| format!(" — by {}", r.check))
                    .unwrap_or_default(),
            ),
            ControlOutcome::Trap => (
                "TRAP",
                format!(
                    " — accepted; schema {}{}",
                    if t.schema_path.is_empty() {
                        "/"
                    } else {
                        &t.schema_path
                    },
                    t.note
                        .as_deref()
                        .map(|n| format!(" ({n})"))
                        .unwrap_or_default()
                ),
            ),
        };
        let _ = writeln!(out, "{bullet}{word:<8} {}{why}", one_line(&t.description));
    }
}

fn text(r: &CallReport, opts: &RenderOptions) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", verdict(r));
    let _ = writeln!(out, "call     {}", what(r));
    let _ = writeln!(out, "target   {}", one_line(&r.target));
    for round in &r.rounds {
        let summary = round
            .exchange
            .get("response")
            .map(|resp| {
                if let Some(e) = resp.get("error") {
                    format!(
                        "error {} {}",
                        e.get("code").map(Value::to_string).unwrap_or_default(),
                        e.get("message").and_then(Value::as_str).unwrap_or("")
                    )
                } else {
                    round.result_type.clone().unwrap_or_else(|| "result".into())
                }
            })
            .unwrap_or_else(|| "no answer".into());
        let _ = writeln!(out, "round {}  {}", round.round, one_line(&summary));
        for q in &round.input_requests {
            let _ = writeln!(out, "         {}", request_line(q));
        }
    }
    if let Some(result) = &r.result {
        let shown = result.get("structuredContent").unwrap_or(result);
        let _ = writeln!(out, "result   {}", cut(&one_line(&shown.to_string()), 300));
    }
    if let Some(c) = &r.negative_controls {
        let _ = writeln!(out, "\nNegative controls ({})\n", c.tamperings.len());
        control_lines(&mut out, c, "  ");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(out, "\n{}", one_line(&e.message));
    }
    out.push('\n');
    out.push_str(&render_findings_text(&r.findings, opts));
    if opts.verbose && !r.diagnostics.is_empty() {
        let _ = writeln!(out, "\nDiagnostics");
        for d in &r.diagnostics {
            let _ = writeln!(out, "  {}", one_line(d));
        }
    }
    out
}

fn markdown(r: &CallReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## mcpseal call: {}\n", verdict(r));
    let _ = writeln!(out, "{} · `{}`\n", what(r), r.target.replace('`', "'"));
    for round in &r.rounds {
        let _ = writeln!(
            out,
            "- round {}: `{}`",
            round.round,
            round.result_type.as_deref().unwrap_or("no result")
        );
        for q in &round.input_requests {
            let _ = writeln!(out, "  - {}", request_line(q));
        }
    }
    if let Some(c) = &r.negative_controls {
        let _ = writeln!(out, "\n### Negative controls ({})\n", c.tamperings.len());
        control_lines(&mut out, c, "- ");
    }
    out.push('\n');
    out.push_str(&render_findings_markdown(&r.findings));
    out
}

fn sarif(r: &CallReport, docs_url: Option<&str>) -> String {
    let mut notifications = Vec::new();
    if let Some(e) = &r.error {
        notifications.push(ExecutionNotification {
            level: Severity::Error,
            rule_id: None,
            message: format!("No verdict: {}", e.message),
        });
    }
    let mut properties = Map::new();
    properties.insert(
        "report".into(),
        serde_json::to_value(r).unwrap_or(Value::Null),
    );
    let rules = rules();
    render_findings_sarif(&SarifRun {
        tool: &r.tool,
        target: &r.target,
        rules: &rules,
        findings: &r.findings,
        execution_successful: r.state == CallState::Judged,
        notifications,
        start_time_utc: Some(r.started_at.as_str()).filter(|s| !s.is_empty()),
        properties,
        docs_url,
    })
}
