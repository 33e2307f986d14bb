//! The lock file as a typed document: the shape [`LockFile::render`] writes, for serde users and
//! for its JSON Schema (`schemas/surface-lock.schema.json`, generated from these types by
//! `cargo xtask`).
//!
//! [`LockFile::parse`] and [`LockFile::render`] stay the reader and the writer (they check the
//! integrity rule and write stable bytes); [`LockFile::document`] gives the same content as
//! these types, and a test holds the two to each other. The schema says everything about the
//! shape that JSON Schema can say; the integrity rule (the hash covers `declared.surface` with
//! `declared.exclude` applied) is checked by every reader.
//!
//! Also the schema pieces other documents share: [`ItemsDocument`] (per-item hashes, the
//! snapshot's `items` too) and [`CanonicalSurface`] (the canonical surface object).

use std::collections::BTreeMap;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::{Map, Value};

use super::file::{LOCK_SCHEMA_VERSION, LockFile};
use crate::surface::Form;

/// `surface.lock.json` (`schemaVersion: 1`), as `mcpseal lock` writes it (SPEC.md section 9).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal surface lock file (schemaVersion 1)",
    description = "surface.lock.json as written by `mcpseal lock` (SPEC.md section 9). The integrity rule (sha256 = SHA-256 of the JCS bytes of `declared.surface` with `declared.exclude` applied; `items` = the per-item hashes of that object) cannot be said in JSON Schema and is checked by every reader. Unknown top-level keys are allowed and kept by writers (room for an `anonymous` section).",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/surface-lock.schema.json")
)]
pub struct LockDocument {
    /// Always 1.
    #[schemars(schema_with = "const_one")]
    pub schema_version: u64,
    /// The canonical form of the stored surface.
    pub form: Form,
    /// The declared-surface section.
    pub declared: DeclaredDocument,
    /// Top-level keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The declared-surface section.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeclaredDocument {
    /// The server version this section was last written under, as written (semver, a leading
    /// `v`, or PEP 440 that maps to semver).
    #[schemars(length(min = 1))]
    pub version: String,
    /// SHA-256 (lowercase hex) of the JCS bytes of `surface` after `exclude`.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// JSON Pointers (RFC 6901, with `KEY=VALUE` segments selecting list items) left out of the
    /// hash.
    #[schemars(inner(regex(pattern = r"^/")))]
    pub exclude: Vec<String>,
    /// Per-item hashes of `surface` after `exclude`.
    #[schemars(with = "ItemsDocument")]
    pub items: Value,
    /// The canonical surface object, exclusions not applied.
    #[schemars(with = "CanonicalSurface")]
    pub surface: Value,
}

/// Per-item hashes: for each list, identity → hashes; `null` when the list is not served, and
/// absent when the surface has no such list.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemsDocument {
    /// Tools by `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Option<BTreeMap<String, ItemHashDocument>>>,
    /// Resources by `uri`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Option<BTreeMap<String, ItemHashDocument>>>,
    /// Resource templates by `uriTemplate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_templates: Option<Option<BTreeMap<String, ItemHashDocument>>>,
    /// Prompts by `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Option<BTreeMap<String, ItemHashDocument>>>,
}

/// The hashes of one item (SPEC.md section 7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ItemHashDocument {
    /// SHA-256 of the item's canonical bytes.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// SHA-256 of the UTF-8 bytes of its `description` string; `null` without one.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub description_sha256: Option<String>,
}

/// The canonical surface object (SPEC.md sections 6 and 8): `mcpseal/1` (`form`, `era`,
/// `server`, the four lists) or `mcp-surface/1` (`initialize`, the four lists). Its content is
/// the server's, so only its frame is described.
#[derive(Debug, Clone, Copy)]
pub struct CanonicalSurface;

impl JsonSchema for CanonicalSurface {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CanonicalSurface".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        surface_frame(generator, false)
    }
}

/// The surface object of a `snapshot --anonymous-only` document: [`CanonicalSurface`], where a
/// list refused to a client without credentials is the string `"refused"` (never in a lock).
#[derive(Debug, Clone, Copy)]
pub struct AnonymousOnlySurface;

impl JsonSchema for AnonymousOnlySurface {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AnonymousOnlySurface".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        surface_frame(generator, true)
    }
}

/// The canonical surface's frame; with `refused`, a list may also be `"refused"`.
fn surface_frame(generator: &mut SchemaGenerator, refused: bool) -> Schema {
    let era = generator.subschema_for::<mcpseal_protocol::Era>();
    let list = if refused {
        json_schema!({
            "oneOf": [{"type": "null"}, {"type": "array", "items": {"type": "object"}},
                      {"const": "refused"}]
        })
    } else {
        json_schema!({
            "oneOf": [{"type": "null"}, {"type": "array", "items": {"type": "object"}}]
        })
    };
    json_schema!({
        "description": if refused {
            "The canonical surface object (SPEC.md section 6 or 8); `\"refused\"` for a list refused without a credential (`snapshot --anonymous-only`)."
        } else {
            "The canonical surface object (SPEC.md section 6 or 8)."
        },
        "type": "object",
        "properties": {
            "form": {"const": "mcpseal/1"},
            "era": era,
            "server": {"oneOf": [{"type": "null"}, {"type": "object"}]},
            "initialize": {"type": "object"},
            "tools": list,
            "resources": list,
            "resourceTemplates": list,
            "prompts": list
        },
        "oneOf": [
            {"required": ["form", "era", "server"]},
            {"required": ["initialize"]}
        ]
    })
}

impl JsonSchema for Form {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Form".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A canonical form: `mcpseal/1` (mcpseal's own) or `mcp-surface/1` (mcp-surface compatible).",
            "enum": [Form::McpSeal1.as_str(), Form::McpSurface1.as_str()]
        })
    }
}

/// The JSON Schema (2020-12) of the lock file, generated from [`LockDocument`] (the
/// serialisation contract: what `mcpseal lock` writes). Committed as
/// `schemas/surface-lock.schema.json` ([`super::LOCK_SCHEMA`]).
pub fn lock_schema() -> Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<LockDocument>()
        .to_value()
}

/// A lock of named configuration profiles (`schemaVersion: 2`), as `mcpseal lock --profile`
/// writes it (SPEC.md section 9).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal surface lock file with profiles (schemaVersion 2)",
    description = "surface.lock.json with named configuration profiles, as written by `mcpseal lock --profile NAME` (SPEC.md section 9). Each profile is a declared section with its own hash; `declared.sha256` = SHA-256 of the JCS bytes of {NAME: the profile's surface with its `exclude` applied}. The hash rules cannot be said in JSON Schema and are checked by every reader. A lock without profiles is schemaVersion 1 (surface-lock.schema.json).",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/surface-lock-profiles.schema.json")
)]
pub struct ProfileLockDocument {
    /// Always 2.
    #[schemars(schema_with = "const_two")]
    pub schema_version: u64,
    /// The canonical form of every profile's surface.
    pub form: Form,
    /// The declared section: a map of profiles.
    pub declared: ProfilesDeclaredDocument,
    /// Top-level keys this version does not know, kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The declared section of a profile lock.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfilesDeclaredDocument {
    /// SHA-256 (lowercase hex) of the JCS bytes of the map {NAME: surface after `exclude`}.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// The profiles by name (letters, digits, `-`, `_`, `.`).
    #[schemars(length(min = 1))]
    pub profiles: BTreeMap<String, ProfileDocument>,
}

/// One profile: a declared section, and its own anonymous section when measured.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileDocument {
    /// The profile's declared section (its `sha256` is the hash of this profile alone).
    #[serde(flatten)]
    pub declared: DeclaredDocument,
    /// Other keys of the profile (its `anonymous` section), kept verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// The JSON Schema (2020-12) of a profile lock, generated from [`ProfileLockDocument`];
/// committed as `schemas/surface-lock-profiles.schema.json` ([`super::PROFILE_LOCK_SCHEMA`]).
pub fn profile_lock_schema() -> Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<ProfileLockDocument>()
        .to_value()
}

/// `schemaVersion`: the integer 2.
fn const_two(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "integer", "const": 2})
}

impl super::profiles::ProfileLock {
    /// The file's content as a typed document (the same JSON [`Self::render`] writes).
    pub fn document(&self) -> ProfileLockDocument {
        ProfileLockDocument {
            schema_version: super::file::PROFILES_SCHEMA_VERSION,
            form: self.form,
            declared: ProfilesDeclaredDocument {
                sha256: self.sha256(),
                profiles: self
                    .profiles
                    .iter()
                    .map(|(n, p)| {
                        (
                            n.clone(),
                            ProfileDocument {
                                declared: declared_document(&p.declared),
                                extra: p.extra.clone(),
                            },
                        )
                    })
                    .collect(),
            },
            extra: self.extra.clone(),
        }
    }
}

fn declared_document(d: &super::file::Declared) -> DeclaredDocument {
    DeclaredDocument {
        version: d.version.clone(),
        sha256: d.sha256.clone(),
        exclude: d.exclude.iter().map(|p| p.as_str().to_owned()).collect(),
        items: d.items.clone(),
        surface: d.surface.clone(),
    }
}

/// `schemaVersion`: the integer 1.
fn const_one(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "integer", "const": 1})
}

impl LockFile {
    /// The file's content as a typed document (the same JSON [`LockFile::render`] writes).
    pub fn document(&self) -> LockDocument {
        LockDocument {
            schema_version: LOCK_SCHEMA_VERSION,
            form: self.form,
            declared: declared_document(&self.declared),
            extra: self.extra.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{Declared, Pointer, Version};
    use serde_json::json;

    #[test]
    fn the_document_is_what_render_writes() {
        let surface = json!({"form": "mcpseal/1", "era": "2026-07-28", "server": {},
            "tools": [{"name": "clock", "description": "t", "inputSchema": {"type": "object"}}],
            "resources": [], "resourceTemplates": null, "prompts": []});
        let v = Version::parse("1.0.0").expect("version");
        let ex = vec![Pointer::parse("/resources").expect("pointer")];
        let mut lock = LockFile::new(Form::McpSeal1, Declared::new(&v, surface, ex));
        lock.extra.insert("anonymous".into(), json!({"x": 1}));
        let rendered: Value = serde_json::from_str(&lock.render()).expect("JSON");
        let typed = serde_json::to_value(lock.document()).expect("serialises");
        assert_eq!(rendered, typed);
    }

    #[test]
    fn the_profile_document_is_what_render_writes() {
        let v = Version::parse("1.0.0").expect("version");
        let surface = json!({"form": "mcpseal/1", "era": "2026-07-28", "server": {},
            "tools": [], "resources": [], "resourceTemplates": null, "prompts": []});
        let mut one = LockFile::new(Form::McpSeal1, Declared::new(&v, surface, vec![]));
        one.extra.insert("anonymous".into(), json!({"x": 1}));
        let mut lock = crate::lock::ProfileLock::new(Form::McpSeal1);
        lock.set("full", one.clone());
        lock.set("ro", one);
        let rendered: Value = serde_json::from_str(&lock.render()).expect("JSON");
        let typed = serde_json::to_value(lock.document()).expect("serialises");
        assert_eq!(rendered, typed);
    }
}
