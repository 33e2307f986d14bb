//! The report of `mcpseal lock` (`--format json`, `schemaVersion: 1`).
//!
//! ```json
//! {"schemaVersion": 1, "outcome": "accepted", "written": true, "lock": "surface.lock.json",
//!  "target": "node server.js", "form": "mcpseal/1", "version": "1.1.0",
//!  "versionSource": "package.json", "lockedVersion": "1.0.0", "reportedVersion": "1.1.0",
//!  "sha256": "…", "exclude": [], "acceptedFrom": null, "diff": {…}}
//! ```
//!
//! `diff` is locked surface → captured surface (for `volatile`: first capture → second). A
//! refusal adds `refusal` (the rule and what the change needs); `acceptedFrom` is the smallest
//! version it would accept. `lock` adds `anonymous` (on by default for HTTP), the measured section in the
//! lock's shape (`sha256`, `answers`, `configs`).

use mcpseal_surface::Form;
use mcpseal_surface::lock::{LockAnonymous, Need};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::diff::DiffDocument;

/// What `lock` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum LockOutcome {
    /// Wrote a new lock file.
    Created,
    /// Same surface under a higher version: wrote the new version.
    Restamped,
    /// Changed surface under a version the rules accept: wrote it.
    Accepted,
    /// Same surface, only the exclusions changed: wrote them.
    ExclusionsUpdated,
    /// Same surface and version, and an anonymous section the lock did not have yet: wrote it
    /// (a first measurement is no change of the surface; the stamped version is kept).
    AnonymousRecorded,
    /// Same surface and version: nothing written.
    UpToDate,
    /// Refused by a rule: nothing written (exit 1).
    Refused,
    /// The surface changed between the two captures: nothing written (exit 1).
    Volatile,
}

impl LockOutcome {
    /// Whether the file was written.
    pub fn written(self) -> bool {
        matches!(
            self,
            LockOutcome::Created
                | LockOutcome::Restamped
                | LockOutcome::Accepted
                | LockOutcome::ExclusionsUpdated
                | LockOutcome::AnonymousRecorded
        )
    }

    /// The lock was refused (a rule, or a volatile surface): exit 1.
    pub fn refused(self) -> bool {
        matches!(self, LockOutcome::Refused | LockOutcome::Volatile)
    }
}

/// The rule behind a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RefusalReason {
    /// The surface changed under the locked version.
    SameVersion,
    /// The surface changed under a version lower than the locked one.
    LowerVersion,
    /// A contract break without a new compatibility line.
    BreakWithoutNewLine,
    /// `--strict-semver`: an additive or security change without a new minor.
    AdditiveWithoutMinor,
    /// `--deny-security`: a security-class change.
    Security,
    /// The surface is unchanged but the version is lower than the locked one: a release
    /// mistake (an old branch, a wrong tag), never re-stamped downwards nor passed over.
    UnchangedLowerVersion,
}

/// Why `lock` refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockRefusal {
    /// The rule that refused.
    pub reason: RefusalReason,
    /// What the change needs from the version.
    pub need: Need,
}

/// The report of `mcpseal lock` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal lock report",
    description = "`mcpseal lock --format json`, schemaVersion 1. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/lock-report.schema.json")
)]
pub struct LockReport {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// What happened.
    pub outcome: LockOutcome,
    /// Whether the lock file was written.
    pub written: bool,
    /// The lock file, as given.
    pub lock: String,
    /// The lock's configuration profile this run judged (`--profile NAME`); absent for a lock
    /// without named profiles. Every diff path then starts with `/profiles/NAME`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// The server (URL or command line, credentials masked).
    pub target: String,
    /// The canonical form.
    pub form: Form,
    /// The server version used (`null` when the surface was volatile).
    pub version: Option<String>,
    /// Where the version came from (`--server-version`, `package.json`, `serverInfo`, …).
    pub version_source: Option<String>,
    /// The version the lock had before, if there was one.
    pub locked_version: Option<String>,
    /// The version the server reports in `serverInfo`.
    pub reported_version: Option<String>,
    /// The captured surface's hash (exclusions applied).
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// The exclusions in force.
    pub exclude: Vec<String>,
    /// For a refusal: the smallest version the rules would accept (`null` for
    /// `--deny-security`, which no version satisfies).
    pub accepted_from: Option<String>,
    /// For a refusal: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<LockRefusal>,
    /// The anonymous access measured (on by default for HTTP, for stdio with an env
    /// configuration; absent when not measured), in the lock's shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anonymous: Option<LockAnonymous>,
    /// `true` when `--no-anonymous` skipped the measurement (the lock's section, if any, is
    /// kept as it was); absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub anonymous_skipped: bool,
    /// Locked → captured (for `volatile`: first capture → second).
    pub diff: DiffDocument,
    /// What the server contradicted itself about
    /// ([`contradiction_warnings`](crate::contradiction_warnings)); absent when nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}
