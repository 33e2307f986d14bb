//! The stdout and stderr readers of a stdio server.
//!
//! stdout is framed by [`LineFramer`] (bounded: a 100 MB line without a newline costs the limit,
//! not 100 MB) and each line is judged once: a JSON-RPC message goes to the inbox; a line that
//! is not JSON, or JSON that is no JSON-RPC message, becomes a diagnostic (servers print banners
//! and logs to stdout); an oversize, non-UTF-8 or too deeply nested line is a fault the inbox
//! reports. The reader
//! never waits for anything but the inbox, so it can never be blocked behind a write to stdin.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcpseal_protocol::framing::{Frame, LineFramer};
use mcpseal_protocol::jsonrpc::MessageKind;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;

use crate::diagnostics::{Diagnostics, SharedDiagnostics};
use crate::error::{TransportError, TransportErrorKind as Kind};
use crate::support::lock;
use crate::transport::message::{Inbound, LAZY_RESULT_BYTES, Message, split_result};
use crate::transport::process::ServerProcess;

/// Bytes read from a pipe at a time.
const CHUNK: usize = 64 * 1024;
/// Longest stderr line kept.
const MAX_STDERR_LINE: usize = 64 * 1024;

/// Reads stdout until EOF, then reports [`Inbound::Closed`] (with the exit status) and ends.
/// `partial` always holds the bytes of the unfinished line (what the server has begun to
/// write and not ended).
pub(crate) async fn read_stdout<R: AsyncRead + Unpin>(
    mut stdout: R,
    max: usize,
    inbox: mpsc::Sender<Inbound>,
    diagnostics: SharedDiagnostics,
    process: Arc<ServerProcess>,
    partial: Arc<AtomicUsize>,
) {
    let mut framer = LineFramer::new(max);
    let mut buf = vec![0u8; CHUNK];
    let mut frames = Vec::new();
    let closed = loop {
        let n = match stdout.read(&mut buf).await {
            Ok(n) => n,
            Err(e) => break format!("reading stdout failed: {e}"),
        };
        if n == 0 {
            let partial = framer.pending();
            let msg = if partial > 0 {
                format!(
                    "the server closed stdout after writing an incomplete message ({partial} bytes without a newline)"
                )
            } else {
                "the server closed stdout (the process exited)".to_owned()
            };
            lock(&diagnostics).push(format!("[stdout] {msg}"));
            break msg;
        }
        framer.feed(&buf[..n], &mut frames);
        partial.store(framer.pending(), Ordering::Release);
        for frame in frames.drain(..) {
            let item = match frame {
                Frame::Oversize => {
                    let msg = format!(
                        "the server wrote a message larger than the {max}-byte limit; nothing after it can be read"
                    );
                    lock(&diagnostics).push(format!("[stdout] {msg}"));
                    Some(Inbound::Fault(TransportError::new(Kind::Oversize, msg)))
                }
                Frame::Line(bytes) => judge_line(bytes, &diagnostics),
            };
            // A consumer that went away must not stop the draining: a server blocked on a
            // full stdout pipe never exits.
            if let Some(item) = item {
                let _ = inbox.send(item).await;
            }
        }
    };
    let err = process
        .explain(TransportError::new(Kind::Closed, closed))
        .await;
    let _ = inbox.send(Inbound::Closed(err)).await;
}

/// What one complete stdout line is.
fn judge_line(bytes: Vec<u8>, diagnostics: &SharedDiagnostics) -> Option<Inbound> {
    let Ok(text) = String::from_utf8(bytes) else {
        let msg = "the server wrote a line that is not valid UTF-8".to_owned();
        lock(diagnostics).push(format!("[stdout] {msg}"));
        return Some(Inbound::Fault(TransportError::new(Kind::InvalidUtf8, msg)));
    };
    if text.trim().is_empty() {
        return None;
    }
    if text.len() >= LAZY_RESULT_BYTES
        && let Some((head, result)) = split_result(&text)
    {
        return Some(Inbound::Message(Message::lazy(text, head, result)));
    }
    let value = match serde_json::from_str::<Value>(&text) {
        Ok(v @ Value::Object(_)) => v,
        Err(e) if mcpseal_protocol::jsonrpc::is_recursion_limit(&e) => {
            let msg = "the server wrote a message nesting JSON deeper than serde_json's limit of 128 levels".to_owned();
            lock(diagnostics).push(format!("[stdout] {msg}"));
            return Some(Inbound::Fault(TransportError::new(Kind::Protocol, msg)));
        }
        _ => {
            lock(diagnostics).push(format!("[non-JSON stdout] {}", Diagnostics::cut(&text)));
            return None;
        }
    };
    if MessageKind::of(&value) == MessageKind::Invalid {
        lock(diagnostics).push(format!("[non-JSON-RPC stdout] {}", Diagnostics::cut(&text)));
        return None;
    }
    Some(Inbound::Message(Message::from_parts(text, value)))
}

/// Keeps stderr lines (the newest, cut) as diagnostics until EOF.
pub(crate) async fn read_stderr<R: AsyncRead + Unpin>(
    mut stderr: R,
    diagnostics: SharedDiagnostics,
) {
    let mut framer = LineFramer::new(MAX_STDERR_LINE);
    let mut buf = vec![0u8; CHUNK];
    let mut frames = Vec::new();
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => framer.feed(&buf[..n], &mut frames),
        }
        let mut d = lock(&diagnostics);
        for frame in frames.drain(..) {
            match frame {
                Frame::Line(bytes) => d.push_stderr(&String::from_utf8_lossy(&bytes)),
                Frame::Oversize => d.push_stderr("<stderr line over 64 KiB cut>"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judge(line: &[u8]) -> (Option<Inbound>, Vec<String>) {
        let diagnostics = Diagnostics::shared(10);
        let item = judge_line(line.to_vec(), &diagnostics);
        let lines = lock(&diagnostics).lines();
        (item, lines)
    }

    #[test]
    fn only_json_rpc_messages_reach_the_inbox() {
        let (item, diags) = judge(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
        assert!(matches!(item, Some(Inbound::Message(m)) if m.id() == Some(&1.into())));
        assert!(diags.is_empty());
        let (item, diags) = judge(b"server starting...");
        assert!(item.is_none());
        assert_eq!(diags, ["[non-JSON stdout] server starting..."]);
        let (item, diags) = judge(br#"{"hello":"world"}"#);
        assert!(item.is_none());
        assert!(diags[0].starts_with("[non-JSON-RPC stdout]"), "{diags:?}");
        let (item, diags) = judge(b"[1,2]");
        assert!(item.is_none());
        assert!(diags[0].starts_with("[non-JSON stdout]"), "{diags:?}");
        assert!(judge(b"   ").0.is_none());
    }

    #[test]
    fn invalid_utf8_is_a_fault() {
        let (item, diags) = judge(b"{\"id\":1,\"result\":\"\xff\xfe\"}");
        match item {
            Some(Inbound::Fault(e)) => assert_eq!(e.kind, Kind::InvalidUtf8),
            other => panic!("{other:?}"),
        }
        assert!(diags[0].contains("not valid UTF-8"));
    }

    #[test]
    fn json_nested_too_deep_is_a_fault_not_a_banner() {
        let mut line = "[".repeat(100_000).into_bytes();
        line.extend(std::iter::repeat_n(b']', 100_000));
        let (item, diags) = judge(&line);
        match item {
            Some(Inbound::Fault(e)) => assert_eq!(e.kind, Kind::Protocol),
            other => panic!("{other:?}"),
        }
        assert!(diags[0].contains("deeper than"), "{diags:?}");
    }

    #[test]
    fn message_text_is_kept_verbatim() {
        let line = br#"{"z":1, "jsonrpc":"2.0","method":"notifications/progress"}"#;
        let Some(Inbound::Message(m)) = judge(line).0 else {
            panic!("a message")
        };
        assert_eq!(m.text().as_bytes(), line);
    }

    #[test]
    fn a_large_result_is_kept_as_text_and_reads_as_a_parse_would() {
        use serde_json::json;
        let tools: Vec<Value> = (0..3000)
            .map(|i| json!({"name": format!("t{i}"), "description": "é \"q\" \\ ✓", "n": 1.5e3}))
            .collect();
        let line =
            json!({"jsonrpc": "2.0", "id": 7, "result": {"tools": tools, "nextCursor": "c"}})
                .to_string();
        assert!(line.len() >= LAZY_RESULT_BYTES);
        let parsed: Value = serde_json::from_str(&line).expect("json");
        let Some(Inbound::Message(m)) = judge(line.as_bytes()).0 else {
            panic!("a message")
        };
        assert_eq!(m.kind(), MessageKind::Response);
        assert_eq!(m.id(), Some(&json!(7)));
        assert_eq!(m.text(), line);
        assert_eq!(m.value(), &parsed);
        assert_eq!(m.clone().into_value(), parsed);
        let (head, text) = m.into_raw_result().expect("lazy");
        assert_eq!(head, json!({"jsonrpc": "2.0", "id": 7}));
        assert_eq!(
            serde_json::from_str::<Value>(&text).expect("json"),
            parsed["result"]
        );
        // Spacing, and `result` twice: the last one is the result, as in a parse.
        let result = serde_json::to_string(&parsed["result"]).expect("json");
        let spaced = format!(
            "{{ \"id\" : 7 , \"result\" : {{\"tools\": []}}, \"jsonrpc\":\"2.0\", \"result\" :  {result}  }}"
        );
        let Some(Inbound::Message(m)) = judge(spaced.as_bytes()).0 else {
            panic!("a message")
        };
        assert_eq!(m.value(), &parsed);
        let (_, text) = m.into_raw_result().expect("lazy");
        assert_eq!(text, result);
        // No `result`: parsed at once.
        let note = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"tools": tools}})
            .to_string();
        let Some(Inbound::Message(m)) = judge(note.as_bytes()).0 else {
            panic!("a message")
        };
        assert!(m.into_raw_result().is_err());
    }

    #[test]
    fn a_large_line_a_parse_refuses_is_refused_the_same_way() {
        let pad = "x".repeat(LAZY_RESULT_BYTES);
        let surrogate =
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"a":"\ud800","p":"{pad}"}}}}"#);
        let (item, diags) = judge(surrogate.as_bytes());
        assert!(item.is_none());
        assert!(diags[0].starts_with("[non-JSON stdout]"), "{diags:?}");
        let huge = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"a":1e400,"p":"{pad}"}}}}"#);
        let (item, diags) = judge(huge.as_bytes());
        assert!(item.is_none());
        assert!(diags[0].starts_with("[non-JSON stdout]"), "{diags:?}");
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"p":"{pad}","a":{}{}}}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        match judge(deep.as_bytes()).0 {
            Some(Inbound::Fault(e)) => assert_eq!(e.kind, Kind::Protocol),
            other => panic!("{other:?}"),
        }
        // 126 levels inside `result` (128 with the message and the result) still read.
        let ok = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{{"p":"{pad}","a":{}{}}}}}"#,
            "[".repeat(126),
            "]".repeat(126)
        );
        let eager: Result<Value, _> = serde_json::from_str(&ok);
        let lazy = judge(ok.as_bytes()).0;
        assert_eq!(eager.is_ok(), matches!(lazy, Some(Inbound::Message(_))));
        let no_rpc = format!(r#"{{"result":{{"p":"{pad}"}}}}"#);
        let (item, diags) = judge(no_rpc.as_bytes());
        assert!(item.is_none());
        assert!(diags[0].starts_with("[non-JSON-RPC stdout]"), "{diags:?}");
    }
}
