//! The fields of one tool: description, display fields, schemas, annotations, `_meta`.
//!
//! The description is what the model reads to decide when and how to call the tool, so any
//! rewrite is a security change (it is the shape of tool poisoning). `_meta` is listed as
//! `unjudged`: it is not specified as model-facing, but poisoned text can hide there, so a
//! change is always visible and never folded away.

use serde_json::{Map, Value};

use super::{ChangeClass, Out, annotations, changed, child, generic, meta, schema, union};

/// Compares two tools with the same name (at `path`, `/tools/name=<name>`).
pub(super) fn tool(path: &str, b: &Map<String, Value>, a: &Map<String, Value>, out: &mut Out) {
    for key in union(b, a) {
        let (bv, av) = (b.get(key), a.get(key));
        let p = child(path, key);
        match key {
            "name" => {}
            "description" => changed(
                out,
                ChangeClass::Security,
                &p,
                bv,
                av,
                "the tool description goes into the model's prompt; review the new text",
            ),
            "title" | "icons" => generic(out, ChangeClass::Cosmetic, &p, bv, av, "display only", 0),
            "inputSchema" => schema::input_root(&p, bv, av, out),
            "outputSchema" => schema::output_root(&p, bv, av, out),
            "annotations" => annotations::annotations(&p, bv, av, out),
            "_meta" => meta(out, &p, bv, av),
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "a tool field the engine does not judge",
                0,
            ),
        }
    }
}
