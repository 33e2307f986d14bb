//! `tests/conformance/scenarios.json`: the suite's server scenarios, what each needs to apply,
//! the SEAL rules covering each check, and the explanations of disagreements. Hand-written;
//! unknown keys are refused so a typo cannot disable a mapping.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// The whole map.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScenarioMap {
    /// The pinned suite (`@modelcontextprotocol/conformance@0.2.0-alpha.12`).
    pub suite: String,
    /// The requirement set run (`2026-07-28`).
    pub requirements: String,
    /// Rules that judge only servers speaking 2026-07-28: on a server whose `server/discover`
    /// is not implemented (SEAL001 says so) they are silent by design — one root cause, one
    /// finding — so the checks they cover are not compared there.
    pub modern_only_rules: Vec<String>,
    /// Checks the suite adds to every scenario (`wire-schema-valid`).
    pub every_scenario: BTreeMap<String, Coverage>,
    /// Every scenario of the requirement set, by name.
    pub scenarios: BTreeMap<String, ScenarioEntry>,
    /// Explanations of disagreements, by id (records refer to them).
    pub explanations: BTreeMap<String, Explanation>,
    /// What running the two side by side found wrong in mcpseal (or its fixture) and was fixed,
    /// so the disagreement is gone: the rule or knob, tested both ways.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fixed: Vec<Fixed>,
}

/// A disagreement that was mcpseal's fault, and its fix.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Fixed {
    /// One line.
    pub title: String,
    /// What was wrong, the spec text, and what changed (rule ids, fixture knobs).
    pub text: String,
}

/// One scenario.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScenarioEntry {
    /// Scored by the requirement set (else run and reported, not scored).
    pub scored: bool,
    /// What it tests, in one line.
    pub summary: String,
    /// What a server must offer for the scenario to apply; otherwise it is "not applicable",
    /// never a failure.
    #[serde(default, skip_serializing_if = "Needs::is_empty")]
    pub needs: Needs,
    /// Every check it reports, by id, and what covers it.
    pub checks: BTreeMap<String, Coverage>,
}

/// What a scenario needs of a server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Needs {
    /// Declared server capabilities (`completions`, `prompts`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// Declared extensions (`io.modelcontextprotocol/tasks`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    /// Listed tools (the suite's fixture names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Listed prompts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prompts: Vec<String>,
    /// Listed resources (URIs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<String>,
    /// Listed resource templates.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<String>,
}

impl Needs {
    /// Nothing needed.
    pub fn is_empty(&self) -> bool {
        *self == Needs::default()
    }

    /// `(kind, name)` of every need, in a fixed order.
    pub fn all(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        for (kind, list) in [
            ("capability", &self.capabilities),
            ("extension", &self.extensions),
            ("tool", &self.tools),
            ("prompt", &self.prompts),
            ("resource", &self.resources),
            ("resource template", &self.resource_templates),
        ] {
            out.extend(list.iter().map(|n| (kind, n.as_str())));
        }
        out
    }
}

/// What covers one check: SEAL rules, or nothing, with the reason.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Coverage {
    /// The rules that judge the same requirement.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<String>,
    /// Only these finding titles of those rules judge it (a rule with one finding per fault).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub titles: Vec<String>,
    /// Why no rule covers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_covered: Option<String>,
    /// Why it is outside what mcpseal does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub out_of_scope: Option<String>,
    /// How the coverage differs (partial, stricter …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The check applies to every server, even when the scenario's needs are not met (e.g.
    /// "`tasks/list` is gone" inside the tasks-extension scenarios).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub always: bool,
}

impl Coverage {
    /// Checks that exactly one of `rules`, `notCovered`, `outOfScope` is given.
    pub fn validate(&self) -> Result<(), String> {
        let given = usize::from(!self.rules.is_empty())
            + usize::from(self.not_covered.is_some())
            + usize::from(self.out_of_scope.is_some());
        if given != 1 {
            return Err("give exactly one of `rules`, `notCovered`, `outOfScope`".into());
        }
        if !self.titles.is_empty() && self.rules.is_empty() {
            return Err("`titles` needs `rules`".into());
        }
        Ok(())
    }
}

/// Why the two tools disagree on a check.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Explanation {
    /// Which side departs from the spec, or why the difference is intended.
    pub kind: ExplanationKind,
    /// One line.
    pub title: String,
    /// The explanation, quoting the spec text (and the suite's check) it rests on.
    pub text: String,
}

/// The kinds of explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ExplanationKind {
    /// The suite fails (or warns about) what the spec does not require.
    SuiteStricter,
    /// The suite passes what the spec forbids; mcpseal finds it.
    SuiteLaxer,
    /// The suite's verdict rests on a wrong reading of the answer.
    SuiteWrong,
    /// The two judge the same requirement on different probes, by design (mcpseal's is
    /// documented in the rule).
    ByDesign,
}

impl ExplanationKind {
    /// The words on the page.
    pub fn as_str(self) -> &'static str {
        match self {
            ExplanationKind::SuiteStricter => "the suite is stricter than the spec",
            ExplanationKind::SuiteLaxer => "the suite is laxer than the spec",
            ExplanationKind::SuiteWrong => "the suite misreads the answer",
            ExplanationKind::ByDesign => "different probes, by design",
        }
    }
}

impl ScenarioMap {
    /// `tests/conformance/scenarios.json`.
    pub fn path() -> PathBuf {
        crate::conformance_dir().join("scenarios.json")
    }

    /// Reads and validates the committed map.
    pub fn load() -> Result<ScenarioMap, String> {
        let path = ScenarioMap::path();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("reading `{}`: {e}", path.display()))?;
        let map: ScenarioMap =
            serde_json::from_str(&text).map_err(|e| format!("`{}`: {e}", path.display()))?;
        map.validate()
            .map_err(|e| format!("`{}`: {e}", path.display()))?;
        Ok(map)
    }

    /// Every coverage entry well formed.
    pub fn validate(&self) -> Result<(), String> {
        for (check, c) in &self.every_scenario {
            c.validate()
                .map_err(|e| format!("everyScenario `{check}`: {e}"))?;
        }
        for (name, s) in &self.scenarios {
            for (check, c) in &s.checks {
                c.validate()
                    .map_err(|e| format!("`{name}` `{check}`: {e}"))?;
            }
        }
        Ok(())
    }

    /// What covers `check` of `scenario`, if the map knows it.
    pub fn coverage(&self, scenario: &str, check: &str) -> Option<&Coverage> {
        self.scenarios
            .get(scenario)
            .and_then(|s| s.checks.get(check))
            .or_else(|| self.every_scenario.get(check))
    }
}
