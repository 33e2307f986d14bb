//! The edits a tampering makes, as JSON Patch (RFC 6902) operations on the whole result, so
//! any other client can replay them (the SDK comparison test does).

use serde_json::{Value, json};

/// One JSON Patch operation (`add`, `remove` or `replace`).
#[derive(Debug, Clone, PartialEq)]
pub enum PatchOp {
    /// Adds `value` at `path` (a new member, or inserted into an array).
    Add {
        /// JSON Pointer into the result.
        path: String,
        /// The value added.
        value: Value,
    },
    /// Removes what is at `path`.
    Remove {
        /// JSON Pointer into the result.
        path: String,
    },
    /// Replaces what is at `path` with `value`.
    Replace {
        /// JSON Pointer into the result.
        path: String,
        /// The new value.
        value: Value,
    },
}

impl PatchOp {
    /// The operation as RFC 6902 JSON (`{"op": "remove", "path": "/structuredContent/city"}`).
    pub fn to_json(&self) -> Value {
        match self {
            PatchOp::Add { path, value } => json!({"op": "add", "path": path, "value": value}),
            PatchOp::Remove { path } => json!({"op": "remove", "path": path}),
            PatchOp::Replace { path, value } => {
                json!({"op": "replace", "path": path, "value": value})
            }
        }
    }

    /// The path it edits.
    pub fn path(&self) -> &str {
        match self {
            PatchOp::Add { path, .. }
            | PatchOp::Remove { path }
            | PatchOp::Replace { path, .. } => path,
        }
    }
}

/// `doc` with every operation applied in order, or `None` when one does not apply (a path that
/// names nothing; RFC 6902 makes the whole patch fail then).
pub fn apply(doc: &Value, ops: &[PatchOp]) -> Option<Value> {
    let mut doc = doc.clone();
    for op in ops {
        let (parent, last) = split(op.path())?;
        let target = pointer_mut(&mut doc, &parent)?;
        match (op, target) {
            (PatchOp::Add { value, .. }, Value::Object(m)) => {
                m.insert(last, value.clone());
            }
            (PatchOp::Add { value, .. }, Value::Array(a)) => {
                let at = if last == "-" { a.len() } else { index(&last)? };
                if at > a.len() {
                    return None;
                }
                a.insert(at, value.clone());
            }
            (PatchOp::Remove { .. }, Value::Object(m)) => {
                m.remove(&last)?;
            }
            (PatchOp::Remove { .. }, Value::Array(a)) => {
                let at = index(&last)?;
                if at >= a.len() {
                    return None;
                }
                a.remove(at);
            }
            (PatchOp::Replace { value, .. }, Value::Object(m)) => {
                *m.get_mut(&last)? = value.clone();
            }
            (PatchOp::Replace { value, .. }, Value::Array(a)) => {
                *a.get_mut(index(&last)?)? = value.clone();
            }
            _ => return None,
        }
    }
    Some(doc)
}

/// A pointer's parent and last token (unescaped). The root itself cannot be edited here:
/// every tampering edits a member of the result.
fn split(path: &str) -> Option<(Vec<String>, String)> {
    let mut tokens = tokens(path)?;
    let last = tokens.pop()?;
    Some((tokens, last))
}

fn tokens(path: &str) -> Option<Vec<String>> {
    if path.is_empty() {
        return Some(Vec::new());
    }
    let rest = path.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

fn index(token: &str) -> Option<usize> {
    if token.len() > 1 && token.starts_with('0') {
        return None;
    }
    token.parse().ok()
}

fn pointer_mut<'v>(doc: &'v mut Value, tokens: &[String]) -> Option<&'v mut Value> {
    let mut cur = doc;
    for t in tokens {
        cur = match cur {
            Value::Object(m) => m.get_mut(t)?,
            Value::Array(a) => a.get_mut(index(t)?)?,
            _ => return None,
        };
    }
    Some(cur)
}

/// `token` escaped for a JSON Pointer.
pub(crate) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_apply_as_rfc_6902_says() {
        let doc = json!({"content": [], "structuredContent": {"a/b": 1, "list": [1, 2]}});
        let out = apply(
            &doc,
            &[
                PatchOp::Remove {
                    path: "/structuredContent/a~1b".into(),
                },
                PatchOp::Add {
                    path: "/structuredContent/list/-".into(),
                    value: json!(3),
                },
                PatchOp::Replace {
                    path: "/structuredContent/list/0".into(),
                    value: json!("x"),
                },
            ],
        );
        assert_eq!(
            out,
            Some(json!({"content": [], "structuredContent": {"list": ["x", 2, 3]}}))
        );
        assert_eq!(
            apply(
                &doc,
                &[PatchOp::Remove {
                    path: "/nope/x".into()
                }]
            ),
            None
        );
        assert_eq!(
            apply(
                &doc,
                &[PatchOp::Replace {
                    path: "/structuredContent/missing".into(),
                    value: json!(1)
                }]
            ),
            None
        );
        assert_eq!(
            PatchOp::Remove {
                path: "/structuredContent".into()
            }
            .to_json(),
            json!({"op": "remove", "path": "/structuredContent"})
        );
    }
}
