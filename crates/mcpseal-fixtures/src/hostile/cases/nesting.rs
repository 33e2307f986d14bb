//! A `tools/list` answer whose tool list holds an array nested 100,000 levels deep: a naive
//! recursive parser overflows its stack.

use serde_json::Value;

/// Levels of nesting.
pub const DEPTH: usize = 100_000;

/// The answer's bytes.
pub fn message(id: &Value) -> Vec<u8> {
    let mut out = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":["#).into_bytes();
    out.extend(std::iter::repeat_n(b'[', DEPTH));
    out.extend(std::iter::repeat_n(b']', DEPTH));
    out.extend_from_slice(b"]}}");
    out
}
