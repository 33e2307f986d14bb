//! `docs/conformance.md`, rendered from the scenario map and the server records only.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::compare::{Comparison, WIRE_SCHEMA, compare};
use crate::map::{Coverage, ScenarioMap};
use crate::record::ServerRecord;

/// `docs/conformance.md`.
pub fn doc_path() -> PathBuf {
    crate::repo_root().join("docs/conformance.md")
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn coverage_text(c: &Coverage) -> String {
    let mut s = if !c.rules.is_empty() {
        let rules = c
            .rules
            .iter()
            .map(|r| format!("[{r}](rules/{r}.md)"))
            .collect::<Vec<_>>()
            .join(", ");
        if c.titles.is_empty() {
            rules
        } else {
            format!(
                "{rules} (findings: {})",
                c.titles
                    .iter()
                    .map(|t| format!("“{t}”"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
    } else if let Some(why) = &c.not_covered {
        format!("not covered: {why}")
    } else if let Some(why) = &c.out_of_scope {
        format!("out of mcpseal's scope: {why}")
    } else {
        String::new()
    };
    if let Some(note) = &c.note {
        let _ = write!(s, " — {note}");
    }
    if c.always {
        s.push_str(" (applies to every server)");
    }
    s
}

/// The rules covering a scenario (union over its checks), or how it is not covered.
fn scenario_coverage(map: &ScenarioMap, scenario: &str) -> String {
    let Some(entry) = map.scenarios.get(scenario) else {
        return String::new();
    };
    let rules: BTreeSet<&str> = entry
        .checks
        .values()
        .flat_map(|c| c.rules.iter().map(String::as_str))
        .collect();
    if !rules.is_empty() {
        return rules.into_iter().collect::<Vec<_>>().join(", ");
    }
    if entry.checks.values().all(|c| c.out_of_scope.is_some()) {
        "out of scope".to_owned()
    } else {
        "not covered".to_owned()
    }
}

fn verdict_cell(c: &Comparison, scenario: &str) -> String {
    let Some(row) = c.scenarios.iter().find(|r| r.scenario == scenario) else {
        return "not run".to_owned();
    };
    let suite = row.suite_verdict();
    if suite == "n/a" || suite == "threw" {
        return suite.to_owned();
    }
    let mcpseal = row.mcpseal_verdict().map_or("—", |s| s.as_str());
    let flag = if c
        .disagreements
        .iter()
        .any(|d| d.key.starts_with(&format!("{scenario}/")) && !d.key.ends_with(WIRE_SCHEMA))
    {
        " ≠"
    } else {
        ""
    };
    format!("{suite} · {mcpseal}{flag}")
}

/// Renders the page. Errors when a record cannot be compared (unmapped checks).
pub fn render_doc(map: &ScenarioMap, records: &[ServerRecord]) -> Result<String, String> {
    let comparisons = records
        .iter()
        .map(|r| compare(map, r))
        .collect::<Result<Vec<_>, _>>()?;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!-- GENERATED from tests/conformance/scenarios.json and tests/conformance/servers/*.json by `mcpseal_conformance::render_doc`. Do not edit: change those files, then run\n`MCPSEAL_UPDATE_CONFORMANCE_DOC=1 cargo nextest run -p mcpseal-conformance`. -->\n"
    );
    let _ = writeln!(s, "# The official conformance suite, side by side\n");
    let _ = writeln!(
        s,
        "The official MCP conformance suite (`{}`, installed by `tests/peers/install.sh`) and `mcpseal probe`, run against the same servers over Streamable HTTP (the suite has no stdio mode). The suite runs every server scenario of `--requirements {}`; the probe runs every rule. Each row below is asserted by `crates/mcpseal-cli/tests/conformance.rs`, which runs both tools live and fails when a server, either tool or this page drifts; every disagreement is explained, with the spec text, in [Disagreements](#disagreements).\n",
        map.suite, map.requirements
    );
    let _ = writeln!(
        s,
        "How to read it: a scenario is **n/a** when the server lacks something it needs (a capability it does not declare, or the suite's own fixture tools, prompts and resources such as `test_simple_text`, which only the suite's reference server has) — never a failure. Within a scenario, checks the suite itself reports as untestable (`Not testable: …`, `Prerequisite failed: …`) are not counted. A cell reads `suite · mcpseal`: the suite's verdict over the scenario's applicable checks, then mcpseal's over the checks its rules cover (`—`: no rule covers them); `≠` marks a disagreement. mcpseal's side of a check is the worst severity among the covering rules' findings (error = fail, warning = warn). `wire-schema-valid`, which the suite adds to every scenario, has its own row.\n"
    );

    // Servers.
    let _ = writeln!(s, "## Servers\n");
    let _ = writeln!(
        s,
        "| server | what | scored scenarios (pass / warn / fail / n/a) | mcpseal probe | checks compared | disagreements |\n|---|---|---|---|---|---|"
    );
    for (r, c) in records.iter().zip(&comparisons) {
        let mut counts = BTreeMap::new();
        for row in &c.scenarios {
            if map.scenarios.get(&row.scenario).is_some_and(|e| e.scored) {
                *counts.entry(row.suite_verdict()).or_insert(0usize) += 1;
            }
        }
        let n = |k: &str| counts.get(k).copied().unwrap_or(0);
        let probe = if r.probe.findings.is_empty() {
            format!("{}, no findings", r.probe.state)
        } else {
            format!(
                "{}: {}",
                r.probe.state,
                r.probe
                    .findings
                    .iter()
                    .map(|(rule, fs)| {
                        if fs.iter().all(|f| f.severity == "warning") {
                            format!("{rule} (w)")
                        } else {
                            rule.clone()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let compared = c
            .scenarios
            .iter()
            .flat_map(|row| row.checks.iter())
            .filter(|ch| ch.mcpseal.is_some())
            .count();
        let _ = writeln!(
            s,
            "| `{}` | {} | {} / {} / {} / {} | {} | {compared} | {} |",
            r.id,
            cell(&r.target),
            n("pass"),
            n("warn"),
            n("fail") + n("threw"),
            n("n/a"),
            cell(&probe),
            c.disagreements.len()
        );
    }
    s.push('\n');

    // Scenarios × servers.
    let _ = writeln!(s, "## Scenarios\n");
    let mut header = String::from("| scenario | scored | covered by |");
    let mut rule = String::from("|---|---|---|");
    for r in records {
        let _ = write!(header, " `{}` |", r.id);
        rule.push_str("---|");
    }
    let _ = writeln!(s, "{header}\n{rule}");
    for (name, entry) in &map.scenarios {
        let mut line = format!(
            "| [`{name}`](#{name}) | {} | {} |",
            if entry.scored { "yes" } else { "no" },
            scenario_coverage(map, name)
        );
        for c in &comparisons {
            let _ = write!(line, " {} |", verdict_cell(c, name));
        }
        let _ = writeln!(s, "{line}");
    }
    // wire-schema-valid across scenarios.
    let mut line = format!(
        "| `{WIRE_SCHEMA}` (every scenario) | — | {} |",
        map.every_scenario
            .get(WIRE_SCHEMA)
            .map(|c| c.rules.join(", "))
            .unwrap_or_default()
    );
    for c in &comparisons {
        let rows: Vec<_> = c
            .scenarios
            .iter()
            .filter(|row| row.not_applicable.is_none())
            .flat_map(|row| row.checks.iter())
            .filter(|ch| ch.check == WIRE_SCHEMA && ch.suite.is_verdict())
            .collect();
        let suite =
            crate::compare::worst(rows.iter().map(|ch| ch.suite)).map_or("n/a", |o| o.as_str());
        let mcpseal = rows.iter().filter_map(|ch| ch.mcpseal).max();
        let flag = if c.disagreements.iter().any(|d| d.key.ends_with(WIRE_SCHEMA)) {
            " ≠"
        } else {
            ""
        };
        let _ = write!(
            line,
            " {suite} · {}{flag} |",
            mcpseal.map_or("—", |m| m.as_str())
        );
    }
    let _ = writeln!(s, "{line}\n");

    // Checks.
    let _ = writeln!(s, "## What covers each check\n");
    let _ = writeln!(
        s,
        "Every check the suite reports, and the SEAL rule(s) judging the same requirement — or why none does. Rules that judge only servers speaking 2026-07-28 ({}) are not compared on a server whose `server/discover` is not implemented: mcpseal says that once (SEAL001, SEAL002) instead of once per 2026 detail.\n",
        map.modern_only_rules.join(", ")
    );
    for (name, entry) in &map.scenarios {
        let _ = writeln!(s, "### {name}\n");
        let _ = writeln!(
            s,
            "{} {}\n",
            if entry.scored {
                "Scored."
            } else {
                "Not scored."
            },
            entry.summary
        );
        if !entry.needs.is_empty() {
            let needs = entry
                .needs
                .all()
                .iter()
                .map(|(k, n)| format!("{k} `{n}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(s, "Applies only to a server with: {needs}.\n");
        }
        let _ = writeln!(s, "| check | covered by |\n|---|---|");
        for (check, c) in &entry.checks {
            let _ = writeln!(s, "| `{check}` | {} |", cell(&coverage_text(c)));
        }
        s.push('\n');
    }
    let _ = writeln!(s, "### Checks in every scenario\n");
    let _ = writeln!(s, "| check | covered by |\n|---|---|");
    for (check, c) in &map.every_scenario {
        let _ = writeln!(s, "| `{check}` | {} |", cell(&coverage_text(c)));
    }
    s.push('\n');

    // Disagreements, grouped by explanation.
    let _ = writeln!(s, "## Disagreements\n");
    let mut by_explanation: BTreeMap<&str, Vec<(&str, &crate::compare::Disagreement)>> =
        BTreeMap::new();
    for c in &comparisons {
        for d in &c.disagreements {
            let id = d.explanation.as_deref().unwrap_or("(unexplained)");
            by_explanation
                .entry(id)
                .or_default()
                .push((c.server.as_str(), d));
        }
    }
    if by_explanation.is_empty() {
        let _ = writeln!(s, "None: on every compared check the two tools agree.\n");
    }
    for (id, list) in &by_explanation {
        let (title, kind, text) = match map.explanations.get(*id) {
            Some(e) => (e.title.as_str(), e.kind.as_str(), e.text.as_str()),
            None => ("unexplained", "—", "No explanation (the tests fail)."),
        };
        let _ = writeln!(s, "### {title}\n");
        let _ = writeln!(s, "*{kind}* (`{id}`). {text}\n");
        let _ = writeln!(s, "| server | check | suite | mcpseal |\n|---|---|---|---|");
        for (server, d) in list {
            let _ = writeln!(
                s,
                "| `{server}` | `{}` | {} | {} ({}) |",
                d.key,
                d.suite.as_str(),
                d.mcpseal.as_str(),
                d.rules.join(", ")
            );
        }
        s.push('\n');
    }
    if !map.fixed.is_empty() {
        let _ = writeln!(s, "## Found by the comparison and fixed in mcpseal\n");
        for f in &map.fixed {
            let _ = writeln!(s, "* **{}** {}", f.title, f.text);
        }
        s.push('\n');
    }
    Ok(s)
}
