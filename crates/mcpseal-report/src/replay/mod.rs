//! The document of `mcpseal replay` (`--format json`, `schemaVersion: 1`; additive changes
//! only) and its renderers (text, JSON, Markdown).
//!
//! One [`VersionRow`] per published version, oldest first by semver; each captured version is
//! judged against the previous *captured* one (a version that did not install or start is a
//! row saying so, never an empty surface, and is skipped as a baseline). The verdict is data:
//! [`ReplayReport::verdict`] decides the exit code before anything is rendered.
//!
//! Determinism: two runs over the same versions give byte-identical JSON except
//! `generatedAt`. No timings, cache hits or temporary paths are in the document (timings go to
//! stderr and the Markdown's footer, passed to the renderer separately).

mod render;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use render::{Timing, render_markdown, render_text};

/// The version of the replay document's format.
pub const REPLAY_SCHEMA_VERSION: u32 = 1;

fn one(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "integer", "const": 1})
}

/// The report of `mcpseal replay`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal replay report",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/replay-report.schema.json")
)]
pub struct ReplayReport {
    /// Always 1.
    #[schemars(schema_with = "one")]
    pub schema_version: u32,
    /// The mcpseal version that made it.
    pub tool_version: String,
    /// When the report was made (RFC 3339): the one field that differs between two runs.
    pub generated_at: String,
    /// The source, as `npm:NAME`, `pypi:NAME` or `git:URL`.
    pub source: String,
    /// The registry, index or repository the versions were read from.
    pub origin: String,
    /// The canonical form fingerprints are in (`mcpseal/1`).
    pub form: String,
    /// How the rules were applied.
    pub rules: RuleSettings,
    /// The overall outcome.
    pub verdict: ReplayVerdict,
    /// Counts.
    pub summary: ReplaySummary,
    /// One row per replayed version, ascending semver precedence.
    pub rows: Vec<VersionRow>,
    /// Published versions left out, and why.
    pub excluded: Vec<ExcludedVersion>,
    /// Every violation of the compatibility line, in row order.
    pub violations: Vec<Violation>,
    /// The live endpoint's surface matched against every captured version (`--url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<LiveMatch>,
    /// The isolation the versions ran under, one line per kind (network, filesystem).
    pub isolation: Vec<String>,
    /// What was not measured, and why (isolation not available, versions not captured, …).
    pub not_measured: Vec<String>,
}

/// The rule switches in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleSettings {
    /// In 0.x a new minor is a new compatibility line (the lock rules; default). When false a
    /// break in `0.x` needs `1.0.0`.
    pub zero_major: bool,
    /// The network was cut off (`--allow-network` not given).
    pub network_isolation_requested: bool,
}

/// How a replay came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ReplayVerdict {
    /// Every consecutive pair of captured versions keeps the compatibility line (exit 0).
    Clean,
    /// At least one violation (exit 1).
    Violations,
    /// No version could be captured, so nothing was judged (exit 2).
    NothingCaptured,
}

/// Counts over the rows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReplaySummary {
    /// Rows.
    pub versions: usize,
    /// Rows whose surface was captured.
    pub captured: usize,
    /// Rows that did not install (including "not installable without running its build").
    pub not_installed: usize,
    /// Rows that installed but did not start, hung, crashed or gave an untrustworthy surface.
    pub did_not_start: usize,
    /// Violations.
    pub violations: usize,
}

/// A semver bump level between two versions, or the level a change needs.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum BumpLevel {
    /// The same precedence (`1.1.0` and `1.1.0.post1`; build metadata ignored).
    None,
    /// Only the pre-release part moved.
    Prerelease,
    /// A patch.
    Patch,
    /// A minor.
    Minor,
    /// A major, or a new compatibility line (a 0.x minor when `zeroMajor`).
    Major,
}

impl BumpLevel {
    /// The serialised name.
    pub fn as_str(self) -> &'static str {
        match self {
            BumpLevel::None => "none",
            BumpLevel::Prerelease => "prerelease",
            BumpLevel::Patch => "patch",
            BumpLevel::Minor => "minor",
            BumpLevel::Major => "major",
        }
    }
}

/// Whether the publisher withdrew the version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Withdrawal {
    /// Neither deprecated nor yanked.
    Current,
    /// npm `deprecated`.
    Deprecated {
        /// The message.
        message: String,
    },
    /// PyPI yanked (replayed only with `--include-yanked`).
    Yanked {
        /// The reason, if given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// Items per list of a captured surface; `null` when the list is not served.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// `tools/list`.
    pub tools: Option<usize>,
    /// `resources/list`.
    pub resources: Option<usize>,
    /// `resources/templates/list`.
    pub resource_templates: Option<usize>,
    /// `prompts/list`.
    pub prompts: Option<usize>,
}

/// What happened to one version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Outcome {
    /// Installed, started and captured (fail-closed capture).
    Captured {
        /// The fingerprint (`sha256` of the canonical surface).
        sha256: String,
        /// The protocol revision it was captured in.
        era: String,
        /// Items per list.
        counts: Counts,
        /// `serverInfo.version` as the server reports it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reported_version: Option<String>,
    },
    /// The install did not complete.
    InstallFailed {
        /// The step that failed (`download`, `install`, `build`, …).
        stage: String,
        /// What went wrong, one line.
        message: String,
        /// The installer's last lines.
        log_tail: Vec<String>,
    },
    /// Only an sdist is published and sdists are not allowed: not installable without
    /// running its build.
    NotInstallable {
        /// Why.
        message: String,
    },
    /// Installed, but no launch could be planned (no entry point, several and no `--bin`).
    NoEntryPoint {
        /// Why.
        message: String,
    },
    /// Installed, but it did not start, hung, crashed, or gave no trustworthy surface.
    DidNotStart {
        /// Why, one line.
        reason: String,
        /// The last lines it wrote to stderr.
        stderr: Vec<String>,
    },
}

/// How a version compares with the previous captured one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RowVerdict {
    /// The first captured version: nothing to compare with.
    Baseline,
    /// The same surface.
    Unchanged,
    /// A changed surface under a version that allows it.
    Compatible,
    /// A changed surface that breaks the compatibility line (see the violations).
    Violation,
    /// Not captured: not judged.
    NotJudged,
}

/// One classified change (the `diff` engine's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RowChange {
    /// `breaking`, `security`, `additive`, `cosmetic`, `unjudged`.
    pub class: String,
    /// Where, in the canonical surface (`/tools/name=echo`).
    pub path: String,
    /// The item, for people (`tool echo`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub item: Option<String>,
    /// The value there before (absent when it was absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<serde_json::Value>,
    /// The value there after (absent when it is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<serde_json::Value>,
    /// Why it has its class.
    pub explanation: String,
}

/// One replayed version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VersionRow {
    /// The version as published.
    pub version: String,
    /// When it was published (RFC 3339), when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published_at: Option<String>,
    /// Deprecated, yanked or neither.
    pub withdrawal: Withdrawal,
    /// What happened.
    pub outcome: Outcome,
    /// The version it was compared with (the previous captured one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compared_with: Option<String>,
    /// The bump between the two package versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_bump: Option<BumpLevel>,
    /// The bump the surface change needs (`major` = a new compatibility line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_bump: Option<BumpLevel>,
    /// The changes, in the engine's order.
    pub changes: Vec<RowChange>,
    /// The comparison's verdict.
    pub verdict: RowVerdict,
    /// `registry:` sources: the package version this server.json version pins and that was
    /// installed (`npm:PKG@VER`, `pypi:PKG==VER`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// Whether the MCP Registry lists this version, when a registry was asked (`registry:`
    /// sources, or `--mcp-registry` with `--listed-as`); absent when not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registry: Option<RegistryPresence>,
}

/// Whether an MCP Registry lists a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegistryPresence {
    /// Listed (a server.json version pins it).
    pub listed: bool,
    /// The entry's registry status (`active`, `deprecated`, `deleted`) when listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

impl VersionRow {
    /// The captured fingerprint, when there is one.
    pub fn sha256(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Captured { sha256, .. } => Some(sha256),
            _ => None,
        }
    }
}

/// A kind of violation of the compatibility line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ViolationKind {
    /// The surface changed and the package version did not go up (`1.1.0` → `1.1.0.post1`).
    ChangedWithoutVersionBump,
    /// The surface changed and the server still reports the previous version's
    /// `serverInfo.version` (a lock made from the server sees two surfaces under one version).
    ChangedUnderSameReportedVersion,
    /// A contract break in a minor or patch (no new compatibility line).
    BreakWithoutNewLine,
    /// An item removed outside a major (a special case of a break, named on its own).
    RemovalOutsideMajor,
}

impl ViolationKind {
    /// For people.
    pub fn phrase(self) -> &'static str {
        match self {
            ViolationKind::ChangedWithoutVersionBump => "surface changed without a version bump",
            ViolationKind::ChangedUnderSameReportedVersion => {
                "surface changed under the same reported serverInfo.version"
            }
            ViolationKind::BreakWithoutNewLine => "breaking change without a new major",
            ViolationKind::RemovalOutsideMajor => "item removed outside a major",
        }
    }
}

/// A concrete request the old surface accepts and the new one rejects, checked with the JSON
/// Schema validator against both input schemas.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Witness {
    /// The tool.
    pub tool: String,
    /// The `tools/call` request's `params` (`{"name", "arguments"}`).
    pub request: serde_json::Value,
    /// Why the new surface rejects it: the validator's first violation, or "no such tool".
    pub rejected_because: String,
}

/// One violation of the compatibility line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// What rule it breaks.
    pub kind: ViolationKind,
    /// The version.
    pub version: String,
    /// The previous captured version.
    pub previous: String,
    /// In one sentence.
    pub message: String,
    /// The changes behind it (paths).
    pub paths: Vec<String>,
    /// For breaking schema changes: requests that prove it.
    pub witnesses: Vec<Witness>,
}

/// A version left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExcludedVersion {
    /// The version as published.
    pub version: String,
    /// Why (`prerelease`, `yanked`, `outOfRange`, `notSemver: …`).
    pub reason: String,
}

/// The live endpoint against the replayed versions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveMatch {
    /// The endpoint (credentials redacted).
    pub url: String,
    /// Its fingerprint, or `None` when it could not be captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Why it could not be captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The version it reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_version: Option<String>,
    /// The replayed versions whose surface it has.
    pub matches: Vec<String>,
    /// In one sentence (`live = 1.4.2's surface; it reports 1.5.0`).
    pub message: String,
}

/// The JSON Schema (2020-12, serialisation contract) of [`ReplayReport`].
pub fn schema() -> serde_json::Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<ReplayReport>()
        .to_value()
}

/// The JSON form: pretty, ending with a newline.
pub fn render_json(report: &ReplayReport) -> String {
    let mut out = serde_json::to_string_pretty(report).unwrap_or_default();
    out.push('\n');
    out
}
