//! The unit a transport moves: one JSON-RPC message, and what arrives from a server outside any
//! one request's reply (the stdio inbox).

use mcpseal_protocol::jsonrpc::{self, MessageKind};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::error::TransportError;

/// One JSON-RPC message as it crossed (or will cross) the wire: its exact text and its parsed
/// value.
///
/// The text is kept because a proxy forwards messages untouched: re-serialising the value
/// would reorder keys and reformat numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    text: String,
    value: Value,
}

impl Message {
    /// A message from a value, serialised as compact JSON (one line, no raw newline).
    pub fn from_value(value: Value) -> Message {
        Message {
            text: value.to_string(),
            value,
        }
    }

    /// A message from its text, kept byte for byte.
    ///
    /// # Errors
    /// When `text` is not JSON.
    pub fn parse(text: impl Into<String>) -> Result<Message, serde_json::Error> {
        let text = text.into();
        let value = serde_json::from_str(&text)?;
        Ok(Message { text, value })
    }

    /// A message from text already parsed into `value`.
    pub(crate) fn from_parts(text: String, value: Value) -> Message {
        Message { text, value }
    }

    /// The exact text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The parsed value.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// The parsed value, owned.
    pub fn into_value(self) -> Value {
        self.value
    }

    /// Request, notification, response or not JSON-RPC at all.
    pub fn kind(&self) -> MessageKind {
        MessageKind::of(&self.value)
    }

    /// The `method`, for a request or notification.
    pub fn method(&self) -> Option<&str> {
        jsonrpc::method_of(&self.value)
    }

    /// The `id`, for a request or response.
    pub fn id(&self) -> Option<&Value> {
        jsonrpc::id_of(&self.value)
    }

    /// How errors name this message: its method, or `response to id …`.
    pub fn label(&self) -> String {
        match (self.method(), self.id()) {
            (Some(m), _) => m.to_owned(),
            (None, Some(id)) => format!("response to id {id}"),
            (None, None) => "message".to_owned(),
        }
    }

    /// The text as one stdio line: the kept text and `\n`, or, when the text spans lines
    /// (pretty-printed JSON from a host), the compact form, since a raw newline would split it
    /// into two frames.
    pub(crate) fn line(&self) -> Vec<u8> {
        let mut line = if self.text.contains(['\n', '\r']) {
            self.value.to_string().into_bytes()
        } else {
            self.text.clone().into_bytes()
        };
        line.push(b'\n');
        line
    }
}

/// What a transport's inbox delivers.
#[derive(Debug, Clone, PartialEq)]
pub enum Inbound {
    /// A JSON-RPC message (a response, a notification or a server-to-client request).
    Message(Message),
    /// Output that should have been a message and was not (a line over the size limit, bytes
    /// that are not UTF-8): whatever was awaited cannot be trusted to arrive, so requests in
    /// flight should fail with this error. The transport goes on reading.
    Fault(TransportError),
    /// The server closed its output (stdio: stdout reached EOF or failed, with the exit status
    /// and last stderr line when known). The last item; the inbox ends after it.
    Closed(TransportError),
}

/// Server messages that are not carried by the reply of one send: over stdio every line the
/// server writes to stdout; over HTTP nothing (each answer comes back on the reply of the POST
/// that asked for it), and `recv` waits until the transport is dropped.
///
/// The inbox is bounded: a consumer that stops reading stops the transport reading the
/// server's output, and the server then blocks on a full pipe, as a pipe should.
#[derive(Debug)]
pub struct Inbox {
    rx: mpsc::Receiver<Inbound>,
}

/// Items the inbox holds before the reader waits for the consumer.
pub(crate) const INBOX_CAPACITY: usize = 64;

impl Inbox {
    /// An inbox and the sender a transport's reader fills it through.
    pub(crate) fn channel() -> (mpsc::Sender<Inbound>, Inbox) {
        let (tx, rx) = mpsc::channel(INBOX_CAPACITY);
        (tx, Inbox { rx })
    }

    /// The next item, or `None` once the transport has closed (after [`Inbound::Closed`]) or
    /// been dropped.
    pub async fn recv(&mut self) -> Option<Inbound> {
        self.rx.recv().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_is_kept_and_lines_never_split() {
        let m = Message::parse("{\"b\":1,\n \"a\":2}").expect("json");
        assert_eq!(m.text(), "{\"b\":1,\n \"a\":2}");
        let line = m.line();
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(line.last(), Some(&b'\n'));
        let kept = Message::parse(r#"{"z":1,"a":2}"#).expect("json");
        assert_eq!(kept.line(), b"{\"z\":1,\"a\":2}\n");
    }

    #[test]
    fn labels_name_the_method_or_the_id() {
        let req = Message::from_value(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        assert_eq!(req.label(), "tools/list");
        assert_eq!(req.kind(), MessageKind::Request);
        let resp = Message::from_value(json!({"jsonrpc": "2.0", "id": "s1", "result": {}}));
        assert_eq!(resp.label(), "response to id \"s1\"");
    }
}
