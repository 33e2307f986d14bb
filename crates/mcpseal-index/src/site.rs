//! The static site: `index.html` (the latest run's cohort table, states over time as an inline
//! SVG chart, per-rule counts over time) and `servers/ID.html` (one target's history with links
//! to its stored evidence). No JavaScript, no external resource (works offline), semantic tables
//! with captions and header scopes, every rate with its denominator, deterministic bytes (the
//! same inputs give the same files; nothing reads the clock).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::document::{ChangeKind, IndexRun, RowState, evidence_path, rate};
use crate::history::{RunLine, TargetLine};

/// Escapes text for HTML element content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// High-contrast colours per state (each with a text label beside it; colour is never the only
/// carrier of meaning).
fn colour(s: RowState) -> &'static str {
    match s {
        RowState::Ready => "#1a7f37",
        RowState::Findings => "#9a6700",
        RowState::Incomplete => "#6639ba",
        RowState::Unreachable => "#cf222e",
        RowState::InstallFailed => "#57606a",
        RowState::NotRun => "#24292f",
    }
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:2rem;color:#1f2328;background:#fff;max-width:70rem}\
table{border-collapse:collapse;margin:1rem 0}th,td{border:1px solid #8c959f;padding:.3rem .5rem;text-align:left}\
caption{text-align:left;font-weight:600;padding:.3rem 0}code{font-size:.9em}a{color:#0550ae}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        escape(title)
    )
}

/// States per run as stacked horizontal bars, one per run (an `<svg role="img">` with a title
/// and a text equivalent in the table below it).
fn states_chart(runs: &[RunLine]) -> String {
    let bar_h = 18;
    let width = 600;
    let height = runs.len() * (bar_h + 6) + 6;
    let mut svg = format!(
        "<svg id=\"chart-states\" role=\"img\" aria-labelledby=\"chart-states-title\" width=\"{}\" height=\"{height}\" viewBox=\"0 0 {} {height}\" xmlns=\"http://www.w3.org/2000/svg\">\n<title id=\"chart-states-title\">Targets per state, per run</title>\n",
        width + 120,
        width + 120
    );
    for (i, r) in runs.iter().enumerate() {
        let y = 6 + i * (bar_h + 6);
        let _ = writeln!(
            svg,
            "<text x=\"0\" y=\"{}\" font-size=\"12\">{}</text>",
            y + 13,
            escape(&r.run_id)
        );
        let mut x = 110usize;
        for (s, n) in &r.states {
            if *n == 0 || r.targets == 0 {
                continue;
            }
            let w = n * width / r.targets;
            let _ = writeln!(
                svg,
                "<rect class=\"bar state-{}\" x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{bar_h}\" fill=\"{}\"><title>{} {}: {}</title></rect>",
                s.as_str(),
                colour(*s),
                escape(&r.run_id),
                s.as_str(),
                rate(*n, r.targets)
            );
            x += w;
        }
    }
    svg.push_str("</svg>\n");
    svg
}

fn evidence_link(prefix: &str, address: Option<&str>, label: &str) -> String {
    match address.and_then(|a| evidence_path(a).map(|p| (a, p))) {
        Some((a, p)) => format!(
            "<a href=\"{prefix}{}\" title=\"{}\">{label}</a>",
            escape(&p.to_string_lossy()),
            escape(a)
        ),
        None => "–".to_owned(),
    }
}

/// Every file of the site: `(path relative to the output directory, bytes)`, sorted by path.
/// `latest` is the newest merged run; `runs` every recorded run (oldest first); `targets` each
/// target's lines over the runs.
pub fn render(
    latest: &IndexRun,
    runs: &[RunLine],
    targets: &BTreeMap<String, Vec<TargetLine>>,
) -> Vec<(String, String)> {
    let s = &latest.summary;
    let d = s.targets;
    let mut body = format!(
        "<h1>mcpseal index</h1>\n<p>Run <code>{}</code>, measured by mcpseal {}, cohort <code>{}</code>.</p>\n",
        escape(&latest.run_id),
        escape(&latest.tool_version),
        escape(&latest.cohort_sha256)
    );
    body.push_str("<table id=\"summary\">\n<caption>The latest run, every rate of all targets</caption>\n<thead><tr><th scope=\"col\">state</th><th scope=\"col\">targets</th></tr></thead>\n<tbody>\n");
    for (label, n) in [
        ("ready", s.ready),
        ("findings", s.findings),
        ("incomplete", s.incomplete),
        ("unreachable", s.unreachable),
        ("install failed", s.install_failed),
        ("not run", s.not_run),
        ("changed since the previous run", s.changed),
        ("changed without a version bump", s.changed_without_bump),
    ] {
        let _ = writeln!(
            body,
            "<tr><th scope=\"row\">{label}</th><td>{}</td></tr>",
            rate(n, d)
        );
    }
    body.push_str("</tbody>\n</table>\n");

    body.push_str("<table id=\"cohort\">\n<caption>Targets of the latest run</caption>\n<thead><tr><th scope=\"col\">server</th><th scope=\"col\">version</th><th scope=\"col\">era</th><th scope=\"col\">state</th><th scope=\"col\">errors</th><th scope=\"col\">warnings</th><th scope=\"col\">change</th><th scope=\"col\">evidence</th></tr></thead>\n<tbody>\n");
    for r in &latest.rows {
        let change = match r.change.kind {
            ChangeKind::First => "first run",
            ChangeKind::Unchanged => "unchanged",
            ChangeKind::NotCompared => "not compared",
            ChangeKind::Changed if r.change.without_bump => "changed without a bump",
            ChangeKind::Changed => "changed",
        };
        let _ = writeln!(
            body,
            "<tr class=\"target\"><th scope=\"row\"><a href=\"servers/{id}.html\">{id}</a></th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{change}</td><td>{} {}</td></tr>",
            escape(r.version.as_deref().unwrap_or("–")),
            escape(r.era.as_deref().unwrap_or("–")),
            r.state.as_str(),
            r.errors,
            r.warnings,
            evidence_link("", r.evidence.capture.as_deref(), "capture"),
            evidence_link("", r.evidence.probe.as_deref(), "probe"),
            id = escape(&r.id),
        );
    }
    body.push_str("</tbody>\n</table>\n");

    body.push_str("<h2>Over time</h2>\n");
    body.push_str(&states_chart(runs));
    body.push_str("<table id=\"trend\">\n<caption>Per run: states, changes and rules (targets each rule fired on)</caption>\n<thead><tr><th scope=\"col\">run</th>");
    for st in RowState::ALL {
        let _ = write!(body, "<th scope=\"col\">{}</th>", st.as_str());
    }
    body.push_str("<th scope=\"col\">changed</th><th scope=\"col\">without a bump</th><th scope=\"col\">rules</th></tr></thead>\n<tbody>\n");
    for r in runs {
        let _ = write!(body, "<tr><th scope=\"row\">{}</th>", escape(&r.run_id));
        for (_, n) in &r.states {
            let _ = write!(body, "<td>{}</td>", rate(*n, r.targets));
        }
        let rules: Vec<String> = r
            .rules
            .iter()
            .map(|(rule, n)| format!("{} {}", escape(rule), rate(*n, r.targets)))
            .collect();
        let _ = writeln!(
            body,
            "<td>{}</td><td>{}</td><td>{}</td></tr>",
            rate(r.changed, r.targets),
            rate(r.changed_without_bump, r.targets),
            rules.join("; ")
        );
    }
    body.push_str("</tbody>\n</table>\n");

    let mut files = vec![("index.html".to_owned(), page("mcpseal index", &body))];
    for r in &latest.rows {
        let mut b = format!(
            "<p><a href=\"../index.html\">all servers</a></p>\n<h1>{}</h1>\n<p>Install: <code>{}</code>. Latest state: {}.",
            escape(&r.id),
            escape(&r.install),
            r.state.as_str()
        );
        if let Some(reason) = &r.reason {
            let _ = write!(b, " Why: {}", escape(reason));
        }
        b.push_str("</p>\n<table class=\"history\">\n<caption>Every recorded run of this server</caption>\n<thead><tr><th scope=\"col\">run</th><th scope=\"col\">version</th><th scope=\"col\">state</th><th scope=\"col\">errors</th><th scope=\"col\">fingerprint</th><th scope=\"col\">change</th><th scope=\"col\">evidence</th></tr></thead>\n<tbody>\n");
        for l in targets.get(&r.id).map(Vec::as_slice).unwrap_or_default() {
            let change = if l.without_bump {
                "changed without a bump".to_owned()
            } else {
                l.change.clone()
            };
            let _ = writeln!(
                b,
                "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{} {}</td></tr>",
                escape(&l.run_id),
                escape(l.version.as_deref().unwrap_or("–")),
                escape(&l.state),
                l.errors,
                escape(l.fingerprint.as_deref().unwrap_or("–")),
                escape(&change),
                evidence_link("../", l.evidence.0.as_deref(), "capture"),
                evidence_link("../", l.evidence.1.as_deref(), "probe"),
            );
        }
        b.push_str("</tbody>\n</table>\n");
        files.push((format!("servers/{}.html", r.id), page(&r.id, &b)));
    }
    files.sort();
    files
}
