//! `tests/conformance/servers/<id>.json`: what the suite and the probe said about one server,
//! and which explanation covers each disagreement. The observed parts are written from a live
//! run (`MCPSEAL_UPDATE_CONFORMANCE=1` with the CLI's conformance test); the `disagreements`
//! map is hand-written and kept across updates.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::suite::{CheckOutcome, SuiteRun};

/// One server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ServerRecord {
    /// The id (file name): `fixture-modern`, `ts-http`, …
    pub id: String,
    /// What it is, for people.
    pub target: String,
    /// What it offers (for the scenarios' needs).
    pub surface: Surface,
    /// Every scenario's checks, by id; `null` when the scenario threw.
    pub suite: BTreeMap<String, Option<BTreeMap<String, CheckRecord>>>,
    /// `mcpseal probe` on the same endpoint.
    pub probe: ProbeRecord,
    /// `scenario/check` → explanation id, for every disagreement (hand-written).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub disagreements: BTreeMap<String, String>,
}

/// A check's outcome and the suite's message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CheckRecord {
    /// What it said.
    pub outcome: CheckOutcome,
    /// The suite's message (non-passing checks only), cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What a server offers, from `mcpseal snapshot` (names only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Surface {
    /// Declared capability keys (`tools`, `prompts`, …).
    pub capabilities: Vec<String>,
    /// Declared extensions.
    pub extensions: Vec<String>,
    /// Tool names.
    pub tools: Vec<String>,
    /// Prompt names.
    pub prompts: Vec<String>,
    /// Resource URIs.
    pub resources: Vec<String>,
    /// Resource template URIs.
    pub resource_templates: Vec<String>,
}

/// The probe's verdict, reduced to what is compared.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProbeRecord {
    /// `measured`, `incomplete` or `unreachable`.
    pub state: String,
    /// Rule id → its findings.
    pub findings: BTreeMap<String, Vec<Finding>>,
}

/// One finding, reduced.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Finding {
    /// `error` or `warning`.
    pub severity: String,
    /// Its title (rules with one finding per fault tell them apart by title).
    pub title: String,
}

impl Surface {
    /// The surface of a `mcpseal snapshot --format json` document.
    pub fn of_snapshot(doc: &Value) -> Surface {
        let surface = &doc["surface"];
        let names = |list: &str, key: &str| -> Vec<String> {
            let mut v: Vec<String> = surface[list]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|i| i[key].as_str().map(str::to_owned))
                .collect();
            v.sort();
            v
        };
        let caps = surface
            .pointer("/server/capabilities")
            .or_else(|| surface.get("capabilities"));
        let mut capabilities: Vec<String> = caps
            .and_then(Value::as_object)
            .map(|o| o.keys().filter(|k| *k != "extensions").cloned().collect())
            .unwrap_or_default();
        capabilities.sort();
        let mut extensions: Vec<String> = caps
            .and_then(|c| c.get("extensions"))
            .and_then(Value::as_object)
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        extensions.sort();
        Surface {
            capabilities,
            extensions,
            tools: names("tools", "name"),
            prompts: names("prompts", "name"),
            resources: names("resources", "uri"),
            resource_templates: names("resourceTemplates", "uriTemplate"),
        }
    }
}

impl ProbeRecord {
    /// The record of a `mcpseal probe --format json` report.
    pub fn of_report(report: &Value) -> ProbeRecord {
        let mut findings: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
        for f in report["findings"].as_array().into_iter().flatten() {
            let rule = f["ruleId"].as_str().unwrap_or("?").to_owned();
            findings.entry(rule).or_default().push(Finding {
                severity: f["severity"].as_str().unwrap_or("?").to_owned(),
                title: f["title"].as_str().unwrap_or("").to_owned(),
            });
        }
        for list in findings.values_mut() {
            list.sort();
            list.dedup();
        }
        ProbeRecord {
            state: report["state"].as_str().unwrap_or("?").to_owned(),
            findings,
        }
    }
}

impl ServerRecord {
    /// The observed record of a live run (no explanations: [`ServerRecord::keep_explanations`]
    /// brings the committed ones over).
    pub fn observed(
        id: &str,
        target: &str,
        surface: Surface,
        run: &SuiteRun,
        probe: ProbeRecord,
    ) -> ServerRecord {
        let suite = run
            .iter()
            .map(|(scenario, checks)| {
                let checks = checks.as_ref().map(|list| {
                    list.iter()
                        .map(|c| {
                            (
                                c.id.clone(),
                                CheckRecord {
                                    outcome: c.outcome,
                                    message: c.message.clone(),
                                },
                            )
                        })
                        .collect()
                });
                (scenario.clone(), checks)
            })
            .collect();
        ServerRecord {
            id: id.to_owned(),
            target: target.to_owned(),
            surface,
            suite,
            probe,
            disagreements: BTreeMap::new(),
        }
    }

    /// Takes the hand-written `disagreements` of `committed`, and its verdict on every check
    /// the suite's read window cut short this time (a slow run never overwrites a verdict).
    pub fn keep_explanations(mut self, committed: Option<&ServerRecord>) -> ServerRecord {
        if let Some(c) = committed {
            self.disagreements.clone_from(&c.disagreements);
            for (scenario, checks) in &mut self.suite {
                let Some(checks) = checks else { continue };
                let Some(Some(before)) = c.suite.get(scenario) else {
                    continue;
                };
                for (id, check) in checks.iter_mut() {
                    if check.outcome == CheckOutcome::TooSlow
                        && let Some(b) = before.get(id)
                    {
                        check.clone_from(b);
                    }
                }
            }
        }
        self
    }

    /// The differences that matter between a live run and the committed record: the surface,
    /// every check's outcome (messages are not compared: they may quote ports or ids), the
    /// probe. Empty when they agree.
    pub fn differences(&self, committed: &ServerRecord) -> Vec<String> {
        let mut out = Vec::new();
        if self.surface != committed.surface {
            out.push(format!(
                "surface: observed {:?}, committed {:?}",
                self.surface, committed.surface
            ));
        }
        if self.probe != committed.probe {
            out.push(format!(
                "probe: observed {:?}, committed {:?}",
                self.probe, committed.probe
            ));
        }
        let outcomes = |r: &ServerRecord| -> BTreeMap<String, String> {
            let mut m = BTreeMap::new();
            for (scenario, checks) in &r.suite {
                match checks {
                    None => {
                        m.insert(scenario.clone(), "threw".to_owned());
                    }
                    Some(checks) => {
                        for (id, c) in checks {
                            m.insert(format!("{scenario}/{id}"), c.outcome.as_str().to_owned());
                        }
                    }
                }
            }
            m
        };
        let (a, b) = (outcomes(self), outcomes(committed));
        for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
            let (x, y) = (a.get(key), b.get(key));
            // The suite's fixed read window closing first depends on the machine's load: neither
            // a verdict nor a drift (the committed record keeps the verdict of a run in time).
            let too_slow =
                |o: Option<&String>| o.is_some_and(|o| o == CheckOutcome::TooSlow.as_str());
            if x != y && !too_slow(x) && !too_slow(y) {
                out.push(format!(
                    "suite `{key}`: observed {}, committed {}",
                    x.map_or("absent", String::as_str),
                    y.map_or("absent", String::as_str)
                ));
            }
        }
        out
    }

    /// The file of server `id`.
    pub fn path(id: &str) -> PathBuf {
        records_dir().join(format!("{id}.json"))
    }

    /// The committed record of `id`, if any.
    pub fn load(id: &str) -> Result<Option<ServerRecord>, String> {
        let path = ServerRecord::path(id);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| format!("`{}`: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("reading `{}`: {e}", path.display())),
        }
    }

    /// As committed: pretty JSON, two-space indent, one trailing newline.
    pub fn to_file_text(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// `tests/conformance/servers/`.
pub fn records_dir() -> PathBuf {
    crate::conformance_dir().join("servers")
}

/// Every committed record, by id.
pub fn read_records() -> Result<Vec<ServerRecord>, String> {
    let dir = records_dir();
    let mut out = Vec::new();
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("reading `{}`: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    for name in names {
        let id = name.trim_end_matches(".json");
        let record = ServerRecord::load(id)?.ok_or_else(|| format!("`{name}` vanished"))?;
        if record.id != id {
            return Err(format!("`{name}` holds the record of `{}`", record.id));
        }
        out.push(record);
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}
