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
//! `propertyNames`, `unevaluated*`, `default`, a `$schema` naming another dialect (another
//! spelling of the same URI is cosmetic), extension keys, and
//! `additionalProperties` turning to or from `false` (as in mcp-surface: a parameter that used
//! to be ignored silently is now refused, which makes an existing error visible; not judged).
//! Descriptions inside a schema are read by the model, as the tool description is: security.
//!
//! Layout: this file holds the two roots, the direction rule ([`narrowed`]/[`widened`]), the
//! walk over one schema node and its keywords, and the recursion into sub-schemas (`items`,
//! `prefixItems`); the judges of single keywords live in [`types`](mod@types) (`type`, `enum`,
//! `const`), [`bounds`] (numeric and size bounds, `multipleOf`) and [`objects`] (`properties`
//! with `required`, `additionalProperties`).

mod bounds;
mod objects;
mod types;

use serde_json::{Map, Value};

use super::{ChangeClass, MAX_DEPTH, Out, changed, child, generic, same, same_opt, union};
use bounds::{LOWER, UPPER, bound, multiple_of};
use objects::{additional, properties};
use types::{consts, enums, types};

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
            "$schema" => dialect(out, &p, bv, av),
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

/// `$schema`: two spellings of one meta-schema URI (`http` or `https` on json-schema.org, with
/// or without the empty fragment `#`) are cosmetic. Anything else names another dialect, or
/// moves between "declared" and "the default": drafts differ in what a schema means (array
/// `items`, siblings of `$ref`, `dependencies`, `format`), and the keyword judges above read one
/// dialect, so such a change can change validation in ways they do not see: unjudged, with a
/// reason saying so (SPEC §9.3).
fn dialect(out: &mut Out, p: &str, bv: Option<&Value>, av: Option<&Value>) {
    fn spelling(v: &Value) -> Option<String> {
        let uri = v.as_str()?.trim_end_matches('#');
        Some(match uri.strip_prefix("http://json-schema.org/") {
            Some(rest) => format!("https://json-schema.org/{rest}"),
            None => uri.to_owned(),
        })
    }
    let same = match (bv.and_then(spelling), av.and_then(spelling)) {
        (Some(b), Some(a)) => b == a,
        _ => false,
    };
    if same {
        changed(
            out,
            ChangeClass::Cosmetic,
            p,
            bv,
            av,
            "another spelling of the same meta-schema URI",
        );
    } else {
        changed(
            out,
            ChangeClass::Unjudged,
            p,
            bv,
            av,
            "the schema's dialect changed: drafts differ in what keywords mean, so validation may change in ways the diff engine does not judge",
        );
    }
}

/// `prefixItems`: judged position by position when both sides have as many; otherwise not
/// judged.
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
