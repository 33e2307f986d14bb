//! The JSON Schemas of the documents this crate types, generated from the types.
//!
//! The committed copies live in `schemas/` at the repository root; `cargo xtask schemas`
//! writes them and `cargo xtask check` fails when one is stale. Schemas describe what mcpseal
//! **writes** (the serialisation contract: a field that is sometimes left out is not required),
//! in JSON Schema 2020-12.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use crate::document::{
    CheckProfilesReport, CheckReport, DiffReport, ErrorDocument, LockReport, ProbeDocument,
    RpcReport, RuleList, Snapshot, VerifyProfilesReport, VerifyReport,
};

/// The schema of `T` as mcpseal writes it (JSON Schema 2020-12, serialisation contract).
pub fn schema_of<T: JsonSchema>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// A schema as it is printed and committed: pretty JSON with one trailing newline.
pub fn render(schema: &Value) -> String {
    // A `Value` always serialises.
    let mut text = serde_json::to_string_pretty(schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Every document of this crate: `(file name in schemas/, schema)`.
pub fn documents() -> Vec<(&'static str, Value)> {
    vec![
        ("snapshot.schema.json", schema_of::<Snapshot>()),
        ("lock-report.schema.json", schema_of::<LockReport>()),
        ("check-report.schema.json", schema_of::<CheckReport>()),
        ("verify-report.schema.json", schema_of::<VerifyReport>()),
        (
            "check-profiles-report.schema.json",
            schema_of::<CheckProfilesReport>(),
        ),
        (
            "verify-profiles-report.schema.json",
            schema_of::<VerifyProfilesReport>(),
        ),
        ("diff-report.schema.json", schema_of::<DiffReport>()),
        ("probe-report.schema.json", schema_of::<ProbeDocument>()),
        ("rpc-report.schema.json", schema_of::<RpcReport>()),
        ("rule-list.schema.json", schema_of::<RuleList>()),
        ("error.schema.json", schema_of::<ErrorDocument>()),
    ]
}
