//! The report of `mcpseal check` (`--format json`, `schemaVersion: 1`).
//!
//! ```json
//! {"schemaVersion": 1, "matches": false, "lock": "surface.lock.json", "target": "…",
//!  "lockedVersion": "1.0.0", "version": "1.0.0", "versionSource": "package.json",
//!  "reportedVersion": "1.0.0", "relation": "same", "exclude": [], "acceptedFrom": "2.0.0",
//!  "lockWouldAccept": false, "need": "newLine", "diff": {…}, "reportedBelowLock": false,
//!  "strictVersion": false}
//! ```
//!
//! A lock with an anonymous section adds `anonymous`: `"same"`, `"changed"` (re-measured) or
//! `"skipped"` (`--no-anonymous`, or a target this build does not measure); absent otherwise.

use mcpseal_surface::lock::{Need, Relation};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::diff::DiffDocument;

/// The report of `mcpseal check` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal check report",
    description = "`mcpseal check --format json`, schemaVersion 1. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/check-report.schema.json")
)]
pub struct CheckReport {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// The surface is the locked one (exit 0), or it changed (exit 1).
    pub matches: bool,
    /// The lock file, as given.
    pub lock: String,
    /// The lock's configuration profile this run judged (`--profile NAME`); absent for a lock
    /// without named profiles. Every diff path then starts with `/profiles/NAME`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// The server (URL or command line, credentials masked).
    pub target: String,
    /// The lock's version.
    pub locked_version: String,
    /// The server version used.
    pub version: String,
    /// Where it came from.
    pub version_source: String,
    /// The version the server reports in `serverInfo`.
    pub reported_version: Option<String>,
    /// The server version against the lock's.
    pub relation: Relation,
    /// The lock's exclusions (not compared).
    pub exclude: Vec<String>,
    /// The smallest version `mcpseal lock` would accept for this change (`null`: no change).
    pub accepted_from: Option<String>,
    /// Whether `mcpseal lock` would accept the change under the current version.
    pub lock_would_accept: bool,
    /// What the change needs from the version.
    pub need: Need,
    /// What happened to the lock's anonymous section (absent: the lock has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anonymous: Option<AnonymousCheck>,
    /// Locked → live.
    pub diff: DiffDocument,
    /// The server reports a (semver) version lower than the lock's: an older build than the
    /// one locked is running.
    #[serde(default)]
    pub reported_below_lock: bool,
    /// `--strict-version` was given: `reportedBelowLock` fails the check (exit 1).
    #[serde(default)]
    pub strict_version: bool,
    /// What the user should know that does not change the verdict (or, with
    /// `strictVersion`, why it failed); absent when nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl CheckReport {
    /// Whether the check passes: the surface is the locked one and, with `--strict-version`,
    /// the server does not report a version below the lock's.
    pub fn passed(&self) -> bool {
        self.matches && !(self.strict_version && self.reported_below_lock)
    }
}

/// What `check` or `verify` did with the lock's anonymous section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum AnonymousCheck {
    /// Not re-measured (`--no-anonymous`, or a target without an anonymous configuration).
    Skipped,
    /// Re-measured: the same hash as the lock's section.
    Same,
    /// Re-measured: it differs (the changes are in the diff).
    Changed,
}

impl AnonymousCheck {
    /// The verdict of a re-measurement.
    pub fn measured(same: bool) -> AnonymousCheck {
        if same {
            AnonymousCheck::Same
        } else {
            AnonymousCheck::Changed
        }
    }
}
