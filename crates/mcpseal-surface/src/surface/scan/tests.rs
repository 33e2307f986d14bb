//! The fast path against the reference path: the same surface whenever the fast path accepts,
//! never an acceptance the reference refuses, and no declining on the shapes real captures have.
//! Inputs: every SPEC vector, the mcp-surface anchors, the saved fixture captures, the 300 random captures the Python
//! differential test uses (plus 700 more), mutations of them, and hand-written structural
//! edge cases of the capture document.

use serde_json::{Value, json};

use crate::differential::{
    fast_from_capture, fast_from_slice, reference_from_capture, reference_from_slice,
};
use crate::surface::random::{Rng, capture};
use crate::{RawCapture, parse_capture};

/// Both paths on `bytes` (and, when they are a capture, on the parsed capture); returns
/// whether the fast path accepted.
fn agree(bytes: &[u8]) -> bool {
    let shown = String::from_utf8_lossy(bytes);
    let fast = fast_from_slice(bytes);
    let reference = reference_from_slice(bytes);
    match (&fast, &reference) {
        (Some(f), Ok(r)) => assert_eq!(f, r, "surfaces differ for {shown}"),
        (Some(_), Err(e)) => panic!("fast path accepted what the reference refuses ({e}): {shown}"),
        _ => {}
    }
    if let Ok(raw) = parse_capture(bytes) {
        let fast_c = fast_from_capture(&raw);
        let reference_c = reference_from_capture(&raw);
        match (&fast_c, &reference_c) {
            (Some(f), Ok(r)) => assert_eq!(f, r, "from_capture differs for {shown}"),
            (Some(_), Err(e)) => panic!("fast from_capture accepted a refusal ({e}): {shown}"),
            _ => {}
        }
        if let (Ok(a), Ok(b)) = (&reference, &reference_c) {
            assert_eq!(a, b, "the two entry points differ: {shown}");
        }
    }
    fast.is_some()
}

/// The fast path must take this capture itself (the reference accepts it).
fn taken(text: &str) {
    assert!(
        reference_from_slice(text.as_bytes()).is_ok(),
        "reference refuses {text}"
    );
    assert!(agree(text.as_bytes()), "fast path declined {text}");
    let raw = parse_capture(text.as_bytes()).expect("a capture");
    assert!(
        fast_from_capture(&raw).is_some(),
        "fast from_capture declined {text}"
    );
}

/// Both refuse.
fn refused(text: &str) {
    agree(text.as_bytes());
    assert!(
        reference_from_slice(text.as_bytes()).is_err(),
        "reference accepts {text}"
    );
}

fn data(name: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    serde_json::from_slice(&std::fs::read(path).expect("test data")).expect("JSON")
}

#[test]
fn every_spec_vector_takes_the_fast_path() {
    let file = data("mcpseal-1-vectors.json");
    for v in file["vectors"].as_array().expect("vectors") {
        taken(v["rawCapture"].as_str().expect("text"));
    }
}

#[test]
fn saved_fixture_captures_take_the_fast_path() {
    // What `mcpseal snapshot --save-capture` wrote against the fixtures, as it is and written
    // back by `RawCapture::to_vec` (with `schemaVersion`).
    for name in ["modern", "legacy"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/data/captures-v0/{name}.capture.json"));
        let bytes = std::fs::read(path).expect("saved capture");
        taken(std::str::from_utf8(&bytes).expect("UTF-8"));
        let again = parse_capture(&bytes)
            .expect("capture")
            .to_vec()
            .expect("serialise");
        taken(std::str::from_utf8(&again).expect("UTF-8"));
    }
}

#[test]
fn every_anchor_agrees() {
    let to_capture = |v: &Value| {
        let mut lists = serde_json::Map::new();
        for key in ["tools", "resources", "resourceTemplates", "prompts"] {
            let entry = match v.get(key) {
                Some(Value::Array(a)) => json!({"pages": [{ key: a }]}),
                _ => json!({"pages": [], "failure": {"kind": "error", "message": "not served"}}),
            };
            lists.insert(key.to_owned(), entry);
        }
        json!({"era": "2025-11-25", "server": v.get("initialize").cloned().unwrap_or(Value::Null), "lists": lists})
    };
    let mut raws = vec![data("anchors/spec-7.1-vector.json")["rawCapture"].clone()];
    for v in data("anchors/derived-edge-vectors.json")["vectors"]
        .as_array()
        .expect("vectors")
    {
        if v["inputKind"] == "raw-capture" {
            raws.push(serde_json::from_str(v["input"].as_str().expect("text")).expect("JSON"));
        }
    }
    let mut accepted = 0;
    for raw in &raws {
        let text = serde_json::to_string(&to_capture(raw)).expect("serialise");
        if reference_from_slice(text.as_bytes()).is_ok() {
            taken(&text);
            accepted += 1;
        } else {
            refused(&text);
        }
        let capture: RawCapture = serde_json::from_str(&text).expect("capture");
        assert_eq!(
            fast_from_capture(&capture),
            reference_from_capture(&capture).ok()
        );
    }
    assert!(accepted >= 5, "{accepted}");
}

#[test]
fn random_captures_take_the_fast_path() {
    // The first 300 are exactly the captures tests/differential.rs checks against Python.
    for (seed, count) in [(0x005e_ed0f_5ea1, 300), (0x00dd_ba11, 700)] {
        let mut rng = Rng(seed);
        let (mut accepted, mut refused) = (0, 0);
        for _ in 0..count {
            let c = capture(&mut rng);
            if reference_from_slice(c.as_bytes()).is_ok() {
                taken(&c);
                accepted += 1;
            } else {
                assert!(!agree(c.as_bytes()));
                refused += 1;
            }
        }
        assert!(
            accepted > count / 6 && refused > count / 6,
            "{accepted} {refused}"
        );
    }
}

#[test]
fn mutated_captures_never_fool_the_fast_path() {
    let mut rng = Rng(0x00c0_ffee);
    let interesting = [
        b'"', b'\\', b'u', b'd', b'8', b'0', b',', b':', b'[', b']', b'{', b'}', b'n', b' ', b'e',
        b'-', 0x01, 0xC3, 0xED,
    ];
    for _ in 0..800 {
        let mut bytes = capture(&mut rng).into_bytes();
        for _ in 0..1 + rng.below(3) {
            let i = rng.below(bytes.len() as u64) as usize;
            let b = interesting[rng.below(interesting.len() as u64) as usize];
            match rng.below(3) {
                0 => bytes[i] = b,
                1 => bytes.insert(i, b),
                _ => {
                    bytes.remove(i);
                }
            }
        }
        agree(&bytes);
    }
}

const SERVER: &str =
    r#"{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}"#;

fn doc(fields: &str) -> String {
    format!(r#"{{"era":"2025-11-25","server":{SERVER},{fields}}}"#)
}

fn tools(list: &str) -> String {
    doc(&format!(r#""lists":{{"tools":{list}}}"#))
}

#[test]
fn capture_document_shapes() {
    // Accepted, and handled by the fast path itself.
    for text in [
        r#"{"era":"2026-07-28"}"#.to_owned(),
        r#" {"era" : "2025-11-25" , "lists" : { } } "#.to_owned(),
        r#"{"schemaVersion":1,"era":"2026-07-28"}"#.to_owned(),
        r#"{"schemaVersion":0,"era":"2026-07-28"}"#.to_owned(),
        r#"{"era":"2026\u002d07-28","server":null,"serverFailure":"why"}"#.to_owned(),
        r#"{"\u0065ra":"2025-11-25","l\u0069sts":{"t\u006fols":{"p\u0061ges":[{"tools":[]}]}}}"#
            .to_owned(),
        r#"{"era":"2025-11-25","server":"text","serverFailure":null}"#.to_owned(),
        r#"{"era":"2025-11-25","server":[1,2]}"#.to_owned(),
        r#"{"x-debug":{"any":["thing",1e300,{"deep":[]}]},"era":"2025-11-25"}"#.to_owned(),
        doc(r#""lists":{"tools":null,"prompts":{"pages":[{"prompts":[]}]}}"#),
        doc(r#""lists":{"x":1,"resources":{"pages":[{"resources":[{"uri":"b"},{"uri":"a"}]}]}}"#),
        tools(r#"{"pages":[{"tools":[{"name":"b"}],"nextCursor":"c"},{"tools":[{"name":"a"}]}]}"#),
        tools(r#"{}"#),
        tools(r#"{"pages":[]}"#),
        tools(r#"{"failure":null,"pages":[{"tools":[]}]}"#),
        tools(
            r#"{"failure":{"kind":"pageCap","message":"cap"},"pages":[{"tools":[{"name":"x"},{"name":"x"}]}]}"#,
        ),
        tools(
            r#"{"pages":[{"tools":[{"name":"x"},{"name":"x"}]}],"failure":{"kind":"error","message":"m"}}"#,
        ),
        tools(r#"{"pages":[{"tools":[{"nope":1}]}],"failure":{"kind":"transport"}}"#),
        tools(
            r#"{"pages":[{"tools":[{"name":"x"}]}],"failure":{"kind":"cursorLoop","message":"\u00e9","extra":[1]}}"#,
        ),
        tools(r#"{"pages":[{"tools":[{"name":"x"}]},"not an object"]}"#),
        tools(r#"{"pages":[{"tools":[{"nope":1}]},{"nextCursor":"c"}]}"#),
        tools(r#"{"pages":[{"tools":{"name":"x"}}]}"#),
        tools(r#"{"pages":[{"tools":null}]}"#),
        tools(r#"{"pages":[[],{"tools":[{"name":5}]}]}"#),
        tools(r#"{"pages":[{"tools":[{"name":"a","name":"b"}]}]}"#),
        tools(
            r#"{"pages":[{"tools":[{"n\u0061me":"a","description":"x","description":"\u00e9"}]}]}"#,
        ),
        tools(r#"{"pages":[{"tools":[{"name":"a","description":1}]}]}"#),
        tools(r#"{"pages":[{"tools":[{"name":"a\nb","description":"line\nnext \"q\" \\ \t"}]}]}"#),
        tools(r#"{"pages":[{"tools":[{"name":"\"a\"","description":"\/ \u0041 \n"}]}]}"#),
        tools(r#"{"pages":[{"tools":[{"name":"a"}],"resources":"ignored"}],"x":[]}"#),
    ] {
        taken(&text);
    }
    // Refused by the reference (the fast path declines, the reference explains).
    for text in [
        String::new(),
        "[]".to_owned(),
        "{}".to_owned(),
        r#"{"era":"2024-11-05"}"#.to_owned(),
        r#"{"era":"2026-07-28","era":"2026-07-28"}"#.to_owned(),
        r#"{"schemaVersion":2,"era":"2026-07-28"}"#.to_owned(),
        r#"{"schemaVersion":1.0,"era":"2026-07-28"}"#.to_owned(),
        r#"{"schemaVersion":-1,"era":"2026-07-28"}"#.to_owned(),
        r#"{"schemaVersion":"1","era":"2026-07-28"}"#.to_owned(),
        r#"{"era":"2026-07-28","serverFailure":5}"#.to_owned(),
        r#"{"era":"2026-07-28","lists":null}"#.to_owned(),
        r#"{"era":"2026-07-28"} x"#.to_owned(),
        "\u{feff}{\"era\":\"2026-07-28\"}".to_owned(),
        r#"{"era":"2026-07-28","server":{"a":"\ud800"}}"#.to_owned(),
        r#"{"era":"2026-07-28","x":"\udc00"}"#.to_owned(),
        r#"{"era":"2026-07-28","x":1e400}"#.to_owned(),
        tools(r#"{"pages":null}"#),
        tools(r#"{"pages":{}}"#),
        tools(r#"{"pages":[],"pages":[]}"#),
        tools(r#"{"failure":{"kind":"nope"}}"#),
        tools(r#"{"failure":{"message":"no kind"}}"#),
        tools(r#"{"failure":{"kind":"error","message":null}}"#),
        tools(r#"5"#),
        tools(r#"{"pages":[{"tools":[{"name":"x"},{"name":"x"}]}]}"#),
        tools(r#"{"pages":[{"tools":[{"name":"x"}]},{"tools":[{"name":"x"}]}]}"#),
        tools(r#"{"pages":[{"tools":[{"description":"no name"}]}]}"#),
        tools(r#"{"pages":[{"tools":["just a string"]}]}"#),
        tools(r#"{"pages":[{"tools":[{"name":null}]}]}"#),
        tools(r#"{"pages":[{"tools":[{"name":"t","x":"\ud800"}]}],"failure":{"kind":"error"}}"#),
    ] {
        refused(&text);
    }
    // Legal but left to the reference: the fast path declines, the public path still answers.
    for text in [
        tools(r#"{"pages":[{"tools":[{"name":"a"}],"tools":[{"name":"b"}]}]}"#),
        r#"{"era":{"2026-07-28":null}}"#.to_owned(),
    ] {
        agree(text.as_bytes());
        let public = crate::Surface::from_slice(text.as_bytes());
        assert_eq!(public.ok(), reference_from_slice(text.as_bytes()).ok());
    }
}

#[test]
fn nesting_is_counted_from_the_document_or_the_page() {
    // Document: top level, lists, list, pages, page, items array, item = 7 levels.
    let nested = |levels: usize| {
        let inner = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        tools(&format!(
            r#"{{"pages":[{{"tools":[{{"name":"t","x":{inner}}}]}}]}}"#
        ))
    };
    taken(&nested(127 - 7));
    refused(&nested(128 - 7));
    // A capture built in memory: each page is its own document (page, items, item = 3 levels).
    let page = |levels: usize| {
        let inner = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        serde_json::value::RawValue::from_string(format!(
            r#"{{"tools":[{{"name":"t","x":{inner}}}]}}"#
        ))
        .expect("valid JSON")
    };
    for (levels, ok) in [(127 - 3, true), (128 - 3, false)] {
        let mut capture = RawCapture::new(mcpseal_protocol::Era::Legacy);
        capture.lists.tools = Some(mcpseal_protocol::ListCapture {
            pages: vec![page(levels)],
            failure: None,
        });
        assert_eq!(reference_from_capture(&capture).is_ok(), ok);
        assert_eq!(fast_from_capture(&capture).is_some(), ok);
        assert_eq!(
            fast_from_capture(&capture),
            reference_from_capture(&capture).ok()
        );
    }
}
