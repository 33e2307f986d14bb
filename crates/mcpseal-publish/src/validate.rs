//! Offline validation against the vendored schemas: `server.json` (2025-12-11, draft-07) and
//! the v1 server card (`#/$defs/ServerCard`, 2020-12).
//!
//! Both schemas are compiled once per process through `mcpseal-schema` (offline: a `$ref`
//! outside the document is refused, never fetched), with formats asserted (`uri`,
//! `date-time`) as the registry and the card extension's own validator do.

use std::sync::{Arc, OnceLock};

use mcpseal_schema::{Formats, Options};

use serde::Serialize;
use serde_json::Value;

use crate::keys::SERVER_SCHEMA_URL;

/// The vendored `server.json` schema (`$id` `…/2025-12-11/server.schema.json`).
pub const SERVER_SCHEMA: &str = include_str!("../schema/server.schema.2025-12-11.json");

/// The vendored server-card schema (experimental-ext-server-card `schema.json` @8924e08).
pub const CARD_SCHEMA: &str = include_str!("../schema/server-card.schema.v1.json");

/// One way a document breaks its schema (or a rule the schema cannot express).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// JSON Pointer into the document (`""` for the root).
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl Violation {
    /// A violation at `path`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Violation {
        Violation {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "at `{}`: {}", self.path, self.message)
        }
    }
}

fn compiled(
    cell: &'static OnceLock<Result<Arc<mcpseal_schema::Schema>, String>>,
    text: &str,
    root_ref: Option<&str>,
) -> Result<&'static mcpseal_schema::Schema, String> {
    cell.get_or_init(|| {
        let mut schema: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if let (Some(r), Some(obj)) = (root_ref, schema.as_object_mut()) {
            obj.insert("$ref".into(), Value::from(r));
        }
        mcpseal_schema::compile(&schema, Options::default().formats(Formats::Assert))
            .map_err(|e| e.to_string())
    })
    .as_ref()
    .map(|s| &**s)
    .map_err(|e| format!("the vendored schema does not compile: {e}"))
}

fn violations_of(schema: &mcpseal_schema::Schema, doc: &Value) -> Vec<Violation> {
    schema
        .first_violations(doc, 20)
        .into_iter()
        .map(|v| Violation::new(v.instance_path, v.message))
        .collect()
}

/// Validates a `server.json` document against the vendored 2025-12-11 schema, plus the one
/// rule the official registry adds: `$schema` must name that schema (an absent or deprecated
/// `$schema` is refused at publish).
pub fn server_json(doc: &Value) -> Vec<Violation> {
    static CELL: OnceLock<Result<Arc<mcpseal_schema::Schema>, String>> = OnceLock::new();
    let mut out = match compiled(&CELL, SERVER_SCHEMA, None) {
        Ok(v) => violations_of(v, doc),
        Err(e) => vec![Violation::new("", e)],
    };
    match doc.get("$schema").and_then(Value::as_str) {
        Some(SERVER_SCHEMA_URL) => {}
        Some(other) => out.push(Violation::new(
            "/$schema",
            format!(
                "`{other}` is not the current schema; the registry accepts `{SERVER_SCHEMA_URL}`"
            ),
        )),
        None => out.push(Violation::new(
            "/$schema",
            format!("missing; the registry requires `\"$schema\": \"{SERVER_SCHEMA_URL}\"`"),
        )),
    }
    out
}

/// Validates a v1 server card against `#/$defs/ServerCard` of the vendored schema.
pub fn card_v1(doc: &Value) -> Vec<Violation> {
    static CELL: OnceLock<Result<Arc<mcpseal_schema::Schema>, String>> = OnceLock::new();
    match compiled(&CELL, CARD_SCHEMA, Some("#/$defs/ServerCard")) {
        Ok(v) => violations_of(v, doc),
        Err(e) => vec![Violation::new("", e)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_compile_and_say_no() {
        let ok = json!({"$schema": SERVER_SCHEMA_URL, "name": "io.github.a/b",
            "description": "d", "version": "1.0.0"});
        assert_eq!(server_json(&ok), Vec::new());
        let long = json!({"$schema": SERVER_SCHEMA_URL, "name": "io.github.a/b",
            "description": "x".repeat(101), "version": "1.0.0"});
        let v = server_json(&long);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].path, "/description");
        let mut no_schema = ok.clone();
        no_schema.as_object_mut().expect("object").remove("$schema");
        assert_eq!(server_json(&no_schema)[0].path, "/$schema");
        assert!(card_v1(&json!({})).len() >= 4, "four required members");
    }
}
