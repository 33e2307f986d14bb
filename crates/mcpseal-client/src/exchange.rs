//! The record of one round trip.
//!
//! An [`Exchange`] is the unit of evidence everywhere in mcpseal: reports quote exchanges, rules
//! judge exchanges, captures keep exchanges. It is built so that it can always be produced:
//! whatever goes wrong on the wire becomes a [`TransportError`] inside it, never a Rust error the
//! caller has to route around.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::TransportError;

/// Which transport carried an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TransportKind {
    /// Newline-delimited JSON-RPC over a child process's stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
}

impl TransportKind {
    /// The lowercase name used in reports (`stdio`, `http`).
    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
        }
    }
}

/// One header as it was sent or received. Names keep the case they had on the wire; values of
/// credential headers are already redacted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// Header name.
    pub name: String,
    /// Header value (lossy UTF-8 for received headers; `[redacted]` for credentials).
    pub value: String,
}

/// One request and what came back for it.
///
/// Invariant: exactly one of `response` and `transport_error` is set for a request; for a
/// notification `response` is always `None` and `transport_error` is set only when the
/// notification could not be delivered (or, over HTTP, was answered with something other than
/// an acceptance).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Exchange {
    /// The transport that carried it.
    pub transport: TransportKind,
    /// The JSON-RPC message sent, exactly as serialised.
    pub request: Value,
    /// HTTP request headers (empty on stdio), credentials redacted.
    pub request_headers: Vec<Header>,
    /// The JSON-RPC response carrying our id, if one arrived.
    pub response: Option<Value>,
    /// HTTP response headers, verbatim (credentials redacted).
    pub response_headers: Vec<Header>,
    /// HTTP status, when HTTP was used and a status line arrived.
    pub http_status: Option<u16>,
    /// Server messages that arrived while this request was in flight and were not its response
    /// (notifications, server-to-client requests), in arrival order.
    pub notifications: Vec<Value>,
    /// Milliseconds from sending to the answer (or the failure).
    pub duration_ms: u64,
    /// Set when no valid JSON-RPC answer came back.
    pub transport_error: Option<TransportError>,
}

impl Exchange {
    /// `request` as just sent on `transport`, with nothing back yet: no headers, no response,
    /// no notifications, no error. The transport (or a caller that could not send it) fills in
    /// what happened, keeping the invariant above.
    pub fn sent(transport: TransportKind, request: Value) -> Exchange {
        Exchange {
            transport,
            request,
            request_headers: Vec::new(),
            response: None,
            response_headers: Vec::new(),
            http_status: None,
            notifications: Vec::new(),
            duration_ms: 0,
            transport_error: None,
        }
    }

    /// The method of the request.
    pub fn method(&self) -> &str {
        self.request
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// True when a JSON-RPC answer (result or error) arrived.
    pub fn is_answered(&self) -> bool {
        self.response.is_some()
    }

    /// The `result` member of the response, if the response has one.
    pub fn result(&self) -> Option<&Value> {
        self.response.as_ref()?.get("result")
    }

    /// The `error` member of the response, if the response has one.
    pub fn error(&self) -> Option<&Value> {
        self.response.as_ref()?.get("error")
    }

    /// The JSON-RPC error code, if the response is an error with an integer code.
    pub fn error_code(&self) -> Option<i64> {
        self.error()?.get("code")?.as_i64()
    }

    /// The JSON-RPC error message, if any.
    pub fn error_message(&self) -> Option<&str> {
        self.error()?.get("message")?.as_str()
    }

    /// Puts a result returned as text by
    /// [`Connection::send_keeping_result`](crate::Connection::send_keeping_result) back into
    /// the response, as [`Connection::send`](crate::Connection::send) would have had it.
    pub fn restore_result(&mut self, text: &str) {
        let result = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
        if let Some(Value::Object(response)) = self.response.as_mut() {
            response.insert("result".to_owned(), result);
        }
    }

    /// A response header by case-insensitive name.
    pub fn response_header(&self, name: &str) -> Option<&str> {
        self.response_headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// A request header by case-insensitive name.
    pub fn request_header(&self, name: &str) -> Option<&str> {
        self.request_headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }

    /// A one-line summary for people: `tools/list → result` / `→ error -32601 …` / `→ no answer: …`.
    pub fn summary(&self) -> String {
        let status = self
            .http_status
            .map(|s| format!(" (HTTP {s})"))
            .unwrap_or_default();
        if let Some(err) = &self.transport_error {
            return format!("{} → no answer{status}: {}", self.method(), err.message);
        }
        if let Some(code) = self.error_code() {
            return format!(
                "{} → error {code} {}{status}",
                self.method(),
                self.error_message().unwrap_or("")
            );
        }
        if self.result().is_some() {
            return format!("{} → result{status}", self.method());
        }
        format!("{} → sent{status}", self.method())
    }
}
