//! JSON Schema comparison for a tool's `inputSchema` and `outputSchema`.
//!
//! One rule, two directions. A change either *narrows* what a schema accepts (a type, enum or
//! const value dropped, a bound tightened, a property newly required) or *widens* it. On the
//! **input** side the client produces and the server validates: narrowing refuses calls that
//! used to work (breaking), widening is additive. On the **output** side the server produces and
//! the client relies on it: widening may hand the client a value it did not expect (breaking: a
//! new type or enum value, a bound loosened, a guaranteed field made optional or removed),
//! narrowing is a stronger guarantee (additive). The judges recurse through `properties`,
//! `items`, `prefixItems` and object-valued `additionalProperties`, at any depth.
//!
//! Keywords are judged one by one, conservatively: `minimum: 0` → `exclusiveMinimum: 0` is a
//! loosened `minimum` *and* a new `exclusiveMinimum`. Absent, `true` and `{}` are the same
//! schema (accept anything). What is not judged, and reported as `unjudged` with its path:
//! `anyOf`/`oneOf`/`allOf`/`not`, `$ref`/`$defs`/`definitions`, `if`/`then`/`else`, `pattern`,
//! `format`, `patternProperties`, `dependentRequired`/`dependentSchemas`, `contains`,
//! `propertyNames`, `unevaluated*`, `default`, `$schema`, extension keys, and
//! `additionalProperties` turning to or from `false` (as in mcp-surface: a parameter that used
//! to be ignored silently is now refused, which makes an existing error visible; not judged).
//! Descriptions inside a schema are read by the model, as the tool description is: security.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{
    ChangeClass, MAX_DEPTH, Out, changed, child, cmp16, generic, jcs, listing, same, same_opt,
    show, union,
};

/// Which side of the call a schema describes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Input,
    Output,
}

/// Compares `inputSchema`s. A tool without one is malformed: its appearance or disappearance is
/// reported, not judged.
pub(super) fn input_root(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    match (b, a) {
        (Some(b), Some(a)) => node(path, b, a, Dir::Input, 0, out),
        _ => changed(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "a tool must have an `inputSchema`; one side is malformed",
        ),
    }
}

/// Compares `outputSchema`s: dropping one is breaking (clients validating structured results
/// lose their contract), adding one is additive.
pub(super) fn output_root(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    match (b, a) {
        (Some(b), Some(a)) => node(path, b, a, Dir::Output, 0, out),
        (Some(_), None) => changed(
            out,
            ChangeClass::Breaking,
            path,
            b,
            a,
            "clients that validated or relied on the structured result lose their contract",
        ),
        (None, Some(_)) => changed(
            out,
            ChangeClass::Additive,
            path,
            b,
            a,
            "the tool now describes its structured result",
        ),
        (None, None) => {}
    }
}

/// Narrowing: breaking on input, additive on output.
fn narrowed(out: &mut Out, dir: Dir, path: &str, b: Option<&Value>, a: Option<&Value>, what: &str) {
    let (class, why) = match dir {
        Dir::Input => (
            ChangeClass::Breaking,
            "input that used to be valid is now refused",
        ),
        Dir::Output => (
            ChangeClass::Additive,
            "the output is more constrained: a stronger guarantee for clients",
        ),
    };
    out.push(class, path.to_owned(), b, a, format!("{what}: {why}"));
}

/// Widening: additive on input, breaking on output.
fn widened(out: &mut Out, dir: Dir, path: &str, b: Option<&Value>, a: Option<&Value>, what: &str) {
    let (class, why) = match dir {
        Dir::Input => (ChangeClass::Additive, "more input is accepted"),
        Dir::Output => (
            ChangeClass::Breaking,
            "the tool may now return what clients did not expect",
        ),
    };
    out.push(class, path.to_owned(), b, a, format!("{what}: {why}"));
}

/// One schema node (object or boolean schema).
fn node(path: &str, b: &Value, a: &Value, dir: Dir, depth: usize, out: &mut Out) {
    if same(b, a) {
        return;
    }
    if depth >= MAX_DEPTH {
        out.push(
            ChangeClass::Unjudged,
            path.to_owned(),
            Some(b),
            Some(a),
            "schema nested too deeply to judge".to_owned(),
        );
        return;
    }
    let n = out.len();
    let empty = Map::new();
    match (as_schema(b, &empty), as_schema(a, &empty)) {
        (Some(bm), Some(am)) => keywords(path, bm, am, dir, depth, out),
        _ => match (b, a) {
            (_, Value::Bool(false)) => narrowed(
                out,
                dir,
                path,
                Some(b),
                Some(a),
                "schema is now `false` (accepts nothing)",
            ),
            (Value::Bool(false), _) => widened(
                out,
                dir,
                path,
                Some(b),
                Some(a),
                "schema was `false` (accepted nothing)",
            ),
            _ => out.push(
                ChangeClass::Unjudged,
                path.to_owned(),
                Some(b),
                Some(a),
                "not a JSON Schema (object or boolean) on one side".to_owned(),
            ),
        },
    }
    if out.len() == n {
        let unconstrained = |v: &Value| match v {
            Value::Bool(true) => true,
            Value::Object(m) => m.is_empty(),
            _ => false,
        };
        let (class, why) = if unconstrained(b) && unconstrained(a) {
            (
                ChangeClass::Cosmetic,
                "`true` and `{}` are the same schema (accept anything)",
            )
        } else {
            (
                ChangeClass::Unjudged,
                "schema changed in a way the diff engine does not classify",
            )
        };
        out.push(class, path.to_owned(), Some(b), Some(a), why.to_owned());
    }
}

const LOWER: [&str; 6] = [
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
const UPPER: [&str; 6] = [
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];

/// An object schema's keywords; `true` reads as `{}` (no keyword); anything else is not a
/// schema the engine can open.
fn as_schema<'a>(v: &'a Value, empty: &'a Map<String, Value>) -> Option<&'a Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        Value::Bool(true) => Some(empty),
        _ => None,
    }
}

/// Keyword by keyword.
fn keywords(
    path: &str,
    b: &Map<String, Value>,
    a: &Map<String, Value>,
    dir: Dir,
    depth: usize,
    out: &mut Out,
) {
    let mut props_done = false;
    for key in union(b, a) {
        let (bv, av) = (b.get(key), a.get(key));
        if same_opt(bv, av) {
            continue;
        }
        let p = child(path, key);
        match key {
            "properties" | "required" => {
                if !props_done {
                    props_done = true;
                    properties(path, b, a, dir, depth, out);
                }
            }
            "type" => types(&p, bv, av, dir, out),
            "enum" => enums(&p, bv, av, dir, out),
            "const" => consts(&p, bv, av, dir, out),
            "multipleOf" => multiple_of(&p, bv, av, dir, out),
            k if LOWER.contains(&k) => bound(&p, k, bv, av, true, dir, out),
            k if UPPER.contains(&k) => bound(&p, k, bv, av, false, dir, out),
            "items" => {
                let t = Value::Bool(true);
                match (bv.unwrap_or(&t), av.unwrap_or(&t)) {
                    (Value::Array(_), _) | (_, Value::Array(_)) => generic(
                        out,
                        ChangeClass::Unjudged,
                        &p,
                        bv,
                        av,
                        "array-form `items` (draft 4 tuples) is not judged",
                        depth,
                    ),
                    (x, y) => sub_schema(&p, bv, av, x, y, dir, depth, out),
                }
            }
            "prefixItems" => prefix_items(&p, bv, av, dir, depth, out),
            "additionalProperties" => additional(&p, bv, av, dir, depth, out),
            "description" => changed(
                out,
                ChangeClass::Security,
                &p,
                bv,
                av,
                "descriptions inside a tool's schema go into the model's prompt; review the \
                 new text",
            ),
            "title" | "examples" | "$comment" | "deprecated" => generic(
                out,
                ChangeClass::Cosmetic,
                &p,
                bv,
                av,
                "documentation only",
                depth,
            ),
            "anyOf" | "oneOf" | "allOf" | "not" => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "composition keywords are not judged",
                depth,
            ),
            "$ref" | "$defs" | "definitions" | "$id" | "$anchor" | "$dynamicRef"
            | "$dynamicAnchor" => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "references are not followed",
                depth,
            ),
            "if" | "then" | "else" | "dependentRequired" | "dependentSchemas" | "dependencies" => {
                generic(
                    out,
                    ChangeClass::Unjudged,
                    &p,
                    bv,
                    av,
                    "conditional keywords are not judged",
                    depth,
                )
            }
            "pattern" | "format" | "patternProperties" | "propertyNames" => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "patterns and formats are not compared",
                depth,
            ),
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "a keyword the diff engine does not judge",
                depth,
            ),
        }
    }
}

/// `properties` and `required` together: a removed property that was required is one change,
/// not two.
fn properties(
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

/// The set of types a `type` keyword accepts: `Ok(None)` when absent (any type).
fn type_set(v: Option<&Value>) -> Result<Option<BTreeSet<&str>>, ()> {
    match v {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(BTreeSet::from([s.as_str()]))),
        Some(Value::Array(xs)) => xs
            .iter()
            .map(|x| x.as_str().ok_or(()))
            .collect::<Result<BTreeSet<&str>, ()>>()
            .map(Some),
        Some(_) => Err(()),
    }
}

/// True when a set of types accepts every value of type `t` (`number` covers `integer`).
fn covers(set: &BTreeSet<&str>, t: &str) -> bool {
    set.contains(t) || (t == "integer" && set.contains("number"))
}

fn types(p: &str, bv: Option<&Value>, av: Option<&Value>, dir: Dir, out: &mut Out) {
    let (Ok(bs), Ok(as_)) = (type_set(bv), type_set(av)) else {
        generic(
            out,
            ChangeClass::Unjudged,
            p,
            bv,
            av,
            "`type` that is not a string or an array of strings is not judged",
            0,
        );
        return;
    };
    let list = |s: &[&str]| {
        s.iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (bs, as_) {
        (None, Some(s)) => {
            let v: Vec<&str> = s.into_iter().collect();
            narrowed(
                out,
                dir,
                p,
                bv,
                av,
                &format!("type now restricted to {}", list(&v)),
            );
        }
        (Some(s), None) => {
            let v: Vec<&str> = s.into_iter().collect();
            widened(
                out,
                dir,
                p,
                bv,
                av,
                &format!("type no longer restricted to {}", list(&v)),
            );
        }
        (Some(bs), Some(as_)) => {
            let lost: Vec<&str> = bs.iter().copied().filter(|t| !covers(&as_, t)).collect();
            let gained: Vec<&str> = as_.iter().copied().filter(|t| !covers(&bs, t)).collect();
            if !lost.is_empty() {
                narrowed(
                    out,
                    dir,
                    p,
                    bv,
                    av,
                    &format!("type {} no longer allowed", list(&lost)),
                );
            }
            if !gained.is_empty() {
                widened(
                    out,
                    dir,
                    p,
                    bv,
                    av,
                    &format!("type {} now allowed", list(&gained)),
                );
            }
            if lost.is_empty() && gained.is_empty() {
                out.push(
                    ChangeClass::Cosmetic,
                    p.to_owned(),
                    bv,
                    av,
                    "`type` accepts the same values, spelled differently".to_owned(),
                );
            }
        }
        (None, None) => {}
    }
}

fn enums(p: &str, bv: Option<&Value>, av: Option<&Value>, dir: Dir, out: &mut Out) {
    let set = |v: &Value| -> Option<Vec<(Vec<u8>, Value)>> {
        let mut xs: Vec<(Vec<u8>, Value)> =
            v.as_array()?.iter().map(|x| (jcs(x), x.clone())).collect();
        xs.sort_by(|x, y| x.0.cmp(&y.0));
        xs.dedup_by(|x, y| x.0 == y.0);
        Some(xs)
    };
    match (bv.map(set), av.map(set)) {
        (None, Some(Some(_))) => narrowed(out, dir, p, bv, av, "`enum` added: values restricted"),
        (Some(Some(_)), None) => widened(out, dir, p, bv, av, "`enum` removed: any value allowed"),
        (Some(Some(bs)), Some(Some(as_))) => {
            // Both are sorted and deduplicated by bytes: binary search.
            let has = |s: &[(Vec<u8>, Value)], k: &[u8]| {
                s.binary_search_by(|x| x.0.as_slice().cmp(k)).is_ok()
            };
            let lost: Vec<String> = bs
                .iter()
                .filter(|x| !has(&as_, &x.0))
                .map(|x| show(&x.1))
                .collect();
            let gained: Vec<String> = as_
                .iter()
                .filter(|x| !has(&bs, &x.0))
                .map(|x| show(&x.1))
                .collect();
            if !lost.is_empty() {
                narrowed(
                    out,
                    dir,
                    p,
                    bv,
                    av,
                    &format!("enum value(s) {} removed", listing(&lost)),
                );
            }
            if !gained.is_empty() {
                widened(
                    out,
                    dir,
                    p,
                    bv,
                    av,
                    &format!("enum value(s) {} added", listing(&gained)),
                );
            }
            if lost.is_empty() && gained.is_empty() {
                out.push(
                    ChangeClass::Cosmetic,
                    p.to_owned(),
                    bv,
                    av,
                    "`enum` holds the same values (order or duplicates)".to_owned(),
                );
            }
        }
        _ => generic(
            out,
            ChangeClass::Unjudged,
            p,
            bv,
            av,
            "`enum` that is not an array is not judged",
            0,
        ),
    }
}

fn consts(p: &str, bv: Option<&Value>, av: Option<&Value>, dir: Dir, out: &mut Out) {
    match (bv, av) {
        (None, Some(v)) => narrowed(out, dir, p, bv, av, &format!("`const` {} added", show(v))),
        (Some(v), None) => widened(out, dir, p, bv, av, &format!("`const` {} removed", show(v))),
        (Some(x), Some(y)) => {
            narrowed(
                out,
                dir,
                p,
                bv,
                av,
                &format!("value {} no longer allowed", show(x)),
            );
            widened(
                out,
                dir,
                p,
                bv,
                av,
                &format!("value {} now the only one", show(y)),
            );
        }
        (None, None) => {}
    }
}

/// A lower (`lower`) or upper bound: tightening narrows, loosening widens.
fn bound(
    p: &str,
    key: &str,
    bv: Option<&Value>,
    av: Option<&Value>,
    lower: bool,
    dir: Dir,
    out: &mut Out,
) {
    let num = |v: Option<&Value>| -> Result<Option<f64>, ()> {
        match v {
            None => Ok(None),
            Some(Value::Number(n)) => n.as_f64().map(Some).ok_or(()),
            Some(_) => Err(()),
        }
    };
    let (Ok(x), Ok(y)) = (num(bv), num(av)) else {
        generic(
            out,
            ChangeClass::Unjudged,
            p,
            bv,
            av,
            "a bound that is not a number (e.g. a draft-4 boolean) is not judged",
            0,
        );
        return;
    };
    let tightened = match (x, y) {
        (None, Some(_)) => Some(true),
        (Some(_), None) => Some(false),
        (Some(x), Some(y)) if x != y => Some(if lower { y > x } else { y < x }),
        _ => None,
    };
    let shown = |v: Option<f64>| v.map_or_else(|| "absent".to_owned(), |v| v.to_string());
    let what = format!("`{key}` {} → {}", shown(x), shown(y));
    match tightened {
        Some(true) => narrowed(out, dir, p, bv, av, &format!("{what}, tightened")),
        Some(false) => widened(out, dir, p, bv, av, &format!("{what}, loosened")),
        None => out.push(
            ChangeClass::Cosmetic,
            p.to_owned(),
            bv,
            av,
            format!("{what}: the same bound"),
        ),
    }
}

fn multiple_of(p: &str, bv: Option<&Value>, av: Option<&Value>, dir: Dir, out: &mut Out) {
    let num = |v: Option<&Value>| -> Result<Option<f64>, ()> {
        match v {
            None => Ok(None),
            Some(Value::Number(n)) => n.as_f64().filter(|x| *x > 0.0).map(Some).ok_or(()),
            Some(_) => Err(()),
        }
    };
    let (Ok(x), Ok(y)) = (num(bv), num(av)) else {
        generic(
            out,
            ChangeClass::Unjudged,
            p,
            bv,
            av,
            "`multipleOf` that is not a positive number is not judged",
            0,
        );
        return;
    };
    let whole = |r: f64| r.is_finite() && (r - r.round()).abs() < 1e-9;
    match (x, y) {
        (None, Some(_)) => narrowed(out, dir, p, bv, av, "`multipleOf` added"),
        (Some(_), None) => widened(out, dir, p, bv, av, "`multipleOf` removed"),
        (Some(x), Some(y)) => {
            // multiples of y ⊇ multiples of x iff x is a multiple of y.
            let widens = whole(x / y);
            let narrows = whole(y / x);
            let what = format!("`multipleOf` {x} → {y}");
            match (narrows, widens) {
                (true, true) => out.push(
                    ChangeClass::Cosmetic,
                    p.to_owned(),
                    bv,
                    av,
                    format!("{what}: the same constraint"),
                ),
                (true, false) => narrowed(out, dir, p, bv, av, &format!("{what}, tightened")),
                (false, true) => widened(out, dir, p, bv, av, &format!("{what}, loosened")),
                (false, false) => {
                    narrowed(out, dir, p, bv, av, &format!("{what}, some values lost"));
                    widened(out, dir, p, bv, av, &format!("{what}, some values gained"));
                }
            }
        }
        (None, None) => {}
    }
}

fn prefix_items(
    p: &str,
    bv: Option<&Value>,
    av: Option<&Value>,
    dir: Dir,
    depth: usize,
    out: &mut Out,
) {
    match (bv.and_then(Value::as_array), av.and_then(Value::as_array)) {
        (Some(bs), Some(as_)) if bs.len() == as_.len() => {
            for (i, (x, y)) in bs.iter().zip(as_).enumerate() {
                node(&child(p, &i.to_string()), x, y, dir, depth + 1, out);
            }
        }
        _ => generic(
            out,
            ChangeClass::Unjudged,
            p,
            bv,
            av,
            "`prefixItems` added, removed or of another length is not judged",
            depth,
        ),
    }
}

fn additional(
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

/// A sub-schema keyword where absent means `true`: judged as a schema, and an absent vs
/// `true`/`{}` spelling is cosmetic.
#[expect(clippy::too_many_arguments, reason = "one judge's full context")]
fn sub_schema(
    p: &str,
    bv: Option<&Value>,
    av: Option<&Value>,
    x: &Value,
    y: &Value,
    dir: Dir,
    depth: usize,
    out: &mut Out,
) {
    let n = out.len();
    node(p, x, y, dir, depth + 1, out);
    if out.len() == n {
        changed(
            out,
            ChangeClass::Cosmetic,
            p,
            bv,
            av,
            "absent, `true` and `{}` are the same schema (accept anything)",
        );
    }
}
