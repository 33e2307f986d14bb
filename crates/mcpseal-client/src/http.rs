//! Streamable HTTP: one POST per message, JSON or SSE answers, raw probes, metadata fetches.
//!
//! The reader never trusts the server to end anything: bodies are read chunk by chunk against a
//! byte limit, event streams event by event until the response carrying our id arrives, and the
//! whole exchange runs under the request timeout, so an endless stream costs at most that.

use std::time::Instant;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::connection::{ConnectError, Diagnostics};
use crate::exchange::{
    Exchange, Header, TransportError, TransportErrorKind as Kind, TransportKind,
};
use crate::target::Options;
use mcpseal_protocol::keys::{HEADER_PROTOCOL_VERSION, HEADER_SESSION_ID, META_SUBSCRIPTION_ID};
use mcpseal_protocol::sse::{SseItem, SseParser};
use mcpseal_protocol::{HeaderEdit, Request, Wait};

/// What a legacy request carries once a 2025 handshake happened.
#[derive(Debug, Default, Clone)]
pub(crate) struct LegacyDress {
    pub(crate) session_id: Option<String>,
    pub(crate) protocol_version: Option<String>,
}

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

/// A fetched public JSON document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataResponse {
    /// The URL fetched.
    pub url: String,
    /// The status, when one arrived.
    pub status: Option<u16>,
    /// The JSON body, when it was JSON within the size limit.
    pub body: Option<Value>,
    /// Why there is no body.
    pub error: Option<String>,
}

pub(crate) struct HttpTransport {
    client: reqwest::Client,
    url: String,
    options: Options,
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

fn headers_of(map: &HeaderMap) -> Vec<Header> {
    map.iter()
        .map(|(k, v)| Header {
            name: k.as_str().to_owned(),
            value: String::from_utf8_lossy(v.as_bytes()).into_owned(),
        })
        .collect()
}

fn set_header(list: &mut Vec<(String, String)>, name: &str, value: String) {
    list.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
    list.push((name.to_owned(), value));
}

fn to_header_map(list: &[(String, String)]) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (n, v) in list {
        let name = HeaderName::from_bytes(n.as_bytes())
            .map_err(|_| format!("`{n}` is not a valid header name"))?;
        let value = HeaderValue::from_str(v)
            .map_err(|_| format!("the value of header `{n}` is not a valid header value"))?;
        map.append(name, value);
    }
    Ok(map)
}

fn network_error(e: &reqwest::Error) -> TransportError {
    use std::error::Error as _;
    let mut msg = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        msg = format!("{msg}: {s}");
        source = s.source();
    }
    TransportError::new(Kind::Network, msg)
}

/// Whether a JSON value is shaped like a JSON-RPC response (not a request or notification).
fn is_response(v: &Value) -> bool {
    v.is_object()
        && v.get("method").is_none()
        && (v.get("result").is_some() || v.get("error").is_some())
}

fn preview(bytes: &[u8]) -> String {
    Diagnostics::cut(&String::from_utf8_lossy(bytes))
}

impl HttpTransport {
    pub(crate) fn new(url: &str, options: &Options) -> Result<HttpTransport, ConnectError> {
        let client = reqwest::Client::builder()
            // Loopback probing must not go through a proxy from the environment.
            .no_proxy()
            .connect_timeout(options.timeout)
            // A redirect would re-send the user's headers to wherever the server points.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ConnectError::HttpClient(e.to_string()))?;
        Ok(HttpTransport {
            client,
            url: url.to_owned(),
            options: options.clone(),
        })
    }

    fn request_headers(&self, request: &Request, dress: &LegacyDress) -> Vec<(String, String)> {
        let mut list: Vec<(String, String)> = vec![
            ("Content-Type".into(), "application/json".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ];
        for (n, v) in &self.options.headers {
            list.push((n.clone(), v.clone()));
        }
        if request.standard_headers {
            if request.is_modern() {
                for (n, v) in request.modern_headers() {
                    set_header(&mut list, &n, v);
                }
            } else {
                if let Some(v) = &dress.protocol_version {
                    set_header(&mut list, HEADER_PROTOCOL_VERSION, v.clone());
                }
                if let Some(sid) = &dress.session_id {
                    set_header(&mut list, HEADER_SESSION_ID, sid.clone());
                }
            }
        }
        for edit in &request.header_edits {
            match edit {
                HeaderEdit::Set(n, v) => set_header(&mut list, n, v.clone()),
                HeaderEdit::Remove(n) => list.retain(|(x, _)| !x.eq_ignore_ascii_case(n)),
            }
        }
        list
    }

    pub(crate) async fn send(&self, request: &Request, id: Value, dress: &LegacyDress) -> Exchange {
        let message = request.to_message(&id);
        let headers = self.request_headers(request, dress);
        let started = Instant::now();
        let mut exchange = Exchange::sent(TransportKind::Http, message.clone());
        exchange.request_headers = headers
            .iter()
            .map(|(n, v)| Header {
                name: n.clone(),
                value: v.clone(),
            })
            .collect();
        let timeout = request.timeout.unwrap_or(self.options.timeout);
        let outcome = tokio::time::timeout(
            timeout,
            self.exchange(&message, &headers, request, &id, &mut exchange),
        )
        .await;
        exchange.transport_error = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(e),
            Err(_) => Some(TransportError::timeout(&request.method, timeout)),
        };
        exchange.duration_ms = elapsed_ms(started);
        exchange
    }

    async fn exchange(
        &self,
        message: &Value,
        headers: &[(String, String)],
        request: &Request,
        id: &Value,
        exchange: &mut Exchange,
    ) -> Result<(), TransportError> {
        let map = to_header_map(headers).map_err(|m| TransportError::new(Kind::Protocol, m))?;
        let body = serde_json::to_vec(message)
            .map_err(|e| TransportError::new(Kind::Protocol, e.to_string()))?;
        let mut response = self
            .client
            .post(&self.url)
            .headers(map)
            .body(body)
            .send()
            .await
            .map_err(|e| network_error(&e))?;
        let status = response.status().as_u16();
        exchange.http_status = Some(status);
        exchange.response_headers = headers_of(response.headers());
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let limits = &self.options.limits;
        if content_type.starts_with("text/event-stream") {
            let mut parser = SseParser::new(limits.max_message_bytes);
            let mut total = 0usize;
            while let Some(chunk) = response.chunk().await.map_err(|e| network_error(&e))? {
                total += chunk.len();
                if total > limits.max_stream_bytes {
                    return Err(TransportError::new(
                        Kind::Oversize,
                        format!(
                            "the event stream passed {} bytes without a response to our request",
                            limits.max_stream_bytes
                        ),
                    ));
                }
                for item in parser.feed(&chunk) {
                    let event = match item {
                        SseItem::Event(e) => e,
                        SseItem::Oversize => {
                            return Err(TransportError::new(
                                Kind::Oversize,
                                format!(
                                    "an event exceeded the {}-byte limit",
                                    limits.max_message_bytes
                                ),
                            ));
                        }
                    };
                    let Ok(value) = serde_json::from_str::<Value>(&event.data) else {
                        // Not JSON (e.g. a legacy `endpoint` event): evidence, not an answer.
                        exchange
                            .notifications
                            .push(Value::String(Diagnostics::cut(&event.data)));
                        continue;
                    };
                    if is_response(&value) && value.get("id") == Some(id) {
                        exchange.response = Some(value);
                        return Ok(());
                    }
                    let is_ack = request.wait == Wait::ResponseOrAcknowledgement
                        && value.get("method").and_then(Value::as_str)
                            == Some("notifications/subscriptions/acknowledged")
                        && value
                            .pointer("/params/_meta")
                            .and_then(|m| m.get(META_SUBSCRIPTION_ID))
                            == Some(id);
                    exchange.notifications.push(value);
                    if is_ack {
                        return Ok(());
                    }
                }
            }
            if request.notification {
                return Ok(());
            }
            return Err(TransportError::new(
                Kind::Protocol,
                format!("the event stream ended without a response to request id {id}"),
            ));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| network_error(&e))? {
            if body.len() + chunk.len() > limits.max_message_bytes {
                return Err(TransportError::new(
                    Kind::Oversize,
                    format!(
                        "the response body exceeded the {}-byte limit",
                        limits.max_message_bytes
                    ),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            if request.notification {
                return Ok(());
            }
            return Err(TransportError::new(
                Kind::Protocol,
                format!("HTTP {status} with an empty body"),
            ));
        }
        if std::str::from_utf8(&body).is_err() {
            return Err(TransportError::new(
                Kind::InvalidUtf8,
                format!("HTTP {status}: the body is not valid UTF-8"),
            ));
        }
        match serde_json::from_slice::<Value>(&body) {
            Ok(v) if is_response(&v) => {
                exchange.response = Some(v);
                Ok(())
            }
            _ if request.notification => Ok(()),
            _ => Err(TransportError::new(
                Kind::Protocol,
                format!(
                    "HTTP {status} with no JSON-RPC response in the body ({}): {}",
                    if content_type.is_empty() {
                        "no content-type"
                    } else {
                        content_type.as_str()
                    },
                    preview(&body)
                ),
            )),
        }
    }

    pub(crate) async fn raw_request(
        &self,
        method: &str,
        headers: &[(String, String)],
    ) -> RawResponse {
        let started = Instant::now();
        let mut list: Vec<(String, String)> = self.options.headers.clone();
        for (n, v) in headers {
            set_header(&mut list, n, v.clone());
        }
        let mut raw = RawResponse {
            method: method.to_owned(),
            url: self.url.clone(),
            request_headers: list
                .iter()
                .map(|(n, v)| Header {
                    name: n.clone(),
                    value: v.clone(),
                })
                .collect(),
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
        let limits = self.options.limits;
        let sent = tokio::time::timeout(
            self.options.timeout,
            self.client.request(verb, &self.url).headers(map).send(),
        )
        .await;
        let mut response = match sent {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                raw.error = Some(network_error(&e).message);
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

    pub(crate) async fn fetch_metadata(&self, url: &str) -> MetadataResponse {
        let mut out = MetadataResponse {
            url: url.to_owned(),
            status: None,
            body: None,
            error: None,
        };
        let max = self.options.limits.max_metadata_bytes;
        let fetch = async {
            // A fresh request with no user headers: they must not travel to hosts the server
            // named.
            let mut response = self
                .client
                .get(url)
                .header(reqwest::header::ACCEPT, "application/json")
                .send()
                .await
                .map_err(|e| network_error(&e).message)?;
            let status = response.status().as_u16();
            let mut body = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
                if body.len() + chunk.len() > max {
                    return Err(format!("the document exceeded {max} bytes"));
                }
                body.extend_from_slice(&chunk);
            }
            Ok((status, body))
        };
        match tokio::time::timeout(self.options.timeout, fetch).await {
            Ok(Ok((status, body))) => {
                out.status = Some(status);
                match serde_json::from_slice::<Value>(&body) {
                    Ok(v) => out.body = Some(v),
                    Err(e) => out.error = Some(format!("not JSON: {e}")),
                }
            }
            Ok(Err(e)) => out.error = Some(e),
            Err(_) => out.error = Some("no response within the timeout".into()),
        }
        out
    }
}
