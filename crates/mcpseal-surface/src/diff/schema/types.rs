//! Which values a schema node accepts: `type` (as a set; `number` covers `integer`), `enum`
//! (compared as sets of canonical bytes) and `const`. Losing a value narrows, gaining one
//! widens; the direction decides the class ([`narrowed`], [`widened`]).

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Dir, narrowed, widened};
use crate::diff::{ChangeClass, Out, generic, jcs, listing, show};

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

/// `type`: types no longer allowed narrow, new ones widen; a respelling is cosmetic.
pub(super) fn types(p: &str, bv: Option<&Value>, av: Option<&Value>, dir: Dir, out: &mut Out) {
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

/// `enum`: values removed narrow, values added widen; order and duplicates are cosmetic.
pub(super) fn enums(p: &str, bv: Option<&Value>, av: Option<&Value>, dir: Dir, out: &mut Out) {
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

/// `const`: added narrows, removed widens, changed does both.
pub(super) fn consts(p: &str, bv: Option<&Value>, av: Option<&Value>, dir: Dir, out: &mut Out) {
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
