//! The static site: `index.html` (the latest run's counts and cohort table, then three inline
//! SVG charts over the recorded runs — targets per state, per-rule failure counts, fingerprint
//! changes and changes without a version bump — each followed by the table that holds the same
//! numbers) and `servers/ID.html` (one target's history with links to its stored evidence).
//!
//! No JavaScript, no external resource (works offline), semantic tables with captions and
//! header scopes, every chart an `<svg role="img">` with a title, a description and
//! `aria-describedby` naming its table, text colours of at least 4.5:1 and marks of at least
//! 3:1 on white, every rate with its denominator, `unreachable` and `incomplete` their own
//! columns. Deterministic bytes: the same inputs give the same files (nothing reads the clock,
//! every collection is ordered, coordinates are integers).

mod chart;
mod published;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::document::{ChangeKind, IndexRun, Row, RowState, evidence_path, rate};
use crate::history::{RunLine, TargetLine};
use published::{SKIPPED_WHY, published_cell, published_label};

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
caption{text-align:left;font-weight:600;padding:.3rem 0}code{font-size:.9em}a{color:#0550ae}\
figure{margin:1rem 0}figcaption{font-size:.9em}.key{border-left:1rem solid;padding-left:.3rem;margin-left:.3rem}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n",
        escape(title)
    )
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

/// A state's label in the tables (the document's camelCase name, spelled for people).
fn label(s: RowState) -> &'static str {
    match s {
        RowState::Ready => "ready",
        RowState::Findings => "findings",
        RowState::Incomplete => "incomplete",
        RowState::Unreachable => "unreachable",
        RowState::InstallFailed => "install failed",
        RowState::NotRun => "not run",
    }
}

fn change_text(kind: ChangeKind, without_bump: bool) -> &'static str {
    match kind {
        ChangeKind::First => "first run",
        ChangeKind::Unchanged => "unchanged",
        ChangeKind::NotCompared => "not compared",
        ChangeKind::Changed if without_bump => "changed without a bump",
        ChangeKind::Changed => "changed",
    }
}

/// Fills of the rule and change charts (each at least 3:1 on white).
const RULE_FILL: &str = "#0550ae";
const CHANGED_FILL: &str = "#9a6700";
const WITHOUT_BUMP_FILL: &str = "#cf222e";

/// The latest run's counts: one column per state (`unreachable` and `incomplete` their own),
/// then the changes, every cell with its denominator.
fn summary_table(latest: &IndexRun) -> String {
    let s = &latest.summary;
    let d = s.targets;
    let mut t = String::from(
        "<table id=\"summary\">\n<caption>The latest run: targets per state and changes since the previous run (of all its targets; unreachable, incomplete and not measured are never counted as clean)</caption>\n<thead><tr><th scope=\"col\">targets</th>",
    );
    for st in RowState::ALL {
        let _ = write!(t, "<th scope=\"col\">{}</th>", label(st));
    }
    t.push_str("<th scope=\"col\">changed</th><th scope=\"col\">changed without a bump</th></tr></thead>\n<tbody>\n");
    let _ = write!(t, "<tr><td>{d}</td>");
    for n in [
        s.ready,
        s.findings,
        s.incomplete,
        s.unreachable,
        s.install_failed,
        s.not_run,
        s.changed,
        s.changed_without_bump,
    ] {
        let _ = write!(t, "<td>{}</td>", rate(n, d));
    }
    t.push_str("</tr>\n</tbody>\n</table>\n");
    t
}

fn cohort_table(latest: &IndexRun) -> String {
    let mut t = String::from(
        "<table id=\"cohort\">\n<caption>Targets of the latest run, one row each</caption>\n<thead><tr><th scope=\"col\">server</th><th scope=\"col\">version</th><th scope=\"col\">era</th><th scope=\"col\">state</th><th scope=\"col\">errors</th><th scope=\"col\">warnings</th><th scope=\"col\">change</th><th scope=\"col\">published</th><th scope=\"col\">evidence</th></tr></thead>\n<tbody>\n",
    );
    for r in &latest.rows {
        let (published, why) = published_cell(r.published.as_ref());
        let _ = writeln!(
            t,
            "<tr class=\"target state-{st}\"><th scope=\"row\"><a href=\"servers/{id}.html\">{id}</a></th><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"published\" title=\"{}\">{published}</td><td>{} {}</td></tr>",
            escape(r.version.as_deref().unwrap_or("–")),
            escape(r.era.as_deref().unwrap_or("–")),
            label(r.state),
            r.errors,
            r.warnings,
            change_text(r.change.kind, r.change.without_bump),
            escape(&why),
            evidence_link("", r.evidence.capture.as_deref(), "capture"),
            evidence_link("", r.evidence.probe.as_deref(), "probe"),
            st = r.state.as_str(),
            id = escape(&r.id),
        );
    }
    t.push_str("</tbody>\n</table>\n");
    t
}

/// Targets per state over the runs: the stacked chart and its table.
fn states_section(runs: &[RunLine]) -> String {
    let bars: Vec<_> = runs
        .iter()
        .map(|r| {
            let parts = r
                .states
                .iter()
                .map(|(s, n)| (s.as_str(), label(*s), colour(*s), *n))
                .collect();
            (r.run_id.clone(), r.targets, parts)
        })
        .collect();
    let mut b = String::from(
        "<section aria-labelledby=\"h-states\">\n<h2 id=\"h-states\">Targets per state, per run</h2>\n<figure>\n",
    );
    b.push_str(&chart::stacked(
        "chart-states",
        "Targets per state, per run",
        "trend",
        &bars,
    ));
    b.push_str("<figcaption>Each bar is one run's targets; the parts are, in order:");
    for st in RowState::ALL {
        let _ = write!(
            b,
            " <span class=\"key\" style=\"border-color:{}\">{}</span>",
            colour(st),
            label(st)
        );
    }
    b.push_str(".</figcaption>\n</figure>\n<table id=\"trend\">\n<caption>Per run: targets per state (of the run's targets)</caption>\n<thead><tr><th scope=\"col\">run</th><th scope=\"col\">targets</th>");
    for st in RowState::ALL {
        let _ = write!(b, "<th scope=\"col\">{}</th>", label(st));
    }
    b.push_str("</tr></thead>\n<tbody>\n");
    for r in runs {
        let _ = write!(
            b,
            "<tr><th scope=\"row\">{}</th><td>{}</td>",
            escape(&r.run_id),
            r.targets
        );
        for (_, n) in &r.states {
            let _ = write!(b, "<td>{}</td>", rate(*n, r.targets));
        }
        b.push_str("</tr>\n");
    }
    b.push_str("</tbody>\n</table>\n</section>\n");
    b
}

/// Per-rule failure counts over the runs: one small-multiple row per rule, and the table.
fn rules_section(runs: &[RunLine]) -> String {
    let mut rules: Vec<&str> = runs
        .iter()
        .flat_map(|r| r.rules.iter().map(|(rule, _)| rule.as_str()))
        .collect();
    rules.sort_unstable();
    rules.dedup();
    let count = |r: &RunLine, rule: &str| {
        r.rules
            .iter()
            .find(|(x, _)| x == rule)
            .map_or(0, |(_, n)| *n)
    };
    let series: Vec<chart::Series> = rules
        .iter()
        .map(|rule| chart::Series {
            label: (*rule).to_owned(),
            class: chart::class_of(rule),
            fill: RULE_FILL,
            points: runs
                .iter()
                .map(|r| (r.run_id.clone(), count(r, rule), r.targets))
                .collect(),
        })
        .collect();
    let mut b = String::from(
        "<section aria-labelledby=\"h-rules\">\n<h2 id=\"h-rules\">Failures per rule, per run</h2>\n<figure>\n",
    );
    b.push_str(&chart::small_multiples(
        "chart-rules",
        "Targets each rule fired on, per run",
        "rules-over-time",
        &series,
    ));
    b.push_str("<figcaption>One row per rule, one column per run (oldest first); a column's height is the share of the run's targets the rule fired on.</figcaption>\n</figure>\n<table id=\"rules-over-time\">\n<caption>Per rule and run: targets with at least one finding of the rule (of the run's targets)</caption>\n<thead><tr><th scope=\"col\">rule</th>");
    for r in runs {
        let _ = write!(b, "<th scope=\"col\">{}</th>", escape(&r.run_id));
    }
    b.push_str("</tr></thead>\n<tbody>\n");
    for rule in &rules {
        let _ = write!(
            b,
            "<tr class=\"rule\"><th scope=\"row\">{}</th>",
            escape(rule)
        );
        for r in runs {
            let _ = write!(b, "<td>{}</td>", rate(count(r, rule), r.targets));
        }
        b.push_str("</tr>\n");
    }
    if rules.is_empty() {
        let _ = writeln!(
            b,
            "<tr><td colspan=\"{}\">no rule fired in any recorded run</td></tr>",
            runs.len() + 1
        );
    }
    b.push_str("</tbody>\n</table>\n</section>\n");
    b
}

/// Fingerprint changes and changes without a version bump over the runs.
fn changes_section(runs: &[RunLine]) -> String {
    let points = |f: fn(&RunLine) -> usize| -> Vec<(String, usize, usize)> {
        runs.iter()
            .map(|r| (r.run_id.clone(), f(r), r.targets))
            .collect()
    };
    let series = [
        chart::Series {
            label: "fingerprint changed".into(),
            class: "changed".into(),
            fill: CHANGED_FILL,
            points: points(|r| r.changed),
        },
        chart::Series {
            label: "changed without a bump".into(),
            class: "without-bump".into(),
            fill: WITHOUT_BUMP_FILL,
            points: points(|r| r.changed_without_bump),
        },
    ];
    let mut b = String::from(
        "<section aria-labelledby=\"h-changes\">\n<h2 id=\"h-changes\">Surface changes, per run</h2>\n<figure>\n",
    );
    b.push_str(&chart::small_multiples(
        "chart-changes",
        "Fingerprint changes and changes without a version bump, per run",
        "changes-over-time",
        &series,
    ));
    b.push_str("<figcaption>A change is a fingerprint different from the target's previous run; without a bump, neither the pinned nor the reported version moved.</figcaption>\n</figure>\n<table id=\"changes-over-time\">\n<caption>Per run: targets whose fingerprint changed since their previous run, and of those without a version bump (of the run's targets)</caption>\n<thead><tr><th scope=\"col\">run</th><th scope=\"col\">targets</th><th scope=\"col\">fingerprint changed</th><th scope=\"col\">changed without a bump</th></tr></thead>\n<tbody>\n");
    for r in runs {
        let _ = writeln!(
            b,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&r.run_id),
            r.targets,
            rate(r.changed, r.targets),
            rate(r.changed_without_bump, r.targets)
        );
    }
    b.push_str("</tbody>\n</table>\n</section>\n");
    b
}

/// One server's page: its latest state and rules, and every recorded run with its evidence.
fn server_page(r: &Row, lines: &[TargetLine]) -> String {
    let mut b = format!(
        "<nav><a href=\"../index.html\">all servers</a></nav>\n<h1>{}</h1>\n<p>Install: <code>{}</code>. Latest state: {}.",
        escape(&r.id),
        escape(&r.install),
        label(r.state)
    );
    if let Some(reason) = &r.reason {
        let _ = write!(b, " Why: {}", escape(reason));
    }
    b.push_str("</p>\n");
    if r.published.is_some() {
        let (published, why) = published_cell(r.published.as_ref());
        let _ = writeln!(
            b,
            "<p class=\"published\">Published fingerprint: <strong>{published}</strong> ({}).</p>",
            escape(&why)
        );
    }
    if !r.skipped_rules.is_empty() {
        b.push_str("<table class=\"skipped\">\n<caption>Probe rules not run in the latest run, and why</caption>\n<thead><tr><th scope=\"col\">rule</th><th scope=\"col\">why</th></tr></thead>\n<tbody>\n");
        for rule in &r.skipped_rules {
            let _ = writeln!(
                b,
                "<tr><th scope=\"row\">{}</th><td>{SKIPPED_WHY}</td></tr>",
                escape(rule)
            );
        }
        b.push_str("</tbody>\n</table>\n");
    }
    if !r.rules.is_empty() {
        b.push_str("<table class=\"rules\">\n<caption>Findings of the latest run, per rule</caption>\n<thead><tr><th scope=\"col\">rule</th><th scope=\"col\">severity</th><th scope=\"col\">findings</th></tr></thead>\n<tbody>\n");
        for h in &r.rules {
            let _ = writeln!(
                b,
                "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td></tr>",
                escape(&h.rule),
                h.severity.as_str(),
                h.count
            );
        }
        b.push_str("</tbody>\n</table>\n");
    }
    if !r.change.changes.is_empty() {
        b.push_str("<h2>Changes since the previous run</h2>\n<ul>\n");
        for c in &r.change.changes {
            let _ = writeln!(b, "<li>{}</li>", escape(c));
        }
        b.push_str("</ul>\n");
    }
    b.push_str("<table class=\"history\">\n<caption>Every recorded run of this server, oldest first</caption>\n<thead><tr><th scope=\"col\">run</th><th scope=\"col\">version</th><th scope=\"col\">state</th><th scope=\"col\">errors</th><th scope=\"col\">fingerprint</th><th scope=\"col\">change</th><th scope=\"col\">published</th><th scope=\"col\">rules not run</th><th scope=\"col\">evidence</th></tr></thead>\n<tbody>\n");
    for l in lines {
        // A run recorded before the history kept these columns says nothing about them.
        let (published, skipped) = if l.published_recorded() {
            (
                l.published.map_or("–", published_label),
                if l.skipped_rules.is_empty() {
                    "–".to_owned()
                } else {
                    l.skipped_rules.join(", ")
                },
            )
        } else {
            ("not recorded", "not recorded".to_owned())
        };
        let change = if l.without_bump {
            "changed without a bump".to_owned()
        } else {
            l.change.clone()
        };
        let state: &str = match RowState::parse(&l.state) {
            Some(st) => label(st),
            None => &l.state,
        };
        let _ = writeln!(
            b,
            "<tr><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{published}</td><td>{}</td><td>{} {}</td></tr>",
            escape(&l.run_id),
            escape(l.version.as_deref().unwrap_or("–")),
            escape(state),
            l.errors,
            escape(l.fingerprint.as_deref().unwrap_or("–")),
            escape(&change),
            escape(&skipped),
            evidence_link("../", l.evidence.0.as_deref(), "capture"),
            evidence_link("../", l.evidence.1.as_deref(), "probe"),
        );
    }
    b.push_str("</tbody>\n</table>\n");
    page(&r.id, &b)
}

/// Every file of the site: `(path relative to the output directory, bytes)`, sorted by path.
/// `latest` is the newest merged run; `runs` every recorded run (oldest first); `targets` each
/// target's lines over the runs (a target without lines gets a page with an empty history).
pub fn render(
    latest: &IndexRun,
    runs: &[RunLine],
    targets: &BTreeMap<String, Vec<TargetLine>>,
) -> Vec<(String, String)> {
    let mut body = format!(
        "<h1>mcpseal index</h1>\n<p>Run <code>{}</code>, measured by mcpseal {}, cohort <code>{}</code>: {} targets; {} run(s) recorded.</p>\n",
        escape(&latest.run_id),
        escape(&latest.tool_version),
        escape(&latest.cohort_sha256),
        latest.summary.targets,
        runs.len()
    );
    body.push_str(&summary_table(latest));
    body.push_str(&cohort_table(latest));
    body.push_str(&states_section(runs));
    body.push_str(&rules_section(runs));
    body.push_str(&changes_section(runs));

    let mut files = vec![("index.html".to_owned(), page("mcpseal index", &body))];
    for r in &latest.rows {
        let lines = targets.get(&r.id).map(Vec::as_slice).unwrap_or_default();
        files.push((format!("servers/{}.html", r.id), server_page(r, lines)));
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests;
