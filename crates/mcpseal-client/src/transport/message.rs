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
///
/// A large message read from a server (64 KiB or more) that carries a `result`
/// is parsed lazily: the reader validates all of it (exactly what a `Value` parse accepts),
/// parses every member but `result`, and notes where `result`'s text is. [`Message::value`]
/// parses the whole text on first use, so every reader sees the same value as ever; a caller
/// that only needs the result's bytes (a capture's list page) takes them without the value tree
/// (`Message::into_raw_result`, crate-private).
#[derive(Debug, Clone)]
pub struct Message {
    text: String,
    /// The whole value, or (lazy) every member but `result`.
    value: Value,
    /// Lazy only: the byte range of the (last) `result` member's text, and the whole value
    /// once asked for.
    lazy: Option<Lazy>,
}

#[derive(Debug, Clone)]
struct Lazy {
    result: std::ops::Range<usize>,
    whole: std::sync::OnceLock<Value>,
}

impl PartialEq for Message {
    fn eq(&self, other: &Message) -> bool {
        self.text == other.text && self.value() == other.value()
    }
}

/// Messages from a server at least this long with a `result` are parsed lazily (see
/// [`Message`]); shorter ones at once, as they always were.
pub(crate) const LAZY_RESULT_BYTES: usize = 64 * 1024;

impl Message {
    /// A message from a value, serialised as compact JSON (one line, no raw newline).
    pub fn from_value(value: Value) -> Message {
        Message {
            text: value.to_string(),
            value,
            lazy: None,
        }
    }

    /// A message from its text, kept byte for byte.
    ///
    /// # Errors
    /// When `text` is not JSON.
    pub fn parse(text: impl Into<String>) -> Result<Message, serde_json::Error> {
        let text = text.into();
        let value = serde_json::from_str(&text)?;
        Ok(Message {
            text,
            value,
            lazy: None,
        })
    }

    /// A message from text already parsed into `value`.
    pub(crate) fn from_parts(text: String, value: Value) -> Message {
        Message {
            text,
            value,
            lazy: None,
        }
    }

    /// A message whose `result` (at `result` in `text`) is parsed on demand; `head` is every
    /// other member. The caller has validated `text` as a `Value` parse would.
    pub(crate) fn lazy(text: String, head: Value, result: std::ops::Range<usize>) -> Message {
        Message {
            text,
            value: head,
            lazy: Some(Lazy {
                result,
                whole: std::sync::OnceLock::new(),
            }),
        }
    }

    /// Every member but `result` when the message is lazy, else the whole value: what
    /// routing needs (`id`, `method`, `error`) without parsing a large result.
    pub(crate) fn head(&self) -> &Value {
        &self.value
    }

    /// For a lazy message: every member but `result`, and the text of `result` (the message's
    /// own buffer, cut down in place, not copied). Otherwise the message back.
    pub(crate) fn into_raw_result(self) -> Result<(Value, String), Message> {
        match self.lazy {
            Some(Lazy { result, .. }) => {
                let mut text = self.text;
                text.truncate(result.end);
                text.drain(..result.start);
                Ok((self.value, text))
            }
            None => Err(self),
        }
    }

    /// Whether the message was read lazily (see [`Message`]).
    pub(crate) fn is_lazy(&self) -> bool {
        self.lazy.is_some()
    }

    /// The exact text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The parsed value.
    pub fn value(&self) -> &Value {
        match &self.lazy {
            None => &self.value,
            Some(lazy) => lazy.whole.get_or_init(|| whole(&self.text, &self.value)),
        }
    }

    /// The parsed value, owned.
    pub fn into_value(self) -> Value {
        match self.lazy {
            None => self.value,
            Some(lazy) => match lazy.whole.into_inner() {
                Some(v) => v,
                None => whole(&self.text, &self.value),
            },
        }
    }

    /// Request, notification, response or not JSON-RPC at all (the head has every member
    /// these look at).
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
            self.value().to_string().into_bytes()
        } else {
            self.text.clone().into_bytes()
        };
        line.push(b'\n');
        line
    }
}

/// The whole value of a lazy message's text. The text was validated when it was read, so the
/// parse cannot fail; if it ever did, the head is the best there is.
fn whole(text: &str, head: &Value) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| head.clone())
}

/// A message's text judged without a value tree for its `result` (a large stdio line; an HTTP
/// body or event a capture keeps as bytes): `None` when it should be
/// judged the usual way (not a valid JSON-RPC object, or no `result`: the usual parse then gives
/// the usual verdict and diagnostics), else the message's every member but `result` and the
/// byte range of `result`'s text. Validation
/// first, with the walk that accepts exactly what a `Value` parse accepts (UTF-16 surrogates,
/// number range, nesting limit), so a line is a message here exactly when it would be one there.
pub(crate) fn split_result(text: &str) -> Option<(Value, std::ops::Range<usize>)> {
    mcpseal_protocol::validate_json(text).ok()?;
    let members = serde_json::from_str::<Members<'_>>(text).ok()?.0;
    let base = text.as_ptr() as usize;
    let mut head = serde_json::Map::new();
    let mut result = None;
    // In order, the last of a repeated key winning: what a `Value` parse keeps.
    for (key, raw) in members {
        if key == "result" {
            let start = raw.get().as_ptr() as usize - base;
            result = Some(start..start + raw.get().len());
            head.remove("result");
        } else {
            let value = serde_json::from_str::<Value>(raw.get()).ok()?;
            head.insert(key.into_owned(), value);
        }
    }
    let head = Value::Object(head);
    if MessageKind::of(&head) == MessageKind::Invalid {
        return None;
    }
    Some((head, result?))
}

/// The members of a JSON object, each as its raw text, in order (repeated keys kept).
pub(crate) struct Members<'a>(
    pub(crate) Vec<(std::borrow::Cow<'a, str>, &'a serde_json::value::RawValue)>,
);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Members<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(key) = map.next_key::<Key<'de>>()? {
                    out.push((key.0, map.next_value()?));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// An object key: borrowed when it has no escapes.
struct Key<'a>(std::borrow::Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
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
