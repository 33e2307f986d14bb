//! The raw capture: what the client saw on the wire, before any normalisation.
//!
//! A public document: `mcpseal snapshot --save-capture` writes it, `mcpseal diff` and
//! `tools/fingerprint.py` read it, and `mcpseal-surface` turns it into a surface. Its JSON Schema
//! is generated from these types (`schemas/raw-capture.schema.json`).
//!
//! Wire format (JSON, camelCase; produced by `mcpseal-client`):
//!
//! ```json
//! {
//!   "schemaVersion": 1,
//!   "era": "2026-07-28",
//!   "server": { "...": "result of server/discover (2026) or initialize (2025), verbatim" },
//!   "serverFailure": "why server is null (optional)",
//!   "lists": {
//!     "tools":             { "pages": [ {"tools": [], "nextCursor": "c1"}, {"tools": []} ], "failure": null },
//!     "resources":         { "pages": [], "failure": { "kind": "error", "message": "-32601 Method not found" } },
//!     "resourceTemplates": { "pages": [ {"resourceTemplates": []} ] },
//!     "prompts":           { "pages": [ {"prompts": []} ] }
//!   }
//! }
//! ```
//!
//! * `schemaVersion` is 1; a capture without it (written before it existed) is read as 1, and a
//!   newer one is refused.
//! * `era` is `"2026-07-28"` or `"2025-11-25"`; any other value is a parse error.
//! * `server` is the JSON-RPC `result` object verbatim, or `null` (or absent) when the call failed.
//! * Each page is the verbatim `result` object of one list call, in the order they were fetched.
//! * `failure.kind` is `error` (a JSON-RPC error on some page), `transport` (no answer),
//!   `pageCap` (the client's page cap was hit) or `cursorLoop` (a cursor repeated).
//! * A list key that is absent from `lists` means the list was not captured at all.
//! * Unknown fields are ignored (the client may add diagnostics), and never hashed.
//!
//! Pages and the server result are kept as raw JSON text ([`RawValue`]) so that a capture of
//! tens of megabytes is parsed once, item by item, without building one big tree.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::list::ListKind;
use crate::revision::Era;

/// The `schemaVersion` this build writes, and the newest it reads.
pub const CAPTURE_SCHEMA_VERSION: u32 = 1;

fn schema_version_default() -> u32 {
    // Captures saved before the field existed are version 1.
    CAPTURE_SCHEMA_VERSION
}

/// One raw capture of a server (see the module docs for the JSON format).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpseal raw capture")]
pub struct RawCapture {
    /// Always 1 in this version; captures without it are read as 1, newer ones are refused.
    #[serde(default = "schema_version_default")]
    pub schema_version: u32,
    /// The revision the capture was made in.
    pub era: Era,
    /// The `result` of `server/discover` (2026) or `initialize` (2025), verbatim; `None` if the
    /// call failed.
    #[serde(default)]
    #[schemars(with = "Option<serde_json::Value>")]
    pub server: Option<Box<RawValue>>,
    /// Why `server` is `None`, for people; never hashed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_failure: Option<String>,
    /// The four list captures.
    #[serde(default)]
    pub lists: RawLists,
}

/// The four list captures; an absent one means "not captured".
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RawLists {
    /// `tools/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ListCapture>,
    /// `resources/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ListCapture>,
    /// `resources/templates/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_templates: Option<ListCapture>,
    /// `prompts/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<ListCapture>,
}

impl RawLists {
    /// The capture of one list.
    pub fn get(&self, kind: ListKind) -> Option<&ListCapture> {
        match kind {
            ListKind::Tools => self.tools.as_ref(),
            ListKind::Resources => self.resources.as_ref(),
            ListKind::ResourceTemplates => self.resource_templates.as_ref(),
            ListKind::Prompts => self.prompts.as_ref(),
        }
    }

    /// The slot of one list.
    pub fn slot(&mut self, kind: ListKind) -> &mut Option<ListCapture> {
        match kind {
            ListKind::Tools => &mut self.tools,
            ListKind::Resources => &mut self.resources,
            ListKind::ResourceTemplates => &mut self.resource_templates,
            ListKind::Prompts => &mut self.prompts,
        }
    }
}

/// The pages of one list call, or why it failed.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListCapture {
    /// Every page's `result` object verbatim, in fetch order.
    #[serde(default)]
    #[schemars(with = "Vec<serde_json::Value>")]
    pub pages: Vec<Box<RawValue>>,
    /// Set when the list could not be captured completely; the pages are then ignored.
    #[serde(default)]
    pub failure: Option<ListFailure>,
}

/// Why a list could not be captured completely.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListFailure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// Human-readable detail (e.g. `-32601 Method not found`); never hashed.
    #[serde(default)]
    pub message: String,
}

/// The kind of a list failure.
///
/// Why the split: `error` and `transport` are honest "the server does not serve this", so the
/// list is `null` in the surface; `pageCap` and `cursorLoop` mean the capture is incomplete and
/// untrustworthy, so `mcpseal snapshot` refuses to record such a surface (exit 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FailureKind {
    /// A JSON-RPC error answered some page.
    Error,
    /// No answer (closed stream, timeout, HTTP failure).
    Transport,
    /// The client's page cap was hit.
    PageCap,
    /// A cursor repeated.
    CursorLoop,
}

impl FailureKind {
    /// The wire name (`error`, `transport`, `pageCap`, `cursorLoop`).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Error => "error",
            FailureKind::Transport => "transport",
            FailureKind::PageCap => "pageCap",
            FailureKind::CursorLoop => "cursorLoop",
        }
    }
}

/// Why bytes are not a raw capture document.
#[derive(Debug)]
#[non_exhaustive]
pub enum CaptureError {
    /// A `\uD800`–`\uDFFF` escape without its partner, anywhere in the document.
    LoneSurrogate,
    /// A `schemaVersion` newer than this build reads.
    NewerSchema(u32),
    /// Not JSON, not UTF-8, an unknown era, wrong shapes, a number beyond the double range or
    /// nesting beyond 127 levels.
    Invalid(serde_json::Error),
}

impl std::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CaptureError::LoneSurrogate => f.write_str("lone UTF-16 surrogate in the capture"),
            CaptureError::NewerSchema(v) => write!(
                f,
                "capture `schemaVersion` {v} is newer than this build reads ({CAPTURE_SCHEMA_VERSION})"
            ),
            CaptureError::Invalid(_) => f.write_str("invalid capture document"),
        }
    }
}

impl std::error::Error for CaptureError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CaptureError::Invalid(e) => Some(e),
            _ => None,
        }
    }
}

/// True when serde_json refused a lone surrogate escape (it reports these two codes).
pub fn is_surrogate_error(e: &serde_json::Error) -> bool {
    let msg = e.to_string();
    msg.starts_with("lone leading surrogate in hex escape")
        || msg.starts_with("unexpected end of hex escape")
}

impl RawCapture {
    /// An empty capture in `era`: no server result, no list captured.
    pub fn new(era: Era) -> RawCapture {
        RawCapture {
            schema_version: CAPTURE_SCHEMA_VERSION,
            era,
            server: None,
            server_failure: None,
            lists: RawLists::default(),
        }
    }

    /// Parses a raw capture from JSON bytes, validating every byte first. Never panics.
    ///
    /// # Errors
    /// [`CaptureError::LoneSurrogate`] when a lone surrogate escape appears anywhere in the
    /// document (failed lists and unknown fields included); [`CaptureError::NewerSchema`] for a
    /// capture written by a newer mcpseal; [`CaptureError::Invalid`] otherwise.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, CaptureError> {
        let classify = |source: serde_json::Error| {
            if is_surrogate_error(&source) {
                CaptureError::LoneSurrogate
            } else {
                CaptureError::Invalid(source)
            }
        };
        serde_json::from_slice::<Validated>(bytes).map_err(classify)?;
        let capture: RawCapture = serde_json::from_slice(bytes).map_err(classify)?;
        if capture.schema_version > CAPTURE_SCHEMA_VERSION {
            return Err(CaptureError::NewerSchema(capture.schema_version));
        }
        Ok(capture)
    }

    /// The server result as a value, when there is one.
    pub fn server_result(&self) -> Option<serde_json::Value> {
        serde_json::from_str(self.server.as_ref()?.get()).ok()
    }

    /// The version the server reports for itself (`serverInfo.version`, either era).
    pub fn reported_version(&self) -> Option<String> {
        crate::identity::server_version(&self.server_result()?).map(str::to_owned)
    }

    /// Serialises the capture to compact JSON bytes (the format [`RawCapture::from_slice`]
    /// reads).
    ///
    /// # Errors
    /// Only if serde_json fails to write, which it does not for this type.
    pub fn to_vec(&self) -> Result<Vec<u8>, serde_json::Error> {
        serde_json::to_vec(self)
    }
}

/// Checks that JSON text holds only what every implementation can represent the same way:
/// no lone UTF-16 surrogate escape in any string or key, no number beyond the double range,
/// nesting within serde_json's limit (127 levels of arrays and objects). Builds nothing.
///
/// Why: raw values ([`RawValue`]) are stored unparsed, and serde_json does not validate string
/// escapes it skips; this pass makes "a lone surrogate anywhere fails" true for every byte of
/// a capture (including failed lists' pages and unknown fields), which is also what the Python
/// implementation checks.
///
/// # Errors
/// The serde_json error ([`is_surrogate_error`] tells a lone surrogate apart).
pub fn validate_json(text: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<Validated>(text).map(|_| ())
}

/// Zero-size result of the validating walk.
struct Validated;

impl<'de> Deserialize<'de> for Validated {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValidatedVisitor)
    }
}

struct ValidatedVisitor;

impl<'de> serde::de::Visitor<'de> for ValidatedVisitor {
    type Value = Validated;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_str<E>(self, _: &str) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_unit<E>(self) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_none<E>(self) -> Result<Validated, E> {
        Ok(Validated)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Validated, A::Error> {
        while seq.next_element::<Validated>()?.is_some() {}
        Ok(Validated)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Validated, A::Error> {
        while map.next_entry::<Validated, Validated>()?.is_some() {}
        Ok(Validated)
    }
}
