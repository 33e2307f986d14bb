//! The diff document (`mcpseal diff --format json`, and the `diff` member of the lock, check and
//! verify reports).
//!
//! ```json
//! {"schemaVersion": 1,
//!  "changes": [{"class": "breaking", "path": "/tools/name=echo", "item": "tool echo",
//!               "before": {…}, "after": {…}, "explanation": "…"}],
//!  "summary": {"breaking": 1, "security": 0, "additive": 0, "cosmetic": 0, "unjudged": 0},
//!  "requiredBump": "major"}
//! ```
//!
//! `before`/`after` are left out when the value is absent on that side; `item` is `null` for a
//! whole list or the document. Changes are in the engine's order (by path). The command's
//! document ([`DiffReport`]) adds the two sides (`a`, `b`).

use mcpseal_surface::Form;
use mcpseal_surface::diff::{Bump, Change, ChangeClass, Summary, SurfaceDiff};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A surface diff as a document (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffDocument {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// Every change, sorted by path.
    pub changes: Vec<Change>,
    /// Changes per class.
    pub summary: Summary,
    /// The smallest semver bump that may carry the changes.
    pub required_bump: Bump,
}

impl DiffDocument {
    /// The document of `diff`.
    pub fn of(diff: &SurfaceDiff) -> DiffDocument {
        DiffDocument {
            schema_version: 1,
            changes: diff.changes.clone(),
            summary: diff.summary(),
            required_bump: diff.required_bump(),
        }
    }

    /// No change at all.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// True when at least one change has this class.
    pub fn has(&self, class: ChangeClass) -> bool {
        self.changes.iter().any(|c| c.class == class)
    }
}

impl Default for DiffDocument {
    /// No change.
    fn default() -> DiffDocument {
        DiffDocument::of(&SurfaceDiff::default())
    }
}

impl From<SurfaceDiff> for DiffDocument {
    fn from(diff: SurfaceDiff) -> DiffDocument {
        let summary = diff.summary();
        let required_bump = diff.required_bump();
        DiffDocument {
            schema_version: 1,
            changes: diff.changes,
            summary,
            required_bump,
        }
    }
}

/// What one side of a diff is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SideKind {
    /// A `surface.lock.json` (its exclusions apply to both sides).
    LockFile,
    /// The output of `mcpseal snapshot --format json`.
    Snapshot,
    /// A raw capture (`mcpseal snapshot --save-capture`).
    RawCapture,
    /// A live server, captured for the diff.
    Server,
}

impl SideKind {
    /// For people: `lock file`, `snapshot`, `raw capture`, `server`.
    pub fn as_str(self) -> &'static str {
        match self {
            SideKind::LockFile => "lock file",
            SideKind::Snapshot => "snapshot",
            SideKind::RawCapture => "raw capture",
            SideKind::Server => "server",
        }
    }
}

/// One side of a diff, as given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiffSide {
    /// What it is.
    pub kind: SideKind,
    /// The file as given, or the server (URL or command line, credentials masked).
    pub source: String,
    /// The canonical form of its surface.
    pub form: Form,
    /// The version a lock file records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// The document of `mcpseal diff`: the diff document plus the two sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal diff report",
    description = "`mcpseal diff --format json`, schemaVersion 1: the semantic diff of two surfaces with contract-break classes. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/diff-report.schema.json")
)]
pub struct DiffReport {
    /// The diff.
    #[serde(flatten)]
    pub diff: DiffDocument,
    /// The old side.
    pub a: DiffSide,
    /// The new side.
    pub b: DiffSide,
}
