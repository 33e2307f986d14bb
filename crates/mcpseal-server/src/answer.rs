//! Results some of whose members are JSON text already written: a handler that answers with
//! the same large document again and again (a verified artifact) escapes it once, not per call.
//!
//! An [`Answer`] is a result object: ordinary members as a `serde_json` map, plus members whose
//! JSON text the handler supplies as it must appear on the wire ([`Raw`]). It is written exactly
//! as `serde_json::to_vec` would write the equivalent `Value` (compact, members in the map's
//! sorted key order), so a server's bytes do not depend on which members were pre-written.

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpseal_protocol::keys;
use serde_json::{Map, Value};

/// One piece of a [`Raw`] member.
#[derive(Debug, Clone)]
enum Piece {
    Static(&'static str),
    Shared(Arc<str>),
    Owned(String),
}

impl Piece {
    fn as_str(&self) -> &str {
        match self {
            Piece::Static(s) => s,
            Piece::Shared(s) => s,
            Piece::Owned(s) => s,
        }
    }
}

/// The JSON text of one value, in pieces written one after the other, as is.
///
/// The pieces together must be one compact JSON value in `serde_json`'s form (object members in
/// sorted key order, no whitespace): it is not checked on the answering path. [`Raw::value`]
/// parses it (for in-process callers and tests).
#[derive(Debug, Clone, Default)]
pub struct Raw {
    pieces: Vec<Piece>,
    len: usize,
}

impl Raw {
    /// Empty (not yet a value).
    pub fn new() -> Raw {
        Raw::default()
    }

    /// Appends literal JSON text.
    #[must_use]
    pub fn text(mut self, s: &'static str) -> Raw {
        self.len += s.len();
        self.pieces.push(Piece::Static(s));
        self
    }

    /// Appends shared JSON text (not copied: e.g. a cached JSON string literal).
    #[must_use]
    pub fn shared(mut self, s: Arc<str>) -> Raw {
        self.len += s.len();
        self.pieces.push(Piece::Shared(s));
        self
    }

    /// Appends `value` serialised.
    #[must_use]
    pub fn value(mut self, value: &impl serde::Serialize) -> Raw {
        let s = serde_json::to_string(value).unwrap_or_else(|_| "null".to_owned());
        self.len += s.len();
        self.pieces.push(Piece::Owned(s));
        self
    }

    /// Bytes it writes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Writes nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn write(&self, out: &mut Vec<u8>) {
        for p in &self.pieces {
            out.extend_from_slice(p.as_str().as_bytes());
        }
    }

    /// The value it writes, parsed (`Null` when the pieces are not JSON).
    pub fn to_value(&self) -> Value {
        let mut text = Vec::with_capacity(self.len);
        self.write(&mut text);
        serde_json::from_slice(&text).unwrap_or(Value::Null)
    }
}

/// A result object: members as values, and members as pre-written JSON ([`Raw`]).
#[derive(Debug, Clone, Default)]
pub struct Answer {
    fields: Map<String, Value>,
    raw: BTreeMap<String, Raw>,
}

impl From<Value> for Answer {
    /// A result that is a plain value (an object's members become the answer's members; any
    /// other value is not a result object and is kept as `result`'s one member, which the
    /// dispatcher never produces).
    fn from(v: Value) -> Answer {
        match v {
            Value::Object(fields) => Answer {
                fields,
                raw: BTreeMap::new(),
            },
            other => {
                let mut fields = Map::new();
                fields.insert("result".into(), other);
                Answer {
                    fields,
                    raw: BTreeMap::new(),
                }
            }
        }
    }
}

impl Answer {
    /// An answer with these members.
    pub fn new(fields: Map<String, Value>) -> Answer {
        Answer {
            fields,
            raw: BTreeMap::new(),
        }
    }

    /// Sets member `key` to pre-written JSON (replacing a value member of that name). The
    /// members the dispatcher completes (`_meta`, `resultType` and the cache hints) are parsed
    /// into values instead, so it can edit them.
    #[must_use]
    pub fn with_raw(mut self, key: impl Into<String>, json: Raw) -> Answer {
        let key = key.into();
        if dispatcher_owned(&key) {
            self.raw.remove(&key);
            self.fields.insert(key, json.to_value());
        } else {
            self.fields.remove(&key);
            self.raw.insert(key, json);
        }
        self
    }

    /// The value members (the dispatcher adds `resultType`, cache hints and serverInfo here).
    pub fn fields_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.fields
    }

    /// The answer as one value (pre-written members parsed).
    pub fn into_value(self) -> Value {
        let mut fields = self.fields;
        for (k, raw) in self.raw {
            fields.insert(k, raw.to_value());
        }
        Value::Object(fields)
    }

    /// Bytes of pre-written members (a hint for the output buffer).
    pub(crate) fn raw_len(&self) -> usize {
        self.raw.values().map(Raw::len).sum()
    }

    /// Writes the object as `serde_json::to_vec` writes [`Answer::into_value`].
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        out.push(b'{');
        let mut fields = self.fields.iter().peekable();
        let mut raw = self.raw.iter().peekable();
        let mut first = true;
        loop {
            let take_field = match (fields.peek(), raw.peek()) {
                (None, None) => break,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (Some((a, _)), Some((b, _))) => a.as_str() < b.as_str(),
            };
            if !first {
                out.push(b',');
            }
            first = false;
            if take_field {
                if let Some((k, v)) = fields.next() {
                    write_value(out, k);
                    out.push(b':');
                    write_value(out, v);
                }
            } else if let Some((k, r)) = raw.next() {
                write_value(out, k);
                out.push(b':');
                r.write(out);
            }
        }
        out.push(b'}');
    }
}

fn dispatcher_owned(key: &str) -> bool {
    [
        keys::META,
        keys::RESULT_TYPE,
        keys::TTL_MS,
        keys::CACHE_SCOPE,
    ]
    .contains(&key)
}

/// Serialising a `Value` or a `str` into a `Vec` cannot fail.
fn write_value(out: &mut Vec<u8>, v: &(impl serde::Serialize + ?Sized)) {
    let _ = serde_json::to_writer(&mut *out, v);
}

/// A JSON-RPC response `{"id":…,"jsonrpc":"2.0","result":…}`, as `serde_json::to_vec` writes
/// the `Value` of it.
pub(crate) fn write_response(out: &mut Vec<u8>, id: &Value, result: &Answer) {
    out.extend_from_slice(b"{\"id\":");
    write_value(out, id);
    out.extend_from_slice(b",\"jsonrpc\":\"2.0\",\"result\":");
    result.write(out);
    out.push(b'}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(a: &Answer) -> Vec<u8> {
        let mut out = Vec::new();
        a.write(&mut out);
        out
    }

    #[test]
    fn an_answer_is_written_as_its_value_would_be() {
        let big: Arc<str> =
            Arc::from(serde_json::to_string("a \"quoted\"\n text é").unwrap_or_default());
        let fields = json!({"zeta": 1, "_meta": {"b": [1, 2], "a": "x"}, "m": null});
        let Value::Object(fields) = fields else {
            unreachable!()
        };
        let a = Answer::new(fields)
            .with_raw(
                "content",
                Raw::new()
                    .text("[{\"text\":")
                    .shared(big)
                    .text(",\"type\":\"text\"}]"),
            )
            .with_raw("zz", Raw::new().value(&json!({"k": "v"})))
            .with_raw("a", Raw::new().text("true"));
        let as_value = serde_json::to_vec(&a.clone().into_value()).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&text(&a)),
            String::from_utf8_lossy(&as_value)
        );
        let mut resp = Vec::new();
        write_response(&mut resp, &json!(7), &a);
        let v = json!({"jsonrpc": "2.0", "id": 7, "result": a.clone().into_value()});
        assert_eq!(resp, serde_json::to_vec(&v).unwrap_or_default());
    }

    #[test]
    fn dispatcher_members_stay_values() {
        let a = Answer::default().with_raw("_meta", Raw::new().text("{\"x\":1}"));
        assert_eq!(a.fields.get("_meta"), Some(&json!({"x": 1})));
        assert!(a.raw.is_empty());
        assert_eq!(text(&Answer::default()), b"{}");
    }
}
