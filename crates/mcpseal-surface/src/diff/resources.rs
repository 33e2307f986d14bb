//! The fields of one resource or resource template.
//!
//! Decisions: a `description` rewrite is a security change (hosts put it in front of the model
//! to choose what to read). A `mimeType` changed or removed is **breaking**: clients parse the
//! contents by it, and a client that parsed `application/json` cannot parse `text/markdown`; a
//! `mimeType` added is additive. `name` (a programmatic label; clients address resources by
//! `uri`), `title`, `icons` and `size` (which moves whenever the content does) are cosmetic.
//! Resource `annotations`: `audience` newly including `"assistant"` is a security change (the
//! content is now meant for the model), any other `audience`, `priority` or `lastModified`
//! change is cosmetic. `_meta` and unknown fields are unjudged.

use serde_json::{Map, Value};

use super::{ChangeClass, Out, changed, child, generic, meta, object_or_empty, same_opt, union};

/// Compares two resources (or two templates) with the same identity at `path`.
pub(super) fn resource(
    path: &str,
    identity: &str,
    b: &Map<String, Value>,
    a: &Map<String, Value>,
    out: &mut Out,
) {
    for key in union(b, a) {
        let (bv, av) = (b.get(key), a.get(key));
        let p = child(path, key);
        match key {
            k if k == identity => {}
            "description" => changed(
                out,
                ChangeClass::Security,
                &p,
                bv,
                av,
                "the description goes into the model's prompt; review the new text",
            ),
            "mimeType" => {
                let (class, why) = if bv.is_none() {
                    (
                        ChangeClass::Additive,
                        "clients are now told the content type",
                    )
                } else {
                    (
                        ChangeClass::Breaking,
                        "clients parse the contents by their type; one that parsed the old type \
                         may fail on the new one",
                    )
                };
                changed(out, class, &p, bv, av, why);
            }
            "name" | "title" | "icons" | "size" => generic(
                out,
                ChangeClass::Cosmetic,
                &p,
                bv,
                av,
                "a label, not how clients address the resource",
                0,
            ),
            "annotations" => annotations(&p, bv, av, out),
            "_meta" => meta(out, &p, bv, av),
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "a resource field the engine does not judge",
                0,
            ),
        }
    }
}

fn annotations(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
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
            "resource annotations that are not an object are not judged",
            0,
        );
        return;
    };
    let n = out.len();
    for key in union(bm, am) {
        let (bv, av) = (bm.get(key), am.get(key));
        if same_opt(bv, av) {
            continue;
        }
        let p = child(path, key);
        match key {
            "audience" => {
                let has = |v: Option<&Value>| {
                    v.and_then(Value::as_array)
                        .is_some_and(|xs| xs.iter().any(|x| x == "assistant"))
                };
                if has(av) && !has(bv) {
                    changed(
                        out,
                        ChangeClass::Security,
                        &p,
                        bv,
                        av,
                        "the content is now meant for the model (`assistant`)",
                    );
                } else {
                    changed(
                        out,
                        ChangeClass::Cosmetic,
                        &p,
                        bv,
                        av,
                        "who the content is for",
                    );
                }
            }
            "priority" | "lastModified" => {
                changed(out, ChangeClass::Cosmetic, &p, bv, av, "a hint for display")
            }
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "a resource annotation the engine does not judge",
                0,
            ),
        }
    }
    if out.len() == n {
        changed(
            out,
            ChangeClass::Cosmetic,
            path,
            b,
            a,
            "absent and `{}` annotations are the same",
        );
    }
}
