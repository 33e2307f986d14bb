//! The documents of `mcpseal registry stamp|check|verify|list` (`--format json`,
//! `schemaVersion: 1`; additive changes only).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Check;

fn one(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "integer", "const": 1})
}

/// What `registry stamp` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StampOutcome {
    /// The blocks were written.
    Written,
    /// The file already carried them: nothing written.
    Unchanged,
    /// `publisher-provided` would exceed 4096 bytes: nothing written (exit 1).
    TooLarge,
    /// The result would not validate: nothing written (exit 1).
    Invalid,
}

/// The report of `mcpseal registry stamp`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal registry stamp report",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/registry-stamp-report.schema.json")
)]
pub struct StampReport {
    /// Always 1.
    #[schemars(schema_with = "one")]
    pub schema_version: u32,
    /// What happened.
    pub outcome: StampOutcome,
    /// The `server.json` file.
    pub server_json: String,
    /// The lock file.
    pub lock: String,
    /// The endpoint published.
    pub endpoint: String,
    /// The form of the fingerprint.
    pub form: String,
    /// The published hash.
    pub sha256: String,
    /// The version it was locked at.
    pub locked_at: String,
    /// The `publisher-provided` keys written (mcpseal's, and mcp-surface's with
    /// `--also-mcp-surface`).
    pub keys: Vec<String>,
    /// Whether an anonymous section was published.
    pub anonymous: bool,
    /// Marshalled bytes of `publisher-provided` (what the registry counts).
    pub publisher_provided_bytes: usize,
    /// The registry's limit (4096).
    pub limit_bytes: usize,
    /// Schema violations (outcome `invalid`).
    pub violations: Vec<String>,
}

/// One block of the committed file against the lock's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BlockState {
    /// The `publisher-provided` key.
    pub key: String,
    /// Hash (JCS, SHA-256) of the block the lock produces.
    pub expected_sha256: String,
    /// Hash of the committed block (`null`: none).
    pub found_sha256: Option<String>,
    /// Equal.
    pub matches: bool,
}

/// The report of `mcpseal registry check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal registry check report",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/registry-check-report.schema.json")
)]
pub struct RegistryCheckReport {
    /// Always 1.
    #[schemars(schema_with = "one")]
    pub schema_version: u32,
    /// Every check passed (exit 0), or not (exit 1).
    pub matches: bool,
    /// The `server.json` file.
    pub server_json: String,
    /// The lock file.
    pub lock: String,
    /// The blocks compared.
    pub blocks: Vec<BlockState>,
    /// `server.json`'s `version`.
    pub server_version: Option<String>,
    /// The lock's version.
    pub locked_version: String,
    /// Marshalled bytes of the committed `publisher-provided`.
    pub publisher_provided_bytes: usize,
    /// Every check, passed or not.
    pub checks: Vec<Check>,
}

/// The registry entry verified.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntryInfo {
    /// The URL fetched.
    pub url: String,
    /// `server.name`.
    pub name: String,
    /// `server.version`.
    pub version: Option<String>,
    /// `active`, `deprecated`, `deleted` (shown, never a mismatch).
    pub status: Option<String>,
    /// `isLatest`.
    pub is_latest: Option<bool>,
    /// `publishedAt`.
    pub published_at: Option<String>,
}

/// The published block read from the entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublishedBlock {
    /// `mcpseal` or `mcp-surface`.
    pub source: String,
    /// Its `publisher-provided` key.
    pub key: String,
    /// The form.
    pub form: String,
    /// The endpoint it names.
    pub endpoint: String,
    /// The declared hash.
    pub declared_sha256: String,
    /// The version locked at.
    pub locked_at: String,
    /// Exclusions applied before hashing.
    pub exclude: Vec<String>,
    /// Methods of the published anonymous section (empty when none).
    pub anonymous_methods: Vec<String>,
    /// Whether the anonymous section's own hash holds (`null`: no section).
    pub anonymous_hash_holds: Option<bool>,
}

/// How one remote came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RemoteVerdict {
    /// Everything checked holds.
    Match,
    /// Something differs.
    Mismatch,
    /// Nothing could be compared (unreachable, a liar, a template, a transport mcpseal does
    /// not speak).
    Unverifiable,
}

/// One remote of the entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RemoteReport {
    /// The remote's URL.
    pub url: String,
    /// Its `type`.
    pub transport: String,
    /// The verdict.
    pub verdict: RemoteVerdict,
    /// Why it could not be verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The era the live surface was captured in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<String>,
    /// The live hash (same form and exclusions as the block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_sha256: Option<String>,
    /// The version the live server reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_version: Option<String>,
    /// The checks of this remote.
    pub checks: Vec<Check>,
}

/// One published package of the entry, installed at its exact version and captured over
/// stdio (`registry verify --package`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageReport {
    /// `registryType` (`npm`, `pypi`, …).
    pub registry_type: String,
    /// `identifier`.
    pub identifier: String,
    /// The exact version the entry pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `match`: its stdio surface has the published fingerprint; `mismatch`: it does not;
    /// `unverifiable`: not installed, not started, or not a package mcpseal installs.
    pub verdict: RemoteVerdict,
    /// Why it could not be verified (the installer's or the server's last words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The era the package's surface was captured in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<String>,
    /// The package's hash (same form and exclusions as the block).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_sha256: Option<String>,
    /// The version the started package reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_version: Option<String>,
    /// How the package ran: network and filesystem isolation the sandbox achieved.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub isolation: Vec<String>,
    /// The checks of this package.
    pub checks: Vec<Check>,
}

/// The report of `mcpseal registry verify`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal registry verify report",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/registry-verify-report.schema.json")
)]
pub struct RegistryVerifyReport {
    /// Always 1.
    #[schemars(schema_with = "one")]
    pub schema_version: u32,
    /// Every verifiable remote matches and at least one was verified (exit 0); `false` with
    /// [`RegistryVerifyReport::verified`] true is a mismatch (exit 1).
    pub matches: bool,
    /// At least one remote (or, with `--package`, package) was verified (`false`: exit 2).
    pub verified: bool,
    /// The registry's base URL.
    pub registry: String,
    /// `NAME@VERSION` as asked.
    pub asked: String,
    /// The entry.
    pub entry: EntryInfo,
    /// The block.
    pub block: PublishedBlock,
    /// Checks of the entry itself (the block's anonymous hash).
    pub checks: Vec<Check>,
    /// Each remote.
    pub remotes: Vec<RemoteReport>,
    /// With `--package`: each published package, installed and captured over stdio.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<PackageReport>,
    /// Registry fetch attempts used.
    pub fetch_attempts: u32,
    /// Surface attempts used (`--attempts`, for a deploy in progress).
    pub attempts: u32,
}

/// One server of a listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListedServer {
    /// `server.name`.
    pub name: String,
    /// `server.version`.
    pub version: Option<String>,
    /// Lifecycle status.
    pub status: Option<String>,
    /// `isLatest`.
    pub is_latest: Option<bool>,
    /// Remote URLs.
    pub remotes: Vec<String>,
    /// Fingerprint blocks it publishes (`mcpseal`, `mcp-surface`).
    pub blocks: Vec<String>,
}

/// The report of `mcpseal registry list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal registry list report",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/registry-list-report.schema.json")
)]
pub struct RegistryListReport {
    /// Always 1.
    #[schemars(schema_with = "one")]
    pub schema_version: u32,
    /// The registry's base URL.
    pub registry: String,
    /// `--search`.
    pub search: Option<String>,
    /// Pages read.
    pub pages: u32,
    /// Whether the page cap stopped the listing before `nextCursor` ran out.
    pub truncated: bool,
    /// The servers, in the registry's order.
    pub servers: Vec<ListedServer>,
}
