//! The judges' shared kit: the change collector ([`Out`]), path building (RFC 6901 segments),
//! equality as canonical bytes, the generic structural diff for values without a judge, the
//! `_meta` policy, and [`guard`], which keeps the "nothing is dropped" invariant local to each
//! level. No judgement about what a change means lives here.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Change, ChangeClass, MAX_DEPTH};
use crate::jcs::{jcs, utf16_cmp};

/// Collects changes; `item` is the label of the item being judged.
#[derive(Default)]
pub(super) struct Out {
    pub(super) changes: Vec<Change>,
    pub(super) item: Option<String>,
}

impl Out {
    pub(super) fn push(
        &mut self,
        class: ChangeClass,
        path: String,
        before: Option<&Value>,
        after: Option<&Value>,
        explanation: String,
    ) {
        self.changes.push(Change {
            class,
            path,
            item: self.item.clone(),
            before: before.cloned(),
            after: after.cloned(),
            explanation,
        });
    }

    pub(super) fn len(&self) -> usize {
        self.changes.len()
    }
}

/// Equal as canonical bytes (so `1` equals `1.0`).
pub(super) fn same(a: &Value, b: &Value) -> bool {
    a == b || jcs(a) == jcs(b)
}

/// [`same`] for optional values; absent equals only absent.
pub(super) fn same_opt(a: Option<&Value>, b: Option<&Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => same(a, b),
        _ => false,
    }
}

/// `path` + `/` + the RFC 6901-escaped segment.
pub(super) fn child(path: &str, segment: &str) -> String {
    let mut s = String::with_capacity(path.len() + segment.len() + 1);
    s.push_str(path);
    s.push('/');
    for ch in segment.chars() {
        match ch {
            '~' => s.push_str("~0"),
            '/' => s.push_str("~1"),
            c => s.push(c),
        }
    }
    s
}

/// An object, or `empty` for an absent value (and for `null` when `null_is_empty`); `None` for
/// any other value.
pub(super) fn object_or_empty<'a>(
    v: Option<&'a Value>,
    empty: &'a Map<String, Value>,
    null_is_empty: bool,
) -> Option<&'a Map<String, Value>> {
    match v {
        None => Some(empty),
        Some(Value::Null) if null_is_empty => Some(empty),
        Some(Value::Object(m)) => Some(m),
        Some(_) => None,
    }
}

/// The keys of both objects, sorted and deduplicated.
pub(super) fn union<'a>(b: &'a Map<String, Value>, a: &'a Map<String, Value>) -> BTreeSet<&'a str> {
    b.keys().chain(a.keys()).map(String::as_str).collect()
}

/// "added", "removed" or "changed", from which side holds a value.
pub(super) fn verb(b: Option<&Value>, a: Option<&Value>) -> &'static str {
    match (b, a) {
        (None, Some(_)) => "added",
        (Some(_), None) => "removed",
        _ => "changed",
    }
}

/// The last segment of a path, unescaped, for explanations.
pub(super) fn last_segment(path: &str) -> String {
    path.rsplit('/')
        .next()
        .unwrap_or(path)
        .replace("~1", "/")
        .replace("~0", "~")
}

/// One change at `path` when the two values differ: ``"`<last segment>` <verb>: <why>"``.
pub(super) fn changed(
    out: &mut Out,
    class: ChangeClass,
    path: &str,
    b: Option<&Value>,
    a: Option<&Value>,
    why: &str,
) {
    if same_opt(b, a) {
        return;
    }
    let explanation = format!("`{}` {}: {why}", last_segment(path), verb(b, a));
    out.push(class, path.to_owned(), b, a, explanation);
}

/// A structural diff for values the engine has no judge for: objects are followed key by key
/// (so the path names the deepest differing key), anything else is one change of `class`.
pub(super) fn generic(
    out: &mut Out,
    class: ChangeClass,
    path: &str,
    b: Option<&Value>,
    a: Option<&Value>,
    why: &str,
    depth: usize,
) {
    if same_opt(b, a) {
        return;
    }
    match (b, a) {
        (Some(Value::Object(bm)), Some(Value::Object(am))) if depth < MAX_DEPTH => {
            for key in union(bm, am) {
                generic(
                    out,
                    class,
                    &child(path, key),
                    bm.get(key),
                    am.get(key),
                    why,
                    depth + 1,
                );
            }
        }
        _ => changed(out, class, path, b, a, why),
    }
}

/// An item's `_meta` (tool, prompt, resource or template): one policy for all of them. It is
/// not specified as model-facing, so it is not judged, but poisoned text can hide there, so
/// every difference is listed (key by key) as `unjudged` and never folded away.
pub(super) fn meta(out: &mut Out, path: &str, b: Option<&Value>, a: Option<&Value>) {
    generic(
        out,
        ChangeClass::Unjudged,
        path,
        b,
        a,
        "`_meta` is not judged, but text hidden there may reach a model; review it",
        0,
    );
}

/// Runs `judge`; when it emitted nothing although `differs`, emits one `unjudged` change for
/// the whole of `path`. This is what keeps the "nothing is dropped" invariant local.
pub(super) fn guard(
    out: &mut Out,
    path: &str,
    b: Option<&Value>,
    a: Option<&Value>,
    differs: bool,
    judge: impl FnOnce(&mut Out),
) {
    let n = out.len();
    judge(out);
    if out.len() == n && differs {
        out.push(
            ChangeClass::Unjudged,
            path.to_owned(),
            b,
            a,
            format!(
                "`{}` changed in a way the diff engine does not classify",
                last_segment(path)
            ),
        );
    }
}

/// Compares strings by UTF-16 code units (re-exported for the judges' sorting).
pub(super) fn cmp16(a: &str, b: &str) -> Ordering {
    utf16_cmp(a, b)
}

/// A comma-separated list for explanations, cut after ten entries (`..., and 7 more`).
pub(super) fn listing(items: &[String]) -> String {
    const MAX: usize = 10;
    let mut s = items
        .iter()
        .take(MAX)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > MAX {
        s.push_str(&format!(", and {} more", items.len() - MAX));
    }
    s
}

/// A short, bounded rendering of a value for explanations.
pub(super) fn show(v: &Value) -> String {
    let bytes = jcs(v);
    let text = String::from_utf8_lossy(&bytes);
    if text.chars().count() > 80 {
        let cut: String = text.chars().take(77).collect();
        format!("{cut}...")
    } else {
        text.into_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_escaped() {
        assert_eq!(child("/resources", "uri=a/b~c"), "/resources/uri=a~1b~0c");
        assert_eq!(last_segment("/resources/uri=a~1b~0c"), "uri=a/b~c");
    }
}
