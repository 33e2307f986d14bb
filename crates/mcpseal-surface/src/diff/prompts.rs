//! The fields of one prompt, and its arguments.
//!
//! Arguments are matched by `name`. Removed or newly required (including a new required
//! argument) is breaking: a client that fills the old form is refused. A new optional argument
//! or one no longer required is additive. `required` absent and `false` are the same value, and
//! a change between them is cosmetic. Descriptions (of the prompt and of its arguments) are
//! security changes, as everywhere; titles and icons are cosmetic; a different argument order
//! is cosmetic (it only changes how a form is laid out).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{ChangeClass, Out, changed, child, generic, meta, same_opt, union};

/// Compares two prompts with the same name (at `path`, `/prompts/name=<name>`).
pub(super) fn prompt(path: &str, b: &Map<String, Value>, a: &Map<String, Value>, out: &mut Out) {
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
                "the prompt description goes in front of the user and the model; review the \
                 new text",
            ),
            "title" | "icons" => generic(out, ChangeClass::Cosmetic, &p, bv, av, "display only", 0),
            "arguments" => arguments(&p, bv, av, out),
            "_meta" => meta(out, &p, bv, av),
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "a prompt field the engine does not judge",
                0,
            ),
        }
    }
}

/// Arguments by name, in order; `None` when not an array of objects with unique string names.
/// Arguments by name, and the names in list order.
type Arguments<'a> = (BTreeMap<&'a str, &'a Map<String, Value>>, Vec<&'a str>);

fn by_name(v: Option<&Value>) -> Option<Arguments<'_>> {
    let Some(v) = v else {
        return Some((BTreeMap::new(), Vec::new()));
    };
    let mut map = BTreeMap::new();
    let mut order = Vec::new();
    for arg in v.as_array()? {
        let m = arg.as_object()?;
        let name = m.get("name")?.as_str()?;
        if map.insert(name, m).is_some() {
            return None;
        }
        order.push(name);
    }
    Some((map, order))
}

/// `required` of an argument: absent is `false`; `None` when not a boolean.
fn required(m: &Map<String, Value>) -> Option<bool> {
    match m.get("required") {
        None => Some(false),
        Some(Value::Bool(r)) => Some(*r),
        Some(_) => None,
    }
}

fn arguments(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    let (Some((bm, _)), Some((am, _))) = (by_name(b), by_name(a)) else {
        generic(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "`arguments` that is not an array of objects with unique string names is not judged",
            0,
        );
        return;
    };
    let n = out.len();
    let names: std::collections::BTreeSet<&str> = bm.keys().chain(am.keys()).copied().collect();
    for name in names {
        let p = child(path, &format!("name={name}"));
        match (bm.get(name), am.get(name)) {
            (Some(x), None) => out.push(
                ChangeClass::Breaking,
                p,
                Some(&Value::Object((*x).clone())),
                None,
                format!("argument `{name}` removed: clients passing it are refused or ignored"),
            ),
            (None, Some(y)) => {
                let (class, why) = if required(y) == Some(false) {
                    (
                        ChangeClass::Additive,
                        format!("new optional argument `{name}`"),
                    )
                } else {
                    (
                        ChangeClass::Breaking,
                        format!("new required argument `{name}`: existing requests lack it"),
                    )
                };
                out.push(class, p, None, Some(&Value::Object((*y).clone())), why);
            }
            (Some(x), Some(y)) => argument(&p, x, y, out),
            (None, None) => {}
        }
    }
    if out.len() == n && !same_opt(b, a) {
        out.push(
            ChangeClass::Cosmetic,
            path.to_owned(),
            b,
            a,
            "the same arguments in another order (or absent vs `[]`)".to_owned(),
        );
    }
}

fn argument(path: &str, b: &Map<String, Value>, a: &Map<String, Value>, out: &mut Out) {
    for key in union(b, a) {
        let (bv, av) = (b.get(key), a.get(key));
        if same_opt(bv, av) {
            continue;
        }
        let p = child(path, key);
        match key {
            "name" => {}
            "required" => match (required(b), required(a)) {
                (Some(false), Some(true)) => changed(
                    out,
                    ChangeClass::Breaking,
                    &p,
                    bv,
                    av,
                    "argument newly required: requests without it are refused",
                ),
                (Some(true), Some(false)) => changed(
                    out,
                    ChangeClass::Additive,
                    &p,
                    bv,
                    av,
                    "argument no longer required",
                ),
                (Some(x), Some(y)) if x == y => changed(
                    out,
                    ChangeClass::Cosmetic,
                    &p,
                    bv,
                    av,
                    "absent and `false` mean the same",
                ),
                _ => changed(
                    out,
                    ChangeClass::Unjudged,
                    &p,
                    bv,
                    av,
                    "`required` that is not a boolean is not judged",
                ),
            },
            "description" => changed(
                out,
                ChangeClass::Security,
                &p,
                bv,
                av,
                "argument descriptions are read by the user and the model; review the new text",
            ),
            "title" => generic(out, ChangeClass::Cosmetic, &p, bv, av, "display only", 0),
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "an argument field the engine does not judge",
                0,
            ),
        }
    }
}
