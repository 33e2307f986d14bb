//! The JSON document of a probe run: the [`ProbeReport`] as it is, plus an `error` when the run
//! has no verdict (unreachable or incomplete), so that CI reads why from `.error` as it does
//! for every command that exits 2.

use schemars::JsonSchema;
use serde::Serialize;

use super::error::{ErrorBody, ErrorKind, unreachable_hint};
use crate::model::{ProbeReport, RunState};

/// The JSON form of a probe run (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal probe report",
    description = "The JSON form of an mcpseal conformance probe run (`mcpseal probe --format json`), schemaVersion 1. The format is a public contract: camelCase keys, additive changes only; a breaking change would bump schemaVersion.",
    extend("additionalProperties" = false),
    extend("allOf" = [
        {
            "$comment": "ready means measured with no error finding.",
            "if": { "properties": { "ready": { "const": true } }, "required": ["ready"] },
            "then": {
                "properties": {
                    "state": { "const": "measured" },
                    "summary": { "properties": { "errors": { "const": 0 } } }
                }
            }
        },
        {
            "$comment": "unreachable: the reason is given, no rule ran, nothing was found.",
            "if": { "properties": { "state": { "const": "unreachable" } }, "required": ["state"] },
            "then": {
                "required": ["unreachable", "error"],
                "not": { "required": ["incomplete"] },
                "properties": { "ready": { "const": false }, "findings": { "maxItems": 0 } }
            }
        },
        {
            "if": { "properties": { "state": { "const": "incomplete" } }, "required": ["state"] },
            "then": {
                "required": ["incomplete", "error"],
                "not": { "required": ["unreachable"] },
                "properties": { "ready": { "const": false } }
            }
        },
        {
            "if": { "properties": { "state": { "const": "measured" } }, "required": ["state"] },
            "then": {
                "allOf": [
                    { "not": { "required": ["unreachable"] } },
                    { "not": { "required": ["incomplete"] } },
                    { "not": { "required": ["error"] } }
                ]
            }
        }
    ]),
    extend(
        "$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/probe-report.schema.json",
        "$comment" = "Strictness policy: the objects mcpseal-report owns (report, tool, summary, finding, crashed rule, rule, incomplete) are closed (additionalProperties: false) so that an accidental rename or stray field fails mcpseal's own tests; every new field is added in the same change. Consumers that must accept reports from newer mcpseal versions should ignore unknown keys (or drop additionalProperties: false from their copy). Evidence items are open: they are serialised transport records owned by mcpseal-client, which grow on their own, so only their identifying keys are required."
    )
)]
pub struct ProbeDocument {
    /// The run.
    #[serde(flatten)]
    pub report: ProbeReport,
    /// Why the run has no verdict (unreachable or incomplete); absent when measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

impl ProbeDocument {
    /// The document of `report`, with its `error` derived from the run state.
    pub fn of(report: ProbeReport) -> ProbeDocument {
        let error = report.error();
        ProbeDocument { report, error }
    }
}

impl ProbeReport {
    /// Why this run has no verdict: `None` when measured; an `unreachable` or `incomplete`
    /// error otherwise (the same words the CLI prints on stderr).
    pub fn error(&self) -> Option<ErrorBody> {
        match self.state {
            RunState::Measured => None,
            RunState::Unreachable => Some(ErrorBody {
                kind: ErrorKind::Unreachable,
                message: format!(
                    "the server is unreachable: {}",
                    self.unreachable
                        .as_deref()
                        .unwrap_or("no probe was answered")
                ),
                hint: Some(
                    unreachable_hint(self.unreachable.as_deref().unwrap_or_default()).to_owned(),
                ),
            }),
            RunState::Incomplete => Some(ErrorBody {
                kind: ErrorKind::Incomplete,
                message: match &self.incomplete {
                    Some(inc) => format!(
                        "the probe is incomplete: {} of {} probes unanswered ({})",
                        inc.failed, inc.probes, inc.reason
                    ),
                    None => "the probe is incomplete: some probes went unanswered".to_owned(),
                },
                hint: Some(
                    // An unanswered probe is never a pass: say what could change the outcome.
                    "nothing was judged from the unanswered probes; a slow server may need a longer \
                     `--timeout`, a large answer `--max-message-bytes`, a protected one `--header`"
                        .to_owned(),
                ),
            }),
        }
    }
}
