//! The document of `mcpseal call` (`schemaVersion: 1`): one client-shaped call of a tool (or a
//! read of a prompt or resource), every round of it, how a strict client judged the result, and
//! the negative controls that prove the judge could have said no.
//!
//! ```json
//! {"schemaVersion": 1, "tool": {"name": "mcpseal", "version": "0.1.0"},
//!  "target": "http://127.0.0.1:8080/mcp", "transport": "http", "revision": "2026-07-28",
//!  "subject": {"kind": "tool", "name": "forecast", "arguments": {"city": "lisbon"}},
//!  "state": "judged", "passed": true,
//!  "rounds": [{"round": 1, "exchange": {…}, "resultType": "complete", "inputRequests": []}],
//!  "result": {…}, "findings": [],
//!  "negativeControls": {"contract": {…}, "tamperings": [
//!    {"id": "requiredRemoved:/city", "kind": "requiredRemoved", "field": "/city",
//!     "schemaPath": "/required", "outcome": "rejected", "patch": [{"op": "remove", …}], …}]},
//!  "summary": {"errors": 0, "warnings": 0, "tamperings": 17, "rejected": 17, "traps": 0}}
//! ```
//!
//! Verdicts are [`Finding`]s with permanent `CALL0NN` ids ([`rules`]), each quoting the
//! exchange behind it. `passed` and `state` are decided when the document is built, never by a
//! renderer: `state` other than `judged` means no verdict (exit 2); `passed: false` means the
//! result, an expected error or a negative control failed (exit 1).

mod render;
mod rules;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::{Finding, Severity, ToolInfo};

pub use render::render_call;
pub use rules::{RULES, RuleDef, rule, rules};

/// What was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SubjectKind {
    /// `tools/call`.
    Tool,
    /// `prompts/get` (read-only).
    Prompt,
    /// `resources/read` (read-only).
    Resource,
}

impl SubjectKind {
    /// `tool`, `prompt`, `resource`.
    pub fn as_str(self) -> &'static str {
        match self {
            SubjectKind::Tool => "tool",
            SubjectKind::Prompt => "prompt",
            SubjectKind::Resource => "resource",
        }
    }
}

/// The call asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subject {
    /// Tool, prompt or resource.
    pub kind: SubjectKind,
    /// The tool or prompt name, or the resource URI.
    pub name: String,
    /// The arguments sent (`{}` for a resource).
    #[schemars(with = "Map<String, Value>")]
    pub arguments: Value,
}

/// How the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum CallState {
    /// A final result (or a JSON-RPC error) came back and was judged.
    Judged,
    /// The server asked for input nobody gave (see the last round's `inputRequests`).
    NeedsInput,
    /// The server could not be started or reached.
    Unreachable,
    /// A request got no valid answer (timeout, crash, oversize).
    NoAnswer,
    /// The server kept asking for input past the bound on rounds.
    Incomplete,
}

/// How an answer to an input request was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum AnswerSource {
    /// Given on the command line (`--answer KEY=JSON`) or through the library.
    Given,
    /// Typed at the terminal prompt.
    Prompted,
}

/// How an input request reached the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum InputVia {
    /// In an `input_required` result (2026-07-28 multi round-trip requests).
    InputRequired,
    /// As a server-to-client JSON-RPC request during the call (2025-11-25).
    ServerRequest,
}

/// One thing the server asked the client for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputRequest {
    /// The `inputRequests` key (2026), or the method (2025): what `--answer KEY=…` names.
    pub key: String,
    /// `elicitation/create`, `sampling/createMessage` or `roots/list` (or whatever was asked).
    pub method: String,
    /// The request's params as the server sent them.
    #[schemars(with = "Option<Value>")]
    pub params: Value,
    /// How it arrived.
    pub via: InputVia,
    /// The answer sent, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Value>")]
    pub answer: Option<Value>,
    /// Where the answer came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_from: Option<AnswerSource>,
}

/// One request of the call: the first, or a retry answering `input_required`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Round {
    /// 1 for the first request.
    pub round: u32,
    /// The exchange (request, response, headers, timing), credentials redacted.
    #[schemars(with = "Map<String, Value>")]
    pub exchange: Value,
    /// The result's `resultType`, when it has one.
    pub result_type: Option<String>,
    /// What the server asked for in this round.
    pub input_requests: Vec<InputRequest>,
}

/// One schema violation, located.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViolationRecord {
    /// JSON Pointer into the judged value.
    pub instance_path: String,
    /// JSON Pointer to the keyword in the schema.
    pub schema_path: String,
    /// The keyword (`type`, `required`, …).
    pub keyword: String,
    /// For people.
    pub message: String,
}

/// A reason the judgement rejected a tampered result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rejection {
    /// The check that said no (`structuredContent`, `missingStructuredContent`, `shape`, …).
    pub check: String,
    /// For people.
    pub message: String,
    /// The violations behind it.
    pub violations: Vec<ViolationRecord>,
}

/// Whether a tampered result was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ControlOutcome {
    /// Rejected: the check can say no here.
    Rejected,
    /// Accepted: the schema does not constrain what it seems to (exit 1).
    Trap,
}

/// One negative control.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TamperingRecord {
    /// `KIND:FIELD`, unique in the report (`requiredRemoved:/city`); `KIND` alone for the whole
    /// value (`noStructuredContent`).
    pub id: String,
    /// What it breaks (`noStructuredContent`, `requiredRemoved`, `wrongType`, `extraProperty`,
    /// `outOfEnum`, `notConst`, `belowMinimum`, `aboveMaximum`, `atExclusiveMinimum`,
    /// `atExclusiveMaximum`, `notMultipleOf`, `tooShort`, `tooLong`, `patternMismatch`,
    /// `tooFewItems`, `tooManyItems`; an open set).
    pub kind: String,
    /// JSON Pointer into `structuredContent` of the field edited (`""` = all of it).
    pub field: String,
    /// JSON Pointer into the `outputSchema` of the keyword that must reject it.
    pub schema_path: String,
    /// For people.
    pub description: String,
    /// Why the keyword may not apply, when the schema's draft says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The edit, as RFC 6902 JSON Patch operations on the whole result (replayable by any
    /// client).
    #[schemars(with = "Vec<Map<String, Value>>")]
    pub patch: Vec<Value>,
    /// Rejected or trap.
    pub outcome: ControlOutcome,
    /// Why it was rejected (empty for a trap).
    pub rejected_by: Vec<Rejection>,
}

/// The negative controls of the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NegativeControls {
    /// The listed `outputSchema` the tamperings were derived from.
    #[schemars(with = "Value")]
    pub contract: Value,
    /// Why none ran, when none did (the real result was itself rejected, so a rejection of a
    /// tampered copy would prove nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Every tampering and its outcome.
    pub tamperings: Vec<TamperingRecord>,
}

/// Counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallSummary {
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Negative controls run.
    pub tamperings: usize,
    /// Negative controls rejected.
    pub rejected: usize,
    /// Negative controls that passed (traps).
    pub traps: usize,
}

impl CallSummary {
    /// The counts of `findings` and `controls`.
    pub fn of(findings: &[Finding], controls: Option<&NegativeControls>) -> CallSummary {
        let tamperings = controls.map_or(&[][..], |c| &c.tamperings[..]);
        let traps = tamperings
            .iter()
            .filter(|t| t.outcome == ControlOutcome::Trap)
            .count();
        CallSummary {
            errors: findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .count(),
            warnings: findings
                .iter()
                .filter(|f| f.severity == Severity::Warning)
                .count(),
            tamperings: tamperings.len(),
            rejected: tamperings.len() - traps,
            traps,
        }
    }
}

/// Why there is no verdict (exit 2): a kind for machines, the words people read on stderr.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallErrorBody {
    /// `needsInput`, `unreachable`, `noAnswer`, `incomplete` (an open set).
    pub kind: String,
    /// What was wrong (no `error:` prefix).
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// The document of `mcpseal call` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal call report",
    description = "`mcpseal call --format json`, schemaVersion 1: one client-shaped call, its rounds, the strict client's verdicts and the negative controls. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/call-report.schema.json")
)]
pub struct CallReport {
    /// Always 1.
    #[schemars(schema_with = "const_one")]
    pub schema_version: u32,
    /// The tool that made the report.
    #[schemars(with = "ToolShape")]
    pub tool: ToolInfo,
    /// The URL or command line called (credentials redacted).
    pub target: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The revision the server spoke (`2026-07-28`, `2025-11-25`); `null` when unreachable.
    pub revision: Option<String>,
    /// What was called.
    pub subject: Subject,
    /// RFC 3339 start time.
    pub started_at: String,
    /// Run time.
    pub duration_ms: u64,
    /// How the run ended.
    pub state: CallState,
    /// Judged, no error finding and no trap.
    pub passed: bool,
    /// The call was expected to fail (`--expect-error`).
    pub expect_error: bool,
    /// The tool or prompt as the server listed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub definition: Option<Value>,
    /// Every request of the call, in order.
    pub rounds: Vec<Round>,
    /// The final result (of the last round), when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Value>")]
    pub result: Option<Value>,
    /// Counts.
    pub summary: CallSummary,
    /// The verdicts, sorted by rule id.
    #[schemars(with = "Vec<Map<String, Value>>")]
    pub findings: Vec<Finding>,
    /// The negative controls (`--negative-controls`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub negative_controls: Option<NegativeControls>,
    /// What the server said outside the protocol (stderr, non-JSON output, exit status).
    pub diagnostics: Vec<String>,
    /// Set when there is no verdict (exit 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<CallErrorBody>,
}

/// The schema of [`ToolInfo`] (`{name, version}`).
#[derive(JsonSchema)]
#[expect(dead_code, reason = "a schema shape only")]
struct ToolShape {
    /// `mcpseal`.
    name: String,
    /// Its version.
    version: String,
}

fn const_one(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "integer", "const": 1})
}

impl CallReport {
    /// `passed` as the module docs define it, from the state, the findings and the controls.
    pub fn compute_passed(
        state: CallState,
        findings: &[Finding],
        controls: Option<&NegativeControls>,
    ) -> bool {
        let s = CallSummary::of(findings, controls);
        state == CallState::Judged && s.errors == 0 && s.traps == 0
    }

    /// The exit code the report means: 0 passed, 1 failed, 2 no verdict.
    pub fn exit_code(&self) -> u8 {
        match (self.state, self.passed) {
            (CallState::Judged, true) => 0,
            (CallState::Judged, false) => 1,
            _ => 2,
        }
    }
}

/// The JSON Schema (2020-12, serialisation contract) of the document, as committed in
/// `schemas/call-report.schema.json`.
pub fn schema() -> Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<CallReport>()
        .to_value()
}
