//! The four lists: served or not, items added, removed or changed, renames.
//!
//! Items are matched by identity (`name`, `uri`, `uriTemplate`), never by position. A list that
//! stops being served is one breaking change *plus* one removal per item, and a list that starts
//! being served is one additive change plus one addition per item: the per-item changes carry the
//! judgement that matters (a newly served `tools` list with a writing tool is a security change).
//! A rename cannot be told from a removal and an addition, and a client calling the old name
//! fails all the same, so it is both; when the two items are byte-equal apart from their
//! identity, both explanations say "likely rename".
//!
//! Input that is not canonical is still compared: items without a string identity, or with a
//! duplicate one, are compared as a multiset; a different order of the same items is reported.

use std::collections::{BTreeMap, HashMap, VecDeque};

use mcpseal_protocol::ListKind;
use serde_json::Value;

use super::{
    ChangeClass, Out, annotations, child, guard, jcs, prompts, resources, same, same_opt, tools,
};

/// What each list holds, from the list table, plus the noun the diff names its items by.
#[derive(Clone, Copy)]
struct Kind {
    list: ListKind,
    key: &'static str,
    identity: &'static str,
    label: &'static str,
    method: &'static str,
}

fn kind(key: &str) -> Kind {
    // The caller matched one of the four keys; an unknown one cannot reach here.
    let list = ListKind::from_key(key).unwrap_or(ListKind::Prompts);
    Kind {
        list,
        key: list.key(),
        identity: list.identity_key(),
        label: match list {
            ListKind::Tools => "tool",
            ListKind::Resources => "resource",
            ListKind::ResourceTemplates => "template",
            ListKind::Prompts => "prompt",
        },
        method: list.method(),
    }
}

/// Compares one list (`key` is one of the four list keys).
pub(super) fn list(key: &str, b: Option<&Value>, a: Option<&Value>, out: &mut Out) {
    let k = kind(key);
    let path = child("", k.key);
    let empty: Vec<Value> = Vec::new();
    match (b.and_then(Value::as_array), a.and_then(Value::as_array)) {
        (Some(bi), Some(ai)) => items(k, &path, bi, ai, out),
        (Some(bi), None) => {
            out.push(
                ChangeClass::Breaking,
                path.clone(),
                b,
                a,
                format!(
                    "`{}` no longer served ({} item(s) before): clients listing it now get an \
                     error",
                    k.method,
                    bi.len()
                ),
            );
            items(k, &path, bi, &empty, out);
        }
        (None, Some(ai)) => {
            out.push(
                ChangeClass::Additive,
                path.clone(),
                b,
                a,
                format!("`{}` now served ({} item(s))", k.method, ai.len()),
            );
            items(k, &path, &empty, ai, out);
        }
        (None, None) => {
            if !same_opt(b, a) {
                out.push(
                    ChangeClass::Unjudged,
                    path,
                    b,
                    a,
                    format!(
                        "`{}` served on neither side, but written differently (not a list)",
                        k.method
                    ),
                );
            }
        }
    }
}

/// Items with a usable identity, in list order, and the rest.
struct Index<'a> {
    by_id: BTreeMap<&'a str, &'a Value>,
    order: Vec<&'a str>,
    rest: Vec<&'a Value>,
}

fn index<'a>(k: Kind, items: &'a [Value]) -> Index<'a> {
    let mut ix = Index {
        by_id: BTreeMap::new(),
        order: Vec::new(),
        rest: Vec::new(),
    };
    for item in items {
        match item.get(k.identity).and_then(Value::as_str) {
            Some(id) if item.is_object() && !ix.by_id.contains_key(id) => {
                ix.by_id.insert(id, item);
                ix.order.push(id);
            }
            _ => ix.rest.push(item),
        }
    }
    ix
}

fn items(k: Kind, path: &str, before: &[Value], after: &[Value], out: &mut Out) {
    let b = index(k, before);
    let a = index(k, after);
    let removed: Vec<&str> = b
        .order
        .iter()
        .copied()
        .filter(|id| !a.by_id.contains_key(id))
        .collect();
    let added: Vec<&str> = a
        .order
        .iter()
        .copied()
        .filter(|id| !b.by_id.contains_key(id))
        .collect();

    // Renames: equal bytes apart from the identity (and annotation hints spelled as defaults).
    let stripped = |v: &Value| -> Vec<u8> {
        let mut v = normalize_item(k, v);
        if let Some(m) = v.as_object_mut() {
            m.remove(k.identity);
        }
        jcs(&v)
    };
    // Added items by their stripped bytes, in list order: one pass each side, no pairwise scan.
    let mut by_bytes: HashMap<Vec<u8>, VecDeque<&str>> = HashMap::new();
    if !removed.is_empty() {
        for id in &added {
            if let Some(v) = a.by_id.get(id) {
                by_bytes.entry(stripped(v)).or_default().push_back(id);
            }
        }
    }
    let mut renamed_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut renamed_to: BTreeMap<&str, &str> = BTreeMap::new();
    if !by_bytes.is_empty() {
        for id in &removed {
            let Some(v) = b.by_id.get(id) else { continue };
            if let Some(to) = by_bytes.get_mut(&stripped(v)).and_then(VecDeque::pop_front) {
                renamed_from.insert(to, id);
                renamed_to.insert(id, to);
            }
        }
    }

    for id in &removed {
        let Some(v) = b.by_id.get(id) else { continue };
        out.item = Some(format!("{} {id}", k.label));
        let mut explanation = format!(
            "{} `{id}` removed: clients {} it fail",
            k.label,
            if k.list == ListKind::Tools {
                "calling"
            } else if k.list == ListKind::Prompts {
                "getting"
            } else {
                "reading"
            }
        );
        if let Some(to) = renamed_to.get(id) {
            explanation.push_str(&format!(
                "; likely renamed to `{to}` (identical apart from the {})",
                k.identity
            ));
        }
        out.push(
            ChangeClass::Breaking,
            child(path, &format!("{}={id}", k.identity)),
            Some(v),
            None,
            explanation,
        );
    }
    for id in &added {
        let Some(v) = a.by_id.get(id) else { continue };
        out.item = Some(format!("{} {id}", k.label));
        let (class, mut explanation) = if k.list == ListKind::Tools {
            annotations::new_tool(id, v)
        } else {
            (ChangeClass::Additive, format!("new {} `{id}`", k.label))
        };
        if let Some(from) = renamed_from.get(id) {
            explanation.push_str(&format!("; likely rename of `{from}`"));
        }
        out.push(
            class,
            child(path, &format!("{}={id}", k.identity)),
            None,
            Some(v),
            explanation,
        );
    }
    for id in &b.order {
        let (Some(bv), Some(av)) = (b.by_id.get(id), a.by_id.get(id)) else {
            continue;
        };
        if same(bv, av) {
            continue;
        }
        let differs = !same(&normalize_item(k, bv), &normalize_item(k, av));
        let item_path = child(path, &format!("{}={id}", k.identity));
        out.item = Some(format!("{} {id}", k.label));
        guard(out, &item_path, Some(bv), Some(av), differs, |out| {
            if let (Some(bm), Some(am)) = (bv.as_object(), av.as_object()) {
                match k.list {
                    ListKind::Tools => tools::tool(&item_path, bm, am, out),
                    ListKind::Prompts => prompts::prompt(&item_path, bm, am, out),
                    ListKind::Resources | ListKind::ResourceTemplates => {
                        resources::resource(&item_path, k.identity, bm, am, out)
                    }
                }
            }
        });
    }
    out.item = None;

    // Non-canonical input: items without a usable identity, and order.
    let mut rest_b: Vec<Vec<u8>> = b.rest.iter().map(|v| jcs(&normalize_item(k, v))).collect();
    let mut rest_a: Vec<Vec<u8>> = a.rest.iter().map(|v| jcs(&normalize_item(k, v))).collect();
    rest_b.sort();
    rest_a.sort();
    if rest_b != rest_a {
        out.push(
            ChangeClass::Unjudged,
            path.to_owned(),
            Some(&Value::Array(b.rest.iter().map(|v| (*v).clone()).collect())),
            Some(&Value::Array(a.rest.iter().map(|v| (*v).clone()).collect())),
            format!(
                "items without a usable `{}` (missing, not a string, or duplicated) differ: \
                 such a list is ambiguous and cannot be judged item by item",
                k.identity
            ),
        );
    }
    let kept_b: Vec<&str> = b
        .order
        .iter()
        .copied()
        .filter(|id| a.by_id.contains_key(id))
        .collect();
    let kept_a: Vec<&str> = a
        .order
        .iter()
        .copied()
        .filter(|id| b.by_id.contains_key(id))
        .collect();
    if kept_b != kept_a {
        let ids = |v: &[&str]| Value::Array(v.iter().map(|s| Value::from(*s)).collect());
        out.push(
            ChangeClass::Unjudged,
            path.to_owned(),
            Some(&ids(&kept_b)),
            Some(&ids(&kept_a)),
            format!(
                "the order of the items changed (the canonical form sorts them by `{}`, so one \
                 side is not canonical)",
                k.identity
            ),
        );
    }
}

/// An item as compared for equivalence: tools lose annotation hints spelled as their default.
fn normalize_item(k: Kind, v: &Value) -> Value {
    if k.list == ListKind::Tools {
        annotations::normalize_tool(v)
    } else {
        v.clone()
    }
}

/// The identities of a list's items, for tests.
#[cfg(test)]
fn ids(k: Kind, items: &[Value]) -> std::collections::BTreeSet<String> {
    index(k, items)
        .order
        .iter()
        .map(|s| (*s).to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::diff;
    use super::*;
    use serde_json::json;

    #[test]
    fn duplicates_and_missing_identities_go_to_rest() {
        let items = [
            json!({"name":"a"}),
            json!({"name":"a","x":1}),
            json!({"title":"no name"}),
            json!(3),
        ];
        let ix = index(kind("tools"), &items);
        assert_eq!(ix.order, vec!["a"]);
        assert_eq!(ix.rest.len(), 3);
        assert_eq!(ids(kind("tools"), &items).len(), 1);
    }

    #[test]
    fn rest_and_order_changes_are_reported() {
        let b = json!({"tools":[{"name":"a"},{"name":"b"},{"x":1}]});
        let a = json!({"tools":[{"name":"b"},{"name":"a"},{"x":2}]});
        let d = diff(&b, &a);
        assert_eq!(d.changes.len(), 2, "{d:#?}");
        assert!(d.changes.iter().all(|c| c.class == ChangeClass::Unjudged));
    }
}
