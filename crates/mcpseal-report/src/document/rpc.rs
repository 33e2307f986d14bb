//! The document of `mcpseal rpc` (`schemaVersion: 1`): one request and every exchange.
//!
//! ```json
//! {"schemaVersion": 1, "exchange": {…}, "handshake": [{…}], "diagnostics": ["[stderr] …"]}
//! ```
//!
//! An exchange is the client's record of one round trip, as every report quotes it
//! ([`ExchangeRecord`]). When the request got no valid answer (exit 2), `error` is added.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::ErrorBody;

/// One header as sent or received (credential values already `[redacted]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HeaderRecord {
    /// Header name, in its wire case.
    pub name: String,
    /// Header value.
    pub value: String,
}

/// Why no valid JSON-RPC answer came back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TransportErrorRecord {
    /// An open set owned by the client; today one of `timeout`, `closed`, `oversize`,
    /// `invalidUtf8`, `protocol`, `spawn`, `network`.
    #[schemars(example = &"timeout")]
    pub kind: String,
    /// For people.
    pub message: String,
}

/// The transport that carried an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum TransportName {
    /// Newline-delimited JSON-RPC over a child's stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
}

/// One round trip, as the client records it (the serialised `mcpseal_client::Exchange`).
///
/// Exactly one of `response` and `transportError` is set for a request; a JSON-RPC error is a
/// response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExchangeRecord {
    /// The transport.
    pub transport: TransportName,
    /// The JSON-RPC message sent, exactly as serialised.
    #[schemars(with = "Map<String, Value>")]
    pub request: Value,
    /// HTTP request headers (empty on stdio), credentials redacted.
    pub request_headers: Vec<HeaderRecord>,
    /// The JSON-RPC response carrying the request's id, if one arrived.
    #[schemars(with = "Option<Map<String, Value>>")]
    pub response: Option<Value>,
    /// HTTP response headers (credentials redacted).
    pub response_headers: Vec<HeaderRecord>,
    /// HTTP status, when HTTP was used and a status line arrived.
    #[schemars(range(min = 100, max = 999))]
    pub http_status: Option<u16>,
    /// Server messages that arrived while the request was in flight and were not its answer.
    pub notifications: Vec<Value>,
    /// Milliseconds from sending to the answer (or the failure).
    pub duration_ms: u64,
    /// Set when no valid JSON-RPC answer came back.
    pub transport_error: Option<TransportErrorRecord>,
}

impl ExchangeRecord {
    /// The request's method (empty when it has none).
    pub fn method(&self) -> &str {
        self.request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// One line for people: `tools/list → result`, `x → error -32601 Method not found`,
    /// `x → no answer: …`, with ` (HTTP 200)` when there is a status.
    pub fn summary(&self) -> String {
        let status = self
            .http_status
            .map(|s| format!(" (HTTP {s})"))
            .unwrap_or_default();
        let method = self.method();
        if let Some(err) = &self.transport_error {
            return format!("{method} → no answer{status}: {}", err.message);
        }
        let response = self.response.as_ref();
        if let Some(error) = response.and_then(|r| r.get("error")) {
            let code = error.get("code").and_then(Value::as_i64);
            let message = error.get("message").and_then(Value::as_str).unwrap_or("");
            if let Some(code) = code {
                return format!("{method} → error {code} {message}{status}");
            }
        }
        if response.and_then(|r| r.get("result")).is_some() {
            return format!("{method} → result{status}");
        }
        format!("{method} → sent{status}")
    }
}

/// The document of `mcpseal rpc` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal rpc exchange",
    description = "`mcpseal rpc --format json`, schemaVersion 1: one JSON-RPC request and every exchange behind it. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/rpc-report.schema.json")
)]
pub struct RpcReport {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// The exchange of the request asked for.
    pub exchange: ExchangeRecord,
    /// The handshake exchanges, when one was asked for.
    pub handshake: Vec<ExchangeRecord>,
    /// What the server said outside the protocol (stderr, non-JSON stdout, exit status).
    pub diagnostics: Vec<String>,
    /// Set when the request got no valid answer (exit 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}
