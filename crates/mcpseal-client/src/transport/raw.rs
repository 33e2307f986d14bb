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
    /// True when the body was cut (by bytes or time).
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
/// within `raw_preview_time`.
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
