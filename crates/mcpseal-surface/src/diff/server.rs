//! The server part: era, capabilities, supported protocol versions, instructions, identity.
//!
//! * **Era**: modern (`2026-07-28` and later) → legacy is breaking (modern clients lose the
//!   stateless protocol); legacy → modern is additive (whether legacy clients are still served
//!   shows in `supportedVersions`). Any other era change is unjudged.
//! * **Capabilities** are a tree of flags: a node that was on (present, not `null`, not `false`)
//!   and is now off or gone is breaking (`tools` gone, `listChanged` or `subscribe` off, an
//!   `experimental` entry gone); off → on is additive; absent ↔ `false` ↔ `null` is cosmetic;
//!   two different non-boolean leaves are unjudged.
//! * **Protocol versions**: a version no longer in `supportedVersions` is breaking, a new one
//!   additive, reordering cosmetic. In the legacy era the list is the single negotiated
//!   `protocolVersion`, so a legacy server moving to a newer revision loses the old one: that
//!   *is* breaking for a client that only speaks the old one. `mcp-surface/1`'s
//!   `initialize.protocolVersion` is judged the same way as a one-element list.
//! * **Instructions** go into the model's prompt: any change is security.
//! * **Identity**: `serverInfo.name` changed is security (another implementation may be
//!   answering); any other `serverInfo` field is cosmetic.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{
    ChangeClass, MAX_DEPTH, Out, changed, child, generic, listing, object_or_empty, same_opt, union,
};

/// The first modern revision: eras compare as dates.
const MODERN: &str = "2026-07-28";

fn is_date(s: &str) -> bool {
    s.len() == 10
        && s.bytes().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
}

fn as_era(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).filter(|s| is_date(s))
}

/// Compares the `era`.
pub(super) fn era(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    match (as_era(b), as_era(a)) {
        (Some(x), Some(y)) if x >= MODERN && y < MODERN => changed(
            out,
            ChangeClass::Breaking,
            path,
            b,
            a,
            "the server is now captured in the legacy era: modern clients lose the revision \
             they speak",
        ),
        (Some(x), Some(y)) if x < MODERN && y >= MODERN => changed(
            out,
            ChangeClass::Additive,
            path,
            b,
            a,
            "the server now speaks the modern revision (legacy support shows in \
             `supportedVersions`)",
        ),
        _ if b.is_none() || a.is_none() => changed(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "an era on one side only (an `mcp-surface/1` object has none)",
        ),
        _ => changed(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "an era change within one era, or not a revision date",
        ),
    }
}

/// Compares the server part (`server` in `mcpseal/1`, `initialize` in `mcp-surface/1`).
pub(super) fn server(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    if same_opt(b, a) {
        return;
    }
    let empty = Map::new();
    let (Some(bm), Some(am)) = (
        object_or_empty(b, &empty, true),
        object_or_empty(a, &empty, true),
    ) else {
        changed(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "the server part is not an object on one side",
        );
        return;
    };
    let n = out.len();
    if b.is_none_or(Value::is_null) != a.is_none_or(Value::is_null) {
        changed(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "the server part was not captured on one side; its fields are compared as absent",
        );
    }
    for key in union(bm, am) {
        let (bv, av) = (bm.get(key), am.get(key));
        let p = child(path, key);
        match key {
            "capabilities" => capabilities(&p, bv, av, out),
            "instructions" => changed(
                out,
                ChangeClass::Security,
                &p,
                bv,
                av,
                "the server's instructions go into the model's prompt; review the new text",
            ),
            "serverInfo" => server_info(&p, bv, av, out),
            "supportedVersions" => versions(&p, bv, av, false, out),
            "protocolVersion" => versions(&p, bv, av, true, out),
            _ => generic(
                out,
                ChangeClass::Unjudged,
                &p,
                bv,
                av,
                "not part of the canonical server part",
                0,
            ),
        }
    }
    if out.len() == n {
        // Only absent vs `null` fields: the same surface, spelled differently.
        changed(
            out,
            ChangeClass::Cosmetic,
            path,
            b,
            a,
            "absent and `null` fields mean the same",
        );
    }
}

/// On: present and neither `null` nor `false`.
fn on(v: Option<&Value>) -> bool {
    !matches!(v, None | Some(Value::Null) | Some(Value::Bool(false)))
}

fn capabilities(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    let ok = |v: Option<&Value>| matches!(v, None | Some(Value::Null) | Some(Value::Object(_)));
    if !ok(b) || !ok(a) {
        changed(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "capabilities that are not an object are not judged",
        );
        return;
    }
    let n = out.len();
    flags(path, "", b, a, 0, out);
    if out.len() == n && !same_opt(b, a) {
        changed(
            out,
            ChangeClass::Cosmetic,
            path,
            b,
            a,
            "absent, `null` and `{}` capabilities mean the same",
        );
    }
}

/// A capability node; `name` is its dotted name (`tools.listChanged`), empty at the root.
fn flags(
    path: &str,
    name: &str,
    b: Option<&Value>,
    a: Option<&Value>,
    depth: usize,
    out: &mut Out,
) {
    if same_opt(b, a) {
        return;
    }
    let shown = if name.is_empty() {
        "capabilities"
    } else {
        name
    };
    let root = name.is_empty();
    match (b, a) {
        (Some(Value::Object(bm)), Some(Value::Object(am))) if depth < MAX_DEPTH => {
            for key in union(bm, am) {
                let dotted = if root {
                    key.to_owned()
                } else {
                    format!("{name}.{key}")
                };
                flags(
                    &child(path, key),
                    &dotted,
                    bm.get(key),
                    am.get(key),
                    depth + 1,
                    out,
                );
            }
        }
        _ if root => {
            // Root: null/absent vs object; judge every capability of the object side.
            let empty = Map::new();
            let bm = b.and_then(Value::as_object).unwrap_or(&empty);
            let am = a.and_then(Value::as_object).unwrap_or(&empty);
            for key in union(bm, am) {
                flags(
                    &child(path, key),
                    key,
                    bm.get(key),
                    am.get(key),
                    depth + 1,
                    out,
                );
            }
        }
        _ => match (on(b), on(a)) {
            (true, false) => out.push(
                ChangeClass::Breaking,
                path.to_owned(),
                b,
                a,
                format!("capability `{shown}` removed or turned off: clients relying on it fail"),
            ),
            (false, true) => out.push(
                ChangeClass::Additive,
                path.to_owned(),
                b,
                a,
                format!("capability `{shown}` added"),
            ),
            (false, false) => out.push(
                ChangeClass::Cosmetic,
                path.to_owned(),
                b,
                a,
                format!("capability `{shown}`: absent, `null` and `false` all mean off"),
            ),
            (true, true) => out.push(
                ChangeClass::Unjudged,
                path.to_owned(),
                b,
                a,
                format!("capability `{shown}` changed its value: not judged"),
            ),
        },
    }
}

fn server_info(path: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    let empty = Map::new();
    let (Some(bm), Some(am)) = (
        object_or_empty(b, &empty, true),
        object_or_empty(a, &empty, true),
    ) else {
        changed(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "`serverInfo` that is not an object is not judged",
        );
        return;
    };
    let n = out.len();
    for key in union(bm, am) {
        let (bv, av) = (bm.get(key), am.get(key));
        let p = child(path, key);
        if key == "name" {
            changed(
                out,
                ChangeClass::Security,
                &p,
                bv,
                av,
                "the server identifies itself differently: make sure the same implementation \
                 is answering",
            );
        } else {
            generic(
                out,
                ChangeClass::Cosmetic,
                &p,
                bv,
                av,
                "server identity shown to people",
                0,
            );
        }
    }
    if out.len() == n {
        changed(
            out,
            ChangeClass::Cosmetic,
            path,
            b,
            a,
            "absent, `null` and `{}` mean the same",
        );
    }
}

/// `supportedVersions` (an array) or, with `single`, `protocolVersion` (a string).
fn versions(path: &str, b: Option<&Value>, a: Option<&Value>, single: bool, out: &mut Out) {
    let set = |v: Option<&Value>| -> Option<BTreeSet<String>> {
        match v {
            None | Some(Value::Null) => Some(BTreeSet::new()),
            Some(Value::String(s)) if single => Some(BTreeSet::from([s.clone()])),
            Some(Value::Array(xs)) if !single => xs
                .iter()
                .map(|x| x.as_str().map(str::to_owned))
                .collect::<Option<BTreeSet<String>>>(),
            Some(_) => None,
        }
    };
    let (Some(bs), Some(as_)) = (set(b), set(a)) else {
        changed(
            out,
            ChangeClass::Unjudged,
            path,
            b,
            a,
            "protocol versions not written as strings are not judged",
        );
        return;
    };
    let lost: Vec<&String> = bs.difference(&as_).collect();
    let gained: Vec<&String> = as_.difference(&bs).collect();
    let list = |v: &[&String]| listing(&v.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>());
    if !lost.is_empty() {
        out.push(
            ChangeClass::Breaking,
            path.to_owned(),
            b,
            a,
            format!(
                "protocol version(s) {} no longer supported: clients speaking only those fail",
                list(&lost)
            ),
        );
    }
    if !gained.is_empty() {
        out.push(
            ChangeClass::Additive,
            path.to_owned(),
            b,
            a,
            format!("protocol version(s) {} now supported", list(&gained)),
        );
    }
    if lost.is_empty() && gained.is_empty() {
        changed(
            out,
            ChangeClass::Cosmetic,
            path,
            b,
            a,
            "the same protocol versions (order, duplicates or absent vs `null`)",
        );
    }
}
