//! HTTP response heads no client should buffer: one 1 MB header line, or 10,000 header lines
//! (followed by a valid answer, which must never be reached).

use serde_json::Value;

use super::head;
use crate::server;

fn body(id: &Value) -> Vec<u8> {
    server::result(id, server::tools(vec![], None))
        .to_string()
        .into_bytes()
}

fn with(extra: &[String], id: &Value) -> Vec<u8> {
    let body = body(id);
    let mut lines = extra.to_vec();
    lines.push(format!("Content-Length: {}", body.len()));
    let mut r = head(200, "application/json", &lines);
    r.extend_from_slice(&body);
    r
}

/// One `X-Pad` header of 1 MiB.
pub fn huge(id: &Value) -> Vec<u8> {
    with(&[format!("X-Pad: {}", "a".repeat(1024 * 1024))], id)
}

/// 10,000 header lines.
pub fn many(id: &Value) -> Vec<u8> {
    let lines: Vec<String> = (0..10_000).map(|i| format!("X-Pad-{i}: {i}")).collect();
    with(&lines, id)
}
