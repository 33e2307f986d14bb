//! An order-preserving JSON tree, so editing `server.json` keeps every key where the author put
//! it.
//!
//! Why not `serde_json::Value`: without serde_json's `preserve_order` feature its objects are
//! sorted maps, and that feature cannot be turned on for one crate (features unify across the
//! workspace, and the canonical form relies on the sorted map). So this module parses into
//! [`Ordered`] (objects as key/value vectors, in document order), converts to and from
//! `Value` where a value is only read, and writes the file back pretty-printed with the
//! file's own indentation and a final newline.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Number, Value};

/// A JSON value whose objects keep their key order.
#[derive(Debug, Clone, PartialEq)]
pub enum Ordered {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, as serde_json parsed it.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Ordered>),
    /// An object, keys in document order (a repeated key keeps its last value, in the place of
    /// its first occurrence, as JSON parsers that keep order do).
    Object(Vec<(String, Ordered)>),
}

impl Ordered {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Ordered> {
        match self {
            Ordered::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The member `key` of an object, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Ordered> {
        match self {
            Ordered::Object(members) => members.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Sets `key` to `value`: in place when the key exists, appended otherwise. `false` when
    /// `self` is not an object (nothing changed).
    pub fn set(&mut self, key: &str, value: Ordered) -> bool {
        let Ordered::Object(members) = self else {
            return false;
        };
        match members.iter_mut().find(|(k, _)| k == key) {
            Some((_, v)) => *v = value,
            None => members.push((key.to_owned(), value)),
        }
        true
    }

    /// The member `key`, created as an empty object when missing. `None` when `self` is not an
    /// object, or the member exists and is not an object.
    pub fn object_entry(&mut self, key: &str) -> Option<&mut Ordered> {
        if self.get(key).is_none() && !self.set(key, Ordered::Object(Vec::new())) {
            return None;
        }
        self.get_mut(key)
            .filter(|v| matches!(v, Ordered::Object(_)))
    }

    /// The same value as a `serde_json::Value` (object keys sorted, order lost).
    pub fn to_value(&self) -> Value {
        match self {
            Ordered::Null => Value::Null,
            Ordered::Bool(b) => Value::Bool(*b),
            Ordered::Number(n) => Value::Number(n.clone()),
            Ordered::String(s) => Value::String(s.clone()),
            Ordered::Array(items) => Value::Array(items.iter().map(Ordered::to_value).collect()),
            Ordered::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// A `Value` as an ordered tree, keys in the value's (sorted) order.
    pub fn from_value(value: &Value) -> Ordered {
        match value {
            Value::Null => Ordered::Null,
            Value::Bool(b) => Ordered::Bool(*b),
            Value::Number(n) => Ordered::Number(n.clone()),
            Value::String(s) => Ordered::String(s.clone()),
            Value::Array(items) => Ordered::Array(items.iter().map(Ordered::from_value).collect()),
            Value::Object(map) => Ordered::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Ordered::from_value(v)))
                    .collect(),
            ),
        }
    }

    /// Parses JSON text, keeping key order.
    ///
    /// # Errors
    /// serde_json's parse error (with line and column).
    pub fn parse(text: &str) -> Result<Ordered, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Pretty-prints with `indent` (e.g. two spaces) and a final newline.
    pub fn render(&self, indent: &str) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Serialising this tree into a Vec cannot fail: keys are strings, no I/O error.
        if self.serialize(&mut ser).is_err() {
            return String::new();
        }
        let mut text = String::from_utf8(out).unwrap_or_default();
        text.push('\n');
        text
    }
}

/// The indentation unit of a pretty-printed JSON text: the leading whitespace of its first
/// indented line (two spaces when the text has none, e.g. `{}` on one line).
pub fn detect_indent(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|l| {
            l.chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect::<String>()
        })
        .find(|ws| !ws.is_empty())
        .unwrap_or_else(|| "  ".to_owned())
}

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Ordered::Null => s.serialize_unit(),
            Ordered::Bool(b) => s.serialize_bool(*b),
            Ordered::Number(n) => n.serialize(s),
            Ordered::String(v) => s.serialize_str(v),
            Ordered::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Ordered::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Ordered, D::Error> {
        d.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<Ordered, E> {
        Ok(Ordered::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Ordered, E> {
        Ok(Ordered::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Ordered, E> {
        Ok(Ordered::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Ordered, E> {
        Number::from_f64(v)
            .map(Ordered::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Ordered, E> {
        Ok(Ordered::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Ordered, E> {
        Ok(Ordered::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Ordered::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut members: Vec<(String, Ordered)> = Vec::new();
        while let Some((k, v)) = map.next_entry::<String, Ordered>()? {
            match members.iter_mut().find(|(key, _)| *key == k) {
                Some((_, old)) => *old = v,
                None => members.push((k, v)),
            }
        }
        Ok(Ordered::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_and_formatting_survive_a_round_trip() {
        let text = "{\n  \"name\": \"a/b\",\n  \"version\": \"1.0.0\",\n  \"$schema\": \"x\",\n  \"n\": 1.5,\n  \"e\": [],\n  \"o\": {}\n}\n";
        let doc = Ordered::parse(text).expect("parses");
        assert_eq!(doc.render(&detect_indent(text)), text);
    }

    #[test]
    fn set_replaces_in_place_or_appends() {
        let mut doc = Ordered::parse(r#"{"b":1,"a":2}"#).expect("parses");
        doc.set("b", Ordered::Bool(true));
        doc.set("c", Ordered::Null);
        assert_eq!(
            doc.render(""),
            "{\n\"b\": true,\n\"a\": 2,\n\"c\": null\n}\n"
        );
        assert!(doc.object_entry("a").is_none(), "a number is not an object");
        assert!(doc.object_entry("new").is_some());
    }

    #[test]
    fn indentation_is_detected() {
        assert_eq!(detect_indent("{\n    \"a\": 1\n}"), "    ");
        assert_eq!(detect_indent("{\n\t\"a\": 1\n}"), "\t");
        assert_eq!(detect_indent("{}"), "  ");
    }
}
