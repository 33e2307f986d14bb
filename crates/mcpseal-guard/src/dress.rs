//! How the guard's own requests to the upstream are dressed: exactly like the host's.
//!
//! The guard reads a list from the upstream when the host lists it, when a `list_changed`
//! arrives, or (once) before judging a call when it has not seen the list yet. Those requests
//! must be what the host would have sent: the same protocol version, client capabilities and
//! identity in `_meta` (2026), the same session and headers over HTTP (2025 sessions, the user's
//! credentials), so the upstream answers the guard with the surface it shows the host. A
//! [`Dress`] is taken from a host request and reused; only the method, the cursor, and the
//! routing headers that follow from them change.

use mcpseal_protocol::{ListKind, keys};
use serde_json::{Map, Value};

/// A host request's dress (see the module docs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dress {
    /// The host's `params._meta`, reduced to the envelope keys (protocol version, client
    /// capabilities, client identity): a progress token or trace context belongs to one request.
    pub meta: Option<Map<String, Value>>,
    /// The host's HTTP headers as forwarded to the upstream (empty on stdio).
    pub headers: Vec<(String, String)>,
}

impl Dress {
    /// The dress of a host request (its message and forwarded headers).
    pub fn of_request(message: &Value, headers: &[(String, String)]) -> Dress {
        let meta = message
            .get("params")
            .and_then(|p| p.get(keys::META))
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter(|(k, _)| {
                        matches!(
                            k.as_str(),
                            keys::META_PROTOCOL_VERSION
                                | keys::META_CLIENT_CAPABILITIES
                                | keys::META_CLIENT_INFO
                        )
                    })
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect::<Map<String, Value>>()
            })
            .filter(|m| !m.is_empty());
        let headers = headers
            .iter()
            .filter(|(n, _)| {
                !n.eq_ignore_ascii_case(keys::HEADER_MCP_NAME)
                    && !n.eq_ignore_ascii_case(keys::HEADER_MCP_METHOD)
                    && !n
                        .to_ascii_lowercase()
                        .starts_with(&keys::HEADER_MCP_PARAM_PREFIX.to_ascii_lowercase())
            })
            .cloned()
            .collect();
        Dress { meta, headers }
    }

    /// The message and headers of a list request with `id`, starting at `cursor`.
    pub fn list_request(
        &self,
        id: &Value,
        kind: ListKind,
        cursor: Option<&str>,
    ) -> (Value, Vec<(String, String)>) {
        let mut params = Map::new();
        if let Some(meta) = &self.meta {
            params.insert(keys::META.to_owned(), Value::Object(meta.clone()));
        }
        if let Some(c) = cursor {
            params.insert("cursor".to_owned(), Value::from(c));
        }
        let mut message = Map::new();
        message.insert("jsonrpc".into(), Value::from("2.0"));
        message.insert("id".into(), id.clone());
        message.insert("method".into(), Value::from(kind.method()));
        if !params.is_empty() {
            message.insert("params".into(), Value::Object(params));
        }
        let mut headers = self.headers.clone();
        if self.meta.is_some() || self.headers.iter().any(|(n, _)| is_version_header(n)) {
            // A 2026 request (or one whose host sent routing headers) carries its method.
            headers.push((keys::HEADER_MCP_METHOD.to_owned(), kind.method().to_owned()));
        }
        (Value::Object(message), headers)
    }
}

fn is_version_header(name: &str) -> bool {
    name.eq_ignore_ascii_case(keys::HEADER_PROTOCOL_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_dress_keeps_the_envelope_and_the_session() {
        let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
            "name": "echo", "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
                      "progressToken": 3}}});
        let headers = vec![
            ("MCP-Protocol-Version".to_owned(), "2026-07-28".to_owned()),
            ("Mcp-Method".to_owned(), "tools/call".to_owned()),
            ("Mcp-Name".to_owned(), "echo".to_owned()),
            ("Mcp-Param-Region".to_owned(), "eu".to_owned()),
            ("Authorization".to_owned(), "Bearer t".to_owned()),
        ];
        let dress = Dress::of_request(&call, &headers);
        let (msg, h) = dress.list_request(&json!("g-1"), ListKind::Tools, Some("c2"));
        assert_eq!(
            msg,
            json!({"jsonrpc": "2.0", "id": "g-1", "method": "tools/list", "params": {
                "cursor": "c2", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"sampling": {}}}}})
        );
        let names: Vec<&str> = h.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["MCP-Protocol-Version", "Authorization", "Mcp-Method"]
        );
        assert_eq!(h[2].1, "tools/list");

        let legacy = Dress::of_request(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            &[],
        );
        let (msg, h) = legacy.list_request(&json!(1), ListKind::Prompts, None);
        assert_eq!(
            msg,
            json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/list"})
        );
        assert!(h.is_empty());
    }
}
