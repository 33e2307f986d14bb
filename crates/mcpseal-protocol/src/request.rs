//! Request dressing: how one request is dressed for its era.
//!
//! 2025-11-25 servers learn who the client is once, in the `initialize` handshake, and keep it in
//! a session. 2026-07-28 servers keep nothing: every request carries its protocol version, client
//! capabilities and client identity in `params._meta`, and over HTTP the version, method and
//! target name are repeated in headers so intermediaries can route without parsing the body.
//!
//! A [`Request`] is dressed for one era by default, but every part of the dress can be omitted
//! or overridden, because the conformance probe must send deliberately wrong requests (no
//! `_meta`, a header that disagrees with the body, an unknown version) and see what comes back.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::keys::{
    CLIENT_NAME, HEADER_MCP_METHOD, HEADER_MCP_NAME, HEADER_PROTOCOL_VERSION,
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION,
};
use crate::method;
use crate::revision::Era;

/// How a request's `params._meta` envelope is built.
#[derive(Debug, Clone, PartialEq)]
pub enum Envelope {
    /// The 2026 envelope. `None` fields are omitted from `_meta`; `extra` keys are merged last
    /// and win.
    Modern {
        /// `io.modelcontextprotocol/protocolVersion`.
        protocol_version: Option<String>,
        /// `io.modelcontextprotocol/clientCapabilities`.
        client_capabilities: Option<Value>,
        /// `io.modelcontextprotocol/clientInfo`.
        client_info: Option<Value>,
        /// Further `_meta` keys.
        extra: Map<String, Value>,
    },
    /// No envelope: params are sent as given (2025 requests, or deliberately bare ones).
    None,
}

impl Envelope {
    /// The full 2026 envelope for a revision.
    pub fn modern(version: &str) -> Envelope {
        Envelope::Modern {
            protocol_version: Some(version.to_owned()),
            client_capabilities: Some(json!({})),
            client_info: Some(client_info()),
            extra: Map::new(),
        }
    }

    fn protocol_version(&self) -> Option<&str> {
        match self {
            Envelope::Modern {
                protocol_version,
                extra,
                ..
            } => extra
                .get(META_PROTOCOL_VERSION)
                .and_then(Value::as_str)
                .or(protocol_version.as_deref()),
            Envelope::None => None,
        }
    }
}

/// `{name: "mcpseal", version: <crate version>}`.
pub fn client_info() -> Value {
    json!({"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")})
}

/// A change to the standard headers of one request, applied after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderEdit {
    /// Set (or replace) a header.
    Set(String, String),
    /// Remove a header.
    Remove(String),
}

/// What ends the wait for an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Wait {
    /// The response carrying our id.
    #[default]
    Response,
    /// The response, or a `notifications/subscriptions/acknowledged` whose subscription id is
    /// our request id (a working `subscriptions/listen` holds its stream open and never
    /// responds).
    ResponseOrAcknowledgement,
}

/// One message to send, with its era dress.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// JSON-RPC method.
    pub method: String,
    /// Params without the envelope (the envelope is merged into `params._meta`).
    pub params: Option<Value>,
    /// True for a notification (no id, no answer expected).
    pub notification: bool,
    /// The `_meta` envelope.
    pub envelope: Envelope,
    /// Send the standard era headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, the
    /// legacy session id). `false` sends only transport headers and the user's.
    pub standard_headers: bool,
    /// Edits applied after the standard and user headers.
    pub header_edits: Vec<HeaderEdit>,
    /// Per-request timeout; the connection default when `None`.
    pub timeout: Option<Duration>,
    /// What ends the wait.
    pub wait: Wait,
    /// Use an explicit JSON-RPC id instead of the next counter value.
    pub id: Option<Value>,
}

impl Request {
    /// A 2026-07-28 request with the full envelope and headers.
    pub fn modern(method: impl Into<String>, params: Option<Value>) -> Request {
        Request {
            method: method.into(),
            params,
            notification: false,
            envelope: Envelope::modern(Era::Modern.revision()),
            standard_headers: true,
            header_edits: Vec::new(),
            timeout: None,
            wait: Wait::Response,
            id: None,
        }
    }

    /// A plain 2025-era request: no `_meta` envelope; over HTTP the legacy session id and the
    /// negotiated `MCP-Protocol-Version` are sent once a handshake happened.
    pub fn legacy(method: impl Into<String>, params: Option<Value>) -> Request {
        Request {
            envelope: Envelope::None,
            ..Request::modern(method, params)
        }
    }

    /// Turns the request into a notification.
    pub fn notification(mut self) -> Request {
        self.notification = true;
        self
    }

    /// Overrides the per-request timeout.
    pub fn timeout(mut self, timeout: Duration) -> Request {
        self.timeout = Some(timeout);
        self
    }

    /// Sets what ends the wait.
    pub fn wait(mut self, wait: Wait) -> Request {
        self.wait = wait;
        self
    }

    /// Sets a header after the standard ones.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Request {
        self.header_edits
            .push(HeaderEdit::Set(name.into(), value.into()));
        self
    }

    /// Removes a header (standard or user).
    pub fn without_header(mut self, name: impl Into<String>) -> Request {
        self.header_edits.push(HeaderEdit::Remove(name.into()));
        self
    }

    /// Sends no standard era headers.
    pub fn without_standard_headers(mut self) -> Request {
        self.standard_headers = false;
        self
    }

    /// Changes the protocol version claimed in `_meta` (and mirrored in the header).
    pub fn with_protocol_version(mut self, version: impl Into<String>) -> Request {
        if let Envelope::Modern {
            protocol_version, ..
        } = &mut self.envelope
        {
            *protocol_version = Some(version.into());
        }
        self
    }

    /// Removes one of the envelope's standard keys (`protocolVersion`, `clientCapabilities`,
    /// `clientInfo`, by their full `_meta` key).
    pub fn without_meta_key(mut self, key: &str) -> Request {
        if let Envelope::Modern {
            protocol_version,
            client_capabilities,
            client_info,
            extra,
        } = &mut self.envelope
        {
            match key {
                META_PROTOCOL_VERSION => *protocol_version = None,
                META_CLIENT_CAPABILITIES => *client_capabilities = None,
                META_CLIENT_INFO => *client_info = None,
                _ => {
                    extra.remove(key);
                }
            }
        }
        self
    }

    /// Adds or replaces a `_meta` key.
    pub fn with_meta(mut self, key: impl Into<String>, value: Value) -> Request {
        if let Envelope::Modern { extra, .. } = &mut self.envelope {
            extra.insert(key.into(), value);
        }
        self
    }

    /// Sends no `_meta` envelope at all (the params are sent as given).
    pub fn without_envelope(mut self) -> Request {
        self.envelope = Envelope::None;
        self
    }

    /// Uses this JSON-RPC id.
    pub fn with_id(mut self, id: Value) -> Request {
        self.id = Some(id);
        self
    }

    /// The JSON-RPC message for this request with the given id.
    pub fn to_message(&self, id: &Value) -> Value {
        let mut msg = Map::new();
        msg.insert("jsonrpc".into(), json!("2.0"));
        if !self.notification {
            msg.insert("id".into(), id.clone());
        }
        msg.insert("method".into(), json!(self.method));
        if let Some(params) = self.params_with_envelope() {
            msg.insert("params".into(), params);
        }
        Value::Object(msg)
    }

    fn params_with_envelope(&self) -> Option<Value> {
        let Envelope::Modern {
            protocol_version,
            client_capabilities,
            client_info,
            extra,
        } = &self.envelope
        else {
            return self.params.clone();
        };
        let mut params = match &self.params {
            Some(Value::Object(map)) => map.clone(),
            // Non-object params cannot carry `_meta`: send them untouched.
            Some(other) => return Some(other.clone()),
            None => Map::new(),
        };
        let mut meta = match params.remove("_meta") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        let standard = [
            (
                META_PROTOCOL_VERSION,
                protocol_version.clone().map(Value::from),
            ),
            (META_CLIENT_CAPABILITIES, client_capabilities.clone()),
            (META_CLIENT_INFO, client_info.clone()),
        ];
        for (key, value) in standard {
            if let Some(v) = value {
                meta.entry(key).or_insert(v);
            }
        }
        for (k, v) in extra {
            meta.insert(k.clone(), v.clone());
        }
        params.insert("_meta".into(), Value::Object(meta));
        Some(Value::Object(params))
    }

    /// The standard 2026 headers for this request: the version mirrored from `_meta`, the
    /// method, and the name for `tools/call`, `prompts/get` and `resources/read`.
    pub fn modern_headers(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if let Some(v) = self.envelope.protocol_version() {
            out.push((HEADER_PROTOCOL_VERSION.to_owned(), encode_header_value(v)));
        }
        out.push((
            HEADER_MCP_METHOD.to_owned(),
            encode_header_value(&self.method),
        ));
        if let Some(name) = self.routing_name() {
            out.push((HEADER_MCP_NAME.to_owned(), encode_header_value(name)));
        }
        out
    }

    /// What the request acts on, for the methods that name something: the tool of
    /// `tools/call`, the prompt of `prompts/get` (`params.name`), the resource of
    /// `resources/read` (`params.uri`). The value of the 2026 `Mcp-Name` header.
    pub fn routing_name(&self) -> Option<&str> {
        let key = match self.method.as_str() {
            method::TOOLS_CALL | method::PROMPTS_GET => "name",
            method::RESOURCES_READ => "uri",
            _ => return None,
        };
        self.params.as_ref()?.get(key)?.as_str()
    }

    /// True when the request carries the 2026 `_meta` envelope.
    pub fn is_modern(&self) -> bool {
        matches!(self.envelope, Envelope::Modern { .. })
    }
}

/// Encodes a value that is not header-safe (non-ASCII, control characters, leading or trailing
/// space, or text that looks like the sentinel itself) as `=?base64?…?=`, as 2026-07-28 asks.
pub fn encode_header_value(value: &str) -> String {
    let printable = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let looks_encoded = value.starts_with("=?base64?") && value.ends_with("?=");
    if printable && !padded && !looks_encoded {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    }
}

/// The value a routing header stands for: the `=?base64?…?=` form decoded (standard alphabet,
/// padding optional, UTF-8 required), any other value as it is. `None` when the value claims the
/// encoded form but is not valid base64 of UTF-8 text: the header cannot match any body value,
/// which a server reports as a header mismatch. A plain value is borrowed: a server decodes
/// every routing header of every request.
pub fn decode_header_value(raw: &str) -> Option<Cow<'_, str>> {
    let Some(b64) = raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    else {
        return Some(Cow::Borrowed(raw));
    };
    let mut out = Vec::with_capacity(b64.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in b64.trim_end_matches('=').as_bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(((acc >> bits) & 0xff) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    String::from_utf8(out).ok().map(Cow::Owned)
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modern_envelope_is_merged_under_caller_meta() {
        let req = Request::modern(
            "tools/call",
            Some(json!({"name": "echo", "_meta": {"progressToken": 7}})),
        );
        let msg = req.to_message(&json!(1));
        let meta = &msg["params"]["_meta"];
        assert_eq!(meta[META_PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(meta[META_CLIENT_CAPABILITIES], json!({}));
        assert_eq!(meta[META_CLIENT_INFO]["name"], "mcpseal");
        assert_eq!(meta["progressToken"], 7);
        let headers = req.modern_headers();
        assert!(headers.contains(&("Mcp-Name".into(), "echo".into())));
        assert!(headers.contains(&("Mcp-Method".into(), "tools/call".into())));
    }

    #[test]
    fn envelope_keys_can_be_omitted_or_overridden() {
        let req = Request::modern("tools/list", None)
            .without_meta_key(META_CLIENT_CAPABILITIES)
            .with_protocol_version("1999-01-01");
        let msg = req.to_message(&json!(2));
        let meta = msg["params"]["_meta"].as_object().expect("meta");
        assert!(!meta.contains_key(META_CLIENT_CAPABILITIES));
        assert_eq!(meta[META_PROTOCOL_VERSION], "1999-01-01");
        assert_eq!(req.modern_headers()[0].1, "1999-01-01");
        let bare = Request::modern("tools/list", None).without_envelope();
        assert!(bare.to_message(&json!(3)).get("params").is_none());
    }

    #[test]
    fn legacy_requests_have_no_meta_and_notifications_no_id() {
        let msg = Request::legacy("notifications/initialized", None)
            .notification()
            .to_message(&json!(9));
        assert_eq!(
            msg,
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        );
    }

    #[test]
    fn unsafe_header_values_are_base64_encoded() {
        assert_eq!(encode_header_value("plain/name"), "plain/name");
        assert_eq!(encode_header_value("héllo"), "=?base64?aMOpbGxv?=");
        assert_eq!(encode_header_value(" x"), "=?base64?IHg=?=");
        assert_eq!(base64(b"ab"), "YWI=");
        for v in ["héllo", " x", "=?base64?x?=", "plain", ""] {
            assert_eq!(
                decode_header_value(&encode_header_value(v)).as_deref(),
                Some(v)
            );
        }
        assert_eq!(decode_header_value("=?base64?a*b?="), None);
        assert_eq!(decode_header_value("=?base64?/w==?="), None, "not UTF-8");
    }
}
