//! Numeric and size bounds (`minimum`/`maximum` and their exclusive forms, `min*`/`max*` of
//! strings, arrays, objects and contains) and `multipleOf`: tightening narrows, loosening widens;
//! a bound that is not a number is not judged.

use serde_json::Value;

use super::{Dir, narrowed, widened};
use crate::diff::{ChangeClass, Out, generic};

/// Lower bounds: raising one tightens.
pub(super) const LOWER: [&str; 6] = [
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
    "minContains",
];
/// Upper bounds: lowering one tightens.
pub(super) const UPPER: [&str; 6] = [
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
    "maxContains",
];

/// A lower (`lower`) or upper bound: tightening narrows, loosening widens.
pub(super) fn bound(
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

/// `multipleOf`: compared by divisibility (multiples of `y` include those of `x` iff `x` is a
/// multiple of `y`).
pub(super) fn multiple_of(
    p: &str,
    bv: Option<&Value>,
    av: Option<&Value>,
    dir: Dir,
    out: &mut Out,
) {
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
