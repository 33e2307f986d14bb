//! The two tools side by side on one server.
//!
//! * A scenario applies unless the server lacks something it needs (a capability, the suite's
//!   fixture tools …): then it is "not applicable", never a failure. A check marked `always`
//!   applies regardless.
//! * A check is compared when it applies, the suite gave a verdict (pass, warn, fail — not
//!   "not testable", skipped or info) and SEAL rules cover it. mcpseal's side is the worst
//!   severity among those rules' findings (only the named titles, when the map names some):
//!   error = fail, warning = warn, none = pass. On a server whose `server/discover` is not
//!   implemented, rules that judge only 2026 servers are not applicable (one root cause, one
//!   finding).
//! * A compared check where the two differ is a disagreement; every one needs an explanation,
//!   and an explanation for a check that agrees is stale.

use std::collections::{BTreeMap, BTreeSet};

use crate::map::{Coverage, ScenarioMap};
use crate::record::ServerRecord;
use crate::suite::CheckOutcome;

/// mcpseal's side of a compared check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Side {
    /// No covering finding.
    Pass,
    /// A covering warning.
    Warn,
    /// A covering error.
    Fail,
}

impl Side {
    /// The word on the page.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Pass => "pass",
            Side::Warn => "warn",
            Side::Fail => "fail",
        }
    }

    fn agrees(self, suite: CheckOutcome) -> bool {
        matches!(
            (self, suite),
            (Side::Pass, CheckOutcome::Pass)
                | (Side::Warn, CheckOutcome::Warn)
                | (Side::Fail, CheckOutcome::Fail)
        )
    }
}

/// One check of one scenario on one server.
#[derive(Debug, Clone)]
pub struct CheckRow {
    /// Check id.
    pub check: String,
    /// The suite's outcome.
    pub suite: CheckOutcome,
    /// mcpseal's side, when compared.
    pub mcpseal: Option<Side>,
    /// Why it was not compared, when it was not and the suite gave a verdict.
    pub not_compared: Option<String>,
}

/// One scenario on one server.
#[derive(Debug, Clone)]
pub struct ScenarioRow {
    /// Scenario name.
    pub scenario: String,
    /// `Some(reason)` when it does not apply.
    pub not_applicable: Option<String>,
    /// The scenario threw (no `checks.json`).
    pub threw: bool,
    /// Its checks.
    pub checks: Vec<CheckRow>,
}

impl ScenarioRow {
    /// The suite's verdict on the scenario, over its applicable checks except
    /// `wire-schema-valid` (reported on its own row): `fail` > `warn` > `pass`; `n/a` when it
    /// does not apply or no check gave a verdict; `threw`.
    pub fn suite_verdict(&self) -> &'static str {
        // A scenario that does not apply says nothing, even when it threw.
        if self.not_applicable.is_some() {
            return "n/a";
        }
        if self.threw {
            return "threw";
        }
        worst(
            self.checks
                .iter()
                .filter(|c| c.check != WIRE_SCHEMA)
                .map(|c| c.suite),
        )
        .map_or("n/a", CheckOutcome::as_str)
    }

    /// mcpseal's verdict over the compared checks (except `wire-schema-valid`), if any.
    pub fn mcpseal_verdict(&self) -> Option<Side> {
        self.checks
            .iter()
            .filter(|c| c.check != WIRE_SCHEMA)
            .filter_map(|c| c.mcpseal)
            .max()
    }
}

/// The worst verdict among `outcomes` (fail > warn > pass); `None` when none is a verdict.
pub fn worst(outcomes: impl IntoIterator<Item = CheckOutcome>) -> Option<CheckOutcome> {
    outcomes
        .into_iter()
        .filter(|o| o.is_verdict())
        .max_by_key(|o| match o {
            CheckOutcome::Fail => 2,
            CheckOutcome::Warn => 1,
            _ => 0,
        })
}

/// The check every scenario carries.
pub const WIRE_SCHEMA: &str = "wire-schema-valid";

/// A disagreement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    /// `scenario/check`.
    pub key: String,
    /// The rules compared.
    pub rules: Vec<String>,
    /// The suite's outcome.
    pub suite: CheckOutcome,
    /// mcpseal's side.
    pub mcpseal: Side,
    /// The explanation id the record gives, if any.
    pub explanation: Option<String>,
}

/// One server's comparison.
#[derive(Debug, Clone)]
pub struct Comparison {
    /// Server id.
    pub server: String,
    /// Every scenario, by name.
    pub scenarios: Vec<ScenarioRow>,
    /// Every disagreement.
    pub disagreements: Vec<Disagreement>,
    /// Explanations the record gives for checks that do not disagree.
    pub stale_explanations: Vec<String>,
    /// Explanation ids the record names that the map does not have.
    pub unknown_explanations: Vec<String>,
}

impl Comparison {
    /// Disagreements without an explanation.
    pub fn unexplained(&self) -> Vec<&Disagreement> {
        self.disagreements
            .iter()
            .filter(|d| d.explanation.is_none())
            .collect()
    }

    /// Problems that make the committed data wrong: unexplained disagreements, stale or
    /// unknown explanations.
    pub fn problems(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .unexplained()
            .into_iter()
            .map(|d| {
                format!(
                    "{}: `{}` — the suite says {}, mcpseal ({}) says {}: no explanation",
                    self.server,
                    d.key,
                    d.suite.as_str(),
                    d.rules.join(", "),
                    d.mcpseal.as_str()
                )
            })
            .collect();
        out.extend(self.stale_explanations.iter().map(|k| {
            format!(
                "{}: `{k}` has an explanation but the two agree (or it is not compared): remove it",
                self.server
            )
        }));
        out.extend(self.unknown_explanations.iter().map(|k| {
            format!(
                "{}: explanation id `{k}` is not in scenarios.json",
                self.server
            )
        }));
        out
    }
}

fn need_unmet(map: &ScenarioMap, scenario: &str, record: &ServerRecord) -> Option<String> {
    let entry = map.scenarios.get(scenario)?;
    let s = &record.surface;
    for (kind, name) in entry.needs.all() {
        let have = match kind {
            "capability" => &s.capabilities,
            "extension" => &s.extensions,
            "tool" => &s.tools,
            "prompt" => &s.prompts,
            "resource" => &s.resources,
            _ => &s.resource_templates,
        };
        if !have.iter().any(|h| h == name) {
            let verb = if matches!(kind, "capability" | "extension") {
                "does not declare"
            } else {
                "does not list"
            };
            return Some(format!("needs {kind} `{name}`, which the server {verb}"));
        }
    }
    None
}

/// Whether the probe found `server/discover` not implemented at all (a 2025-only server).
fn speaks_2026(record: &ServerRecord) -> bool {
    !record.probe.findings.get("SEAL001").is_some_and(|fs| {
        fs.iter()
            .any(|f| f.title == "server/discover is not implemented")
    })
}

fn mcpseal_side(
    map: &ScenarioMap,
    coverage: &Coverage,
    record: &ServerRecord,
) -> Result<Side, String> {
    let modern = speaks_2026(record);
    let judging: Vec<&String> = coverage
        .rules
        .iter()
        .filter(|r| modern || !map.modern_only_rules.contains(r))
        .collect();
    if judging.is_empty() {
        return Err(
            "a 2025-only server: mcpseal reports that once (SEAL001, SEAL002) and judges none of its 2026 details"
                .into(),
        );
    }
    let mut side = Side::Pass;
    for rule in judging {
        for f in record.probe.findings.get(rule).into_iter().flatten() {
            if !coverage.titles.is_empty() && !coverage.titles.contains(&f.title) {
                continue;
            }
            let s = match f.severity.as_str() {
                "error" => Side::Fail,
                _ => Side::Warn,
            };
            side = side.max(s);
        }
    }
    Ok(side)
}

/// Compares one server. An error names checks the map does not know (the suite changed: map
/// them first).
pub fn compare(map: &ScenarioMap, record: &ServerRecord) -> Result<Comparison, String> {
    let mut unmapped = Vec::new();
    let mut scenarios = Vec::new();
    let mut disagreements = Vec::new();
    for (scenario, checks) in &record.suite {
        if !map.scenarios.contains_key(scenario) {
            unmapped.push(format!("scenario `{scenario}`"));
            continue;
        }
        let not_applicable = need_unmet(map, scenario, record);
        let mut rows = Vec::new();
        for (check, c) in checks.iter().flatten() {
            let Some(coverage) = map.coverage(scenario, check) else {
                unmapped.push(format!("`{scenario}/{check}`"));
                continue;
            };
            let applies = not_applicable.is_none() || coverage.always;
            let mut row = CheckRow {
                check: check.clone(),
                suite: c.outcome,
                mcpseal: None,
                not_compared: None,
            };
            if applies && c.outcome.is_verdict() && !coverage.rules.is_empty() {
                match mcpseal_side(map, coverage, record) {
                    Ok(side) => {
                        row.mcpseal = Some(side);
                        if !side.agrees(c.outcome) {
                            let key = format!("{scenario}/{check}");
                            disagreements.push(Disagreement {
                                explanation: record.disagreements.get(&key).cloned(),
                                key,
                                rules: coverage.rules.clone(),
                                suite: c.outcome,
                                mcpseal: side,
                            });
                        }
                    }
                    Err(why) => row.not_compared = Some(why),
                }
            }
            rows.push(row);
        }
        scenarios.push(ScenarioRow {
            scenario: scenario.clone(),
            not_applicable,
            threw: checks.is_none(),
            checks: rows,
        });
    }
    if !unmapped.is_empty() {
        return Err(format!(
            "{}: the suite reported what tests/conformance/scenarios.json does not map: {}",
            record.id,
            unmapped.join(", ")
        ));
    }
    let disagreeing: BTreeSet<&str> = disagreements.iter().map(|d| d.key.as_str()).collect();
    let stale_explanations = record
        .disagreements
        .keys()
        .filter(|k| !disagreeing.contains(k.as_str()))
        .cloned()
        .collect();
    let unknown_explanations = record
        .disagreements
        .values()
        .filter(|id| !map.explanations.contains_key(*id))
        .cloned()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    Ok(Comparison {
        server: record.id.clone(),
        scenarios,
        disagreements,
        stale_explanations,
        unknown_explanations,
    })
}

/// Scenario names of the map that no record ran (the suite dropped them, or a run is missing).
pub fn unrun_scenarios<'m>(map: &'m ScenarioMap, records: &[ServerRecord]) -> Vec<&'m str> {
    let ran: BTreeMap<&str, ()> = records
        .iter()
        .flat_map(|r| r.suite.keys().map(|k| (k.as_str(), ())))
        .collect();
    map.scenarios
        .keys()
        .filter(|k| !ran.contains_key(k.as_str()))
        .map(String::as_str)
        .collect()
}
