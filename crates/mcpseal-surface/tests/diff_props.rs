//! Property tests of the semantic diff (bounded case counts for 2-core CI).
//!
//! The central one: **nothing is dropped**. A random surface gets one random mutation anywhere
//! (a value replaced, a key removed or added, array elements removed, duplicated or swapped);
//! the diff is empty exactly when the two documents are equivalent, judged by an independent
//! model here: equal RFC 8785 bytes once tool annotation hints spelled as their default (and an
//! `annotations` left empty) are removed, the one difference the engine deliberately ignores.

use mcpseal_surface::diff::{Bump, SurfaceDiff, diff};
use mcpseal_surface::jcs;
use proptest::prelude::*;
use proptest::sample::Index;
use serde_json::{Map, Value, json};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        max_shrink_iters: 512,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------------------------
// The independent model of equivalence

const DEFAULTS: [(&str, bool); 4] = [
    ("readOnlyHint", false),
    ("destructiveHint", true),
    ("idempotentHint", false),
    ("openWorldHint", true),
];

fn normalized(doc: &Value) -> Value {
    let mut doc = doc.clone();
    if let Some(Value::Array(tools)) = doc.get_mut("tools") {
        for tool in tools {
            let Some(t) = tool.as_object_mut() else {
                continue;
            };
            let mut drop_annotations = false;
            if let Some(Value::Object(ann)) = t.get_mut("annotations") {
                ann.retain(|k, v| {
                    !DEFAULTS
                        .iter()
                        .any(|(h, d)| h == k && *v == Value::Bool(*d))
                });
                drop_annotations = ann.is_empty();
            }
            if drop_annotations {
                t.remove("annotations");
            }
        }
    }
    doc
}

fn equivalent(a: &Value, b: &Value) -> bool {
    jcs(&normalized(a)) == jcs(&normalized(b))
}

/// No change came from a safety net: every difference was judged by a named judge (which may
/// still call it `unjudged`, e.g. for `anyOf`), not caught by the "changed in a way the engine
/// does not classify" fallback. Holds for surfaces shaped like the canonical form.
fn judged_by_name(d: &SurfaceDiff) -> Result<(), TestCaseError> {
    for c in &d.changes {
        prop_assert!(
            !c.explanation.contains("does not classify"),
            "fallback fired: {:#?}",
            c
        );
    }
    Ok(())
}

/// What must hold for any pair.
fn check(before: &Value, after: &Value) -> Result<(), TestCaseError> {
    let d = diff(before, after);
    let back = diff(after, before);
    let eq = equivalent(before, after);
    prop_assert_eq!(d.is_empty(), eq, "forward: equivalent={} diff={:#?}", eq, d);
    prop_assert_eq!(
        back.is_empty(),
        eq,
        "backward: equivalent={} diff={:#?}",
        eq,
        back
    );
    well_formed(&d)?;
    well_formed(&back)?;
    prop_assert_eq!(diff(before, after), d, "not deterministic");
    Ok(())
}

fn well_formed(d: &SurfaceDiff) -> Result<(), TestCaseError> {
    prop_assert_eq!(d.summary().total(), d.changes.len());
    let max = d.changes.iter().map(|c| c.class.bump()).max();
    prop_assert_eq!(d.required_bump(), max.unwrap_or(Bump::None));
    for w in d.changes.windows(2) {
        prop_assert!(
            mcpseal_surface::utf16_cmp(&w[0].path, &w[1].path).is_le(),
            "not sorted: {} > {}",
            w[0].path,
            w[1].path
        );
    }
    for c in &d.changes {
        prop_assert!(!c.explanation.is_empty());
        prop_assert!(c.path.is_empty() || c.path.starts_with('/'), "{}", c.path);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Realistic surfaces

fn name() -> impl Strategy<Value = String> {
    prop::sample::select(vec!["a", "b", "echo", "x/y", "é", "~t", "q"]).prop_map(str::to_owned)
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..50).prop_map(Value::from),
        Just(json!(0.5)),
        Just(json!(1.0)),
        prop::sample::select(vec!["", "fast", "full", "string", "x"]).prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(name(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

fn type_value() -> impl Strategy<Value = Value> {
    let t = prop::sample::select(vec![
        "string", "integer", "number", "boolean", "null", "object", "array",
    ]);
    prop_oneof![
        t.clone().prop_map(Value::from),
        prop::collection::vec(t, 1..3).prop_map(|v| json!(v)),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    let simple = (
        prop::option::of(type_value()),
        prop::option::of(prop::collection::vec(leaf(), 1..4)),
        prop::option::of(0i64..10),
        prop::option::of(0i64..100),
        prop::option::of(prop::sample::select(vec!["a", "b"])),
    )
        .prop_map(|(t, e, min, max, desc)| {
            let mut m = Map::new();
            if let Some(t) = t {
                m.insert("type".into(), t);
            }
            if let Some(e) = e {
                m.insert("enum".into(), Value::Array(e));
            }
            if let Some(v) = min {
                m.insert("minimum".into(), v.into());
            }
            if let Some(v) = max {
                m.insert("maxLength".into(), v.into());
            }
            if let Some(d) = desc {
                m.insert("description".into(), d.into());
            }
            Value::Object(m)
        });
    simple.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            (
                prop::collection::btree_map(name(), inner.clone(), 0..4),
                prop::collection::vec(name(), 0..3),
                prop::option::of(any::<bool>()),
            )
                .prop_map(|(props, req, extra)| {
                    let mut m = Map::new();
                    m.insert("type".into(), "object".into());
                    m.insert(
                        "properties".into(),
                        Value::Object(props.into_iter().collect()),
                    );
                    m.insert("required".into(), json!(req));
                    if let Some(x) = extra {
                        m.insert("additionalProperties".into(), x.into());
                    }
                    Value::Object(m)
                }),
            (inner.clone(), prop::option::of(0i64..5)).prop_map(|(items, max)| {
                let mut m = Map::new();
                m.insert("type".into(), "array".into());
                m.insert("items".into(), items);
                if let Some(x) = max {
                    m.insert("maxItems".into(), x.into());
                }
                Value::Object(m)
            }),
            prop::collection::vec(inner, 1..3).prop_map(|v| json!({ "anyOf": v })),
        ]
    })
}

fn annotations() -> impl Strategy<Value = Option<Value>> {
    prop::option::of(
        (
            prop::option::of(any::<bool>()),
            prop::option::of(any::<bool>()),
            prop::option::of(any::<bool>()),
            prop::option::of(any::<bool>()),
            prop::option::of(Just("T")),
        )
            .prop_map(|(r, d, i, o, t)| {
                let mut m = Map::new();
                for (k, v) in [
                    ("readOnlyHint", r),
                    ("destructiveHint", d),
                    ("idempotentHint", i),
                    ("openWorldHint", o),
                ] {
                    if let Some(v) = v {
                        m.insert(k.into(), v.into());
                    }
                }
                if let Some(t) = t {
                    m.insert("title".into(), t.into());
                }
                Value::Object(m)
            }),
    )
}

fn tool() -> impl Strategy<Value = (String, Value)> {
    (
        name(),
        schema(),
        prop::option::of(schema()),
        annotations(),
        prop::option::of(prop::sample::select(vec!["Does a.", "Does b."])),
    )
        .prop_map(|(n, input, output, ann, desc)| {
            let mut m = Map::new();
            m.insert("name".into(), n.clone().into());
            m.insert("inputSchema".into(), input);
            if let Some(o) = output {
                m.insert("outputSchema".into(), o);
            }
            if let Some(a) = ann {
                m.insert("annotations".into(), a);
            }
            if let Some(d) = desc {
                m.insert("description".into(), d.into());
            }
            (n, Value::Object(m))
        })
}

fn prompt() -> impl Strategy<Value = (String, Value)> {
    (
        name(),
        prop::collection::btree_map(name(), prop::option::of(any::<bool>()), 0..3),
    )
        .prop_map(|(n, args)| {
            let args: Vec<Value> = args
                .into_iter()
                .map(|(a, r)| match r {
                    Some(r) => json!({"name": a, "required": r}),
                    None => json!({"name": a}),
                })
                .collect();
            (n.clone(), json!({"name": n, "arguments": args}))
        })
}

fn resource(key: &'static str) -> impl Strategy<Value = (String, Value)> {
    (
        name(),
        prop::option::of(prop::sample::select(vec!["text/plain", "application/json"])),
    )
        .prop_map(move |(n, mime)| {
            let id = format!("x://{n}");
            let mut m = Map::new();
            m.insert(key.into(), id.clone().into());
            m.insert("name".into(), n.into());
            if let Some(t) = mime {
                m.insert("mimeType".into(), t.into());
            }
            (id, Value::Object(m))
        })
}

fn surface() -> impl Strategy<Value = Value> {
    let lists = (
        prop::option::of(prop::collection::vec(tool(), 0..4)),
        prop::option::of(prop::collection::vec(resource("uri"), 0..3)),
        prop::option::of(prop::collection::vec(resource("uriTemplate"), 0..2)),
        prop::option::of(prop::collection::vec(prompt(), 0..3)),
    );
    let server = (
        prop::option::of(prop::sample::select(vec!["Use a.", "Use b.", ""])),
        prop::collection::vec(
            prop::sample::select(vec!["2025-06-18", "2025-11-25", "2026-07-28"]),
            0..3,
        ),
        prop::sample::select(vec!["2025-11-25", "2026-07-28"]),
        any::<(bool, bool, bool)>(),
    );
    (lists, server).prop_map(
        |((tools, resources, templates, prompts), (instr, versions, era, caps))| {
            let canon = |items: Option<Vec<(String, Value)>>| -> Value {
                match items {
                    None => Value::Null,
                    Some(items) => {
                        let mut map = std::collections::BTreeMap::new();
                        for (id, v) in items {
                            map.entry(id).or_insert(v);
                        }
                        Value::Array(map.into_values().collect())
                    }
                }
            };
            let mut caps_obj = Map::new();
            if caps.0 {
                caps_obj.insert("tools".into(), json!({"listChanged": caps.1}));
            }
            if caps.2 {
                caps_obj.insert("resources".into(), json!({"subscribe": true}));
            }
            json!({
                "form": "mcpseal/1",
                "era": era,
                "server": {
                    "capabilities": caps_obj,
                    "instructions": instr,
                    "serverInfo": {"name": "demo", "websiteUrl": "https://e.x"},
                    "supportedVersions": versions,
                },
                "tools": canon(tools),
                "resources": canon(resources),
                "resourceTemplates": canon(templates),
                "prompts": canon(prompts),
            })
        },
    )
}

// ---------------------------------------------------------------------------------------------
// Mutations

/// Every node's pointer (as segment lists), the root included.
fn nodes(v: &Value, at: &mut Vec<String>, all: &mut Vec<Vec<String>>) {
    all.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                at.push(k.clone());
                nodes(x, at, all);
                at.pop();
            }
        }
        Value::Array(xs) => {
            for (i, x) in xs.iter().enumerate() {
                at.push(i.to_string());
                nodes(x, at, all);
                at.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let mut cur = v;
    for seg in path {
        cur = match cur {
            Value::Object(m) => m.get_mut(seg)?,
            Value::Array(xs) => xs.get_mut(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

#[derive(Debug, Clone)]
enum Mutation {
    Replace(Value),
    Nudge,
    Remove,
    Insert(String, Value),
    Duplicate,
    Swap,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let key = prop::sample::select(vec![
        "type",
        "enum",
        "const",
        "minimum",
        "maxItems",
        "required",
        "properties",
        "items",
        "additionalProperties",
        "description",
        "title",
        "readOnlyHint",
        "destructiveHint",
        "openWorldHint",
        "annotations",
        "_meta",
        "pattern",
        "listChanged",
        "mimeType",
        "x",
    ])
    .prop_map(str::to_owned);
    prop_oneof![
        2 => json_value().prop_map(Mutation::Replace),
        3 => Just(Mutation::Nudge),
        3 => Just(Mutation::Remove),
        3 => (key, json_value()).prop_map(|(k, v)| Mutation::Insert(k, v)),
        1 => Just(Mutation::Duplicate),
        1 => Just(Mutation::Swap),
    ]
}

/// A small, "nearby" change of a scalar: what real edits look like.
fn nudge(v: &Value) -> Value {
    match v {
        Value::Null => json!(false),
        Value::Bool(b) => Value::Bool(!b),
        Value::Number(n) => json!(n.as_f64().unwrap_or(0.0) + 1.0),
        Value::String(s) => Value::String(format!("{s}!")),
        Value::Array(xs) => {
            let mut xs = xs.clone();
            xs.push(json!("extra"));
            Value::Array(xs)
        }
        Value::Object(m) => {
            let mut m = m.clone();
            m.insert("zz".into(), json!(1));
            Value::Object(m)
        }
    }
}

fn mutate(doc: &Value, at: Index, m: &Mutation) -> Value {
    let mut all = Vec::new();
    nodes(doc, &mut Vec::new(), &mut all);
    let path = all[at.index(all.len())].clone();
    let mut out = doc.clone();
    let (parent_path, last) = match path.split_last() {
        Some((last, parent)) => (parent.to_vec(), Some(last.clone())),
        None => (Vec::new(), None),
    };
    match m {
        Mutation::Replace(v) => {
            if let Some(t) = get_mut(&mut out, &path) {
                *t = v.clone();
            }
        }
        Mutation::Nudge => {
            if let Some(t) = get_mut(&mut out, &path) {
                *t = nudge(t);
            }
        }
        Mutation::Remove => {
            if let (Some(parent), Some(last)) = (get_mut(&mut out, &parent_path), last) {
                match parent {
                    Value::Object(m) => {
                        m.remove(&last);
                    }
                    Value::Array(xs) => {
                        if let Ok(i) = last.parse::<usize>()
                            && i < xs.len()
                        {
                            xs.remove(i);
                        }
                    }
                    _ => {}
                }
            }
        }
        Mutation::Insert(k, v) => {
            if let Some(Value::Object(m)) = get_mut(&mut out, &path) {
                m.insert(k.clone(), v.clone());
            }
        }
        Mutation::Duplicate | Mutation::Swap => {
            if let (Some(Value::Array(xs)), Some(last)) = (get_mut(&mut out, &parent_path), last)
                && let Ok(i) = last.parse::<usize>()
                && i < xs.len()
            {
                if matches!(m, Mutation::Duplicate) {
                    let x = xs[i].clone();
                    xs.insert(i, x);
                } else if i + 1 < xs.len() {
                    xs.swap(i, i + 1);
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn identical_surfaces_have_no_changes(s in surface()) {
        prop_assert!(diff(&s, &s).is_empty());
        prop_assert!(diff(&s, &s.clone()).is_empty());
    }

    #[test]
    fn one_mutation_is_never_dropped(s in surface(), at in any::<Index>(), m in mutation()) {
        let t = mutate(&s, at, &m);
        check(&s, &t)?;
        if t.is_object() {
            judged_by_name(&diff(&s, &t))?;
        }
    }

    #[test]
    fn two_mutations_are_never_dropped(
        s in surface(),
        at1 in any::<Index>(), m1 in mutation(),
        at2 in any::<Index>(), m2 in mutation(),
    ) {
        let t = mutate(&mutate(&s, at1, &m1), at2, &m2);
        check(&s, &t)?;
        if t.is_object() {
            judged_by_name(&diff(&s, &t))?;
        }
    }

    #[test]
    fn two_random_surfaces(a in surface(), b in surface()) {
        check(&a, &b)?;
        judged_by_name(&diff(&a, &b))?;
    }

    #[test]
    fn arbitrary_json_never_panics(a in json_value(), b in json_value()) {
        check(&a, &b)?;
        let wrapped_a = json!({"tools": [{"name": "t", "inputSchema": a.clone(), "outputSchema": a, "annotations": b.clone()}]});
        let wrapped_b = json!({"tools": [{"name": "t", "inputSchema": b.clone(), "outputSchema": b}]});
        check(&wrapped_a, &wrapped_b)?;
    }
}
