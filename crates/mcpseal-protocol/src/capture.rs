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
//!     "resources":         { "pages": [], "failure": { "kind": "error", "cause": "methodNotFound", "page": 1, "code": -32601, "message": "page 1: error -32601: Method not found" } },
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
//!   `pageCap` (a client cap was hit) or `cursorLoop` (a cursor repeated); `failure.cause` (when
//!   present) says precisely what happened ([`FailureCause`]), `failure.page` on which page, and
//!   `failure.code`, `failure.httpStatus`, `failure.challenge` what the server sent.
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

/// Why a list could not be captured completely, or the server's answer that it does not exist.
///
/// `kind` is the coarse class every reader since the first build understands; `cause` (added
/// later, absent in older captures) says precisely what happened, and decides whether the list
/// is *not served* or the capture *failed* (see [`FailureCause`] and SPEC.md §4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListFailure {
    /// What kind of failure.
    pub kind: FailureKind,
    /// Human-readable detail (e.g. `page 1: error -32601: Method not found`); never hashed.
    #[serde(default)]
    pub message: String,
    /// Precisely what happened; absent in captures written before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<FailureCause>,
    /// The page (counting from 1) whose request failed; absent for a failure of the whole list
    /// (a cap, a cursor loop) and in older captures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// The JSON-RPC error code, when a JSON-RPC error answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// The HTTP status of the failing reply (HTTP only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_status: Option<u16>,
    /// The `WWW-Authenticate` challenge of a 401 or 403 reply, verbatim (credentials are never
    /// in a challenge).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub challenge: Option<String>,
}

impl ListFailure {
    /// A failure of `cause` (its coarse [`FailureKind`] follows from it) with a message for
    /// people; no page, code, status or challenge yet.
    pub fn new(cause: FailureCause, message: impl Into<String>) -> ListFailure {
        ListFailure {
            kind: cause.kind(),
            message: message.into(),
            cause: Some(cause),
            page: None,
            code: None,
            http_status: None,
            challenge: None,
        }
    }

    /// The same failure, on `page` (counting from 1).
    #[must_use]
    pub fn on_page(mut self, page: u32) -> ListFailure {
        self.page = Some(page);
        self
    }
}

/// The kind of a list failure: the coarse class, kept as the first build wrote it so that
/// older readers still read newer captures.
///
/// Why the split: `error` is a JSON-RPC error answer and `transport` no answer at all;
/// `pageCap` and `cursorLoop` mean the capture is incomplete. Whether the list is *not served*
/// or the capture *failed* is decided by [`FailureCause`] (see SPEC.md §4); in a capture
/// without a cause, `error` reads as not served and everything else as failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FailureKind {
    /// A JSON-RPC error answered some page.
    Error,
    /// No valid answer (closed stream, timeout, oversize or invalid output, an HTTP status
    /// without a JSON-RPC answer, a result without the list array).
    Transport,
    /// A client cap was hit (pages, or total bytes of the capture).
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

/// Precisely what ended a list capture. Only the first two are answers from the server about
/// the method; every other cause means mcpseal did not get the list, and a capture holding
/// one is refused rather than recorded (DESIGN invariant 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FailureCause {
    /// The server answered JSON-RPC `-32601` (method not found); over HTTP with a 2xx or 404
    /// status (2026 servers answer an unknown method with 404 and that error).
    MethodNotFound,
    /// The server answered another JSON-RPC error (`code` says which). Not served only on a
    /// 2025-11-25 server that does not advertise the list's capability.
    ErrorAnswer,
    /// No answer within the request timeout.
    Timeout,
    /// A message, body or event over the client's byte limit.
    Oversize,
    /// The server went away: stdout closed, the process exited, the connection closed.
    Closed,
    /// Bytes that are not UTF-8 where JSON was expected.
    InvalidUtf8,
    /// Not a JSON-RPC answer: invalid JSON, JSON nested too deep, the wrong shape, a body
    /// without a message, an encoding mcpseal did not ask for.
    InvalidJson,
    /// HTTP 401 or 403 (`challenge` holds the `WWW-Authenticate` header): the list needs a
    /// credential.
    Unauthorized,
    /// Another HTTP status without a JSON-RPC answer (404 without `-32601`, 3xx, 5xx, ...).
    HttpStatus,
    /// A network failure (connection refused or reset, DNS, TLS, a response head too large).
    Network,
    /// The process could not be started.
    Spawn,
    /// A result that is not an object, has no array under the list key, or a `nextCursor` that
    /// is not a string.
    MalformedResult,
    /// The client's page cap was hit.
    PageCap,
    /// A cursor repeated.
    CursorLoop,
    /// The pages read so far passed the client's cap on the bytes of one capture.
    CaptureCap,
    /// A cause this build does not know (written by a newer one): never an answer, so the
    /// list is failed, which is the safe reading.
    #[serde(other)]
    Other,
}

impl FailureCause {
    /// The wire name (camelCase, as serialised).
    pub fn as_str(self) -> &'static str {
        match self {
            FailureCause::MethodNotFound => "methodNotFound",
            FailureCause::ErrorAnswer => "errorAnswer",
            FailureCause::Timeout => "timeout",
            FailureCause::Oversize => "oversize",
            FailureCause::Closed => "closed",
            FailureCause::InvalidUtf8 => "invalidUtf8",
            FailureCause::InvalidJson => "invalidJson",
            FailureCause::Unauthorized => "unauthorized",
            FailureCause::HttpStatus => "httpStatus",
            FailureCause::Network => "network",
            FailureCause::Spawn => "spawn",
            FailureCause::MalformedResult => "malformedResult",
            FailureCause::PageCap => "pageCap",
            FailureCause::CursorLoop => "cursorLoop",
            FailureCause::CaptureCap => "captureCap",
            FailureCause::Other => "other",
        }
    }

    /// The coarse kind older readers understand.
    pub fn kind(self) -> FailureKind {
        match self {
            FailureCause::MethodNotFound | FailureCause::ErrorAnswer => FailureKind::Error,
            FailureCause::PageCap | FailureCause::CaptureCap => FailureKind::PageCap,
            FailureCause::CursorLoop => FailureKind::CursorLoop,
            _ => FailureKind::Transport,
        }
    }

    /// True when the server answered with a JSON-RPC error (the only causes that can mean
    /// "not served").
    pub fn is_answer(self) -> bool {
        matches!(
            self,
            FailureCause::MethodNotFound | FailureCause::ErrorAnswer
        )
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
