//! Raw HTTP requests to the endpoint (`GET` expecting an event stream, `DELETE` of a session):
//! not JSON-RPC, so only a bounded preview of the body is read, and the stream is never
//! drained.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::TransportError;
use crate::exchange::Header;
use crate::headers::{headers_of, recorded, set_header, to_header_map};
use crate::support::elapsed_ms;
use crate::target::Options;

/// The bounded preview of a raw (non-JSON-RPC) HTTP request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawResponse {
    /// `GET`, `DELETE`, …
    pub method: String,
    /// The URL requested.
    pub url: String,
    /// Headers sent (credentials redacted).
    pub request_headers: Vec<Header>,
    /// The status, when a status line arrived.
    pub status: Option<u16>,
    /// Response headers, verbatim.
    pub headers: Vec<Header>,
    /// The first bytes of the body (lossy UTF-8).
    pub body_preview: String,
    /// True when the body was cut: by bytes, by time, or (an event stream) after its first
    /// complete event, with the stream still open.
    pub truncated: bool,
    /// Set when no response arrived.
    pub error: Option<String>,
    /// Milliseconds until the preview was complete.
    pub duration_ms: u64,
}

impl RawResponse {
    /// A response header by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }
}

/// `method` on `url` with the user's headers and then `headers` (which replace same-named
/// ones), the status line within the timeout, and at most `raw_preview_bytes` of the body
/// within `raw_preview_time`. An event stream's preview ends at its first complete event
/// (a block with a `data` field, ended by a blank line): a 2025 server holds its `GET`
/// stream open forever, and waiting out `raw_preview_time` after the event that says what
/// the stream is (`event: endpoint`, a message) only cost the probe its full second.
pub(crate) async fn raw_request(
    client: &reqwest::Client,
    url: &str,
    options: &Options,
    method: &str,
    headers: &[(String, String)],
) -> RawResponse {
    let started = Instant::now();
    let mut list: Vec<(String, String)> = options.headers.clone();
    for (n, v) in headers {
        set_header(&mut list, n, v.clone());
    }
    let mut raw = RawResponse {
        method: method.to_owned(),
        url: url.to_owned(),
        request_headers: recorded(&list),
        status: None,
        headers: Vec::new(),
        body_preview: String::new(),
        truncated: false,
        error: None,
        duration_ms: 0,
    };
    let map = match to_header_map(&list) {
        Ok(m) => m,
        Err(e) => {
            raw.error = Some(e);
            return raw;
        }
    };
    let Ok(verb) = reqwest::Method::from_bytes(method.as_bytes()) else {
        raw.error = Some(format!("`{method}` is not an HTTP method"));
        return raw;
    };
    let limits = options.limits;
    let sent = tokio::time::timeout(
        options.timeout,
        client.request(verb, url).headers(map).send(),
    )
    .await;
    let mut response = match sent {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            raw.error = Some(TransportError::network(&e).message);
            raw.duration_ms = elapsed_ms(started);
            return raw;
        }
        Err(_) => {
            raw.error = Some("no response within the timeout".into());
            raw.duration_ms = elapsed_ms(started);
            return raw;
        }
    };
    raw.status = Some(response.status().as_u16());
    raw.headers = headers_of(response.headers());
    let mut body = Vec::new();
    let event_stream = raw
        .header("content-type")
        .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"));
    let deadline = tokio::time::Instant::now() + limits.raw_preview_time;
    loop {
        match tokio::time::timeout_at(deadline, response.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                body.extend_from_slice(&chunk);
                if body.len() >= limits.raw_preview_bytes {
                    body.truncate(limits.raw_preview_bytes);
                    raw.truncated = true;
                    break;
                }
                if event_stream && has_complete_event(&body) {
                    raw.truncated = true;
                    break;
                }
            }
            Ok(Ok(None)) | Ok(Err(_)) => break,
            Err(_) => {
                raw.truncated = true;
                break;
            }
        }
    }
    // Dropping `response` closes the stream without draining it.
    raw.body_preview = String::from_utf8_lossy(&body).into_owned();
    raw.duration_ms = elapsed_ms(started);
    raw
}

/// Whether `body` (the start of an event stream) holds a complete event: a block with a
/// `data` field line, ended by a blank line (`\n\n`, `\r\n\r\n` or `\r\r`). Comment-only
/// blocks (`: keep-alive`) dispatch nothing and do not count, so a stream that opens with a
/// comment still shows the event after it.
fn has_complete_event(body: &[u8]) -> bool {
    let text = String::from_utf8_lossy(body);
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let Some(end) = text.rfind("\n\n") else {
        return false;
    };
    text[..end]
        .split("\n\n")
        .any(|block| block.lines().any(|l| l == "data" || l.starts_with("data:")))
}

#[cfg(test)]
mod tests {
    use super::has_complete_event;

    #[test]
    fn an_event_is_complete_at_the_blank_line_after_its_data() {
        assert!(has_complete_event(
            b"event: endpoint\ndata: /mcp?sessionId=1\n\n"
        ));
        assert!(has_complete_event(b"data: {}\r\n\r\n"));
        assert!(has_complete_event(b": hi\n\ndata: x\n\n: more"));
        assert!(!has_complete_event(b"event: endpoint\ndata: /mcp"));
        assert!(!has_complete_event(b"data: x\n"));
        assert!(!has_complete_event(b": keep-alive\n\n"));
        assert!(!has_complete_event(b""));
    }
}
