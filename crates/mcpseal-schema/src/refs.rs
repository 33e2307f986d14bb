//! Where a schema's `$ref`s point, decided without the network.
//!
//! Schemas come from servers, so nothing here trusts them: every `$ref` and `$dynamicRef` is
//! classified before any compiler sees the schema — inside the document (or a bundled JSON
//! Schema meta-schema), another document (resolving it means fetching it, which mcpseal never
//! does), or a fragment that names nothing. Every walk is depth-bounded.

use serde_json::Value;

/// Schemas nested deeper than this are not walked further.
const MAX_DEPTH: usize = 64;

/// How a `$ref` resolves without the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefKind {
    /// Inside the schema document (or a bundled meta-schema).
    Local,
    /// Points at another document: resolving it means fetching it, which clients MUST NOT do.
    Remote,
    /// A fragment (`#/…` or `#anchor`) that names nothing in the document.
    Dangling,
}

/// One `$ref` in a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaRef {
    /// The `$ref` value.
    pub target: String,
    /// Its classification.
    pub kind: RefKind,
}

/// Keywords whose values are data, never schemas (a `$ref` key inside them is not a reference).
const DATA_KEYWORDS: &[&str] = &["const", "enum", "default", "examples", "example"];

/// Every `$ref` (and `$dynamicRef`) in `schema`, classified.
pub fn refs(schema: &Value) -> Vec<SchemaRef> {
    let mut raw = Vec::new();
    collect_refs(schema, 0, &mut raw);
    let mut ids = Vec::new();
    collect_keyword(schema, "$id", 0, &mut ids);
    let mut anchors = Vec::new();
    collect_keyword(schema, "$anchor", 0, &mut anchors);
    collect_keyword(schema, "$dynamicAnchor", 0, &mut anchors);
    // With embedded resources (nested `$id`s), a fragment resolves against the nearest one;
    // rather than guess, fragments are then judged by the compiler alone.
    let nested_ids = ids.len() > usize::from(schema.get("$id").is_some());
    raw.into_iter()
        .map(|target| {
            let kind = classify(schema, &target, &ids, &anchors, nested_ids);
            SchemaRef { target, kind }
        })
        .collect()
}

fn classify(
    root: &Value,
    target: &str,
    ids: &[String],
    anchors: &[String],
    nested_ids: bool,
) -> RefKind {
    if let Some(fragment) = target.strip_prefix('#') {
        if nested_ids {
            return RefKind::Local;
        }
        let found = if fragment.is_empty() {
            true
        } else if fragment.starts_with('/') {
            resolve_pointer(root, fragment).is_some()
        } else {
            anchors.iter().any(|a| a == fragment)
        };
        return if found {
            RefKind::Local
        } else {
            RefKind::Dangling
        };
    }
    let document = target.split('#').next().unwrap_or(target);
    let embedded = ids
        .iter()
        .any(|id| id.trim_end_matches('#') == document || id.ends_with(&format!("/{document}")));
    let meta = document.starts_with("https://json-schema.org/")
        || document.starts_with("http://json-schema.org/");
    if embedded || meta {
        RefKind::Local
    } else {
        RefKind::Remote
    }
}

/// RFC 6901 pointer (percent-decoded, as in a URI fragment) into `root`.
pub(crate) fn resolve_pointer<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
    let decoded = percent_decode(pointer)?;
    let mut cur = root;
    for raw in decoded.split('/').skip(1) {
        let token = raw.replace("~1", "/").replace("~0", "~");
        cur = match cur {
            Value::Object(m) => m.get(&token)?,
            Value::Array(a) => a.get(token.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn collect_refs(v: &Value, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(m) => {
            for key in ["$ref", "$dynamicRef"] {
                if let Some(Value::String(r)) = m.get(key) {
                    out.push(r.clone());
                }
            }
            for (k, child) in m {
                if !DATA_KEYWORDS.contains(&k.as_str()) {
                    collect_refs(child, depth + 1, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|c| collect_refs(c, depth + 1, out)),
        _ => {}
    }
}

fn collect_keyword(v: &Value, keyword: &str, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::Object(m) => {
            if let Some(Value::String(s)) = m.get(keyword) {
                out.push(s.clone());
            }
            for (k, child) in m {
                if !DATA_KEYWORDS.contains(&k.as_str()) {
                    collect_keyword(child, keyword, depth + 1, out);
                }
            }
        }
        Value::Array(a) => a
            .iter()
            .for_each(|c| collect_keyword(c, keyword, depth + 1, out)),
        _ => {}
    }
}

/// Whether every `$ref` resolves locally (so the schema may be compiled offline).
pub fn refs_resolve(schema: &Value) -> bool {
    refs(schema).iter().all(|r| r.kind == RefKind::Local)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kinds(schema: &Value) -> Vec<RefKind> {
        refs(schema).into_iter().map(|r| r.kind).collect()
    }

    #[test]
    fn refs_are_classified_without_the_network() {
        let s = json!({"type": "object", "$defs": {"a": {"type": "string"}},
        "properties": {
            "x": {"$ref": "#/$defs/a"},
            "y": {"$ref": "#/$defs/missing"},
            "z": {"$ref": "https://example.com/s.json"},
            "w": {"$ref": "#"},
            "v": {"$anchor": "here"},
            "u": {"$ref": "#here"},
            "t": {"const": {"$ref": "https://not.a.ref/"}}
        }});
        let mut got: Vec<(String, RefKind)> =
            refs(&s).into_iter().map(|r| (r.target, r.kind)).collect();
        got.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            got,
            vec![
                ("#".to_owned(), RefKind::Local),
                ("#/$defs/a".to_owned(), RefKind::Local),
                ("#/$defs/missing".to_owned(), RefKind::Dangling),
                ("#here".to_owned(), RefKind::Local),
                ("https://example.com/s.json".to_owned(), RefKind::Remote),
            ]
        );
        assert!(!refs_resolve(&s));
        assert!(refs_resolve(&json!({"type": "object"})));
        let escaped = json!({"$defs": {"a/b": {}}, "$ref": "#/$defs/a~1b"});
        assert_eq!(kinds(&escaped), vec![RefKind::Local]);
    }
}
