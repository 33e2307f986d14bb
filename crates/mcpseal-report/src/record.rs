//! The client's records as reports quote them: one round trip ([`ExchangeRecord`]), a raw HTTP
//! preview ([`RawHttpRecord`]), and an evidence item, which is either ([`Evidence`]).
//!
//! They are the serialised shapes of `mcpseal_client`'s types, typed here so that this crate
//! (which does not depend on the client) can render them and generate their schemas.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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
    /// Set when this quote of the exchange was cut to bound the report (an exchange whose
    /// JSON passes 256 KiB): what was left out. Absent on a whole quote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<TruncatedRecord>,
}

/// What a cut quote of an exchange left out (see [`ExchangeRecord::truncated`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TruncatedRecord {
    /// Server messages beside the answer not quoted, after the first ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notifications_omitted: Option<usize>,
    /// The members of the result (or of the error's `data`) not quoted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<OmittedResult>,
}

/// The large members left out of a quoted result, and the whole result's size and hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OmittedResult {
    /// Bytes of the whole result as compact JSON (keys sorted).
    pub bytes: usize,
    /// SHA-256 of that JSON, lowercase hex.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// Each member left out, by name.
    pub members: std::collections::BTreeMap<String, OmittedMember>,
}

/// One member of a result left out of a quote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OmittedMember {
    /// Bytes of its compact JSON.
    pub bytes: usize,
    /// Items, when it is an array or an object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<usize>,
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

/// A raw HTTP exchange outside JSON-RPC (a metadata GET, a malformed POST), as the client
/// records it: at most a preview of the body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RawHttpRecord {
    /// The HTTP method.
    #[schemars(length(min = 1))]
    pub method: String,
    /// The URL.
    pub url: String,
    /// Request headers, credentials redacted.
    pub request_headers: Vec<HeaderRecord>,
    /// The status, when one arrived.
    #[schemars(range(min = 100, max = 999))]
    pub status: Option<u16>,
    /// Response headers.
    pub headers: Vec<HeaderRecord>,
    /// The start of the body (lossy UTF-8).
    pub body_preview: String,
    /// The body was longer than the preview.
    pub truncated: bool,
    /// Why no response arrived.
    pub error: Option<String>,
    /// Milliseconds from sending to the end.
    pub duration_ms: u64,
}

/// One item of evidence: a JSON-RPC exchange or a raw HTTP preview (credentials redacted).
/// Items are kept as JSON in [`crate::Finding::evidence`]; this type is their schema.
#[derive(Debug, Clone, Copy)]
pub struct Evidence;

impl JsonSchema for Evidence {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Evidence".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let exchange = generator.subschema_for::<ExchangeRecord>();
        let raw = generator.subschema_for::<RawHttpRecord>();
        json_schema!({
            "description": "One item of evidence: a JSON-RPC exchange or a raw HTTP preview (credentials redacted).",
            "oneOf": [exchange, raw]
        })
    }
}
