//! The report model. Its JSON form is a public contract (`schemaVersion: 1`): camelCase keys,
//! additive changes only.

use std::cmp::Ordering;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::record::{Evidence, TransportName};

/// How bad a finding is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A client of the target revision will not work against this server.
    Error,
    /// Deprecated, a SHOULD, or a degradation. Never blocks readiness.
    Warning,
}

impl Severity {
    /// `error` / `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Who has to fix a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Remediation {
    /// Upgrading the MCP SDK makes it disappear.
    Sdk,
    /// The server's author must change their code or configuration.
    Application,
}

impl Remediation {
    /// `sdk` / `application`.
    pub fn as_str(self) -> &'static str {
        match self {
            Remediation::Sdk => "sdk",
            Remediation::Application => "application",
        }
    }
}

/// One violation, with the evidence that proves it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("additionalProperties" = false))]
pub struct Finding {
    /// The permanent id of the rule that found it (e.g. `SEAL001`).
    #[schemars(length(min = 1))]
    pub rule_id: String,
    /// Severity of this finding (a rule may lower its default for a milder variant).
    pub severity: Severity,
    /// Who has to fix it.
    pub remediation: Remediation,
    /// What is wrong, in one line.
    #[schemars(length(min = 1))]
    pub title: String,
    /// What the probe saw, quoting real values.
    pub observed: String,
    /// What the specification requires, in its own terms.
    pub expected: String,
    /// The concrete change that fixes it.
    pub fix: String,
    /// The specification text behind the rule: an absolute URL, or for mcpseal's own rules the
    /// page's path in mcpseal's repository (`SPEC.md#9-lock-file`), which renderers link only
    /// against a configured documentation base URL.
    pub spec_ref: String,
    /// The exchanges behind the verdict (serialised `mcpseal_client::Exchange`s or raw HTTP
    /// previews), credentials redacted.
    #[schemars(with = "Vec<Evidence>")]
    pub evidence: Vec<Value>,
}

impl Finding {
    /// The order every report lists findings in: rule id, then title, then observed text.
    ///
    /// Renderers sort with this (on a copy; the input is never mutated), so output is stable
    /// whatever order the rules ran in. Producers may sort with [`sort_findings`] too.
    pub fn report_order(&self, other: &Finding) -> Ordering {
        (&self.rule_id, &self.title, &self.observed).cmp(&(
            &other.rule_id,
            &other.title,
            &other.observed,
        ))
    }
}

/// Sorts `findings` into [`Finding::report_order`] (stable: equal keys keep their order).
pub fn sort_findings(findings: &mut [Finding]) {
    findings.sort_by(Finding::report_order);
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    /// Every probe was answered: the findings are the whole truth.
    Measured,
    /// No probe was answered: no rule ran, zero findings.
    Unreachable,
    /// Some probes went unanswered: findings are shown, the run is never ready.
    Incomplete,
}

/// Why a run is incomplete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("additionalProperties" = false))]
pub struct Incomplete {
    /// Probes sent.
    pub probes: usize,
    /// Probes that got no answer.
    #[schemars(range(min = 1))]
    pub failed: usize,
    /// The first transport error.
    pub reason: String,
}

/// Probes refused for authorization: a 401 (or 403) is not an answer to the method, so none is
/// judged, and the run is incomplete.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("additionalProperties" = false))]
pub struct AccessRefusal {
    /// Probes refused.
    pub refused: usize,
    /// The HTTP status of the first refusal (401 or 403).
    pub status: u16,
    /// The first `WWW-Authenticate` challenge, when the server sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<String>,
    /// The protected-resource metadata URL the challenge names (RFC 9728), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_metadata: Option<String>,
    /// Whether the requests carried a credential header the user passed (then it was refused).
    pub credential_sent: bool,
    /// Methods the server served without a credential (enumerable anonymously), sorted; empty
    /// when a credential was sent.
    pub anonymous: Vec<String>,
}

/// Counts over the findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("additionalProperties" = false))]
pub struct Summary {
    /// Rules run.
    pub checks: usize,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Rules that crashed.
    pub crashed: usize,
    /// Error findings an SDK upgrade fixes.
    pub sdk_errors: usize,
    /// Error findings the author must fix.
    pub application_errors: usize,
}

impl Summary {
    /// Counts `findings` for `checks` rules run and `crashed` crashed rules.
    pub fn of(findings: &[Finding], checks: usize, crashed: usize) -> Summary {
        let errors = || findings.iter().filter(|f| f.severity == Severity::Error);
        Summary {
            checks,
            errors: errors().count(),
            warnings: findings
                .iter()
                .filter(|f| f.severity == Severity::Warning)
                .count(),
            crashed,
            sdk_errors: errors()
                .filter(|f| f.remediation == Remediation::Sdk)
                .count(),
            application_errors: errors()
                .filter(|f| f.remediation == Remediation::Application)
                .count(),
        }
    }
}

/// A rule that panicked or errored; the run went on without it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("additionalProperties" = false))]
pub struct CrashedRule {
    /// The rule.
    #[schemars(length(min = 1))]
    pub rule_id: String,
    /// What went wrong.
    pub error: String,
}

/// The static description of a rule (for `--list-rules`, SARIF drivers, docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("additionalProperties" = false))]
pub struct RuleInfo {
    /// Permanent id.
    #[schemars(length(min = 1))]
    pub id: String,
    /// Title.
    #[schemars(length(min = 1))]
    pub title: String,
    /// Default severity.
    pub severity: Severity,
    /// Who fixes it.
    pub remediation: Remediation,
    /// Spec reference, as [`Finding::spec_ref`]: an absolute URL or a path in mcpseal's repository.
    pub spec_ref: String,
    /// Transports it applies to (`stdio`, `http`).
    #[schemars(with = "Vec<TransportName>", extend("uniqueItems" = true))]
    pub transports: Vec<String>,
    /// The mcp-stateless rule it corresponds to, if any (`MCP0NN`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_id: Option<String>,
    /// Why the spec changed (from the rule's doc comment).
    pub rationale: String,
}

/// The tool that made a report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(extend("additionalProperties" = false))]
pub struct ToolInfo {
    /// `mcpseal`.
    #[schemars(length(min = 1))]
    pub name: String,
    /// Its version.
    pub version: String,
}

/// A conformance probe run. Its JSON form is [`crate::ProbeDocument`] (this report, plus an
/// `error` when the run has no verdict).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("additionalProperties" = false))]
pub struct ProbeReport {
    /// Always 1 for this shape.
    #[schemars(schema_with = "crate::document::const_one")]
    pub schema_version: u32,
    /// The tool.
    pub tool: ToolInfo,
    /// The URL or command line probed (credentials masked by the producer).
    pub target: String,
    /// `stdio` or `http`.
    #[schemars(with = "TransportName")]
    pub transport: String,
    /// The revision judged against (`2026-07-28`).
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]
    pub target_revision: String,
    /// The protocol revision the server negotiated on the path that worked: `initialize`'s
    /// `protocolVersion` on the 2025 path (it may be older, e.g. `2024-11-05`), `2026-07-28`
    /// when `server/discover` lists it. Absent when no path worked or the server named none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]
    pub protocol_version: Option<String>,
    /// RFC 3339 start time.
    #[schemars(extend("format" = "date-time"))]
    pub started_at: String,
    /// Run time.
    pub duration_ms: u64,
    /// How the run ended.
    pub state: RunState,
    /// Measured, and no error finding.
    pub ready: bool,
    /// Set when unreachable: the first transport error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreachable: Option<String>,
    /// Set when incomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<Incomplete>,
    /// Set when probes were refused for authorization (HTTP 401/403): what the server asked
    /// for, and what it served without a credential. Never a finding; such a run is
    /// incomplete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<AccessRefusal>,
    /// Counts.
    pub summary: Summary,
    /// Findings, sorted by rule id then title.
    pub findings: Vec<Finding>,
    /// Rules that crashed.
    pub crashed_rules: Vec<CrashedRule>,
    /// What the server said outside the protocol (stderr, non-JSON output, exit status).
    pub diagnostics: Vec<String>,
    /// Every registered rule (so SARIF can list them all).
    pub rules: Vec<RuleInfo>,
}

impl ProbeReport {
    /// `ready` as the invariants define it: measured and no error finding.
    pub fn compute_ready(state: RunState, summary: &Summary) -> bool {
        state == RunState::Measured && summary.errors == 0
    }
}
