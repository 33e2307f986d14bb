//! Property tests (bounded case counts for 2-core CI): order invariance, sensitivity to every
//! meaningful change, idempotence of canonicalisation.

use mcpseal_surface::{Form, Surface, jcs};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 48,
        max_shrink_iters: 256,
        ..ProptestConfig::default()
    }
}

/// Strings that exercise ordering and escaping: ASCII, controls, BMP above U+E000, astral.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'z'),
            1 => prop::char::range('A', 'Z'),
            1 => prop::char::range('0', '9'),
            1 => prop::char::range('\u{0}', '\u{1f}'),
            1 => Just('"'),
            1 => Just('\\'),
            1 => prop::char::range('\u{e000}', '\u{fffd}'),
            1 => prop::char::range('\u{1f600}', '\u{1f64f}'),
        ],
        0..8,
    )
    .prop_map(|v| v.into_iter().collect())
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        (-30i32..30, 1u32..1000).prop_map(|(e, m)| {
            let f: f64 = format!("{m}e{e}").parse().unwrap_or(0.0);
            Value::from(f)
        }),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A tool with a random schema, description and annotations.
fn tool() -> impl Strategy<Value = Value> {
    (
        json_value(),
        text(),
        any::<bool>(),
        prop::collection::vec(text(), 0..4),
    )
        .prop_map(|(schema, desc, ro, req)| {
            json!({
                "description": desc,
                "inputSchema": {"type": "object", "properties": {"p": schema}, "required": req},
                "annotations": {"readOnlyHint": ro},
            })
        })
}

/// Unique-named tools (names made unique by suffixing the index).
fn tools() -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec((text(), tool()), 1..8).prop_map(|v| {
        v.into_iter()
            .enumerate()
            .map(|(i, (name, mut t))| {
                t["name"] = Value::String(format!("{name}#{i}"));
                t
            })
            .collect()
    })
}

/// Deterministic permutation source (the seed comes from proptest).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap_or(0)
    }
    fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }
}

/// Writes `v` as JSON with every object's keys in a random order and random whitespace.
fn write_shuffled(v: &Value, rng: &mut Rng, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<_> = m.iter().collect();
            rng.shuffle(&mut entries);
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&serde_json::to_string(k).unwrap_or_default());
                out.push_str(if rng.below(2) == 0 { ":" } else { " : " });
                write_shuffled(v, rng, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_shuffled(v, rng, out);
            }
            out.push(']');
        }
        other => out.push_str(&serde_json::to_string(other).unwrap_or_default()),
    }
}

/// A capture text with `tools` split into pages at random points, in the given order.
fn capture_text(tools: &[Value], rng: &mut Rng) -> String {
    let mut pages = Vec::new();
    let mut rest = tools;
    while !rest.is_empty() {
        let take = 1 + rng.below(rest.len());
        let mut page = String::from("{\"tools\":[");
        for (i, t) in rest[..take].iter().enumerate() {
            if i > 0 {
                page.push(',');
            }
            write_shuffled(t, rng, &mut page);
        }
        page.push_str("],\"nextCursor\":\"");
        page.push_str(&rng.next().to_string());
        page.push_str("\"}");
        pages.push(page);
        rest = &rest[take..];
    }
    format!(
        r#"{{"era":"2026-07-28","server":{{"supportedVersions":["2026-07-28"],"capabilities":{{"tools":{{}}}},"ttlMs":{},"_meta":{{"io.modelcontextprotocol/serverInfo":{{"name":"p","version":"{}"}}}}}},"lists":{{"tools":{{"pages":[{}]}}}}}}"#,
        rng.below(1000),
        rng.below(1000),
        pages.join(",")
    )
}

fn fingerprint(text: &str) -> String {
    Surface::from_slice(text.as_bytes())
        .expect("generated capture is valid")
        .fingerprint(Form::McpSeal1)
        .sha256
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn shuffling_lists_keys_pages_and_volatile_fields_keeps_the_hash(
        tools in tools(), seed_a in 1u64.., seed_b in 1u64..
    ) {
        let mut a = Rng(seed_a);
        let mut b = Rng(seed_b);
        let mut shuffled = tools.clone();
        b.shuffle(&mut shuffled);
        prop_assert_eq!(
            fingerprint(&capture_text(&tools, &mut a)),
            fingerprint(&capture_text(&shuffled, &mut b))
        );
    }

    #[test]
    fn any_meaningful_change_changes_the_hash(
        tools in tools(), which in 0usize..8, what in 0u8..5, seed in 1u64..
    ) {
        let mut rng = Rng(seed);
        let before = capture_text(&tools, &mut rng);
        let mut changed = tools.clone();
        let i = which % changed.len();
        let t = &mut changed[i];
        match what {
            0 => t["description"] = Value::String(format!("{}.", t["description"].as_str().unwrap_or(""))),
            1 => t["name"] = Value::String(format!("{}~", t["name"].as_str().unwrap_or(""))),
            2 => t["annotations"]["readOnlyHint"] = Value::Bool(!t["annotations"]["readOnlyHint"].as_bool().unwrap_or(false)),
            3 => t["inputSchema"]["properties"]["p"] = json!({"changed": t["inputSchema"]["properties"]["p"].clone()}),
            _ => t["inputSchema"]["additionalProperties"] = Value::Bool(false),
        }
        let after = capture_text(&changed, &mut rng);
        let (sb, sa) = (
            Surface::from_slice(before.as_bytes()).expect("valid"),
            Surface::from_slice(after.as_bytes()).expect("valid"),
        );
        prop_assert_ne!(sb.fingerprint(Form::McpSeal1).sha256, sa.fingerprint(Form::McpSeal1).sha256);
        prop_assert_ne!(sb.fingerprint(Form::McpSurface1).sha256, sa.fingerprint(Form::McpSurface1).sha256);
    }

    #[test]
    fn jcs_is_idempotent(v in json_value()) {
        let once = jcs(&v);
        let reparsed: Value = serde_json::from_slice(&once).expect("canonical output parses");
        prop_assert_eq!(jcs(&reparsed), once);
    }

    #[test]
    fn canonical_surface_is_idempotent(tools in tools(), seed in 1u64..) {
        let s = Surface::from_slice(capture_text(&tools, &mut Rng(seed)).as_bytes()).expect("valid");
        for form in [Form::McpSeal1, Form::McpSurface1] {
            let bytes = s.canonical_bytes(form);
            let reparsed: Value = serde_json::from_slice(&bytes).expect("parses");
            prop_assert_eq!(jcs(&reparsed), bytes.clone());
            prop_assert_eq!(jcs(&s.canonical_value(form)), bytes);
            prop_assert_eq!(
                serde_json::to_string_pretty(&s.canonical_object(form)).expect("pretty"),
                serde_json::to_string_pretty(&s.canonical_value(form)).expect("pretty")
            );
        }
    }

    #[test]
    fn parsing_arbitrary_bytes_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = Surface::from_slice(&bytes);
    }

    #[test]
    fn parsing_mutated_captures_never_panics(tools in tools(), seed in 1u64.., at in any::<usize>(), byte in any::<u8>()) {
        let mut bytes = capture_text(&tools, &mut Rng(seed)).into_bytes();
        let i = at % bytes.len();
        bytes[i] = byte;
        let _ = Surface::from_slice(&bytes);
    }
}
