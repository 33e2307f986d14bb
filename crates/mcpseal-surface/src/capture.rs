//! The raw capture: what the client saw on the wire, before any normalisation.
//!
//! Wire format (JSON, camelCase; produced by `mcpseal-client`, consumed here):
//!
//! ```json
//! {
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

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::SurfaceError;

/// The protocol revision a capture was made in.
///
/// Why an enum: the era changes which fields carry the server part (discover vs initialize), and
/// it is part of the hashed form, so an unknown era must fail rather than hash something new.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Era {
    /// Legacy era: `initialize` handshake.
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// Modern era: `server/discover`, per-request `_meta`.
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl Era {
    /// The revision string as it appears in the capture and in the canonical form.
    pub fn as_str(self) -> &'static str {
        match self {
            Era::V2025_11_25 => "2025-11-25",
            Era::V2026_07_28 => "2026-07-28",
        }
    }
}

impl std::fmt::Display for Era {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One raw capture of a server (see the module docs for the JSON format).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawCapture {
    /// The revision the capture was made in.
    pub era: Era,
    /// The `result` of `server/discover` (2026) or `initialize` (2025), verbatim; `None` if the
    /// call failed.
    #[serde(default)]
    pub server: Option<Box<RawValue>>,
    /// Why `server` is `None`, for people; never hashed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_failure: Option<String>,
    /// The four list captures.
    #[serde(default)]
    pub lists: RawLists,
}

/// The four list captures; an absent one means "not captured".
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
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

/// The pages of one list call, or why it failed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListCapture {
    /// Every page's `result` object verbatim, in fetch order.
    #[serde(default)]
    pub pages: Vec<Box<RawValue>>,
    /// Set when the list could not be captured completely; the pages are then ignored.
    #[serde(default)]
    pub failure: Option<ListFailure>,
}

/// Why a list could not be captured completely.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

impl RawCapture {
    /// Parses a raw capture from JSON bytes. Never panics.
    ///
    /// # Errors
    /// [`SurfaceError::Capture`] when the bytes are not a capture document (invalid JSON,
    /// invalid UTF-8, unknown era, wrong shapes).
    /// [`SurfaceError::LoneSurrogate`] when a lone surrogate escape appears anywhere in the
    /// document, or [`SurfaceError::Capture`] when a number is beyond the double range or
    /// nesting exceeds 127 levels anywhere (one allocation-free validating pass).
    pub fn from_slice(bytes: &[u8]) -> Result<Self, SurfaceError> {
        let capture_error = |source: serde_json::Error| {
            if crate::surface::is_surrogate_error(&source) {
                SurfaceError::LoneSurrogate {
                    location: "capture".to_owned(),
                }
            } else {
                SurfaceError::Capture { source }
            }
        };
        serde_json::from_slice::<Validated>(bytes).map_err(capture_error)?;
        serde_json::from_slice(bytes).map_err(capture_error)
    }

    /// Serialises the capture to compact JSON bytes (the format [`RawCapture::from_slice`]
    /// reads).
    ///
    /// # Errors
    /// Only if serde_json fails to write, which it does not for this type.
    pub fn to_vec(&self) -> Result<Vec<u8>, SurfaceError> {
        serde_json::to_vec(self).map_err(|source| SurfaceError::Capture { source })
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
/// The serde_json error; [`crate::SurfaceError::LoneSurrogate`] is derived from it by callers.
pub(crate) fn validate_json(text: &str) -> Result<(), serde_json::Error> {
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
