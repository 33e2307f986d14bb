//! The typed documents of every command: what `--format json` prints, what a library user gets
//! back from the `mcpseal` facade, and what the JSON Schemas in `schemas/` are generated from.
//!
//! Every document carries `schemaVersion: 1`, uses camelCase keys and only grows (new fields
//! and values are additions; nothing is renamed or removed). One module per document:
//! [`snapshot`](Snapshot), [`lock`](LockReport), [`check`](CheckReport),
//! [`verify`](VerifyReport), [`diff`](DiffReport), [`probe`](ProbeDocument),
//! [`rpc`](RpcReport), the [rule list](RuleList), and the [`error`](ErrorDocument) document of a run with no verdict.

mod check;
mod diff;
mod drift;
mod error;
mod lock;
mod probe;
mod profiles;
mod rpc;
mod rules;
mod snapshot;
mod verify;

pub use check::{AnonymousCheck, CheckReport};
pub use diff::{DiffDocument, DiffReport, DiffSide, SideKind};
pub use drift::{drift_findings, drift_rules, rule_id};
pub use error::{ErrorBody, ErrorDocument, ErrorKind, unreachable_hint};
pub use lock::{LockOutcome, LockRefusal, LockReport, RefusalReason};
pub use probe::ProbeDocument;
pub use profiles::{
    CheckProfilesReport, ProfileCheck, ProfileOutcome, ProfileSection, ProfileVerdict,
    ProfileVerify, ProfilesReport, VerifyProfilesReport,
};
pub use rpc::RpcReport;
pub use rules::RuleList;
pub use snapshot::{
    ListItems, RefusedList, RefusedMark, Snapshot, SnapshotItems, SurfaceObject,
    contradiction_warnings,
};
pub use verify::VerifyReport;

use schemars::{Schema, SchemaGenerator, json_schema};

/// The schema of `schemaVersion`: the integer 1.
pub(crate) fn const_one(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "integer", "const": 1})
}
