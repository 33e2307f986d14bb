//! Raw capture → [`Surface`] → canonical bytes and fingerprints.
//!
//! Invariants of a [`Surface`] (established by [`Surface::from_capture`], relied on by the lock
//! and diff code):
//! * every served list has items with unique, string identities (`name`, `uri`, `uriTemplate`,
//!   `name`), sorted by UTF-16 code units;
//! * every item is held as its own canonical (RFC 8785) bytes, so hashing never re-parses;
//! * nothing volatile survives: list-result fields (`nextCursor`, `ttlMs`, `cacheScope`,
//!   `resultType`, `_meta`), `serverInfo.version`, 2026 `protocolVersion`.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::capture::{Era, FailureKind, ListCapture, RawCapture, validate_json};
use crate::jcs::{hex, utf16_cmp, write_jcs, write_string};

/// The `_meta` key under which 2026 servers put their identity in `server/discover`.
pub const SERVER_INFO_META_KEY: &str = "io.modelcontextprotocol/serverInfo";

/// Errors that stop a capture from becoming a surface. mcpseal fails closed: it never hashes
/// a surface whose meaning is ambiguous.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SurfaceError {
    /// The bytes are not a raw capture document (JSON syntax, UTF-8, unknown era, shapes).
    #[error("invalid capture document")]
    Capture {
        /// The parser's explanation.
        #[source]
        source: serde_json::Error,
    },
    /// A `\uD800`–`\uDFFF` escape without its partner. RFC 8785 cannot serialise it and UTF-8
    /// cannot hold it, so two implementations could not agree on its bytes: the server is at
    /// fault.
    #[error("lone UTF-16 surrogate in {location}")]
    LoneSurrogate {
        /// Where (e.g. `server`, `tools page 2`).
        location: String,
    },
    /// A server result or a page holds JSON serde_json cannot represent (e.g. a number beyond
    /// the double range, nesting deeper than 128).
    #[error("unrepresentable JSON in {location}")]
    InvalidJson {
        /// Where (e.g. `server`, `tools page 2`).
        location: String,
        /// The parser's explanation.
        #[source]
        source: serde_json::Error,
    },
    /// Two items of one list share an identity: which one a client sees is undefined.
    #[error("duplicate identity in `{list}`: two items with `{key}` {identity:?}")]
    DuplicateIdentity {
        /// The list.
        list: ListKind,
        /// The identity key (`name`, `uri`, `uriTemplate`).
        key: &'static str,
        /// The repeated value.
        identity: String,
    },
    /// An item has no identity, or it is not a string.
    #[error("item {index} of `{list}` has no string `{key}`: found {found}")]
    MissingIdentity {
        /// The list.
        list: ListKind,
        /// The identity key.
        key: &'static str,
        /// Zero-based position in the concatenated pages.
        index: usize,
        /// What was there instead (`nothing`, `a number`, `not an object`, ...).
        found: &'static str,
    },
}

/// True when serde_json refused a lone surrogate escape (it reports these two codes).
pub(crate) fn is_surrogate_error(e: &serde_json::Error) -> bool {
    let msg = e.to_string();
    msg.starts_with("lone leading surrogate in hex escape")
        || msg.starts_with("unexpected end of hex escape")
}

fn json_error(location: String, source: serde_json::Error) -> SurfaceError {
    if is_surrogate_error(&source) {
        SurfaceError::LoneSurrogate { location }
    } else {
        SurfaceError::InvalidJson { location, source }
    }
}

/// The four MCP lists, in the order mcpseal processes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ListKind {
    /// `tools/list`, identity `name`.
    Tools,
    /// `resources/list`, identity `uri`.
    Resources,
    /// `resources/templates/list`, identity `uriTemplate`.
    ResourceTemplates,
    /// `prompts/list`, identity `name`.
    Prompts,
}

impl ListKind {
    /// All four, in processing order.
    pub const ALL: [ListKind; 4] = [
        ListKind::Tools,
        ListKind::Resources,
        ListKind::ResourceTemplates,
        ListKind::Prompts,
    ];

    /// The key of the item array in a page and of the list in the canonical form.
    pub fn key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }

    /// The item field that identifies an item within its list.
    pub fn identity_key(self) -> &'static str {
        match self {
            ListKind::Tools | ListKind::Prompts => "name",
            ListKind::Resources => "uri",
            ListKind::ResourceTemplates => "uriTemplate",
        }
    }

    fn index(self) -> usize {
        match self {
            ListKind::Tools => 0,
            ListKind::Resources => 1,
            ListKind::ResourceTemplates => 2,
            ListKind::Prompts => 3,
        }
    }
}

impl std::fmt::Display for ListKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

/// Why a list is `null` in the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NotServedKind {
    /// A JSON-RPC error answered some page (e.g. `-32601`).
    Error,
    /// No answer.
    Transport,
    /// The page cap was hit: the capture is incomplete.
    PageCap,
    /// A cursor repeated: the capture is incomplete.
    CursorLoop,
    /// The list is absent from the capture.
    NotCaptured,
    /// A page is not an object or lacks an array under the list key, or no page was recorded.
    Malformed,
}

/// Why a list is not served, for people and for the snapshot command's refusal rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotServed {
    /// The reason.
    pub kind: NotServedKind,
    /// Detail for people; never hashed.
    pub message: String,
}

impl NotServed {
    /// True for `pageCap` and `cursorLoop`: the server may well serve the list, mcpseal just
    /// could not read all of it, so a `null` would be a lie. `mcpseal snapshot` refuses these.
    pub fn is_untrustworthy(&self) -> bool {
        matches!(
            self.kind,
            NotServedKind::PageCap | NotServedKind::CursorLoop
        )
    }
}

/// One list item, held as its canonical bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    identity: String,
    canonical: Vec<u8>,
    sha256: [u8; 32],
    description_sha256: Option<[u8; 32]>,
}

impl Item {
    /// The identity (`name`, `uri` or `uriTemplate`).
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The item's RFC 8785 bytes, all fields kept.
    pub fn canonical_bytes(&self) -> &[u8] {
        &self.canonical
    }

    /// The item's hashes (see [`ItemHash`]).
    pub fn hash(&self) -> ItemHash {
        ItemHash {
            sha256: hex(&self.sha256),
            description_sha256: self.description_sha256.as_ref().map(|d| hex(d)),
        }
    }

    /// The item parsed back into a value (allocates; for display and lock files).
    pub fn value(&self) -> Value {
        // Our own RFC 8785 output always parses; Null is unreachable.
        serde_json::from_slice(&self.canonical).unwrap_or(Value::Null)
    }
}

/// A served list (items sorted by identity) or the reason it is not served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListState {
    /// Served; possibly empty.
    Served(Vec<Item>),
    /// Not served: `null` in the canonical form.
    NotServed(NotServed),
}

impl ListState {
    /// The items when served.
    pub fn items(&self) -> Option<&[Item]> {
        match self {
            ListState::Served(items) => Some(items),
            ListState::NotServed(_) => None,
        }
    }
}

/// Which canonical form to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Form {
    /// mcpseal's own form (SPEC.md): both eras, era in the hash, strict identities.
    #[default]
    McpSeal1,
    /// Byte-for-byte the `mcp-surface/1` form of `@sbissoli/mcp-surface`, to verify servers
    /// that publish that fingerprint.
    McpSurface1,
}

impl Form {
    /// `"mcpseal/1"` or `"mcp-surface/1"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Form::McpSeal1 => "mcpseal/1",
            Form::McpSurface1 => "mcp-surface/1",
        }
    }
}

impl std::fmt::Display for Form {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unknown form name; lists the supported ones.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown form `{0}`: expected `mcpseal/1` or `mcp-surface/1`")]
pub struct UnknownForm(pub String);

impl FromStr for Form {
    type Err = UnknownForm;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "mcpseal/1" => Ok(Form::McpSeal1),
            "mcp-surface/1" => Ok(Form::McpSurface1),
            other => Err(UnknownForm(other.to_owned())),
        }
    }
}

impl Serialize for Form {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Form {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// Hashes of one item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemHash {
    /// SHA-256 (lowercase hex) of the item's canonical bytes.
    pub sha256: String,
    /// SHA-256 of the UTF-8 bytes of its `description` string; `None` (JSON `null`) when there
    /// is no description or it is not a string. Lets the diff spot description-only changes
    /// (tool poisoning) without storing text.
    pub description_sha256: Option<String>,
}

/// Per-item hashes of each list, keyed by identity; `None` (JSON `null`) when not served.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Items {
    /// Tools by `name`.
    pub tools: Option<BTreeMap<String, ItemHash>>,
    /// Resources by `uri`.
    pub resources: Option<BTreeMap<String, ItemHash>>,
    /// Resource templates by `uriTemplate`.
    pub resource_templates: Option<BTreeMap<String, ItemHash>>,
    /// Prompts by `name`.
    pub prompts: Option<BTreeMap<String, ItemHash>>,
}

/// The fingerprint of a surface in one form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fingerprint {
    /// The form the hash was computed in.
    pub form: Form,
    /// SHA-256 (lowercase hex) of the canonical bytes.
    pub sha256: String,
    /// Per-item hashes (identical in both forms: they cover the item only).
    pub items: Items,
}

/// The server part of a surface, pre-computed for both forms.
#[derive(Debug, Clone, PartialEq)]
struct ServerPart {
    /// `{capabilities, instructions, serverInfo, supportedVersions}` (mcpseal/1).
    seal: Value,
    /// `{protocolVersion, capabilities, instructions, serverInfo}` (mcp-surface/1 `initialize`).
    compat: Value,
}

/// A normalised MCP server surface (see the module docs for its invariants).
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    era: Era,
    server: ServerPart,
    lists: [ListState; 4],
}

impl Surface {
    /// Normalises a raw capture. Pure and deterministic.
    ///
    /// # Errors
    /// Fails closed ([`SurfaceError`]) on a lone surrogate anywhere in the server result or in
    /// any page (failed lists included), on unrepresentable JSON there (numbers beyond the
    /// double range, nesting deeper than 127), on an item of a served list without a string
    /// identity, and on duplicate identities within a served list.
    pub fn from_capture(capture: &RawCapture) -> Result<Surface, SurfaceError> {
        validate_raw(capture)?;
        Self::build(capture, true)
    }

    /// Parses capture bytes and normalises them (the whole pipeline's first half).
    ///
    /// # Errors
    /// As [`RawCapture::from_slice`] and [`Surface::from_capture`].
    pub fn from_slice(bytes: &[u8]) -> Result<Surface, SurfaceError> {
        // `RawCapture::from_slice` has validated every byte already.
        Self::build(&RawCapture::from_slice(bytes)?, true)
    }

    fn build(capture: &RawCapture, strict: bool) -> Result<Surface, SurfaceError> {
        let server = server_part(capture)?;
        let l = &capture.lists;
        Ok(Surface {
            era: capture.era,
            server,
            lists: [
                build_list(ListKind::Tools, l.tools.as_ref(), strict)?,
                build_list(ListKind::Resources, l.resources.as_ref(), strict)?,
                build_list(
                    ListKind::ResourceTemplates,
                    l.resource_templates.as_ref(),
                    strict,
                )?,
                build_list(ListKind::Prompts, l.prompts.as_ref(), strict)?,
            ],
        })
    }

    /// The era the capture was made in.
    pub fn era(&self) -> Era {
        self.era
    }

    /// `serverInfo.name` when it is a string (for text output; not an identity guarantee).
    pub fn server_name(&self) -> Option<&str> {
        self.server.seal.get("serverInfo")?.get("name")?.as_str()
    }

    /// One list's state.
    pub fn list(&self, kind: ListKind) -> &ListState {
        &self.lists[kind.index()]
    }

    /// Number of items in a list; `None` when not served.
    pub fn count(&self, kind: ListKind) -> Option<usize> {
        self.list(kind).items().map(<[Item]>::len)
    }

    /// The lists that are not served, with their reasons, in [`ListKind::ALL`] order.
    pub fn not_served(&self) -> Vec<(ListKind, &NotServed)> {
        ListKind::ALL
            .iter()
            .filter_map(|&k| match self.list(k) {
                ListState::NotServed(r) => Some((k, r)),
                ListState::Served(_) => None,
            })
            .collect()
    }

    /// True when some list is not served for an untrustworthy reason (`pageCap`,
    /// `cursorLoop`): the snapshot command refuses such a surface (exit 2).
    pub fn has_untrustworthy_gap(&self) -> bool {
        self.not_served().iter().any(|(_, r)| r.is_untrustworthy())
    }

    /// The canonical object of `form` as a value (the `surface` of snapshot JSON and lock
    /// files). `jcs(&surface.canonical_value(f)) == surface.canonical_bytes(f)`.
    pub fn canonical_value(&self, form: Form) -> Value {
        let mut top = Map::new();
        let list_value = |k: ListKind| match self.list(k) {
            ListState::Served(items) => Value::Array(items.iter().map(Item::value).collect()),
            ListState::NotServed(_) => Value::Null,
        };
        match form {
            Form::McpSeal1 => {
                top.insert("form".into(), Value::from(form.as_str()));
                top.insert("era".into(), Value::from(self.era.as_str()));
                top.insert("server".into(), self.server.seal.clone());
            }
            Form::McpSurface1 => {
                top.insert("initialize".into(), self.server.compat.clone());
            }
        }
        for k in ListKind::ALL {
            top.insert(k.key().into(), list_value(k));
        }
        Value::Object(top)
    }

    /// The canonical (RFC 8785) bytes of `form`.
    pub fn canonical_bytes(&self, form: Form) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_canonical(form, &mut out);
        out
    }

    /// The fingerprint of `form`: SHA-256 of the canonical bytes (streamed into the hasher,
    /// never materialised) and the per-item hashes.
    pub fn fingerprint(&self, form: Form) -> Fingerprint {
        let mut hasher = Sha256::new();
        self.write_canonical(form, &mut hasher);
        let map = |k: ListKind| {
            self.list(k).items().map(|items| {
                items
                    .iter()
                    .map(|i| (i.identity.clone(), i.hash()))
                    .collect::<BTreeMap<_, _>>()
            })
        };
        Fingerprint {
            form,
            sha256: hex(&hasher.finalize()),
            items: Items {
                tools: map(ListKind::Tools),
                resources: map(ListKind::Resources),
                resource_templates: map(ListKind::ResourceTemplates),
                prompts: map(ListKind::Prompts),
            },
        }
    }

    fn write_canonical(&self, form: Form, sink: &mut impl Sink) {
        // Top-level keys written in UTF-16 order by hand:
        // mcpseal/1:     era, form, prompts, resourceTemplates, resources, server, tools
        // mcp-surface/1: initialize, prompts, resourceTemplates, resources, tools
        let mut buf = Vec::with_capacity(256);
        match form {
            Form::McpSeal1 => {
                buf.extend_from_slice(b"{\"era\":");
                write_string(self.era.as_str(), &mut buf);
                buf.extend_from_slice(b",\"form\":\"mcpseal/1\",");
            }
            Form::McpSurface1 => {
                buf.extend_from_slice(b"{\"initialize\":");
                write_jcs(&self.server.compat, &mut buf);
                buf.push(b',');
            }
        }
        sink.put(&buf);
        for (i, k) in [
            ListKind::Prompts,
            ListKind::ResourceTemplates,
            ListKind::Resources,
        ]
        .into_iter()
        .enumerate()
        {
            if i > 0 {
                sink.put(b",");
            }
            self.write_list(k, sink);
        }
        if form == Form::McpSeal1 {
            let mut buf = Vec::with_capacity(256);
            buf.extend_from_slice(b",\"server\":");
            write_jcs(&self.server.seal, &mut buf);
            sink.put(&buf);
        }
        sink.put(b",");
        self.write_list(ListKind::Tools, sink);
        sink.put(b"}");
    }

    fn write_list(&self, k: ListKind, sink: &mut impl Sink) {
        sink.put(b"\"");
        sink.put(k.key().as_bytes());
        sink.put(b"\":");
        match self.list(k) {
            ListState::NotServed(_) => sink.put(b"null"),
            ListState::Served(items) => {
                sink.put(b"[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        sink.put(b",");
                    }
                    sink.put(&item.canonical);
                }
                sink.put(b"]");
            }
        }
    }
}

/// `mcp-surface/1` canonical bytes WITHOUT mcpseal's fail-closed identity checks.
///
/// Why: mcp-surface itself hashes surfaces with duplicate or missing identities (missing sorts
/// as `"undefined"`, non-strings are stringified the JavaScript way, ties keep capture order),
/// and its published vectors include such a surface. mcpseal refuses those surfaces
/// ([`Surface::from_capture`]); this function exists so the compatibility form can be checked
/// against every upstream vector. For any capture [`Surface::from_capture`] accepts, the bytes
/// are identical to `canonical_bytes(Form::McpSurface1)`. Lone surrogates still fail.
///
/// # Errors
/// [`SurfaceError::LoneSurrogate`] and [`SurfaceError::InvalidJson`] only.
pub fn mcp_surface_1_bytes_unchecked(capture: &RawCapture) -> Result<Vec<u8>, SurfaceError> {
    validate_raw(capture)?;
    Ok(Surface::build(capture, false)?.canonical_bytes(Form::McpSurface1))
}

/// Validates the raw JSON a capture holds (server, every page of every list, failed or not),
/// for captures built in memory rather than parsed with [`RawCapture::from_slice`].
fn validate_raw(capture: &RawCapture) -> Result<(), SurfaceError> {
    if let Some(server) = &capture.server {
        validate_json(server.get()).map_err(|e| json_error("server".into(), e))?;
    }
    let l = &capture.lists;
    for (kind, list) in [
        (ListKind::Tools, &l.tools),
        (ListKind::Resources, &l.resources),
        (ListKind::ResourceTemplates, &l.resource_templates),
        (ListKind::Prompts, &l.prompts),
    ] {
        for (p, page) in list.iter().flat_map(|c| c.pages.iter()).enumerate() {
            validate_json(page.get())
                .map_err(|e| json_error(format!("{kind} page {}", p + 1), e))?;
        }
    }
    Ok(())
}

/// Where canonical bytes go: a buffer or straight into a hasher.
trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Sink for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}

fn present(v: Option<&Value>) -> Option<&Value> {
    v.filter(|v| !v.is_null())
}

fn or_null(v: Option<&Value>) -> Value {
    present(v).cloned().unwrap_or(Value::Null)
}

fn without_version(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut m = m.clone();
            m.remove("version");
            Value::Object(m)
        }
        other => other.clone(),
    }
}

fn server_part(capture: &RawCapture) -> Result<ServerPart, SurfaceError> {
    let parsed: Value = match &capture.server {
        Some(raw) => serde_json::from_str(raw.get()).map_err(|e| json_error("server".into(), e))?,
        None => Value::Null,
    };
    let empty = Map::new();
    let obj = parsed.as_object().unwrap_or(&empty);

    let supported_versions = match capture.era {
        Era::V2026_07_28 => match present(obj.get("supportedVersions")) {
            Some(Value::Array(a)) if a.iter().all(Value::is_string) => {
                let mut a = a.clone();
                a.sort_by(|x, y| utf16_cmp(x.as_str().unwrap_or(""), y.as_str().unwrap_or("")));
                Value::Array(a)
            }
            Some(other) => other.clone(),
            None => Value::Null,
        },
        Era::V2025_11_25 => match present(obj.get("protocolVersion")) {
            Some(v) => Value::Array(vec![v.clone()]),
            None => Value::Null,
        },
    };
    let server_info = match capture.era {
        Era::V2026_07_28 => present(obj.get("_meta").and_then(|m| m.get(SERVER_INFO_META_KEY)))
            .or_else(|| present(obj.get("serverInfo"))),
        Era::V2025_11_25 => present(obj.get("serverInfo")),
    }
    .map_or(Value::Null, without_version);

    let mut seal = Map::new();
    seal.insert("capabilities".into(), or_null(obj.get("capabilities")));
    seal.insert("instructions".into(), or_null(obj.get("instructions")));
    seal.insert("serverInfo".into(), server_info);
    seal.insert("supportedVersions".into(), supported_versions);

    let mut compat = Map::new();
    compat.insert(
        "protocolVersion".into(),
        or_null(obj.get("protocolVersion")),
    );
    compat.insert("capabilities".into(), or_null(obj.get("capabilities")));
    compat.insert("instructions".into(), or_null(obj.get("instructions")));
    compat.insert(
        "serverInfo".into(),
        match present(obj.get("serverInfo")) {
            Some(v @ Value::Object(_)) => without_version(v),
            _ => Value::Object(Map::new()),
        },
    );
    Ok(ServerPart {
        seal: Value::Object(seal),
        compat: Value::Object(compat),
    })
}

fn not_served(kind: NotServedKind, message: impl Into<String>) -> ListState {
    ListState::NotServed(NotServed {
        kind,
        message: message.into(),
    })
}

fn build_list(
    kind: ListKind,
    capture: Option<&ListCapture>,
    strict: bool,
) -> Result<ListState, SurfaceError> {
    let Some(capture) = capture else {
        return Ok(not_served(NotServedKind::NotCaptured, "not captured"));
    };
    if let Some(f) = &capture.failure {
        let k = match f.kind {
            FailureKind::Error => NotServedKind::Error,
            FailureKind::Transport => NotServedKind::Transport,
            FailureKind::PageCap => NotServedKind::PageCap,
            FailureKind::CursorLoop => NotServedKind::CursorLoop,
        };
        return Ok(not_served(k, f.message.clone()));
    }
    if capture.pages.is_empty() {
        return Ok(not_served(NotServedKind::Malformed, "no page captured"));
    }
    let key = kind.key();
    let where_ = |page: usize| format!("{kind} page {}", page + 1);

    // Pass 1: structure. Every page must be an object with an array under the list key.
    let mut pages: Vec<Entries<'_>> = Vec::with_capacity(capture.pages.len());
    for (p, raw) in capture.pages.iter().enumerate() {
        let text = raw.get();
        if !text.trim_start().starts_with('{') {
            return Ok(not_served(
                NotServedKind::Malformed,
                format!("page {}: result is not an object", p + 1),
            ));
        }
        let map: Entries<'_> = serde_json::from_str(text).map_err(|e| json_error(where_(p), e))?;
        let is_array = map
            .last(key)
            .is_some_and(|v| v.get().trim_start().starts_with('['));
        if !is_array {
            return Ok(not_served(
                NotServedKind::Malformed,
                format!("page {}: no array under `{key}`", p + 1),
            ));
        }
        pages.push(map);
    }

    // Pass 2: content (already validated: no lone surrogate, no out-of-range number). Items
    // are canonicalised one at a time and their trees dropped at once.
    let id_key = kind.identity_key();
    let mut items: Vec<Item> = Vec::new();
    for (p, map) in pages.iter().enumerate() {
        let Some(array) = map.last(key) else { continue };
        let raw_items: Vec<&RawValue> =
            serde_json::from_str(array.get()).map_err(|e| json_error(where_(p), e))?;
        for raw_item in raw_items {
            let value: Value =
                serde_json::from_str(raw_item.get()).map_err(|e| json_error(where_(p), e))?;
            let identity = match (value.as_object(), value.get(id_key)) {
                (_, Some(Value::String(s))) => s.clone(),
                _ if !strict => js_string(value.as_object().and_then(|o| o.get(id_key))),
                (None, _) => {
                    return Err(missing(kind, items.len(), "an item that is not an object"));
                }
                (Some(_), None) => return Err(missing(kind, items.len(), "nothing")),
                (Some(_), Some(v)) => return Err(missing(kind, items.len(), type_name(v))),
            };
            let mut canonical = Vec::with_capacity(raw_item.get().len());
            write_jcs(&value, &mut canonical);
            let sha256 = Sha256::digest(&canonical).into();
            let description_sha256 = value
                .get("description")
                .and_then(Value::as_str)
                .map(|d| Sha256::digest(d.as_bytes()).into());
            items.push(Item {
                identity,
                canonical,
                sha256,
                description_sha256,
            });
        }
    }
    // Stable: ties keep capture order (only possible when not strict).
    items.sort_by(|a, b| utf16_cmp(&a.identity, &b.identity));
    if strict
        && let Some(w) = items
            .windows(2)
            .find(|w| utf16_cmp(&w[0].identity, &w[1].identity) == Ordering::Equal)
    {
        return Err(SurfaceError::DuplicateIdentity {
            list: kind,
            key: id_key,
            identity: w[0].identity.clone(),
        });
    }
    Ok(ListState::Served(items))
}

/// The members of a page object in document order, duplicates included: the last
/// occurrence of a key wins (as in JavaScript), but every value is still validated.
struct Entries<'a>(Vec<(String, &'a RawValue)>);

impl<'a> Entries<'a> {
    fn last(&self, key: &str) -> Option<&'a RawValue> {
        self.0.iter().rev().find(|(k, _)| k == key).map(|(_, v)| *v)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: serde::de::MapAccess<'de>>(
                self,
                mut m: M,
            ) -> Result<Self::Value, M::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = m.next_entry::<String, &'de RawValue>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

fn missing(list: ListKind, index: usize, found: &'static str) -> SurfaceError {
    SurfaceError::MissingIdentity {
        list,
        key: list.identity_key(),
        index,
        found,
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// JavaScript `String(v)` for the compatibility sort key (`undefined` when absent).
fn js_string(v: Option<&Value>) -> String {
    fn go(v: &Value, out: &mut String) {
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(_) => {
                let mut buf = Vec::new();
                write_jcs(v, &mut buf);
                out.push_str(&String::from_utf8_lossy(&buf));
            }
            Value::String(s) => out.push_str(s),
            Value::Array(a) => {
                for (i, e) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    // Array.prototype.join writes null and undefined as "".
                    if !e.is_null() {
                        go(e, out);
                    }
                }
            }
            Value::Object(_) => out.push_str("[object Object]"),
        }
    }
    let mut out = String::new();
    match v {
        None => out.push_str("undefined"),
        Some(v) => go(v, &mut out),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_string_matches_javascript() {
        let v = |s: &str| serde_json::from_str::<Value>(s).expect("json");
        assert_eq!(js_string(None), "undefined");
        assert_eq!(js_string(Some(&v("5"))), "5");
        assert_eq!(js_string(Some(&v("1e21"))), "1e+21");
        assert_eq!(
            js_string(Some(&v("[1,null,[2,3],{}]"))),
            "1,,2,3,[object Object]"
        );
        assert_eq!(js_string(Some(&v("true"))), "true");
        assert_eq!(js_string(Some(&v("null"))), "null");
    }
}
