//! Both directions of every fail-closed rule: the ambiguous surface is refused with a typed
//! error, and the nearest unambiguous one is accepted. The Python implementation refuses the
//! same captures (exit 1).

mod common;

use mcpseal_surface::{Form, ListKind, RawCapture, Surface, SurfaceError};

const LISTS: [(ListKind, &str, &str); 4] = [
    (ListKind::Tools, "tools", "name"),
    (ListKind::Resources, "resources", "uri"),
    (
        ListKind::ResourceTemplates,
        "resourceTemplates",
        "uriTemplate",
    ),
    (ListKind::Prompts, "prompts", "name"),
];

/// A 2025 capture whose `key` list holds `items` (JSON text), split over two pages when
/// `split` is set; the other lists are served empty.
fn capture(key: &str, items: &[&str], split: bool) -> String {
    let mut lists = Vec::new();
    for (_, k, _) in LISTS {
        let pages = if k == key && split && items.len() > 1 {
            format!(
                r#"[{{"{k}":[{}],"nextCursor":"c"}},{{"{k}":[{}]}}]"#,
                items[..1].join(","),
                items[1..].join(",")
            )
        } else if k == key {
            format!(r#"[{{"{k}":[{}]}}]"#, items.join(","))
        } else {
            format!(r#"[{{"{k}":[]}}]"#)
        };
        lists.push(format!(r#""{k}":{{"pages":{pages}}}"#));
    }
    format!(
        r#"{{"era":"2025-11-25","server":{{"protocolVersion":"2025-11-25","capabilities":{{}},"serverInfo":{{"name":"s","version":"1"}}}},"lists":{{{}}}}}"#,
        lists.join(",")
    )
}

fn item(id_key: &str, id: &str) -> String {
    if id_key == "name" {
        format!(r#"{{"name":"{id}","inputSchema":{{"type":"object"}}}}"#)
    } else {
        format!(r#"{{"{id_key}":"{id}","name":"n"}}"#)
    }
}

/// Captures whose Python exit code is checked at the end of a test, in one process.
#[derive(Default)]
struct Py(Vec<(String, i32, String)>);

impl Py {
    fn expect(&mut self, text: &str, code: i32, what: impl Into<String>) {
        self.0.push((text.to_owned(), code, what.into()));
    }

    fn run(self) {
        let jobs: Vec<(Vec<&str>, &str)> = self
            .0
            .iter()
            .map(|(t, _, _)| (vec![], t.as_str()))
            .collect();
        let got = common::python_batch(&jobs);
        for ((code, _), (_, want, what)) in got.into_iter().zip(&self.0) {
            assert_eq!(code, *want, "python: {what}");
        }
    }
}

#[test]
fn duplicates_refused_in_each_list_and_distinct_accepted() {
    let mut py = Py::default();
    for (kind, key, id_key) in LISTS {
        for split in [false, true] {
            let dup = capture(key, &[&item(id_key, "x"), &item(id_key, "x")], split);
            match Surface::from_slice(dup.as_bytes()) {
                Err(SurfaceError::DuplicateIdentity { list, identity, .. }) => {
                    assert_eq!((list, identity.as_str()), (kind, "x"));
                }
                other => panic!("{key}: expected duplicate error, got {other:?}"),
            }
            py.expect(&dup, 1, format!("{key}: refuses duplicates"));

            let distinct = capture(key, &[&item(id_key, "x"), &item(id_key, "X")], split);
            let s = Surface::from_slice(distinct.as_bytes()).expect("distinct accepted");
            assert_eq!(s.count(kind), Some(2));
            py.expect(&distinct, 0, format!("{key}: accepts distinct"));
        }
    }
    // Duplicates by code unit only: "é" precomposed vs decomposed are different identities.
    let nfc = capture(
        "tools",
        &[&item("name", "\u{e9}"), &item("name", "e\u{301}")],
        false,
    );
    assert!(Surface::from_slice(nfc.as_bytes()).is_ok());
    py.expect(&nfc, 0, "NFC vs NFD");
    py.run();
}

#[test]
fn missing_or_non_string_identity_refused() {
    let mut py = Py::default();
    for (kind, key, id_key) in LISTS {
        let bad_items = [
            r#"{"description":"no identity"}"#.to_owned(),
            format!(r#"{{"{id_key}":5}}"#),
            format!(r#"{{"{id_key}":null}}"#),
            format!(r#"{{"{id_key}":["a"]}}"#),
            r#""just a string""#.to_owned(),
        ];
        for bad in &bad_items {
            let text = capture(key, &[&item(id_key, "ok"), bad], false);
            match Surface::from_slice(text.as_bytes()) {
                Err(SurfaceError::MissingIdentity { list, index, .. }) => {
                    assert_eq!((list, index), (kind, 1), "{key} {bad}");
                }
                other => panic!("{key} {bad}: expected missing identity, got {other:?}"),
            }
            py.expect(&text, 1, format!("{key} {bad}"));
        }
        let good = capture(key, &[&item(id_key, "ok"), &item(id_key, "")], false);
        assert!(
            Surface::from_slice(good.as_bytes()).is_ok(),
            "empty string is an identity"
        );
    }
}

#[test]
fn lone_surrogates_refused_anywhere_and_pairs_accepted() {
    let mut py = Py::default();
    let lone = [
        r"\ud800",
        r"\udbff",
        r"\udc00",
        r"\udfff",
        r"\ud800x",
        r"\ud800\u0041",
    ];
    for s in lone {
        let places = [
            capture("tools", &[&item("name", s)], false),
            capture(
                "tools",
                &[&format!(r#"{{"name":"t","description":"{s}"}}"#)],
                false,
            ),
            capture("tools", &[&format!(r#"{{"name":"t","{s}":1}}"#)], false),
            capture("prompts", &[&item("name", "a"), &item("name", s)], true),
            capture("tools", &[], false).replace(
                r#""tools":[]"#,
                &format!(r#""tools":[],"nextCursor":"{s}""#),
            ),
            capture("tools", &[], false)
                .replace(r#""name":"s""#, &format!(r#""name":"s","title":"{s}""#)),
        ];
        for text in places {
            match Surface::from_slice(text.as_bytes()) {
                Err(SurfaceError::LoneSurrogate { .. }) => {}
                other => panic!("{s} in {text}: expected lone surrogate error, got {other:?}"),
            }
            py.expect(&text, 1, format!("{s} in {text}"));
        }
    }
    // In a duplicated key whose value is overwritten (last one wins, as in JavaScript), at
    // item level and at page level.
    for text in [
        capture(
            "tools",
            &[&format!(r#"{{"name":"{}","name":"t"}}"#, r"\ud800")],
            false,
        ),
        capture("tools", &[], false).replace(
            r#""tools":[]"#,
            &format!(r#""tools":[{{"name":"{}"}}],"tools":[]"#, r"\ud800"),
        ),
    ] {
        assert!(
            matches!(
                Surface::from_slice(text.as_bytes()),
                Err(SurfaceError::LoneSurrogate { .. })
            ),
            "{text}"
        );
        py.expect(&text, 1, text.clone());
    }
    // In a field of the capture document itself (serde parses it directly).
    let text = capture("tools", &[], false).replace(
        r#""era":"2025-11-25""#,
        r#""era":"2025-11-25","serverFailure":"\ud800""#,
    );
    assert!(matches!(
        mcpseal_surface::parse_capture(text.as_bytes()),
        Err(SurfaceError::LoneSurrogate { .. })
    ));
    py.expect(&text, 1, "serverFailure");
    // A proper pair, upper or lower case hex, is fine and is written as raw UTF-8.
    for pair in [r"\ud83d\ude00", r"\uD83D\uDE00"] {
        let text = capture("tools", &[&item("name", pair)], false);
        let s = Surface::from_slice(text.as_bytes()).expect("pair accepted");
        let bytes = s.canonical_bytes(Form::McpSeal1);
        assert!(
            String::from_utf8(bytes)
                .expect("utf-8")
                .contains("\u{1f600}")
        );
        py.expect(&text, 0, format!("pair {pair}"));
    }
    // A surrogate encoded directly as UTF-8 bytes (ED A0 80) is not UTF-8 at all.
    let mut bytes = capture("tools", &[&item("name", "X")], false).into_bytes();
    let at = bytes
        .windows(3)
        .position(|w| w == br#""X""#)
        .expect("marker")
        + 1;
    bytes.splice(at..=at, [0xED, 0xA0, 0x80]);
    assert!(matches!(
        Surface::from_slice(&bytes),
        Err(SurfaceError::Capture { .. })
    ));
    assert_eq!(common::python(&[], &bytes).0, 2, "python: not UTF-8");
    py.run();
}

#[test]
fn failed_lists_pages_are_only_validated() {
    let mut py = Py::default();
    // A list with a failure is null whatever its pages hold (duplicates, missing arrays)...
    let failed = |text: String| {
        text.replace(
            r#""pages":[{"tools":"#,
            r#""failure":{"kind":"error","message":"m"},"pages":[{"tools":"#,
        )
    };
    let text = failed(capture(
        "tools",
        &[&item("name", "x"), &item("name", "x")],
        false,
    ));
    let s = Surface::from_slice(text.as_bytes()).expect("accepted");
    assert_eq!(s.count(ListKind::Tools), None);
    py.expect(&text, 0, "duplicates in a failed list");
    // ...but a lone surrogate anywhere in the capture still fails, in both entry points.
    let text = failed(capture("tools", &[&item("name", r"\udc00")], false));
    assert!(matches!(
        Surface::from_slice(text.as_bytes()),
        Err(SurfaceError::LoneSurrogate { .. })
    ));
    let raw: RawCapture = serde_json::from_str(&text).expect("serde alone does not validate");
    assert!(matches!(
        Surface::from_capture(&raw),
        Err(SurfaceError::LoneSurrogate { .. })
    ));
    py.expect(&text, 1, "lone surrogate in a failed list");
    // In an unknown field and in a failure message.
    for text in [
        capture("tools", &[], false).replace(r#""era":"#, r#""x-debug":["\ud800"],"era":"#),
        failed(capture("tools", &[&item("name", "x")], false))
            .replace(r#""message":"m""#, r#""message":"\ud800""#),
    ] {
        assert!(
            matches!(
                Surface::from_slice(text.as_bytes()),
                Err(SurfaceError::LoneSurrogate { .. })
            ),
            "{text}"
        );
        py.expect(&text, 1, text.clone());
    }
    py.run();
}

#[test]
fn nesting_limit_is_the_same_in_both_implementations() {
    // The capture's top-level object, `lists`, the list capture, `pages`, the page, the item
    // array and the item make 7 levels; the rest is inside the item.
    let nested = |levels: usize| {
        let inner = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
        capture("tools", &[&format!(r#"{{"name":"t","x":{inner}}}"#)], false)
    };
    let mut py = Py::default();
    let ok = nested(127 - 7);
    assert!(Surface::from_slice(ok.as_bytes()).is_ok());
    py.expect(&ok, 0, "127 levels");
    let deep = nested(128 - 7);
    assert!(matches!(
        Surface::from_slice(deep.as_bytes()),
        Err(SurfaceError::Capture { .. })
    ));
    py.expect(&deep, 2, "128 levels");
    let very_deep = nested(5000);
    assert!(Surface::from_slice(very_deep.as_bytes()).is_err());
    py.expect(&very_deep, 2, "5000 levels");
    py.run();
}

#[test]
fn garbage_is_an_error_not_a_panic() {
    for text in [
        "",
        "null",
        "[]",
        "{}",
        r#"{"era":"2024-11-05"}"#,
        r#"{"era":"2025-11-25","lists":{"tools":{"pages":{}}}}"#,
        r#"{"era":"2025-11-25","lists":{"tools":{"failure":{"kind":"nope"}}}}"#,
        r#"{"era":"2025-11-25","server":1e400}"#,
        "\u{feff}{}",
    ] {
        assert!(Surface::from_slice(text.as_bytes()).is_err(), "{text}");
    }
    // Minimal valid capture: every list not captured, server absent.
    let s = Surface::from_slice(br#"{"era":"2026-07-28"}"#).expect("minimal");
    assert_eq!(s.failed().len(), 4);
    assert!(s.not_served().is_empty());
    // Numbers out of double range fail, not panic: as a bad document when parsed from bytes,
    // as unrepresentable JSON when the capture was built in memory.
    let text = capture("tools", &[r#"{"name":"t","x":1e400}"#], false);
    assert!(matches!(
        Surface::from_slice(text.as_bytes()),
        Err(SurfaceError::Capture { .. })
    ));
    let raw: RawCapture = serde_json::from_str(&text).expect("serde alone does not validate");
    assert!(matches!(
        Surface::from_capture(&raw),
        Err(SurfaceError::InvalidJson { .. })
    ));
    assert_eq!(
        common::python(&[], text.as_bytes()).0,
        2,
        "python: out of range"
    );
}
