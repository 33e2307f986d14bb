//! The documents of the publishing commands — `registry stamp|check|verify|list` and
//! `card check` — and their renderers (text, JSON, Markdown, SARIF).
//!
//! Each document is typed (serde, camelCase, `schemaVersion: 1`, a JSON Schema generated with
//! schemars) and carries its verdict as data. What was judged is a list of [`Check`]s, each
//! with a permanent id (`registry/fingerprint`, `card/cors`, …); the Markdown and SARIF forms
//! turn the checks that did not pass into [`Finding`]s, so a renderer never decides a verdict.

pub mod card;
pub mod registry;
mod render;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::{Finding, Remediation, Severity};

pub use render::{Rendered, render};

/// Where the publishing commands are specified: a path in mcpseal's repository, which renderers
/// link only against a configured documentation base URL (see `SarifRun::docs_url`).
pub const SPEC_REF: &str = "docs/publish.md";

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum CheckState {
    /// It holds.
    Pass,
    /// A mismatch or an invalid document (counts toward exit 1).
    Fail,
    /// Short of what is recommended (shown, never exit 1).
    Warn,
    /// It could not be judged (named why; counts toward exit 2 only when nothing else could).
    Skipped,
}

/// One judged claim: its permanent id, what was seen and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    /// Permanent id (`registry/fingerprint`, `card/media-type`, …).
    pub id: String,
    /// The outcome.
    pub state: CheckState,
    /// What is checked, in one line.
    pub title: String,
    /// What was seen.
    pub observed: String,
    /// What was expected.
    pub expected: String,
    /// Where it was seen (a URL, a file, a remote), when it helps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<String>,
}

impl Check {
    /// A check with every field.
    pub fn new(
        id: &str,
        state: CheckState,
        title: impl Into<String>,
        observed: impl Into<String>,
        expected: impl Into<String>,
    ) -> Check {
        Check {
            id: id.to_owned(),
            state,
            title: title.into(),
            observed: observed.into(),
            expected: expected.into(),
            subject: None,
        }
    }

    /// The same check, about `subject`.
    pub fn on(mut self, subject: impl Into<String>) -> Check {
        self.subject = Some(subject.into());
        self
    }

    /// The check as a finding (for Markdown and SARIF); `None` when it passed.
    pub fn finding(&self) -> Option<Finding> {
        let severity = match self.state {
            CheckState::Fail => Severity::Error,
            // A skipped check is shown as a warning: something could not be judged.
            CheckState::Warn | CheckState::Skipped => Severity::Warning,
            CheckState::Pass => return None,
        };
        Some(Finding {
            rule_id: self.id.clone(),
            severity,
            remediation: Remediation::Application,
            title: self.title.clone(),
            observed: match &self.subject {
                Some(s) => format!("{}: {}", s, self.observed),
                None => self.observed.clone(),
            },
            expected: self.expected.clone(),
            fix: String::new(),
            spec_ref: SPEC_REF.into(),
            evidence: Vec::new(),
        })
    }
}

/// Whether any check failed.
pub fn any_failed(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.state == CheckState::Fail)
}

/// The JSON Schemas (2020-12, serialisation contract) of the publishing documents:
/// `(file name in schemas/, schema)`.
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    fn of<T: JsonSchema>() -> serde_json::Value {
        schemars::generate::SchemaSettings::draft2020_12()
            .for_serialize()
            .into_generator()
            .into_root_schema_for::<T>()
            .to_value()
    }
    vec![
        (
            "card-check-report.schema.json",
            of::<card::CardCheckReport>(),
        ),
        (
            "registry-check-report.schema.json",
            of::<registry::RegistryCheckReport>(),
        ),
        (
            "registry-list-report.schema.json",
            of::<registry::RegistryListReport>(),
        ),
        (
            "registry-stamp-report.schema.json",
            of::<registry::StampReport>(),
        ),
        (
            "registry-verify-report.schema.json",
            of::<registry::RegistryVerifyReport>(),
        ),
    ]
}
