//! A `tools/list` result without the list array (`{"items": [...]}`): an answer, but not a
//! list; a client must not read it as an empty or absent list.

use serde_json::{Value, json};

use crate::server;

/// The answer's bytes.
pub fn message(id: &Value) -> Vec<u8> {
    server::result(
        id,
        json!({"items": [server::tool("echo", "misplaced")], "resultType": "complete"}),
    )
    .to_string()
    .into_bytes()
}
