//! JSON-RPC 2.0 framing: error codes, response builders and the [`Outcome`] of one message.
//!
//! Hand-written on purpose (no SDK): the fixture must be able to emit exactly the wrong
//! code, status or shape a test asks for.

use serde_json::{Value, json};

// The wire vocabulary comes from `mcpseal-protocol`, under the names the fixture code uses; only
// the codes no revision defines (the release-candidate numbers the fixture can be told to send)
// are the fixture's own.
pub use mcpseal_protocol::keys::{
    META_CLIENT_CAPABILITIES as META_CLIENT_CAPS, META_CLIENT_INFO,
    META_PROTOCOL_VERSION as META_VERSION, META_SERVER_INFO, META_SUBSCRIPTION_ID,
};
pub use mcpseal_protocol::method::code::{
    HEADER_MISMATCH, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR,
    RESOURCE_NOT_FOUND as RESOURCE_NOT_FOUND_2025,
    UNSUPPORTED_PROTOCOL_VERSION as UNSUPPORTED_VERSION,
};
pub use mcpseal_protocol::{
    LATEST_LEGACY_REVISION as LEGACY_VERSION, MODERN_REVISION as MODERN_VERSION,
};

/// -32001 RC-era HeaderMismatch (pre `f505a6c7`).
pub const RC_HEADER_MISMATCH: i64 = -32001;
/// -32004 RC-era UnsupportedProtocolVersion.
pub const RC_UNSUPPORTED_VERSION: i64 = -32004;

/// A JSON-RPC error plus the HTTP status the fixture pairs it with.
#[derive(Debug, Clone)]
pub struct RpcError {
    /// JSON-RPC error code.
    pub code: i64,
    /// Human message.
    pub message: String,
    /// Optional `error.data`.
    pub data: Option<Value>,
    /// HTTP status for the Streamable HTTP transport (ignored on stdio).
    pub status: u16,
}

impl RpcError {
    /// An error with HTTP status 400 unless changed with [`RpcError::status`].
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        let status = if code == METHOD_NOT_FOUND { 404 } else { 400 };
        Self {
            code,
            message: message.into(),
            data: None,
            status,
        }
    }

    /// Attach `error.data`.
    pub fn data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// Override the HTTP status.
    pub fn status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }
}

/// What the transport must do with one incoming message.
#[derive(Debug)]
pub enum Outcome {
    /// Send this JSON-RPC response (HTTP: with `status`, and `session` as `Mcp-Session-Id`).
    Reply {
        /// The whole JSON-RPC response object.
        body: Value,
        /// HTTP status.
        status: u16,
        /// Session id to send back (legacy `initialize`, `--session-id`).
        session: Option<String>,
    },
    /// A notification was accepted: nothing on stdio, 202 on HTTP.
    Accepted,
    /// `subscriptions/listen`: send the acknowledgement notification, then hold the stream open.
    Listen {
        /// Messages sent before the acknowledgement (only `--listen-ack late`).
        before: Vec<Value>,
        /// The `notifications/subscriptions/acknowledged` message.
        ack: Value,
    },
    /// Never answer (`--hang-on`, `--silent-listen`).
    Hang,
    /// Exit with code 3 without answering (`--crash-after`).
    Crash,
    /// Write 100 MB without a newline, then hang (`--flood`).
    Flood,
    /// Answer request `id` with bytes that are not UTF-8 (`--invalid-utf8`).
    InvalidUtf8(Value),
    /// Write the first half of this response, then exit 1 (`--half-message`).
    HalfMessage(Value),
    /// Send this response, then exit 0 (`--exit-after-discover`).
    ReplyThenExit(Value),
    /// HTTP `--sse-endless` (decided in `http`): an SSE stream that never carries the response.
    Endless,
}

/// A success response.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response for `err`.
pub fn error(id: &Value, err: &RpcError) -> Value {
    let mut e = json!({"code": err.code, "message": err.message});
    if let Some(data) = &err.data {
        e["data"] = data.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "error": e})
}

/// A notification message.
pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

/// The bytes `--invalid-utf8` sends: a JSON-looking response with 0xFF 0xFE 0xC3 inside a string.
pub fn invalid_utf8_bytes(id: &Value) -> Vec<u8> {
    let mut v = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"text":""#).into_bytes();
    v.extend_from_slice(&[0xFF, 0xFE, 0xC3]);
    v.extend_from_slice(br#""}}"#);
    v
}
