//! Tool annotations, judged on their *effective* values.
//!
//! The spec gives each hint a default (`readOnlyHint` false, `destructiveHint` true,
//! `idempotentHint` false, `openWorldHint` true; the last three only mean something while the
//! tool is not read-only). A client sees the default when a hint is absent, so absent and the
//! explicit default are the same surface for every judgement here: no change at all. Hints are
//! untrusted claims, which is why a tool newly *claiming* read-only is a security change: hosts
//! use that claim to run a tool without asking.
//!
//! `before`/`after` of a hint change hold the effective booleans, not the raw (possibly absent)
//! values. A hint that is not a boolean has no effective value: its change is `unjudged`.

use serde_json::{Map, Value};

use super::{ChangeClass, Out, child, generic, object_or_empty, same_opt, union};

/// The four hints and their defaults.
const HINTS: [(&str, bool); 4] = [
    ("readOnlyHint", false),
    ("destructiveHint", true),
    ("idempotentHint", false),
    ("openWorldHint", true),
];

fn default_of(hint: &str) -> Option<bool> {
    HINTS.iter().find(|(h, _)| *h == hint).map(|(_, d)| *d)
}

/// The effective value of a hint: `Some(default)` when absent, `Some(b)` when a boolean, `None`
/// when the annotations or the hint are not of the expected type.
fn effective(annotations: Option<&Value>, hint: &str) -> Option<bool> {
    let default = default_of(hint)?;
    match annotations {
        None => Some(default),
        Some(Value::Object(m)) => match m.get(hint) {
            None => Some(default),
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => None,
        },
        Some(_) => None,
    }
}

/// Judges a newly listed tool: read-only tools are additive, anything that may write is a
/// security change (more so when destructive).
pub(super) fn new_tool(id: &str, tool: &Value) -> (ChangeClass, String) {
    let ann = tool.get("annotations");
    let read_only = effective(ann, "readOnlyHint");
    if read_only == Some(true) {
        return (ChangeClass::Additive, format!("new read-only tool `{id}`"));
    }
    let destructive = effective(ann, "destructiveHint") != Some(false);
    let open = effective(ann, "openWorldHint") != Some(false);
    let mut what = format!("new tool `{id}` that may write on the user's behalf (not read-only");
    if destructive {
        what.push_str(", may be destructive");
    }
    if open {
        what.push_str(", open world");
    }
    what.push(')');
    if read_only.is_none() || ann.is_some_and(|a| !a.is_object()) {
        what.push_str("; its annotations are not well-formed, the defaults are assumed");
    }
    (ChangeClass::Security, what)
}

/// Compares the `annotations` of one tool (at `path`, which ends in `/annotations`).
pub(super) fn annotations(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    let empty = Map::new();
    let (Some(bm), Some(am)) = (
        object_or_empty(b, &empty, false),
        object_or_empty(a, &empty, false),
    ) else {
        generic(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "annotations that are not an object have no effective hints",
            0,
        );
        return;
    };
    let ro_after = effective(a, "readOnlyHint") == Some(true);
    let ro_before = effective(b, "readOnlyHint") == Some(true);
    for key in union(bm, am) {
        let (bv, av) = (bm.get(key), am.get(key));
        let hpath = child(path, key);
        if same_opt(bv, av) {
            continue;
        }
        if default_of(key).is_none() {
            let (class, why) = if key == "title" {
                (ChangeClass::Cosmetic, "a display name")
            } else {
                (ChangeClass::Unjudged, "not a hint the spec defines")
            };
            generic(out, class, &hpath, bv, av, why, 0);
            continue;
        }
        let (Some(eb), Some(ea)) = (effective(b, key), effective(a, key)) else {
            generic(
                out,
                ChangeClass::Unjudged,
                &hpath,
                bv,
                av,
                "a hint that is not a boolean has no effective value",
                0,
            );
            continue;
        };
        if eb == ea {
            // Absent on one side, the explicit default on the other: the same surface.
            continue;
        }
        let (class, why) = judge(key, eb, ea, ro_before, ro_after, a);
        out.push(
            class,
            hpath,
            Some(&Value::Bool(eb)),
            Some(&Value::Bool(ea)),
            format!("`{key}` {eb} → {ea} (effective): {why}"),
        );
    }
}

fn judge(
    key: &str,
    before: bool,
    after: bool,
    ro_before: bool,
    ro_after: bool,
    a: Option<&Value>,
) -> (ChangeClass, String) {
    let meaningless = key != "readOnlyHint" && key != "openWorldHint" && ro_before && ro_after;
    if meaningless {
        return (
            ChangeClass::Cosmetic,
            "no effect while the tool is read-only".to_owned(),
        );
    }
    match (key, after) {
        ("readOnlyHint", false) => {
            let mut why = "the tool may now write on the user's behalf".to_owned();
            if effective(a, "destructiveHint") != Some(false) {
                why.push_str(" and may be destructive (destructiveHint true or absent)");
            }
            (ChangeClass::Security, why)
        }
        ("readOnlyHint", true) => (
            ChangeClass::Security,
            "the tool now claims to be read-only: hosts may run it without asking, check the \
             claim"
                .to_owned(),
        ),
        ("destructiveHint", true) => (
            ChangeClass::Security,
            "the tool may now destroy data".to_owned(),
        ),
        ("destructiveHint", false) => (
            ChangeClass::Additive,
            "the tool now declares it does not destroy data".to_owned(),
        ),
        ("idempotentHint", false) => (
            ChangeClass::Security,
            "repeating a call may now repeat its effect".to_owned(),
        ),
        ("idempotentHint", true) => (
            ChangeClass::Additive,
            "the tool now declares repeated calls have no further effect".to_owned(),
        ),
        ("openWorldHint", true) => (
            ChangeClass::Security,
            "the tool may now reach the open world (external systems)".to_owned(),
        ),
        ("openWorldHint", false) => (
            ChangeClass::Additive,
            "the tool now declares a closed world".to_owned(),
        ),
        _ => (
            ChangeClass::Unjudged,
            format!("{before} → {after}: not judged"),
        ),
    }
}

/// A tool with annotation hints that spell out their default removed, and an `annotations`
/// left empty removed: what the engine compares to decide "no change at all".
pub(super) fn normalize_tool(tool: &Value) -> Value {
    let mut tool = tool.clone();
    if let Some(m) = tool.as_object_mut() {
        let now_empty = match m.get_mut("annotations") {
            Some(Value::Object(ann)) => {
                for (hint, default) in HINTS {
                    if ann.get(hint) == Some(&Value::Bool(default)) {
                        ann.remove(hint);
                    }
                }
                ann.is_empty()
            }
            _ => false,
        };
        if now_empty {
            m.remove("annotations");
        }
    }
    tool
}

/// A document with every tool normalised as in [`normalize_tool`].
pub(super) fn normalize_document(doc: &Value) -> Value {
    let mut doc = doc.clone();
    if let Some(Value::Array(tools)) = doc.get_mut("tools") {
        for t in tools.iter_mut() {
            *t = normalize_tool(t);
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn effective_values() {
        assert_eq!(effective(None, "readOnlyHint"), Some(false));
        assert_eq!(effective(Some(&json!({})), "destructiveHint"), Some(true));
        assert_eq!(
            effective(Some(&json!({"openWorldHint": false})), "openWorldHint"),
            Some(false)
        );
        assert_eq!(
            effective(Some(&json!({"readOnlyHint": 1})), "readOnlyHint"),
            None
        );
        assert_eq!(effective(Some(&json!([])), "readOnlyHint"), None);
    }

    #[test]
    fn normalize_drops_defaults_and_empty_annotations() {
        let t = json!({"name":"t","annotations":{"readOnlyHint":false,"destructiveHint":true,
            "idempotentHint":false,"openWorldHint":true}});
        assert_eq!(normalize_tool(&t), json!({"name":"t"}));
        let t = json!({"name":"t","annotations":{"readOnlyHint":true,"title":"T"}});
        assert_eq!(normalize_tool(&t), t);
    }

    #[test]
    fn new_tools() {
        assert_eq!(new_tool("a", &json!({})).0, ChangeClass::Security);
        assert_eq!(
            new_tool("a", &json!({"annotations":{"readOnlyHint":true}})).0,
            ChangeClass::Additive
        );
        let (class, why) = new_tool(
            "a",
            &json!({"annotations":{"destructiveHint":false,"openWorldHint":false}}),
        );
        assert_eq!(class, ChangeClass::Security);
        assert!(!why.contains("destructive"), "{why}");
    }
}
