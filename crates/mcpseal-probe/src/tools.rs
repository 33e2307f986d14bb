//! Tool definitions as a client receives them, and the JSON Schema facts the tool rules judge.
//!
//! Schemas come from the server, so nothing here trusts them: `$ref`s are classified before
//! any compiler sees the schema (a remote `$ref` is never fetched — the `jsonschema` crate is
//! built without its network resolver, and a schema with an unresolvable `$ref` is never
//! compiled at all), and every walk is depth-bounded.

use mcpseal_client::Exchange;
use serde_json::{Value, json};

use crate::context::ProbeContext;

/// The most `tools/list` pages fetched (a server with an endless cursor is SEAL-agnostic here).
const MAX_PAGES: usize = 50;
/// Schemas nested deeper than this are not walked further.
const MAX_DEPTH: usize = 64;

/// Every listed tool and the exchanges that listed them.
#[derive(Debug, Clone)]
pub struct ToolListing {
    /// The tools, in listing order (all pages).
    pub tools: Vec<Value>,
    /// The `tools/list` exchanges, first page first.
    pub pages: Vec<Exchange>,
}

impl ToolListing {
    /// A tool by name.
    pub fn tool(&self, name: &str) -> Option<&Value> {
        self.tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    }
}

/// The prelude's listing plus the following pages, on the client path.
pub(crate) async fn fetch_listing(ctx: &ProbeContext<'_>) -> Option<ToolListing> {
    let first = ctx.prelude().effective_listing()?.clone();
    let mut tools = page_tools(&first)?;
    let mut cursor = next_cursor(&first);
    let mut pages = vec![first];
    while let Some(c) = cursor {
        if pages.len() >= MAX_PAGES {
            break;
        }
        let Some(ex) = ctx.call_client("tools/list", json!({"cursor": c})).await else {
            break;
        };
        let Some(more) = page_tools(&ex) else {
            pages.push(ex);
            break;
        };
        tools.extend(more);
        cursor = next_cursor(&ex).filter(|n| *n != c);
        pages.push(ex);
    }
    Some(ToolListing { tools, pages })
}

fn page_tools(ex: &Exchange) -> Option<Vec<Value>> {
    ex.result()?.get("tools")?.as_array().cloned()
}

fn next_cursor(ex: &Exchange) -> Option<String> {
    ex.result()?
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A tool's name for messages (`#3` when it has none).
pub fn display_name(tool: &Value, index: usize) -> String {
    match tool.get("name").and_then(Value::as_str) {
        Some(n) => format!("`{n}`"),
        None => format!("tool #{}", index + 1),
    }
}

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
fn resolve_pointer<'v>(root: &'v Value, pointer: &str) -> Option<&'v Value> {
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

/// Compiles `schema` (2020-12 unless it names another dialect) without any network access.
/// `Err` carries the compiler's message. Only call it when [`refs_resolve`] holds.
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    if !(schema.is_object() || schema.is_boolean()) {
        return Err(format!("a schema is an object or a boolean, not {schema}"));
    }
    jsonschema::validator_for(schema).map_err(|e| e.to_string())
}

/// The first few validation errors of `instance` against `validator`, as text.
pub fn violations(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .take(3)
        .map(|e| {
            let path = e.instance_path().to_string();
            if path.is_empty() {
                e.to_string()
            } else {
                format!("at `{path}`: {e}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn schemas_compile_offline_and_report_violations() {
        assert!(compile(&json!({"type": "object"})).is_ok());
        assert!(compile(&json!({"type": "objekt"})).is_err());
        assert!(compile(&json!("object")).is_err());
        let v = compile(&json!({"type": "object", "required": ["sum"]})).expect("compiles");
        assert_eq!(violations(&v, &json!({})).len(), 1);
        assert!(violations(&v, &json!({"sum": 1})).is_empty());
    }
}
