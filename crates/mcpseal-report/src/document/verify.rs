//! The report of `mcpseal verify` (`--format json`, `schemaVersion: 1`).
//!
//! ```json
//! {"schemaVersion": 1, "matches": true, "lock": "surface.lock.json",
//!  "target": "https://mcp.example.com/mcp", "lockedVersion": "1.0.0",
//!  "reportedVersion": "1.0.0", "reportedIsLocked": true, "lockedSha256": "…",
//!  "liveSha256": "…", "exclude": [], "attempts": 1, "diff": {…}}
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::diff::DiffDocument;

/// The report of `mcpseal verify` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal verify report",
    description = "`mcpseal verify --format json`, schemaVersion 1. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/verify-report.schema.json")
)]
pub struct VerifyReport {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// The live surface is the locked one (exit 0), or it drifted (exit 1).
    pub matches: bool,
    /// The lock file, as given.
    pub lock: String,
    /// The lock's configuration profile this run judged (`--profile NAME`); absent for a lock
    /// without named profiles. Every diff path then starts with `/profiles/NAME`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// The endpoint (URL or command line, credentials masked).
    pub target: String,
    /// The lock's version.
    pub locked_version: String,
    /// The version the server reports, if any (a claim, never trusted).
    pub reported_version: Option<String>,
    /// Whether the reported version is the locked one (`null`: no version, or not semver).
    pub reported_is_locked: Option<bool>,
    /// The lock's hash.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub locked_sha256: String,
    /// The live surface's hash (same exclusions).
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub live_sha256: String,
    /// The lock's exclusions (not compared).
    pub exclude: Vec<String>,
    /// How many times the endpoint was asked (`--attempts`; the last answer is reported).
    #[schemars(range(min = 1))]
    pub attempts: u32,
    /// What happened to the lock's anonymous section (absent: the lock has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anonymous: Option<super::check::AnonymousCheck>,
    /// Locked → live (of the last attempt).
    pub diff: DiffDocument,
}
