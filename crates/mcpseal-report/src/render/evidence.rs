//! Evidence as wire-traffic lines, for `--verbose` text.
//!
//! Evidence items are plain JSON (see [`crate::Finding::evidence`]): a serialised exchange
//! (`transport`, `request`, `response`, `httpStatus`, `transportError`, …) or a raw HTTP preview
//! (`method`, `url`, `status`, `bodyPreview`, `error`, …). Anything else is shown as compact JSON.
//! Every line is one terminal line (control characters escaped) and cut at [`MAX_CHARS`]. Values
//! are printed as they are: redacted credentials stay `[redacted]`.

use serde_json::Value;

use super::{cut, one_line};

/// The most characters of JSON or body text a traffic line shows.
pub(crate) const MAX_CHARS: usize = 200;

/// Which way a line goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// Sent by mcpseal (`→`).
    Sent,
    /// Received from the server (`←`).
    Received,
    /// About the exchange (`·`).
    About,
}

impl Direction {
    pub(crate) fn arrow(self) -> &'static str {
        match self {
            Direction::Sent => "→",
            Direction::Received => "←",
            Direction::About => "·",
        }
    }
}

/// One line of traffic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Line {
    pub direction: Direction,
    pub text: String,
}

fn line(direction: Direction, text: impl AsRef<str>) -> Line {
    Line {
        direction,
        text: cut(&one_line(text.as_ref()), MAX_CHARS),
    }
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "<unserialisable>".to_owned())
}

fn str_of<'a>(item: &'a Value, key: &str) -> Option<&'a str> {
    item.get(key).and_then(Value::as_str)
}

/// `name: value; name: value` of a `[{name, value}]` array, or `None` when empty or absent.
fn headers(item: &Value, key: &str) -> Option<String> {
    let list = item.get(key)?.as_array()?;
    let parts: Vec<String> = list
        .iter()
        .map(|h| {
            format!(
                "{}: {}",
                str_of(h, "name").unwrap_or("?"),
                str_of(h, "value").unwrap_or("")
            )
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join("; "))
}

fn status_prefix(status: Option<u64>) -> String {
    status.map(|s| format!("HTTP {s} ")).unwrap_or_default()
}

/// The traffic lines of one evidence item.
pub(crate) fn lines(item: &Value) -> Vec<Line> {
    if item.get("request").is_some() && item.get("transport").is_some() {
        exchange(item)
    } else if item.get("url").is_some() && item.get("method").is_some() {
        raw_http(item)
    } else {
        vec![line(Direction::About, compact(item))]
    }
}

fn exchange(item: &Value) -> Vec<Line> {
    let mut out = Vec::new();
    let request = item.get("request").unwrap_or(&Value::Null);
    let method = str_of(request, "method").unwrap_or("(no method)");
    let transport = str_of(item, "transport").unwrap_or("?");
    let ms = item.get("durationMs").and_then(Value::as_u64);
    out.push(line(
        Direction::About,
        match ms {
            Some(ms) => format!("{method} over {transport}, {ms} ms"),
            None => format!("{method} over {transport}"),
        },
    ));
    out.push(line(Direction::Sent, compact(request)));
    if let Some(h) = headers(item, "requestHeaders") {
        out.push(line(Direction::Sent, format!("headers: {h}")));
    }
    let status = status_prefix(item.get("httpStatus").and_then(Value::as_u64));
    match item.get("response").filter(|r| !r.is_null()) {
        Some(response) => out.push(line(
            Direction::Received,
            format!("{status}{}", compact(response)),
        )),
        None => {
            let error = item.get("transportError").filter(|e| !e.is_null());
            let text = match error {
                Some(e) => format!(
                    "{status}no answer ({}): {}",
                    str_of(e, "kind").unwrap_or("?"),
                    str_of(e, "message").unwrap_or("")
                ),
                None => format!("{status}no response (notification)"),
            };
            out.push(line(Direction::Received, text));
        }
    }
    if let Some(h) = headers(item, "responseHeaders") {
        out.push(line(Direction::Received, format!("headers: {h}")));
    }
    for note in item
        .get("notifications")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        out.push(line(
            Direction::Received,
            format!("while waiting: {}", compact(note)),
        ));
    }
    out
}

fn raw_http(item: &Value) -> Vec<Line> {
    let mut out = Vec::new();
    let method = str_of(item, "method").unwrap_or("?");
    let url = str_of(item, "url").unwrap_or("?");
    match item.get("durationMs").and_then(Value::as_u64) {
        Some(ms) => out.push(line(Direction::About, format!("raw HTTP, {ms} ms"))),
        None => out.push(line(Direction::About, "raw HTTP")),
    }
    out.push(line(Direction::Sent, format!("{method} {url}")));
    if let Some(h) = headers(item, "requestHeaders") {
        out.push(line(Direction::Sent, format!("headers: {h}")));
    }
    let status = status_prefix(item.get("status").and_then(Value::as_u64));
    if let Some(error) = str_of(item, "error") {
        out.push(line(
            Direction::Received,
            format!("{status}no answer: {error}"),
        ));
    } else {
        let body = str_of(item, "bodyPreview").unwrap_or("");
        let truncated = item.get("truncated").and_then(Value::as_bool) == Some(true);
        // Say "cut" before the text, so the marker survives when the line is cut again here.
        let text = match (body.is_empty(), truncated) {
            (true, _) => format!("{status}(empty body)"),
            (false, true) => format!("{status}(body cut by the client) {body}"),
            (false, false) => format!("{status}{body}"),
        };
        out.push(line(Direction::Received, text));
    }
    if let Some(h) = headers(item, "headers") {
        out.push(line(Direction::Received, format!("headers: {h}")));
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn texts(item: &Value) -> Vec<String> {
        lines(item)
            .into_iter()
            .map(|l| format!("{} {}", l.direction.arrow(), l.text))
            .collect()
    }

    #[test]
    fn exchange_with_transport_error() {
        let item = json!({
            "transport": "http",
            "request": {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
            "requestHeaders": [{"name": "Authorization", "value": "[redacted]"}],
            "response": null,
            "responseHeaders": [],
            "httpStatus": 502,
            "notifications": [],
            "durationMs": 15,
            "transportError": {"kind": "protocol", "message": "body is not JSON"}
        });
        assert_eq!(
            texts(&item),
            [
                "· tools/list over http, 15 ms",
                r#"→ {"id":3,"jsonrpc":"2.0","method":"tools/list"}"#,
                "→ headers: Authorization: [redacted]",
                "← HTTP 502 no answer (protocol): body is not JSON",
            ]
        );
    }

    #[test]
    fn raw_preview_is_one_line_and_cut() {
        let body = format!("line one\nline two {}", "x".repeat(300));
        let item = json!({
            "method": "GET", "url": "http://127.0.0.1:1/mcp", "requestHeaders": [],
            "status": 405, "headers": [{"name": "allow", "value": "POST"}],
            "bodyPreview": body, "truncated": true, "error": null, "durationMs": 2
        });
        let t = texts(&item);
        assert_eq!(t[1], "→ GET http://127.0.0.1:1/mcp");
        assert!(t[2].starts_with("← HTTP 405 (body cut by the client) line one\\nline two xx"));
        assert!(t[2].ends_with('…'));
        assert_eq!(t[2].chars().count(), 2 + MAX_CHARS + 1);
        assert_eq!(t[3], "← headers: allow: POST");
    }

    #[test]
    fn unknown_shapes_are_shown_as_json() {
        assert_eq!(texts(&json!({"note": 1})), [r#"· {"note":1}"#]);
    }
}
