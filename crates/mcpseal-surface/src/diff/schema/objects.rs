//! Object keywords: `properties` and `required` judged together (a removed required property is
//! one change, not two; on output a required field is a guarantee), and
//! `additionalProperties` (a sub-schema; turning to or from `false` is not judged).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Dir, node, sub_schema};
use crate::diff::{ChangeClass, Out, changed, child, cmp16, generic, same_opt, union};

/// `properties` and `required` together: a removed property that was required is one change,
/// not two.
pub(super) fn properties(
    path: &str,
    b: &Map<String, Value>,
    a: &Map<String, Value>,
    dir: Dir,
    depth: usize,
    out: &mut Out,
) {
    let empty = Map::new();
    let props = |m| props_of(m, &empty);
    let req = |m: &Map<String, Value>| -> Option<BTreeSet<String>> {
        match m.get("required") {
            None => Some(BTreeSet::new()),
            Some(Value::Array(xs)) => xs
                .iter()
                .map(|x| x.as_str().map(str::to_owned))
                .collect::<Option<BTreeSet<String>>>(),
            Some(_) => None,
        }
    };
    let (bp_raw, ap_raw) = (b.get("properties"), a.get("properties"));
    let (br_raw, ar_raw) = (b.get("required"), a.get("required"));
    let pp = child(path, "properties");
    let rp = child(path, "required");
    let (breq, areq, req_judged) = match (req(b), req(a)) {
        (Some(x), Some(y)) => (x, y, true),
        _ => {
            generic(
                out,
                ChangeClass::Unjudged,
                &rp,
                br_raw,
                ar_raw,
                "`required` that is not an array of strings is not judged",
                depth,
            );
            (BTreeSet::new(), BTreeSet::new(), false)
        }
    };
    let (bp, ap) = match (props(b), props(a)) {
        (Some(x), Some(y)) => (x, y),
        _ => {
            generic(
                out,
                ChangeClass::Unjudged,
                &pp,
                bp_raw,
                ap_raw,
                "`properties` that is not an object is not judged",
                depth,
            );
            (&empty, &empty)
        }
    };
    let mut touched: BTreeSet<&str> = BTreeSet::new();
    for name in union(bp, ap) {
        let (bv, av) = (bp.get(name), ap.get(name));
        let p = child(&pp, name);
        match (bv, av) {
            (Some(bv), None) => {
                touched.insert(name);
                let was_required = breq.contains(name);
                match (dir, was_required) {
                    (Dir::Input, _) => out.push(
                        ChangeClass::Breaking,
                        p,
                        Some(bv),
                        None,
                        format!(
                            "parameter `{name}` removed: clients sending it are refused or \
                             silently ignored"
                        ),
                    ),
                    (Dir::Output, true) => out.push(
                        ChangeClass::Breaking,
                        p,
                        Some(bv),
                        None,
                        format!("guaranteed output field `{name}` removed: clients relied on it"),
                    ),
                    (Dir::Output, false) => out.push(
                        ChangeClass::Additive,
                        p,
                        Some(bv),
                        None,
                        format!(
                            "optional output field `{name}` removed from the schema: it was \
                             never guaranteed, so not a break"
                        ),
                    ),
                }
            }
            (None, Some(av)) => {
                touched.insert(name);
                let required = areq.contains(name);
                match (dir, required) {
                    (Dir::Input, true) => out.push(
                        ChangeClass::Breaking,
                        p,
                        None,
                        Some(av),
                        format!(
                            "new required parameter `{name}`: existing calls lack it and are \
                             refused"
                        ),
                    ),
                    (Dir::Input, false) => out.push(
                        ChangeClass::Additive,
                        p,
                        None,
                        Some(av),
                        format!("new optional parameter `{name}`"),
                    ),
                    (Dir::Output, r) => out.push(
                        ChangeClass::Additive,
                        p,
                        None,
                        Some(av),
                        format!(
                            "new {} output field `{name}`",
                            if r { "guaranteed" } else { "optional" }
                        ),
                    ),
                }
            }
            (Some(bv), Some(av)) => node(&p, bv, av, dir, depth + 1, out),
            (None, None) => {}
        }
    }
    let mut names: Vec<&String> = breq.union(&areq).collect();
    names.sort_by(|x, y| cmp16(x, y));
    for name in names {
        if touched.contains(name.as_str()) {
            continue;
        }
        let (was, is) = (breq.contains(name), areq.contains(name));
        if was == is {
            continue;
        }
        let p = child(&rp, name);
        let (bv, av) = (Value::Bool(was), Value::Bool(is));
        match (dir, is) {
            (Dir::Input, true) => out.push(
                ChangeClass::Breaking,
                p,
                Some(&bv),
                Some(&av),
                format!("parameter `{name}` newly required: calls without it are refused"),
            ),
            (Dir::Input, false) => out.push(
                ChangeClass::Additive,
                p,
                Some(&bv),
                Some(&av),
                format!("parameter `{name}` no longer required"),
            ),
            (Dir::Output, false) => out.push(
                ChangeClass::Breaking,
                p,
                Some(&bv),
                Some(&av),
                format!("output field `{name}` made optional: clients relied on it being there"),
            ),
            (Dir::Output, true) => out.push(
                ChangeClass::Additive,
                p,
                Some(&bv),
                Some(&av),
                format!("output field `{name}` now guaranteed"),
            ),
        }
    }
    // Same set, different spelling: order, duplicates, absent vs [].
    if req_judged && !same_opt(br_raw, ar_raw) && breq == areq {
        out.push(
            ChangeClass::Cosmetic,
            rp,
            br_raw,
            ar_raw,
            "`required` names the same properties (order, duplicates or absent vs `[]`)".to_owned(),
        );
    }
    let empty_props =
        |v: Option<&Value>| v.is_none_or(|v| v.as_object().is_some_and(Map::is_empty));
    if !same_opt(bp_raw, ap_raw) && empty_props(bp_raw) && empty_props(ap_raw) {
        out.push(
            ChangeClass::Cosmetic,
            pp,
            bp_raw,
            ap_raw,
            "absent and `{}` `properties` are the same".to_owned(),
        );
    }
}

/// A schema's `properties`: absent reads as `{}`; `None` when not an object.
fn props_of<'a>(
    m: &'a Map<String, Value>,
    empty: &'a Map<String, Value>,
) -> Option<&'a Map<String, Value>> {
    match m.get("properties") {
        None => Some(empty),
        Some(Value::Object(p)) => Some(p),
        Some(_) => None,
    }
}

/// `additionalProperties`: an object-valued one is judged as a sub-schema; `false` on either
/// side is reported, not judged.
pub(super) fn additional(
    p: &str,
    bv: Option<&Value>,
    av: Option<&Value>,
    dir: Dir,
    depth: usize,
    out: &mut Out,
) {
    let is_false = |v: Option<&Value>| v == Some(&Value::Bool(false));
    if is_false(bv) || is_false(av) {
        let why = if is_false(av) {
            "a new `additionalProperties: false` is not judged: an undeclared property used to \
             be ignored silently, refusing it makes an existing error visible"
        } else {
            "`additionalProperties: false` lifted: not judged"
        };
        changed(out, ChangeClass::Unjudged, p, bv, av, why);
        return;
    }
    let t = Value::Bool(true);
    sub_schema(
        p,
        bv,
        av,
        bv.unwrap_or(&t),
        av.unwrap_or(&t),
        dir,
        depth,
        out,
    );
}
