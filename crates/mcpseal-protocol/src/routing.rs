//! The 2026-07-28 routing headers of a message that is already written: what a client (or a
//! proxy turning stdio into Streamable HTTP) sends beside the body so intermediaries can route
//! without parsing it.
//!
//! [`Request::modern_headers`](crate::Request::modern_headers) dresses requests mcpseal builds;
//! [`routing_headers`] reads them off any message: `MCP-Protocol-Version` mirrored from
//! `params._meta`, `Mcp-Method`, `Mcp-Name` for `tools/call`, `prompts/get` (`params.name`) and
//! `resources/read` (`params.uri`), and `Mcp-Param-{Name}` for every argument the called tool's
//! `inputSchema` marks with `x-mcp-header` (string, integer or boolean values; absent or `null`
//! arguments send no header). Values that are not header-safe are `=?base64?…?=`-encoded.

use serde_json::Value;

use crate::keys::{
    HEADER_MCP_METHOD, HEADER_MCP_NAME, HEADER_MCP_PARAM_PREFIX, HEADER_PROTOCOL_VERSION, META,
    META_PROTOCOL_VERSION, SCHEMA_X_MCP_HEADER,
};
use crate::method;
use crate::request::encode_header_value;

/// The routing headers of `message` (see the module docs). `tool_schema` is the `inputSchema`
/// of the tool a `tools/call` names, when known. A message without a `_meta` protocol version
/// (a 2025 message) gets none: 2025 servers learn the version from the session.
pub fn routing_headers(message: &Value, tool_schema: Option<&Value>) -> Vec<(String, String)> {
    let params = message.get("params");
    let Some(version) = params
        .and_then(|p| p.get(META))
        .and_then(|m| m.get(META_PROTOCOL_VERSION))
        .and_then(Value::as_str)
    else {
        return Vec::new();
    };
    let mut out = vec![(
        HEADER_PROTOCOL_VERSION.to_owned(),
        encode_header_value(version),
    )];
    let Some(m) = message.get("method").and_then(Value::as_str) else {
        return out;
    };
    out.push((HEADER_MCP_METHOD.to_owned(), encode_header_value(m)));
    let name_key = match m {
        method::TOOLS_CALL | method::PROMPTS_GET => Some("name"),
        method::RESOURCES_READ => Some("uri"),
        _ => None,
    };
    if let Some(name) = name_key
        .and_then(|k| params.and_then(|p| p.get(k)))
        .and_then(Value::as_str)
    {
        out.push((HEADER_MCP_NAME.to_owned(), encode_header_value(name)));
    }
    if m == method::TOOLS_CALL
        && let Some(schema) = tool_schema
    {
        let args = params.and_then(|p| p.get("arguments"));
        for (path, header) in mirrored(schema) {
            let mut value = args;
            for segment in &path {
                value = value.and_then(|v| v.get(segment));
            }
            let text = match value {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Bool(b)) => b.to_string(),
                Some(Value::Number(n)) if n.is_i64() || n.is_u64() => n.to_string(),
                _ => continue,
            };
            out.push((
                format!("{HEADER_MCP_PARAM_PREFIX}{header}"),
                encode_header_value(&text),
            ));
        }
    }
    out
}

/// The `x-mcp-header` annotations of a schema: (property path, header name), reachable through
/// `properties` only, as 2026-07-28 defines them.
pub fn mirrored(schema: &Value) -> Vec<(Vec<String>, String)> {
    fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        for (name, sub) in props {
            path.push(name.clone());
            if let Some(h) = sub.get(SCHEMA_X_MCP_HEADER).and_then(Value::as_str) {
                out.push((path.clone(), h.to_owned()));
            }
            if path.len() < 16 {
                walk(sub, path, out);
            }
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn headers_follow_the_body() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "wëather", "arguments": {"region": "eu", "n": 3, "f": 1.5, "deep": {"k": true}},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "f": {"type": "number", "x-mcp-header": "F"},
            "missing": {"type": "string", "x-mcp-header": "Missing"},
            "deep": {"type": "object", "properties": {"k": {"type": "boolean", "x-mcp-header": "K"}}}}});
        let h = routing_headers(&call, Some(&schema));
        let h: Vec<(&str, &str)> = h.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        assert_eq!(
            h,
            [
                ("MCP-Protocol-Version", "2026-07-28"),
                ("Mcp-Method", "tools/call"),
                ("Mcp-Name", "=?base64?d8OrYXRoZXI=?="),
                ("Mcp-Param-K", "true"),
                ("Mcp-Param-N", "3"),
                ("Mcp-Param-Region", "eu"),
            ]
        );
        let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert!(routing_headers(&legacy, None).is_empty());
        let read = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {
            "uri": "x://1", "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
        assert_eq!(
            routing_headers(&read, None)[2],
            ("Mcp-Name".to_owned(), "x://1".to_owned())
        );
    }
}
