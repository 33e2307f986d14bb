//! The site's pages from hand-made runs and history lines.

use super::*;
use crate::document::{Change, Evidence, Published, PublishedState, Row, RuleHit};
use mcpseal_report::Severity;

fn row(id: &str, state: RowState, rule: Option<&str>, change: ChangeKind) -> Row {
    Row {
        id: id.into(),
        install: format!("cmd:{id}"),
        kind: "cmd".into(),
        version: Some("1.0.0".into()),
        expanded: None,
        rerun: format!("mcpseal index rerun {id} --cohort c.toml"),
        state,
        reason: None,
        era_hint: None,
        era: Some("2026-07-28".into()),
        reported_version: None,
        fingerprint: Some(format!("sha256:{id}")),
        counts: None,
        probe_state: None,
        errors: usize::from(rule.is_some()),
        warnings: 0,
        sdk_findings: 0,
        application_findings: 0,
        rules: rule
            .map(|r| RuleHit {
                rule: r.into(),
                severity: Severity::Error,
                count: 1,
            })
            .into_iter()
            .collect(),
        skipped_rules: Vec::new(),
        published: None,
        change: Change {
            kind: change,
            without_bump: change == ChangeKind::Changed,
            ..Change::first()
        },
        evidence: Evidence {
            capture: Some(format!("sha256:{}", "ab".repeat(32))),
            probe: None,
        },
    }
}

fn line(run: &str, targets: usize, unreachable: usize, rule: usize, changed: usize) -> RunLine {
    RunLine {
        run_id: run.into(),
        targets,
        states: RowState::ALL
            .into_iter()
            .map(|s| match s {
                RowState::Ready => (s, targets - unreachable),
                RowState::Unreachable => (s, unreachable),
                _ => (s, 0),
            })
            .collect(),
        changed,
        changed_without_bump: changed,
        rules: vec![("SEAL001".into(), rule)],
        published: None,
    }
}

fn inputs() -> (IndexRun, Vec<RunLine>, BTreeMap<String, Vec<TargetLine>>) {
    let latest = IndexRun::new(
        "r2".into(),
        "0.1.0".into(),
        "sha256:c".into(),
        3,
        None,
        vec![
            row("b<&>", RowState::Unreachable, None, ChangeKind::NotCompared),
            row(
                "a",
                RowState::Findings,
                Some("SEAL001"),
                ChangeKind::Changed,
            ),
            {
                // A remote `registry:` target whose live surface differs from the entry's.
                let mut c = row("c", RowState::Incomplete, None, ChangeKind::Unchanged);
                c.kind = "registry".into();
                c.skipped_rules = vec!["SEAL030".into(), "SEAL034".into()];
                c.published = Some(Published {
                    state: PublishedState::Mismatch,
                    block: Some("mcpseal".into()),
                    form: Some("mcpseal/1".into()),
                    declared_sha256: Some("sha256:declared".into()),
                    live_sha256: Some("sha256:live".into()),
                    reason: None,
                });
                c
            },
        ],
    );
    let runs = vec![line("r1", 3, 0, 0, 0), line("r2", 3, 1, 1, 1)];
    let mut targets = BTreeMap::new();
    targets.insert(
        "a".to_owned(),
        vec![TargetLine {
            run_id: "r1".into(),
            version: Some("1.0.0".into()),
            state: "ready".into(),
            fingerprint: Some("sha256:x".into()),
            change: "first".into(),
            without_bump: false,
            errors: 0,
            evidence: (None, None),
            published: None,
            skipped_rules: Vec::new(),
            recorded_schema: 1,
        }],
    );
    targets.insert(
        "c".to_owned(),
        vec![
            TargetLine {
                run_id: "r1".into(),
                version: Some("1.0.0".into()),
                state: "ready".into(),
                fingerprint: Some("sha256:c".into()),
                change: "first".into(),
                without_bump: false,
                errors: 0,
                evidence: (None, None),
                published: Some(PublishedState::Match),
                skipped_rules: vec!["SEAL030".into(), "SEAL034".into()],
                recorded_schema: 2,
            },
            TargetLine {
                run_id: "r2".into(),
                version: Some("1.0.0".into()),
                state: "incomplete".into(),
                fingerprint: Some("sha256:c".into()),
                change: "unchanged".into(),
                without_bump: false,
                errors: 0,
                evidence: (None, None),
                published: Some(PublishedState::Mismatch),
                skipped_rules: vec!["SEAL030".into(), "SEAL034".into()],
                recorded_schema: 2,
            },
        ],
    );
    (latest, runs, targets)
}

#[test]
fn two_renders_are_byte_identical_and_complete() {
    let (latest, runs, targets) = inputs();
    let one = render(&latest, &runs, &targets);
    let two = render(&latest, &runs, &targets);
    assert_eq!(one, two);
    let names: Vec<&str> = one.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "index.html",
            "servers/a.html",
            "servers/b<&>.html",
            "servers/c.html"
        ]
    );
    let html = &one[0].1;
    assert_eq!(html.matches("<tr class=\"target ").count(), 3);
    for id in ["chart-states", "chart-rules", "chart-changes"] {
        assert!(html.contains(&format!("<svg id=\"{id}\" class=\"chart\" role=\"img\"")));
        assert!(html.contains(&format!("<title id=\"{id}-title\">")));
        assert!(html.contains(&format!("<desc id=\"{id}-desc\">")));
    }
    // Every chart names the table that says the same in text, and that table is there.
    for t in ["trend", "rules-over-time", "changes-over-time"] {
        assert!(html.contains(&format!("aria-describedby=\"{t}\"")));
        assert!(html.contains(&format!("<table id=\"{t}\">")));
    }
    // Unreachable and incomplete are their own columns, each with its denominator.
    assert!(html.contains("<th scope=\"col\">unreachable</th>"));
    assert!(html.contains("<th scope=\"col\">incomplete</th>"));
    assert!(html.contains("<td>1 of 3 (33.3%)</td>"));
    assert!(html.contains("<title>SEAL001, run r2: 1 of 3 (33.3%)</title>"));
    assert!(html.contains("<title>changed without a bump, run r2: 1 of 3 (33.3%)</title>"));
    // Escaped, offline, no script.
    assert!(html.contains("b&lt;&amp;&gt;"));
    assert!(!html.contains("<script"));
    // (the only absolute URL is the SVG namespace, which is never fetched)
    assert!(!html.contains("src="));
    assert!(!html.contains("href=\"http"));
    assert!(!html.contains("url("));
    // A target's page: its rules, its history, evidence links relative to the site.
    let page = &one[1].1;
    assert!(page.contains("<caption>Findings of the latest run, per rule</caption>"));
    assert!(page.contains("<th scope=\"row\">r1</th>"));
    // Nothing skipped, nothing published: no such section.
    assert!(!page.contains("class=\"skipped\"") && !page.contains("class=\"published\""));
    // A run recorded before the history kept the columns says so, not "none".
    assert!(
        page.contains("<td>not recorded</td><td>not recorded</td>"),
        "{page}"
    );
}

#[test]
fn the_published_column_and_the_skipped_rules_are_shown() {
    let (latest, runs, targets) = inputs();
    let files = render(&latest, &runs, &targets);
    let html = &files[0].1;
    assert!(html.contains("<th scope=\"col\">published</th>"));
    // One published cell per target row, each with a title.
    assert_eq!(html.matches("<td class=\"published\" title=\"").count(), 3);
    assert!(html.contains(
        "<td class=\"published\" title=\"mcpseal&#39;s block (mcpseal/1) publishes sha256:declared; the live surface is sha256:live\">mismatch</td>"
    ), "{html}");
    assert!(html.contains(
        "<td class=\"published\" title=\"no registry entry: nothing published to compare\">–</td>"
    ));
    // The remote's page: its skipped rules with why, its published state, and per run.
    let page = &files[3].1;
    assert_eq!(files[3].0, "servers/c.html");
    assert!(page.contains("<caption>Probe rules not run in the latest run, and why</caption>"));
    for rule in ["SEAL030", "SEAL034"] {
        assert!(
            page.contains(&format!(
                "<tr><th scope=\"row\">{rule}</th><td>remote target: no tool calls"
            )),
            "{page}"
        );
    }
    assert!(page.contains("Published fingerprint: <strong>mismatch</strong>"));
    assert!(
        page.contains("<td>match</td><td>SEAL030, SEAL034</td>"),
        "{page}"
    );
    assert!(
        page.contains("<td>mismatch</td><td>SEAL030, SEAL034</td>"),
        "{page}"
    );
    // The other pages have neither.
    assert!(!files[1].1.contains("class=\"skipped\""));
    assert!(!files[2].1.contains("class=\"skipped\""));
}

#[test]
fn a_different_history_is_different_bytes() {
    let (latest, runs, targets) = inputs();
    let mut fewer = runs.clone();
    fewer.remove(0);
    assert_ne!(
        render(&latest, &runs, &targets)[0],
        render(&latest, &fewer, &targets)[0]
    );
}
