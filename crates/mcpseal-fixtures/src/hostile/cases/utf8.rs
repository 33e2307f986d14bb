//! A `tools/list` answer with bytes that are not UTF-8 (`\xff\xfe`) inside a tool's
//! description: JSON-shaped, but not JSON text.

use serde_json::Value;

use crate::server;

/// The answer's bytes.
pub fn message(id: &Value) -> Vec<u8> {
    let text = server::result(
        id,
        server::tools(vec![server::tool("echo", "MARKER")], None),
    )
    .to_string();
    let (before, after) = text.split_once("MARKER").unwrap_or((&text, ""));
    let mut out = before.as_bytes().to_vec();
    out.extend_from_slice(b"bad \xff\xfe bytes");
    out.extend_from_slice(after.as_bytes());
    out
}
