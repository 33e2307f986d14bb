//! One 100 MB message without a newline (stdio) or a 100 MB body that never ends (HTTP), in
//! 1 MiB chunks: the start of a JSON-RPC answer, then padding. A client must stop buffering
//! at its message limit, not at 100 MB.

use serde_json::Value;

/// The bytes written.
pub const BYTES: usize = 100 * 1024 * 1024;
const CHUNK: usize = 1024 * 1024;

/// The chunks: `{"jsonrpc":"2.0","id":ID,"result":{"pad":"aaaa…` and no end.
pub fn chunks(id: &Value) -> Box<dyn Iterator<Item = Vec<u8>> + Send> {
    let head = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"pad":""#).into_bytes();
    Box::new((0..BYTES / CHUNK).map(move |i| {
        let mut c = vec![b'a'; CHUNK];
        if i == 0 {
            c[..head.len()].copy_from_slice(&head);
        }
        c
    }))
}
