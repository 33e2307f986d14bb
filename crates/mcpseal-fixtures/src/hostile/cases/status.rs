//! HTTP `503 Service Unavailable` with an HTML page: a status that is no JSON-RPC answer, as a
//! load balancer in front of a dead server sends.

use super::head;

/// The response.
pub fn response() -> Vec<u8> {
    let body = b"<html><body><h1>503 Service Unavailable</h1></body></html>";
    let mut r = head(
        503,
        "text/html",
        &[format!("Content-Length: {}", body.len())],
    );
    r.extend_from_slice(body);
    r
}
