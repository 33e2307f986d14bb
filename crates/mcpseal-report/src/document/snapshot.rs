//! The snapshot document (`mcpseal snapshot --format json`, `schemaVersion: 1`).
//!
//! ```json
//! {"schemaVersion": 1, "form": "mcpseal/1", "era": "2026-07-28",
//!  "protocolVersion": "2026-07-28", "sha256": "…",
//!  "items": {"tools": {"echo": {"sha256": "…", "descriptionSha256": "…"}}, "prompts": null, …},
//!  "surface": {…}, "server": "demo", "counts": {"tools": 1, "prompts": null, …},
//!  "notServed": {"prompts": "…"}}
//! ```
//!
//! `server`, `counts` and `notServed` are additions for people and tools that do not want to
//! walk `surface`. The raw capture behind it (`--save-capture`) is its own document
//! (`mcpseal_surface::RawCapture`).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use mcpseal_surface::{Form, Items, ListKind, Surface};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The snapshot document (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal snapshot",
    description = "`mcpseal snapshot --format json`, schemaVersion 1: a server's canonical surface and its fingerprint. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/snapshot.schema.json")
)]
pub struct Snapshot {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// `mcpseal/1` or `mcp-surface/1`.
    #[schemars(with = "Form")]
    pub form: String,
    /// The revision the surface was captured in.
    #[schemars(with = "mcpseal_surface::Era")]
    pub era: String,
    /// The protocol revision the server negotiated: `initialize`'s `protocolVersion` in the
    /// 2025-11-25 era (it may be older, e.g. `2024-11-05`), `2026-07-28` when a modern server
    /// lists it. Absent when the server named none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]
    pub protocol_version: Option<String>,
    /// The fingerprint: SHA-256 of the canonical bytes.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// Per-item hashes; a list that is not served is `null`, one refused to a client without
    /// credentials (`--anonymous-only`) is `"refused"`.
    pub items: SnapshotItems,
    /// The canonical surface object (with `--anonymous-only`, a refused list is `"refused"`).
    #[schemars(with = "mcpseal_surface::lock::AnonymousOnlySurface")]
    pub surface: SurfaceObject,
    /// The server's name, when it gave one.
    pub server: Option<String>,
    /// Items per list; `null` when not served.
    pub counts: BTreeMap<String, Option<usize>>,
    /// Why each unserved list is not served.
    pub not_served: BTreeMap<String, String>,
    /// What the server contradicted itself about (a capability advertised, its list then
    /// answered with "method not found"): recorded as not served, and worth a look. Absent when
    /// there is nothing to say.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The anonymous-access measurement, in the lock's shape (`sha256`, `answers`,
    /// `configs`): on by default for HTTP, for stdio with an env configuration; absent when
    /// not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anonymous: Option<mcpseal_surface::lock::LockAnonymous>,
    /// `true` when `--no-anonymous` skipped the measurement; absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub anonymous_skipped: bool,
    /// `true` for `snapshot --anonymous-only`: the surface as a client without credentials
    /// sees it (`sha256` is the hash of this document's `surface`, with refused lists as the
    /// string `"refused"`); absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub anonymous_only: bool,
    /// `--anonymous-only`: the lists refused without a credential (absent from `counts`,
    /// `"refused"` in `surface`), by list key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub refused: BTreeMap<String, RefusedList>,
}

/// Per-item hashes of a snapshot, by list: the lock's per-item hashes, and `"refused"` for a
/// list refused to a client without credentials (`snapshot --anonymous-only`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotItems {
    /// Tools by `name`.
    pub tools: ListItems,
    /// Resources by `uri`.
    pub resources: ListItems,
    /// Resource templates by `uriTemplate`.
    pub resource_templates: ListItems,
    /// Prompts by `name`.
    pub prompts: ListItems,
}

impl From<Items> for SnapshotItems {
    fn from(i: Items) -> SnapshotItems {
        SnapshotItems {
            tools: ListItems::Listed(i.tools),
            resources: ListItems::Listed(i.resources),
            resource_templates: ListItems::Listed(i.resource_templates),
            prompts: ListItems::Listed(i.prompts),
        }
    }
}

impl SnapshotItems {
    /// The entry of list `kind`.
    pub fn get_mut(&mut self, kind: ListKind) -> &mut ListItems {
        match kind {
            ListKind::Tools => &mut self.tools,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
            ListKind::Prompts => &mut self.prompts,
        }
    }
}

/// One list's per-item hashes in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ListItems {
    /// `"refused"`: refused without a credential (401/403), so nothing is known of its items.
    Refused(RefusedMark),
    /// Identity → hashes; `None` (JSON `null`) when not served.
    Listed(Option<BTreeMap<String, mcpseal_surface::ItemHash>>),
}

impl Default for ListItems {
    fn default() -> ListItems {
        ListItems::Listed(None)
    }
}

/// The string `"refused"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RefusedMark {
    /// `"refused"`.
    #[serde(rename = "refused")]
    Refused,
}

impl JsonSchema for ListItems {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ListItems".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let hash = generator.subschema_for::<mcpseal_surface::lock::ItemHashDocument>();
        schemars::json_schema!({
            "description": "Identity → hashes; `null` when not served; `\"refused\"` when refused without a credential (`--anonymous-only`).",
            "oneOf": [
                {"type": "null"},
                {"type": "object", "additionalProperties": hash},
                {"const": "refused"}
            ]
        })
    }
}

/// A list refused to a client without credentials.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefusedList {
    /// The HTTP status (401 or 403).
    pub status: u16,
    /// The JSON-RPC error code, when the refusal carried one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// For people: `refused (401, needs a credential)`.
    pub reason: String,
}

impl Snapshot {
    /// The document of a surface in a form.
    pub fn of(surface: &Surface, form: Form) -> Snapshot {
        let mut doc = Snapshot::without_surface(surface, form);
        doc.surface = SurfaceObject::Value(surface.canonical_value(form));
        doc
    }

    /// [`Snapshot::of`] keeping the surface itself for `surface` instead of its value tree
    /// (for a large surface, several times its canonical bytes): the document serialises to
    /// the same bytes, each item's value built only while it is written.
    pub fn of_shared(surface: Arc<Surface>, form: Form) -> Snapshot {
        let mut doc = Snapshot::without_surface(&surface, form);
        doc.surface = SurfaceObject::Canonical(surface, form);
        doc
    }

    /// [`Snapshot::of`] with `surface` left `null`: everything text output shows, without the
    /// value tree of the canonical surface (for a large surface, several times its bytes).
    pub fn without_surface(surface: &Surface, form: Form) -> Snapshot {
        let fp = surface.fingerprint(form);
        let mut counts = BTreeMap::new();
        for kind in ListKind::ALL {
            counts.insert(kind.key().to_owned(), surface.count(kind));
        }
        Snapshot {
            schema_version: 1,
            form: form.as_str().to_owned(),
            era: surface.era().as_str().to_owned(),
            protocol_version: surface.negotiated_version().map(str::to_owned),
            sha256: fp.sha256,
            items: fp.items.into(),
            surface: SurfaceObject::default(),
            server: surface.server_name().map(str::to_owned),
            counts,
            not_served: surface
                .not_served()
                .into_iter()
                .map(|(k, n)| (k.key().to_owned(), n.message.clone()))
                .collect(),
            warnings: contradiction_warnings(surface),
            anonymous: None,
            anonymous_skipped: false,
            anonymous_only: false,
            refused: BTreeMap::new(),
        }
    }
}

/// A snapshot's `surface` member: a value, or the surface itself, serialised as its canonical
/// object ([`Surface::canonical_object`]: the same bytes as the value, under any formatter).
/// Deserialising always gives a value; two members are equal when their values are.
#[derive(Debug, Clone)]
pub enum SurfaceObject {
    /// The member as a value (`null` when the document carries no surface).
    Value(Value),
    /// The canonical object of this surface in this form, written item by item.
    Canonical(Arc<Surface>, Form),
}

impl Default for SurfaceObject {
    fn default() -> SurfaceObject {
        SurfaceObject::Value(Value::Null)
    }
}

impl SurfaceObject {
    /// The member as a value (built for a [`SurfaceObject::Canonical`]).
    pub fn value(&self) -> Cow<'_, Value> {
        match self {
            SurfaceObject::Value(v) => Cow::Borrowed(v),
            SurfaceObject::Canonical(surface, form) => Cow::Owned(surface.canonical_value(*form)),
        }
    }

    /// The member as a value to change (a [`SurfaceObject::Canonical`] becomes its value).
    pub fn value_mut(&mut self) -> &mut Value {
        if let SurfaceObject::Canonical(surface, form) = self {
            *self = SurfaceObject::Value(surface.canonical_value(*form));
        }
        match self {
            SurfaceObject::Value(v) => v,
            SurfaceObject::Canonical(..) => unreachable!("made a value above"),
        }
    }
}

impl From<Value> for SurfaceObject {
    fn from(v: Value) -> SurfaceObject {
        SurfaceObject::Value(v)
    }
}

impl PartialEq for SurfaceObject {
    fn eq(&self, other: &SurfaceObject) -> bool {
        self.value() == other.value()
    }
}

impl Serialize for SurfaceObject {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SurfaceObject::Value(v) => v.serialize(serializer),
            SurfaceObject::Canonical(surface, form) => {
                surface.canonical_object(*form).serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for SurfaceObject {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<SurfaceObject, D::Error> {
        Value::deserialize(d).map(SurfaceObject::Value)
    }
}

/// The warnings a captured surface deserves: each list whose capability the server advertises
/// and which it then answered with "method not found" (-32601). Such a list is not served (the
/// server said so), but the server contradicts itself.
pub fn contradiction_warnings(surface: &Surface) -> Vec<String> {
    surface
        .contradictions()
        .into_iter()
        .map(|kind| {
            format!(
                "the server advertises the `{}` capability but answered `{}` with \"method not found\"; recorded as not served",
                kind.capability(),
                kind.method()
            )
        })
        .collect()
}
