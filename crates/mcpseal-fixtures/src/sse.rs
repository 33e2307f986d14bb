//! Server-Sent Events framing for the HTTP transport.
//!
//! `--sse` responses are built to trip naive SSE parsers while staying legal: a `:` comment
//! first, a notification event, then the response whose JSON is split across two `data:`
//! lines (SSE joins the lines of one event with `\n`, which JSON accepts as whitespace, so
//! the split is placed between two tokens, never inside a string).

use std::convert::Infallible;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::{Value, json};

use crate::jsonrpc;

/// Comment used as keep-alive.
pub const KEEP_ALIVE: &str = ": keep-alive\n\n";

/// One `event: message` with the JSON on a single `data:` line.
pub fn event(v: &Value) -> String {
    format!("event: message\ndata: {v}\n\n")
}

/// One `event: message` whose JSON is split over two `data:` lines at a token boundary.
pub fn split_event(v: &Value) -> String {
    let s = v.to_string();
    let cut = split_point(&s);
    format!(
        "event: message\ndata: {}\ndata: {}\n\n",
        &s[..cut],
        &s[cut..]
    )
}

/// Index just after the first `,` or `:` outside a string (a place where a newline is legal).
fn split_point(s: &str) -> usize {
    let mut in_str = false;
    let mut escaped = false;
    for (i, b) in s.bytes().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if in_str => escaped = true,
            b'"' => in_str = !in_str,
            b',' | b':' if !in_str => return i + 1,
            _ => {}
        }
    }
    s.len() / 2
}

/// The notification that precedes a `--sse` response: progress if the request asked for it,
/// else a log message (the deprecated `notifications/message` a client must skip).
pub fn preamble(request: &Value) -> Value {
    let meta = request.pointer("/params/_meta");
    match meta.and_then(|m| m.get("progressToken")) {
        Some(token) => jsonrpc::notification(
            "notifications/progress",
            json!({"progressToken": token, "progress": 1, "total": 2}),
        ),
        None => jsonrpc::notification(
            "notifications/message",
            json!({"level": "info", "logger": "mcpseal-fixture", "data": "working on it"}),
        ),
    }
}

/// Response with an SSE body from a stream of text chunks.
pub fn response(status: StatusCode, body: impl Stream<Item = String> + Send + 'static) -> Response {
    let body = Body::from_stream(body.map(|s| Ok::<Bytes, Infallible>(Bytes::from(s))));
    let mut r = Response::new(body);
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// The finite `--sse` answer: comment, preamble notification, split response.
pub fn finite(request: &Value, reply: &Value) -> impl Stream<Item = String> + Send + 'static {
    stream::iter([
        KEEP_ALIVE.to_owned(),
        event(&preamble(request)),
        split_event(reply),
    ])
}

/// `first` events, then a keep-alive comment every `every` forever (listen streams, GET streams).
pub fn forever(first: Vec<String>, every: Duration) -> impl Stream<Item = String> + Send + 'static {
    stream::iter(first).chain(stream::unfold((), move |()| async move {
        tokio::time::sleep(every).await;
        Some((KEEP_ALIVE.to_owned(), ()))
    }))
}

/// `--sse-endless`: keep-alives and notifications forever, never the response.
pub fn endless() -> impl Stream<Item = String> + Send + 'static {
    let note = jsonrpc::notification(
        "notifications/message",
        json!({"level": "debug", "data": "still working"}),
    );
    let note = event(&note);
    stream::unfold(0u64, move |n| {
        let note = note.clone();
        async move {
            if n > 0 {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let chunk = if n % 2 == 0 {
                KEEP_ALIVE.to_owned()
            } else {
                note
            };
            Some((chunk, n + 1))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_event_rejoins_to_the_same_json() {
        let v = json!({"id": 1, "jsonrpc": "2.0", "result": {"text": "a,b:\"c\""}});
        let ev = split_event(&v);
        let data: Vec<&str> = ev
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .collect();
        assert_eq!(data.len(), 2);
        let joined = data.join("\n");
        assert_eq!(
            serde_json::from_str::<Value>(&joined).expect("valid JSON"),
            v
        );
    }
}
