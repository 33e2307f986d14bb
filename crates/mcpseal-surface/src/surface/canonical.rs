//! Writing a surface's canonical (RFC 8785) bytes, into a buffer or straight into a hasher
//! ([`Sink`]), so a fingerprint never materialises the whole document. Keys are written in
//! UTF-16 order by hand; items are copied from their pre-computed canonical bytes.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::{Fingerprint, Form, Item, Items, ListKind, ListState, Surface};
use crate::jcs::{hex, write_jcs, write_string};

impl Surface {
    /// The canonical object of `form` as a value (the `surface` of snapshot JSON and lock
    /// files). `jcs(&surface.canonical_value(f)) == surface.canonical_bytes(f)`.
    pub fn canonical_value(&self, form: Form) -> Value {
        let mut top = Map::new();
        let list_value = |k: ListKind| match self.list(k) {
            ListState::Served(items) => Value::Array(items.iter().map(Item::value).collect()),
            ListState::NotServed(_) | ListState::Failed(_) => Value::Null,
        };
        match form {
            Form::McpSeal1 => {
                top.insert("form".into(), Value::from(form.as_str()));
                top.insert("era".into(), Value::from(self.era.as_str()));
                top.insert("server".into(), self.server.seal.clone());
            }
            Form::McpSurface1 => {
                top.insert("initialize".into(), self.server.compat.clone());
            }
        }
        for k in ListKind::ALL {
            top.insert(k.key().into(), list_value(k));
        }
        Value::Object(top)
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
