//! Text and Markdown forms of a [`ReplayReport`]. The verdict line comes from the document;
//! per-version timings, which the JSON never holds, may be passed in for the Markdown footer.

use std::fmt::Write as _;

use super::{Counts, Outcome, ReplayReport, ReplayVerdict, RowVerdict, VersionRow, Withdrawal};

/// How long one version took (install + start + capture), for the Markdown footer only.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// The version.
    pub version: String,
    /// Seconds.
    pub seconds: f64,
    /// The install came from the cache.
    pub cached: bool,
}

fn verdict_line(r: &ReplayReport) -> String {
    let s = &r.summary;
    match r.verdict {
        ReplayVerdict::Clean => format!(
            "CLEAN — {} versions replayed, {} captured, no violation of the compatibility line",
            s.versions, s.captured
        ),
        ReplayVerdict::Violations => format!(
            "VIOLATIONS — {} in {} versions replayed ({} captured)",
            s.violations, s.versions, s.captured
        ),
        ReplayVerdict::NothingCaptured => format!(
            "NOT REPLAYED — none of {} versions could be captured, nothing was judged",
            s.versions
        ),
    }
}

fn counts(c: &Counts) -> String {
    let n = |v: Option<usize>| v.map_or("-".to_owned(), |n| n.to_string());
    format!(
        "{}t {}r {}rt {}p",
        n(c.tools),
        n(c.resources),
        n(c.resource_templates),
        n(c.prompts)
    )
}

fn outcome_short(row: &VersionRow) -> String {
    match &row.outcome {
        Outcome::Captured {
            sha256, counts: c, ..
        } => {
            format!("{} {}", &sha256[..sha256.len().min(12)], counts(c))
        }
        Outcome::InstallFailed { stage, message, .. } => {
            format!("install failed ({stage}): {message}")
        }
        Outcome::NotInstallable { message } => format!("not installable: {message}"),
        Outcome::NoEntryPoint { message } => format!("no entry point: {message}"),
        Outcome::DidNotStart { reason, .. } => format!("did not start: {reason}"),
    }
}

fn row_verdict(row: &VersionRow) -> &'static str {
    match row.verdict {
        RowVerdict::Baseline => "baseline",
        RowVerdict::Unchanged => "unchanged",
        RowVerdict::Compatible => "compatible",
        RowVerdict::Violation => "VIOLATION",
        RowVerdict::NotJudged => match row.outcome {
            Outcome::DidNotStart { .. } => "did not start",
            Outcome::NotInstallable { .. } => "not installable",
            _ => "not judged",
        },
    }
}

fn changed(row: &VersionRow) -> String {
    if row.changes.is_empty() {
        return String::new();
    }
    let mut by_class: Vec<(String, usize)> = Vec::new();
    for c in &row.changes {
        match by_class.iter_mut().find(|(k, _)| *k == c.class) {
            Some((_, n)) => *n += 1,
            None => by_class.push((c.class.clone(), 1)),
        }
    }
    let mut out: Vec<String> = by_class.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let required = row.required_bump.map(|b| b.as_str()).unwrap_or("none");
    let declared = row.declared_bump.map(|b| b.as_str()).unwrap_or("none");
    out.push(format!("needs {required}, declared {declared}"));
    out.join(", ")
}

fn date(row: &VersionRow) -> &str {
    row.published_at
        .as_deref()
        .map(|d| &d[..d.len().min(10)])
        .unwrap_or("-")
}

fn presence_cell(row: &VersionRow) -> String {
    match &row.registry {
        None => "-".into(),
        Some(p) if !p.listed => "not listed".into(),
        Some(p) => match p.status.as_deref() {
            Some(s) if s != "active" => format!("listed ({s})"),
            _ => "listed".into(),
        },
    }
}

fn withdrawn(row: &VersionRow) -> &'static str {
    match row.withdrawal {
        Withdrawal::Current => "",
        Withdrawal::Deprecated { .. } => " (deprecated)",
        Withdrawal::Yanked { .. } => " (yanked)",
    }
}

/// The terminal form: the verdict, one line per version, the violations, what was not
/// measured. Ends with a newline.
pub fn render_text(r: &ReplayReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", verdict_line(r));
    let _ = writeln!(out, "{} from {}", r.source, r.origin);
    for row in &r.rows {
        let _ = writeln!(
            out,
            "  {:<14} {:<10} {:<12} {}{}",
            row.version,
            date(row),
            row_verdict(row),
            outcome_short(row),
            withdrawn(row)
        );
        if row.package.is_some() || row.registry.is_some() {
            let _ = writeln!(
                out,
                "  {:<14} {}{}",
                "",
                row.package
                    .as_deref()
                    .map(|p| format!("package {p}; "))
                    .unwrap_or_default(),
                if row.registry.is_some() {
                    format!("registry: {}", presence_cell(row))
                } else {
                    String::new()
                }
            );
        }
        let c = changed(row);
        if !c.is_empty() {
            let _ = writeln!(out, "  {:<14} {c}", "");
        }
        if let Outcome::DidNotStart { stderr, .. } = &row.outcome
            && let Some(last) = stderr.last()
        {
            let _ = writeln!(out, "  {:<14} stderr: {last}", "");
        }
    }
    if !r.violations.is_empty() {
        let _ = writeln!(out, "violations:");
        for v in &r.violations {
            let _ = writeln!(out, "  {} (after {}): {}", v.version, v.previous, v.message);
            for w in &v.witnesses {
                let _ = writeln!(
                    out,
                    "    witness: tools/call {} — {}",
                    w.request, w.rejected_because
                );
            }
        }
    }
    if let Some(live) = &r.live {
        let _ = writeln!(out, "live: {}", live.message);
    }
    for l in &r.isolation {
        let _ = writeln!(out, "{l}");
    }
    for l in &r.not_measured {
        let _ = writeln!(out, "not measured: {l}");
    }
    out
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown form (`replay-DATE.md`): the verdict, one table row per version (version,
/// date, fingerprint prefix, counts, what changed, verdict), the violations with their
/// witnesses, what was not measured, then the timings when given. Ends with a newline.
pub fn render_markdown(r: &ReplayReport, timings: &[Timing]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## mcpseal replay `{}`\n", r.source);
    let _ = writeln!(out, "{}\n", verdict_line(r));
    let _ = writeln!(out, "Versions from <{}>, form `{}`.\n", r.origin, r.form);
    // The registry column only when presence is known (the table stays as it was otherwise).
    let presence = r.rows.iter().any(|row| row.registry.is_some());
    let (head, rule) = if presence {
        (" registry |", "---|")
    } else {
        ("", "")
    };
    let _ = writeln!(
        out,
        "| version | published |{head} fingerprint | tools | resources | templates | prompts | what changed | verdict |"
    );
    let _ = writeln!(out, "|---|---|{rule}---|---|---|---|---|---|---|");
    for row in &r.rows {
        let n = |v: Option<usize>| v.map_or("-".to_owned(), |n| n.to_string());
        let (fp, c) = match &row.outcome {
            Outcome::Captured { sha256, counts, .. } => {
                (format!("`{}`", &sha256[..sha256.len().min(12)]), *counts)
            }
            _ => ("-".to_owned(), Counts::default()),
        };
        let what = match &row.outcome {
            Outcome::Captured { .. } => changed(row),
            _ => outcome_short(row),
        };
        let listed = if presence {
            format!(" {} |", presence_cell(row))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {}{} | {} |{listed} {} | {} | {} | {} | {} | {} | {} |",
            cell(&row.version),
            withdrawn(row),
            date(row),
            fp,
            n(c.tools),
            n(c.resources),
            n(c.resource_templates),
            n(c.prompts),
            cell(&what),
            row_verdict(row)
        );
    }
    out.push('\n');
    if !r.violations.is_empty() {
        let _ = writeln!(out, "### Violations\n");
        for v in &r.violations {
            let _ = writeln!(
                out,
                "- **{}** (after {}): {}",
                cell(&v.version),
                cell(&v.previous),
                cell(&v.message)
            );
            for w in &v.witnesses {
                let _ = writeln!(
                    out,
                    "  - witness: `tools/call {}` — {}",
                    w.request,
                    cell(&w.rejected_because)
                );
            }
        }
        out.push('\n');
    }
    if let Some(live) = &r.live {
        let _ = writeln!(out, "### Live endpoint\n\n{}\n", cell(&live.message));
    }
    let _ = writeln!(out, "### Not measured\n");
    for l in r.isolation.iter() {
        let _ = writeln!(out, "- {}", cell(l));
    }
    for l in &r.not_measured {
        let _ = writeln!(out, "- {}", cell(l));
    }
    if r.not_measured.is_empty() && r.isolation.is_empty() {
        let _ = writeln!(out, "- nothing");
    }
    if !timings.is_empty() {
        let _ = writeln!(out, "\n### Timings\n");
        for t in timings {
            let _ = writeln!(
                out,
                "- {}: {:.1} s{}",
                cell(&t.version),
                t.seconds,
                if t.cached { " (cached install)" } else { "" }
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replay::{REPLAY_SCHEMA_VERSION, ReplaySummary, RuleSettings};

    fn report(rows: Vec<VersionRow>, verdict: ReplayVerdict) -> ReplayReport {
        ReplayReport {
            schema_version: REPLAY_SCHEMA_VERSION,
            tool_version: "0".into(),
            generated_at: "2026-12-01T00:00:00Z".into(),
            source: "npm:x".into(),
            origin: "http://127.0.0.1/".into(),
            form: "mcpseal/1".into(),
            rules: RuleSettings {
                zero_major: true,
                network_isolation_requested: true,
            },
            verdict,
            summary: ReplaySummary {
                versions: rows.len(),
                did_not_start: 1,
                ..ReplaySummary::default()
            },
            rows,
            excluded: vec![],
            violations: vec![],
            live: None,
            isolation: vec![],
            not_measured: vec!["1.0.0: not captured".into()],
        }
    }

    #[test]
    fn a_version_that_did_not_start_says_so_everywhere() {
        let row = VersionRow {
            version: "1.0.0".into(),
            published_at: Some("2024-01-01T10:00:00Z".into()),
            withdrawal: Withdrawal::Deprecated {
                message: "broken".into(),
            },
            outcome: Outcome::DidNotStart {
                reason: "the server could not be reached: closed".into(),
                stderr: vec!["Error: boom | pipe".into()],
            },
            compared_with: None,
            declared_bump: None,
            required_bump: None,
            changes: vec![],
            verdict: RowVerdict::NotJudged,
            package: None,
            registry: None,
        };
        let r = report(vec![row], ReplayVerdict::NothingCaptured);
        let text = render_text(&r);
        assert!(
            text.starts_with("NOT REPLAYED — none of 1 versions"),
            "{text}"
        );
        assert!(
            text.contains("did not start: the server could not be reached"),
            "{text}"
        );
        assert!(text.contains("stderr: Error: boom | pipe"), "{text}");
        let md = render_markdown(&r, &[]);
        assert!(
            md.contains("| 1.0.0 (deprecated) | 2024-01-01 | - | - | - | - | - | did not start: the server could not be reached: closed | did not start |"),
            "{md}"
        );
        assert!(!md.contains("### Timings"), "{md}");
        assert!(md.contains("- 1.0.0: not captured"), "{md}");
    }
}
