//! Semantic diff of two canonical surfaces, with contract-break classes.
//!
//! The fingerprint says *that* a surface changed; this module says *how*, and whether the change
//! can break a client that was written against the old surface. [`diff`] compares two canonical
//! surface objects (`mcpseal/1`, or `mcp-surface/1` with `initialize` in place of `server`) and
//! returns every difference as a [`Change`] with a [`ChangeClass`]. [`SurfaceDiff::required_bump`]
//! turns the classes into the smallest semver bump that may carry the change.
//!
//! # Invariants
//!
//! * **Nothing is dropped.** Every difference between the two objects yields at least one
//!   [`Change`]; a difference the engine does not understand is [`ChangeClass::Unjudged`]. Each
//!   level (document, list, item, schema node, server field) is guarded: if its judges emitted
//!   nothing although its values differ, an `unjudged` change is emitted for it. The one,
//!   deliberate, exception: a tool annotation hint that is absent on one side and explicitly set
//!   to its default on the other (`readOnlyHint: false`, `destructiveHint: true`,
//!   `idempotentHint: false`, `openWorldHint: true`, or an `annotations: {}`) is no change at
//!   all, because every client sees the same effective value. The fingerprints of such two
//!   surfaces still differ, so a caller may see different hashes and an empty diff.
//! * **Pure and total.** No I/O, no panics, whatever JSON is passed; recursion is bounded
//!   ([`MAX_DEPTH`]); beyond it a difference is reported as one `unjudged` change.
//! * **Stable.** Changes are sorted by [`Change::path`] (UTF-16 code units, as the canonical
//!   form orders identities); changes at the same path keep the order they were judged in, so
//!   the same two inputs always give the same list.
//! * **Values compare as their canonical bytes** (RFC 8785): `1` and `1.0` are equal, as they are
//!   in the fingerprint.
//!
//! # Paths
//!
//! [`Change::path`] is a JSON pointer (RFC 6901: `~` is written `~0` and `/` is written `~1`
//! inside a segment) into the canonical surface, except that list items are addressed by their
//! identity (`name=echo`, `uri=fixture:~1~1readme`, `uriTemplate=x:~1~1{id}`), so are prompt
//! arguments (`arguments/name=who`), and a change of whether a property is required is reported
//! at `<schema>/required/<property>`. Examples: `/tools/name=echo/inputSchema/properties/x/type`,
//! `/server/capabilities/tools/listChanged`, `/prompts/name=greet/arguments/name=who/required`.
//!
//! # Classes and the bump they need
//!
//! See [`ChangeClass`] for what falls into each class and [`SurfaceDiff::required_bump`] for
//! the mapping to a semver bump. The judges live in one file per concept: `lists` (items
//! added/removed/changed, renames), `schema` (JSON Schema input/output), `annotations` (tool
//! hints), `tools`, `resources`, `prompts`, `server` (era, capabilities, versions,
//! instructions, identity).
//! The result types live in `change`, the judges' shared kit (change collector, paths, generic
//! walk, guard) in `walk`; `diff/mod.rs` keeps the entry point ([`diff`]) and the document
//! level (form, era, server part, lists, the `mcp-surface/1` ↔ `mcpseal/1` server shape).

use serde_json::{Map, Value};

use crate::jcs::{jcs, utf16_cmp};

mod annotations;
mod change;
mod lists;
mod prompts;
mod resources;
mod schema;
mod server;
mod tools;
mod walk;

pub use change::{Bump, Change, ChangeClass, Summary, SurfaceDiff};
use walk::{
    Out, changed, child, cmp16, generic, guard, listing, meta, object_or_empty, same, same_opt,
    show, union,
};

/// How deep the engine follows nested objects before it stops judging and reports the whole
/// remaining subtree as one `unjudged` change (the canonical form's parser limit is 128).
pub const MAX_DEPTH: usize = 160;

/// Compares two canonical surface objects and classifies every difference.
///
/// Both arguments are canonical surfaces as `Surface::canonical_value` writes them
/// (`mcpseal/1`: `{"form","era","server":{...},"tools","resources","resourceTemplates",
/// "prompts"}`); `mcp-surface/1` objects (`initialize` instead of `server`, no `form`/`era`)
/// are judged the same way. Any other JSON is accepted: what cannot be judged is reported as
/// [`ChangeClass::Unjudged`]. Never panics.
///
/// ```
/// use mcpseal_surface::diff::{diff, Bump, ChangeClass};
/// use serde_json::json;
///
/// let before = json!({"form":"mcpseal/1","era":"2025-11-25","server":null,"resources":null,
///   "resourceTemplates":null,"prompts":null,
///   "tools":[{"name":"echo","inputSchema":{"type":"object",
///     "properties":{"text":{"type":"string"}},"required":["text"]}}]});
/// let mut after = before.clone();
/// after["tools"][0]["inputSchema"]["properties"]["text"]["type"] = json!("number");
/// let d = diff(&before, &after);
/// assert!(d.has(ChangeClass::Breaking));
/// assert_eq!(d.required_bump(), Bump::Major);
/// assert_eq!(d.changes[0].path, "/tools/name=echo/inputSchema/properties/text/type");
/// ```
pub fn diff(before: &Value, after: &Value) -> SurfaceDiff {
    let mut out = Out::default();
    document(before, after, &mut out);
    if out.changes.is_empty() && !equivalent_documents(before, after) {
        out.push(
            ChangeClass::Unjudged,
            String::new(),
            Some(before),
            Some(after),
            "the surfaces differ in a way the diff engine does not classify".to_owned(),
        );
    }
    let mut changes = out.changes;
    changes.sort_by(|a, b| utf16_cmp(&a.path, &b.path));
    SurfaceDiff { changes }
}

/// The top level: form, era, server part, the four lists, anything else.
fn document(before: &Value, after: &Value, out: &mut Out) {
    let (Some(b), Some(a)) = (before.as_object(), after.as_object()) else {
        if !same(before, after) {
            out.push(
                ChangeClass::Unjudged,
                String::new(),
                Some(before),
                Some(after),
                "not a canonical surface object on both sides: compared as plain JSON".to_owned(),
            );
        }
        return;
    };
    // One side `mcpseal/1`, the other `mcp-surface/1`: compare the server parts in one shape.
    let (b, a) = (server_shaped(b, a), server_shaped(a, b));
    let (b, a) = (b.as_ref(), a.as_ref());
    for key in union(b, a) {
        let (bv, av) = (b.get(key), a.get(key));
        let path = child("", key);
        match key {
            "form" => changed(
                out,
                ChangeClass::Unjudged,
                &path,
                bv,
                av,
                "the canonical form differs: the two surfaces were written in different forms, \
                 compare surfaces of one form",
            ),
            "era" => {
                out.item = Some("server".to_owned());
                server::era(&path, bv, av, out);
                out.item = None;
            }
            "server" | "initialize" => {
                out.item = Some("server".to_owned());
                server::server(&path, bv, av, out);
                out.item = None;
            }
            "tools" | "resources" | "resourceTemplates" | "prompts" => {
                lists::list(key, bv, av, out);
            }
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &path,
                bv,
                av,
                "not part of the canonical form",
                0,
            ),
        }
    }
}

/// `doc` with its `initialize` (an `mcp-surface/1` object) rewritten as an `mcpseal/1` `server`
/// part when `other` has a `server` part and no `initialize`: `protocolVersion` becomes the
/// one-element `supportedVersions`, as SPEC.md section 3 maps a 2025 capture. Otherwise `doc`
/// unchanged.
fn server_shaped<'a>(
    doc: &'a Map<String, Value>,
    other: &Map<String, Value>,
) -> std::borrow::Cow<'a, Map<String, Value>> {
    let cross = doc.contains_key("initialize")
        && !doc.contains_key("server")
        && other.contains_key("server")
        && !other.contains_key("initialize");
    if !cross {
        return std::borrow::Cow::Borrowed(doc);
    }
    let mut doc = doc.clone();
    if let Some(init) = doc.remove("initialize") {
        let server = match init {
            Value::Object(mut m) => {
                let versions = match m.remove("protocolVersion") {
                    None | Some(Value::Null) => Value::Null,
                    Some(v) => Value::Array(vec![v]),
                };
                m.insert("supportedVersions".to_owned(), versions);
                Value::Object(m)
            }
            other => other,
        };
        doc.insert("server".to_owned(), server);
    }
    std::borrow::Cow::Owned(doc)
}

/// True when the two documents are equal once tool annotation hints that spell out their
/// default are removed (the only difference the engine deliberately reports as no change).
fn equivalent_documents(before: &Value, after: &Value) -> bool {
    if same(before, after) {
        return true;
    }
    same(
        &annotations::normalize_document(before),
        &annotations::normalize_document(after),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bump_mapping() {
        assert_eq!(SurfaceDiff::default().required_bump(), Bump::None);
        for (class, bump) in [
            (ChangeClass::Breaking, Bump::Major),
            (ChangeClass::Security, Bump::Minor),
            (ChangeClass::Additive, Bump::Minor),
            (ChangeClass::Cosmetic, Bump::Patch),
            (ChangeClass::Unjudged, Bump::Patch),
        ] {
            let d = SurfaceDiff {
                changes: vec![Change {
                    class,
                    path: "/x".to_owned(),
                    item: None,
                    before: None,
                    after: None,
                    explanation: String::new(),
                }],
            };
            assert_eq!(d.required_bump(), bump);
            assert!(d.has(class));
            assert_eq!(d.summary().count(class), 1);
            assert_eq!(d.summary().total(), 1);
        }
        assert!(Bump::None < Bump::Patch && Bump::Patch < Bump::Minor && Bump::Minor < Bump::Major);
    }

    #[test]
    fn change_serde_keeps_present_null() {
        let c = Change {
            class: ChangeClass::Breaking,
            path: "/prompts".to_owned(),
            item: None,
            before: Some(json!([])),
            after: Some(Value::Null),
            explanation: "x".to_owned(),
        };
        let text = serde_json::to_string(&c).unwrap_or_default();
        assert!(text.contains("\"after\":null"), "{text}");
        assert!(text.contains("\"class\":\"breaking\""), "{text}");
        let back: Result<Change, _> = serde_json::from_str(&text);
        assert_eq!(back.ok(), Some(c.clone()));
        let absent = Change { after: None, ..c };
        let text = serde_json::to_string(&absent).unwrap_or_default();
        assert!(!text.contains("after"), "{text}");
        let back: Result<Change, _> = serde_json::from_str(&text);
        assert_eq!(back.ok(), Some(absent));
        assert_eq!(serde_json::to_value(Bump::Minor).ok(), Some(json!("minor")));
    }

    #[test]
    fn non_objects_do_not_panic() {
        assert!(diff(&json!(1), &json!(1.0)).is_empty());
        let d = diff(&json!([1]), &json!("x"));
        assert_eq!(d.changes.len(), 1);
        assert_eq!(d.changes[0].class, ChangeClass::Unjudged);
        assert_eq!(d.changes[0].path, "");
    }

    #[test]
    fn cross_form_server_parts_are_compared_in_one_shape() {
        let b = json!({"initialize": {"protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}}, "instructions": null, "serverInfo": {"name": "d"}},
            "tools": []});
        let a = json!({"form": "mcpseal/1", "era": "2025-11-25", "server": {
            "supportedVersions": ["2025-11-25"], "capabilities": {"tools": {}},
            "instructions": null, "serverInfo": {"name": "d"}}, "tools": []});
        let d = diff(&b, &a);
        let paths: Vec<&str> = d.changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(paths, vec!["/era", "/form"], "{d:#?}");
        assert!(d.changes.iter().all(|c| c.class == ChangeClass::Unjudged));
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let mut b = json!(1);
        let mut a = json!(2);
        for _ in 0..(MAX_DEPTH * 2) {
            b = json!({ "k": b });
            a = json!({ "k": a });
        }
        let d = diff(&json!({ "x": b }), &json!({ "x": a }));
        assert_eq!(d.changes.len(), 1);
    }
}
