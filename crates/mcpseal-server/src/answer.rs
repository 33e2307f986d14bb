//! Results some of whose members are JSON text already written: a handler that answers with
//! the same large document again and again (a verified artifact) escapes it once, not per call.
//!
//! An [`Answer`] is a result object: ordinary members as a `serde_json` map, plus members whose
//! JSON text the handler supplies as it must appear on the wire ([`Raw`]). It is written exactly
//! as `serde_json::to_vec` would write the equivalent `Value` (compact, members in the map's
//! sorted key order), so a server's bytes do not depend on which members were pre-written.

use std::borrow::Cow;
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
    /// An object key that needs no escaping, written `"key":` (not copied).
    Key(&'static str),
}

impl Piece {
    /// Object key `key` and the `:` after it, escaped as `serde_json` escapes a string.
    fn key(key: Cow<'static, str>) -> Piece {
        match key {
            Cow::Borrowed(k) if !needs_escape(k) => Piece::Key(k),
            k => {
                let mut text = serde_json::to_string(&*k).unwrap_or_else(|_| "\"\"".to_owned());
                text.push(':');
                Piece::Owned(text)
            }
        }
    }

    fn len(&self) -> usize {
        match self {
            Piece::Static(s) => s.len(),
            Piece::Shared(s) => s.len(),
            Piece::Owned(s) => s.len(),
            Piece::Key(k) => k.len() + 3,
        }
    }

    fn write<S: Sink>(&self, out: &mut S) {
        match self {
            Piece::Static(s) => out.put(s.as_bytes()),
            Piece::Shared(s) => out.put_shared(s),
            Piece::Owned(s) => out.put(s.as_bytes()),
            Piece::Key(k) => {
                out.put(b"\"");
                out.put(k.as_bytes());
                out.put(b"\":");
            }
        }
    }
}

/// Where an answer's JSON text is written: a buffer that copies every piece (`Vec<u8>`), or
/// one that sends large shared pieces as they are ([`crate::wire::Wire`]).
pub(crate) trait Sink: std::io::Write {
    /// Appends these bytes (copied).
    fn put(&mut self, bytes: &[u8]);

    /// Appends shared text: copied, unless the sink can send it as it is.
    fn put_shared(&mut self, text: &Arc<str>) {
        self.put(text.as_bytes());
    }
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// Whether `serde_json` escapes anything in string `s`: it escapes `"`, `\\` and the control
/// characters below U+0020, nothing else.
fn needs_escape(s: &str) -> bool {
    s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\')
}

/// Where JSON text goes: a [`Raw`]'s pieces, or an output buffer.
trait Text {
    fn put(&mut self, piece: Piece);
}

impl Text for Vec<u8> {
    fn put(&mut self, piece: Piece) {
        piece.write(self);
    }
}

impl Text for Raw {
    fn put(&mut self, piece: Piece) {
        self.len += piece.len();
        self.pieces.push(piece);
    }
}

/// Writes a JSON object of `members` as `serde_json` writes a map of them (its `Map` is sorted):
/// compact, keys in the byte order of their text (a later member replaces an earlier one of the
/// same key), each value written by `value`. The one place members given in any order are
/// sorted ([`Answer::write`] merges maps that are sorted already, in the same order).
fn write_object<T: Text, K: Into<Cow<'static, str>>, V>(
    text: &mut T,
    members: impl IntoIterator<Item = (K, V)>,
    mut value: impl FnMut(&mut T, V),
) {
    let sorted: BTreeMap<Cow<'static, str>, V> =
        members.into_iter().map(|(k, v)| (k.into(), v)).collect();
    text.put(Piece::Static("{"));
    for (i, (key, v)) in sorted.into_iter().enumerate() {
        if i > 0 {
            text.put(Piece::Static(","));
        }
        text.put(Piece::key(key));
        value(text, v);
    }
    text.put(Piece::Static("}"));
}

/// The JSON text of one value, in pieces written one after the other, as is.
///
/// The pieces together must be one compact JSON value in `serde_json`'s form (object members in
/// sorted key order, no whitespace): it is not checked on the answering path. [`Raw::object`]
/// and [`Raw::array`] put members and items in that form; [`Raw::to_value`] parses the text (for
/// in-process callers and tests).
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

    /// Appends JSON text written by the caller (moved, not copied).
    #[must_use]
    pub fn owned(mut self, s: String) -> Raw {
        self.len += s.len();
        self.pieces.push(Piece::Owned(s));
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

    /// A JSON object of `members` (key, JSON text of its value), written as `serde_json` writes
    /// a map: compact, keys in the byte order of their text (a later member replaces an
    /// earlier one of the same key), keys escaped as `serde_json` escapes them. The members'
    /// pieces are moved, not copied.
    pub fn object<K: Into<Cow<'static, str>>>(members: impl IntoIterator<Item = (K, Raw)>) -> Raw {
        let mut raw = Raw::new();
        write_object(&mut raw, members, Raw::append);
        raw
    }

    /// A JSON array of `items` (each the JSON text of one value), compact.
    pub fn array(items: impl IntoIterator<Item = Raw>) -> Raw {
        let mut raw = Raw::new().text("[");
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                raw = raw.text(",");
            }
            raw.append(item);
        }
        raw.text("]")
    }

    /// Appends the pieces of `other`.
    fn append(&mut self, other: Raw) {
        self.len += other.len;
        self.pieces.extend(other.pieces);
    }

    /// Bytes it writes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Writes nothing.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn write<S: Sink>(&self, out: &mut S) {
        for p in &self.pieces {
            p.write(out);
        }
    }

    /// The value it writes, parsed (`Null` when the pieces are not JSON).
    pub fn to_value(&self) -> Value {
        let mut text = Vec::with_capacity(self.len);
        self.write(&mut text);
        serde_json::from_slice(&text).unwrap_or(Value::Null)
    }
}

/// A result object: members as values, and members as pre-written JSON ([`Raw`]), at the top
/// level and inside `_meta`.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    fields: Map<String, Value>,
    raw: BTreeMap<String, Raw>,
    /// Pre-written members of `_meta`. When there are any, `_meta` is an object: the members of
    /// `fields["_meta"]` when that is an object, with these replacing any of the same name.
    meta_raw: BTreeMap<String, Raw>,
}

impl From<Value> for Answer {
    /// A result that is a plain value (an object's members become the answer's members; any
    /// other value is not a result object and is kept as `result`'s one member, which the
    /// dispatcher never produces).
    fn from(v: Value) -> Answer {
        match v {
            Value::Object(fields) => Answer::new(fields),
            other => {
                let mut fields = Map::new();
                fields.insert("result".into(), other);
                Answer::new(fields)
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
            meta_raw: BTreeMap::new(),
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

    /// Sets member `key` of `_meta` to pre-written JSON (replacing a value member of that name
    /// there): facts that are the same on every call (a server's serverInfo, an artifact's
    /// verification) written once instead of built as a tree and serialised per call.
    #[must_use]
    pub fn with_raw_meta(mut self, key: impl Into<String>, json: Raw) -> Answer {
        self.meta_raw.insert(key.into(), json);
        self
    }

    /// The value members (the dispatcher adds `resultType` and the cache hints here).
    pub fn fields_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.fields
    }

    /// The answer as one value (pre-written members parsed).
    pub fn into_value(self) -> Value {
        let mut fields = self.fields;
        for (k, raw) in self.raw {
            fields.insert(k, raw.to_value());
        }
        if !self.meta_raw.is_empty() {
            let mut meta = match fields.remove(keys::META) {
                Some(Value::Object(m)) => m,
                _ => Map::new(),
            };
            for (k, raw) in self.meta_raw {
                meta.insert(k, raw.to_value());
            }
            fields.insert(keys::META.into(), Value::Object(meta));
        }
        Value::Object(fields)
    }

    /// Bytes of pre-written members (a hint for the output buffer).
    pub(crate) fn raw_len(&self) -> usize {
        self.raw
            .values()
            .chain(self.meta_raw.values())
            .map(Raw::len)
            .sum()
    }

    /// Writes the object as `serde_json::to_vec` writes [`Answer::into_value`].
    pub(crate) fn write<S: Sink>(&self, out: &mut S) {
        let meta = (!self.meta_raw.is_empty()).then(|| Member::Meta {
            values: self.fields.get(keys::META).and_then(Value::as_object),
            raw: &self.meta_raw,
        });
        let pre_written_meta = meta.is_some();
        let fields = self
            .fields
            .iter()
            .filter(move |(k, _)| !pre_written_meta || k.as_str() != keys::META)
            .map(|(k, v)| (k.as_str(), Member::Value(v)));
        let raw = self.raw.iter().map(|(k, r)| (k.as_str(), Member::Raw(r)));
        // `raw` never holds `_meta` (it is dispatcher-owned), so the three lists share no key.
        let members = merged(
            merged(fields, raw),
            meta.map(|m| (keys::META, m)).into_iter(),
        );
        write_members(out, members);
    }
}

/// One member of an [`Answer`] being written.
enum Member<'a> {
    Value(&'a Value),
    Raw(&'a Raw),
    /// `_meta` with pre-written members.
    Meta {
        values: Option<&'a Map<String, Value>>,
        raw: &'a BTreeMap<String, Raw>,
    },
}

impl Member<'_> {
    fn write<S: Sink>(&self, out: &mut S) {
        match self {
            Member::Value(v) => write_value(out, v),
            Member::Raw(r) => r.write(out),
            Member::Meta { values, raw } => {
                let values = values
                    .iter()
                    .flat_map(|m| m.iter())
                    .filter(|(k, _)| !raw.contains_key(k.as_str()))
                    .map(|(k, v)| (k.as_str(), Member::Value(v)));
                let raw = raw.iter().map(|(k, r)| (k.as_str(), Member::Raw(r)));
                write_members(out, merged(values, raw));
            }
        }
    }
}

/// Two member lists, each in sorted key order and sharing no key, as one in sorted key order
/// (the byte order of the keys, as [`write_object`] and `serde_json`'s `Map` sort them). Merged
/// lazily: the answering path sorts nothing it was given sorted.
fn merged<'a>(
    a: impl Iterator<Item = (&'a str, Member<'a>)>,
    b: impl Iterator<Item = (&'a str, Member<'a>)>,
) -> impl Iterator<Item = (&'a str, Member<'a>)> {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some((x, _)), Some((y, _))) if x < y => a.next(),
        (Some(_), None) => a.next(),
        _ => b.next(),
    })
}

/// Writes one object of `members`, in the order given.
fn write_members<'a, S: Sink>(out: &mut S, members: impl Iterator<Item = (&'a str, Member<'a>)>) {
    out.put(b"{");
    for (i, (k, member)) in members.enumerate() {
        if i > 0 {
            out.put(b",");
        }
        write_value(out, k);
        out.put(b":");
        member.write(out);
    }
    out.put(b"}");
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

/// Serialising a `Value` or a `str` into a [`Sink`] cannot fail (its writes do not).
fn write_value<S: Sink>(out: &mut S, v: &(impl serde::Serialize + ?Sized)) {
    let _ = serde_json::to_writer(&mut *out, v);
}

/// A JSON-RPC response (`id`, `jsonrpc`, `result`), as `serde_json::to_vec` writes the `Value`
/// of it. Written directly, once per response: its three keys are fixed and already in sorted
/// order, so sorting them on every answer (through [`write_object`]) would be work for nothing
/// on the hot path; a unit test holds the bytes to `serde_json`'s.
pub(crate) fn write_response<S: Sink>(out: &mut S, id: &Value, result: &Answer) {
    out.put(b"{\"id\":");
    write_value(out, id);
    out.put(b",\"jsonrpc\":\"2.0\",\"result\":");
    result.write(out);
    out.put(b"}");
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
    fn pre_written_meta_members_merge_into_meta_as_values_would() {
        let written = |a: &Answer| String::from_utf8_lossy(&text(a)).into_owned();
        let as_value =
            |a: &Answer| serde_json::to_string(&a.clone().into_value()).unwrap_or_default();
        let info = || Raw::new().shared(Arc::from("{\"name\":\"s\",\"version\":\"1\"}"));
        let Value::Object(fields) = json!({
            "zeta": 1,
            "content": [],
            "_meta": {"b": 2, "serverInfo": "a value the raw member replaces", "a": "x"},
        }) else {
            unreachable!()
        };
        let cases = [
            // merged with the value members, replacing the one of its name, in sorted order
            Answer::new(fields.clone())
                .with_raw_meta("serverInfo", info())
                .with_raw_meta("c", Raw::new().text("[true]")),
            // `_meta` absent: it is made, placed among raw top-level members
            Answer::default()
                .with_raw("z", Raw::new().text("1"))
                .with_raw("a", Raw::new().text("2"))
                .with_raw_meta("verification", Raw::new().text("{}")),
            // `_meta` not an object: the pre-written members replace it
            Answer::from(json!({"_meta": 7, "r": 1})).with_raw_meta("serverInfo", info()),
        ];
        for a in &cases {
            assert_eq!(written(a), as_value(a));
        }
        assert_eq!(
            written(&cases[0]),
            "{\"_meta\":{\"a\":\"x\",\"b\":2,\"c\":[true],\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"content\":[],\"zeta\":1}"
        );
        assert_eq!(
            written(&cases[1]),
            "{\"_meta\":{\"verification\":{}},\"a\":2,\"z\":1}"
        );
        assert_eq!(
            written(&cases[2]),
            "{\"_meta\":{\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}},\"r\":1}"
        );
    }

    fn raw_text(r: &Raw) -> String {
        let mut out = Vec::new();
        r.write(&mut out);
        assert_eq!(out.len(), r.len());
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn the_object_builder_sorts_and_escapes_as_serde_json_does() {
        // Keys given out of order, some that need escaping, an owned one, a non-ASCII one
        // (byte order, not UTF-16 order: "\u{e9}" after "z", "\u{1d11e}" after "\u{ffff}").
        let keys: Vec<Cow<'static, str>> = vec![
            "type".into(),
            "text".into(),
            "q\"uote".into(),
            "back\\slash".into(),
            "nl\n".into(),
            "\u{1}".into(),
            "\u{7f}".into(),
            "z".into(),
            "\u{e9}".into(),
            "\u{ffff}".into(),
            "\u{1d11e}".into(),
            String::from("owned").into(),
            "".into(),
        ];
        let members = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), Raw::new().value(&i)));
        let raw = Raw::object(members);
        let mut expected = Map::new();
        for (i, k) in keys.iter().enumerate() {
            expected.insert(k.to_string(), json!(i));
        }
        let expected = serde_json::to_string(&Value::Object(expected)).unwrap_or_default();
        assert_eq!(raw_text(&raw), expected);
        assert_eq!(
            raw.to_value(),
            serde_json::from_str::<Value>(&expected).unwrap_or_default()
        );

        // A later member replaces an earlier one of its key; nested builders; empty ones.
        let raw = Raw::array([
            Raw::object([
                ("type", Raw::new().text("\"text\"")),
                ("text", Raw::new().shared(Arc::from("\"a\\\"b\""))),
                ("type", Raw::new().text("\"resource\"")),
            ]),
            Raw::object(Vec::<(&'static str, Raw)>::new()),
            Raw::array([]),
        ]);
        assert_eq!(
            raw_text(&raw),
            "[{\"text\":\"a\\\"b\",\"type\":\"resource\"},{},[]]"
        );
    }

    #[test]
    fn keys_are_escaped_exactly_when_serde_json_escapes_them() {
        for c in (0..=0x80u32)
            .chain([0xe9, 0x2028, 0xfeff, 0x1d11e])
            .filter_map(char::from_u32)
        {
            let key = c.to_string();
            let escaped = serde_json::to_string(&key).unwrap_or_default();
            assert_eq!(
                needs_escape(&key),
                escaped != format!("\"{key}\""),
                "U+{:04X}",
                u32::from(c)
            );
        }
    }

    #[test]
    fn dispatcher_members_stay_values() {
        let a = Answer::default().with_raw("_meta", Raw::new().text("{\"x\":1}"));
        assert_eq!(a.fields.get("_meta"), Some(&json!({"x": 1})));
        assert!(a.raw.is_empty());
        assert_eq!(text(&Answer::default()), b"{}");
    }
}
