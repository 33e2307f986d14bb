//! Writing a surface's canonical (RFC 8785) bytes, into a buffer or straight into a hasher
//! ([`Sink`]), so a fingerprint never materialises the whole document. Keys are written in
//! UTF-16 order by hand; items are copied from their pre-computed canonical bytes.

use std::collections::BTreeMap;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::{Fingerprint, Form, Item, Items, ListKind, ListState, Surface};
use crate::jcs::{hex, write_jcs, write_string};

impl Surface {
    /// The canonical object of `form` as a value (the `surface` of snapshot JSON and lock
    /// files). `jcs(&surface.canonical_value(f)) == surface.canonical_bytes(f)`.
    pub fn canonical_value(&self, form: Form) -> Value {
        let top: Map<String, Value> = self
            .members(form)
            .into_iter()
            .map(|(key, member)| (key.to_owned(), member.to_value()))
            .collect();
        Value::Object(top)
    }

    /// The canonical object of `form`, serialisable without building its value tree: it
    /// serialises exactly as [`Surface::canonical_value`] does (the same tokens, so the same
    /// bytes under any serde_json formatter, pretty or compact), each item parsed from its
    /// canonical bytes only while it is written (one item's value tree at a time).
    pub fn canonical_object(&self, form: Form) -> CanonicalObject<'_> {
        CanonicalObject {
            surface: self,
            form,
        }
    }

    /// The canonical (RFC 8785) bytes of `form`.
    pub fn canonical_bytes(&self, form: Form) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_canonical(form, &mut out);
        out
    }

    /// The fingerprint of `form`: SHA-256 of the canonical bytes (streamed into the hasher,
    /// never materialised) and the per-item hashes.
    pub fn fingerprint(&self, form: Form) -> Fingerprint {
        let mut hasher = Sha256::new();
        self.write_canonical(form, &mut hasher);
        let map = |k: ListKind| {
            self.list(k).items().map(|items| {
                items
                    .iter()
                    .map(|i| (i.identity.clone(), i.hash()))
                    .collect::<BTreeMap<_, _>>()
            })
        };
        Fingerprint {
            form,
            sha256: hex(&hasher.finalize()),
            items: Items {
                tools: map(ListKind::Tools),
                resources: map(ListKind::Resources),
                resource_templates: map(ListKind::ResourceTemplates),
                prompts: map(ListKind::Prompts),
            },
        }
    }

    /// The one definition of the canonical object's members (key and what it holds) for
    /// `form`, in its map's order (sorted keys): [`Surface::canonical_value`] turns each into
    /// a value, [`CanonicalObject`] serialises each as it goes.
    fn members(&self, form: Form) -> BTreeMap<&'static str, Member<'_>> {
        let mut top = BTreeMap::new();
        match form {
            Form::McpSeal1 => {
                top.insert("form", Member::Str(form.as_str()));
                top.insert("era", Member::Str(self.era.as_str()));
                top.insert("server", Member::Value(&self.server.seal));
            }
            Form::McpSurface1 => {
                top.insert("initialize", Member::Value(&self.server.compat));
            }
        }
        for k in ListKind::ALL {
            let list = match self.list(k) {
                ListState::Served(items) => Some(items.as_slice()),
                ListState::NotServed(_) | ListState::Failed(_) => None,
            };
            top.insert(k.key(), Member::List(list));
        }
        top
    }

    fn write_canonical(&self, form: Form, sink: &mut impl Sink) {
        // Top-level keys written in UTF-16 order by hand:
        // mcpseal/1:     era, form, prompts, resourceTemplates, resources, server, tools
        // mcp-surface/1: initialize, prompts, resourceTemplates, resources, tools
        let mut buf = Vec::with_capacity(256);
        match form {
            Form::McpSeal1 => {
                buf.extend_from_slice(b"{\"era\":");
                write_string(self.era.as_str(), &mut buf);
                buf.extend_from_slice(b",\"form\":\"mcpseal/1\",");
            }
            Form::McpSurface1 => {
                buf.extend_from_slice(b"{\"initialize\":");
                write_jcs(&self.server.compat, &mut buf);
                buf.push(b',');
            }
        }
        sink.put(&buf);
        for (i, k) in [
            ListKind::Prompts,
            ListKind::ResourceTemplates,
            ListKind::Resources,
        ]
        .into_iter()
        .enumerate()
        {
            if i > 0 {
                sink.put(b",");
            }
            self.write_list(k, sink);
        }
        if form == Form::McpSeal1 {
            let mut buf = Vec::with_capacity(256);
            buf.extend_from_slice(b",\"server\":");
            write_jcs(&self.server.seal, &mut buf);
            sink.put(&buf);
        }
        sink.put(b",");
        self.write_list(ListKind::Tools, sink);
        sink.put(b"}");
    }

    fn write_list(&self, k: ListKind, sink: &mut impl Sink) {
        sink.put(b"\"");
        sink.put(k.key().as_bytes());
        sink.put(b"\":");
        match self.list(k) {
            ListState::NotServed(_) | ListState::Failed(_) => sink.put(b"null"),
            ListState::Served(items) => {
                sink.put(b"[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        sink.put(b",");
                    }
                    sink.put(&item.canonical);
                }
                sink.put(b"]");
            }
        }
    }
}

/// [`Surface::canonical_object`].
#[derive(Debug, Clone, Copy)]
pub struct CanonicalObject<'a> {
    surface: &'a Surface,
    form: Form,
}

/// One member of the canonical object, as [`Surface::canonical_value`] would hold it.
enum Member<'a> {
    Str(&'a str),
    Value(&'a Value),
    List(Option<&'a [Item]>),
}

impl Member<'_> {
    /// The member as [`Surface::canonical_value`] holds it.
    fn to_value(&self) -> Value {
        match self {
            Member::Str(s) => Value::from(*s),
            Member::Value(v) => (*v).clone(),
            Member::List(None) => Value::Null,
            Member::List(Some(items)) => Value::Array(items.iter().map(Item::value).collect()),
        }
    }
}

/// The items of a served list, each parsed from its canonical bytes while it is written.
struct ItemsOf<'a>(&'a [Item]);

impl Serialize for ItemsOf<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for item in self.0 {
            seq.serialize_element(&item.value())?;
        }
        seq.end()
    }
}

impl Serialize for Member<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Member::Str(s) => serializer.serialize_str(s),
            Member::Value(v) => v.serialize(serializer),
            Member::List(None) => serializer.serialize_unit(),
            Member::List(Some(items)) => ItemsOf(items).serialize(serializer),
        }
    }
}

impl Serialize for CanonicalObject<'_> {
    /// The members of [`Surface::canonical_value`], in its map's order (sorted keys), with
    /// what a `Value` would serialise for each.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let top = self.surface.members(self.form);
        let mut map = serializer.serialize_map(Some(top.len()))?;
        for (key, member) in &top {
            map.serialize_entry(key, member)?;
        }
        map.end()
    }
}

/// Where canonical bytes go: a buffer or straight into a hasher.
trait Sink {
    fn put(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

impl Sink for Sha256 {
    fn put(&mut self, bytes: &[u8]) {
        self.update(bytes);
    }
}
