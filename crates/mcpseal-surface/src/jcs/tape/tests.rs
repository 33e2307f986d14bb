//! The tape writer against the reference (`serde_json::Value` + `write_jcs`): same bytes for
//! every text serde_json accepts, and a refusal (the fast path declines) for every text it
//! refuses. Adversarial strings, keys, numbers, nesting and whitespace, by hand and by proptest.

use proptest::prelude::*;

use crate::differential::{canonical_fast, canonical_reference, validates_fast};
use crate::jcs::{utf16_cmp, utf16_cmp_bytes};

/// Fast and reference agree on `text`; returns whether the fast path accepted it. The fast path
/// may never accept what serde_json refuses, nor write other bytes.
fn agree(text: &[u8]) -> bool {
    let fast = canonical_fast(text);
    let reference = canonical_reference(text);
    let shown = String::from_utf8_lossy(text);
    match (&fast, &reference) {
        (Some(f), Some(r)) => assert_eq!(
            String::from_utf8_lossy(f),
            String::from_utf8_lossy(r),
            "bytes differ for {shown:?}"
        ),
        (Some(_), None) => panic!("fast path accepted what serde_json refuses: {shown:?}"),
        _ => {}
    }
    // The validating reader accepts exactly what the tape accepts, and never more than the
    // reference validating walk.
    assert_eq!(validates_fast(text), fast.is_some(), "{shown:?}");
    if fast.is_some() {
        let s = std::str::from_utf8(text).expect("accepted text is UTF-8");
        assert!(mcpseal_protocol::validate_json(s).is_ok(), "{shown:?}");
    }
    fast.is_some()
}

/// Valid JSON the fast path must handle itself (not decline).
fn same(text: &str) {
    assert!(agree(text.as_bytes()), "fast path declined valid {text:?}");
}

/// Invalid JSON: both refuse.
fn refused(text: &[u8]) {
    assert!(!agree(text), "{:?}", String::from_utf8_lossy(text));
    assert!(canonical_reference(text).is_none(), "serde_json accepts it");
}

#[test]
fn strings() {
    for s in [
        r#""""#,
        r#""plain""#,
        r#""\u0000\u0001\u001f\u001F""#,
        r#""\b\f\n\r\t\"\\\/""#,
        r#""\u2028\u2029 raw:  ""#,
        "\"\u{7f} raw DEL and \\u007f\"",
        r#""\ud83d\ude00 \uD83D\uDE00 \uDBFF\uDFFF \uD800\uDC00""#,
        "\"raw 😀 é ﬁ \u{e000} \u{ffff} \u{10ffff}\"",
        r#""\u00e9 vs é vs e\u0301""#,
        r#""\u0041\u0042 \u005c \u0022""#,
        r#""\uffff\ufffe\ue000""#,
        r#"["a\\b", "c\"d", "\\\\\\\""]"#,
    ] {
        same(s);
    }
    // Every position of a special byte relative to the 8-byte scan.
    for len in 0..20 {
        for special in [
            "\\n",
            "\\u0001",
            "\\\"",
            "é",
            "😀",
            "\u{2028}",
            "\\ud83d\\ude00",
        ] {
            let text = format!("\"{}{special}{}\"", "a".repeat(len), "b".repeat(len % 9));
            same(&text);
        }
    }
}

#[test]
fn keys_sort_by_utf16_and_last_duplicate_wins() {
    for s in [
        r#"{"\ufb01":1,"\ud83d\ude00":2,"z":3,"10":4,"9":5,"":6}"#,
        r#"{"\ue000":1,"\ud800\udc00":2,"\ud7ff":3,"\uffff":4}"#,
        r#"{"b":1,"a":2,"c":{"z":1,"y":[{"d":1,"c":2},{}],"x":null}}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"b":1,"a":2,"b":3,"a":4,"b":5}"#,
        r#"{"\u0061":1,"a":2}"#,
        r#"{"a":2,"\u0061":1}"#,
        r#"{"a":{"x":1},"a":[1,2]}"#,
        r#"{"\u0001":1,"A":2,"\n":3,"\\":4,"\"":5}"#,
        r#"{"é":1,"e\u0301":2,"e":3,"f":4}"#,
        r#"{"a":1,"b":2,"c":3}"#,
        r#"{"name":"x","description":"d","inputSchema":{"type":"object","properties":{}}}"#,
    ] {
        same(s);
    }
}

#[test]
fn numbers() {
    for s in [
        "-0",
        "[0,-0,0.0,-0.0,0e0,-0e-0]",
        "1e21",
        "1e20",
        "5e-324",
        "[4.9e-324, 2e-324, 1e-400, -1e-400]",
        "9007199254740993",
        "[9007199254740992, 9007199254740993, -9007199254740993]",
        "18446744073709551615",
        "18446744073709551616",
        "-9223372036854775809",
        "123456789012345678901234567890",
        "1.7976931348623157e308",
        "0e99999999999999999999",
        "1e-99999999999999999999",
        "[1.0, 1E2, 1e+2, 2.50, 1e-7, 0.000001, 1.5e300, 2.5e-7, 1e23, 333333333.3333332]",
        "[0.1, 0.2, 0.30000000000000004, 1.00000000000000000000000000001]",
    ] {
        same(s);
    }
    for s in [
        "1e400",
        "-1e400",
        "1.7976931348623159e308",
        "1e99999999999999999999",
        "[1e309]",
    ] {
        refused(s.as_bytes());
    }
}

#[test]
fn nesting_limit_is_serde_jsons() {
    let nested = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    same(&nested(127));
    refused(nested(128).as_bytes());
    refused(nested(10_000).as_bytes());
    let objects = |n: usize| format!("{}1{}", r#"{"a":"#.repeat(n), "}".repeat(n));
    same(&objects(127));
    refused(objects(128).as_bytes());
}

#[test]
fn whitespace_is_serde_jsons() {
    same(" \t\n\r[ 1 ,\n2\t, {\r\"a\" : [ ] , \"b\":{ } } ]\r\n ");
    // Form feed, vertical tab, NBSP, BOM are not JSON whitespace.
    for s in ["\u{c}1", "1\u{b}", "\u{a0}1", "\u{feff}1"] {
        refused(s.as_bytes());
    }
}

#[test]
fn invalid_json_is_refused() {
    let cases: &[&[u8]] = &[
        b"",
        b" ",
        b"[1,]",
        br#"{"a":1,}"#,
        b"[1 2]",
        br#"{"a" 1}"#,
        b"{1:2}",
        b"{\"a\"}",
        b"01",
        b"-",
        b"-01",
        b"1.",
        b".5",
        b"+1",
        b"1e",
        b"1e+",
        b"0x10",
        b"NaN",
        b"Infinity",
        b"nul",
        b"tru",
        b"falsey",
        b"1 2",
        b"[]]",
        b"\"abc",
        br#""\x""#,
        br#""\u12""#,
        br#""\u12g4""#,
        br#""\U0041""#,
        br#""\ud800""#,
        br#""\udbff""#,
        br#""\udc00""#,
        br#""\udfff""#,
        br#""\ud800x""#,
        br#""\ud800\u0041""#,
        br#""\ud800\ud800""#,
        br#""\ud800\n""#,
        br#"{"\udc00":1}"#,
        b"\"raw \x01 control\"",
        b"\"raw \x1f control\"",
        b"\"tab\tinside\"",
        b"\"\xff\"",
        b"\"\xc3\"",
        b"\"\xed\xa0\x80\"",
        b"\"\xc0\xaf\"",
        b"\"\xf4\x90\x80\x80\"",
        b"[\xc3\xa9]",
        b"'single'",
        b"[1]x",
    ];
    for text in cases {
        refused(text);
    }
}

/// A JSON string token written in many ways: escapes of every kind, raw characters of every
/// ordering class, surrogate pairs in both hex cases.
fn json_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => "[a-zA-Z0-9 _/]{1,12}",
        1 => prop_oneof![
            Just(r#"\""#), Just(r"\\"), Just(r"\/"), Just(r"\b"), Just(r"\f"), Just(r"\n"),
            Just(r"\r"), Just(r"\t"),
        ]
        .prop_map(str::to_owned),
        1 => (0u32..0x20).prop_map(|c| format!("\\u{c:04x}")),
        1 => (0x20u32..0xD800, any::<bool>()).prop_map(|(c, up)| if up {
            format!("\\u{c:04X}")
        } else {
            format!("\\u{c:04x}")
        }),
        1 => (0xE000u32..0x1_0000).prop_map(|c| format!("\\u{c:04x}")),
        1 => (0xD800u32..0xDC00, 0xDC00u32..0xE000).prop_map(|(h, l)| format!("\\u{h:04X}\\u{l:04x}")),
        2 => prop_oneof![
            Just('é'), Just('\u{7f}'), Just('\u{2028}'), Just('\u{2029}'), Just('ﬁ'),
            prop::char::range('\u{80}', '\u{7ff}'),
            prop::char::range('\u{e000}', '\u{fffd}'),
            prop::char::range('\u{10000}', '\u{10ffff}'),
        ]
        .prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..6).prop_map(|v| format!("\"{}\"", v.concat()))
}

/// Keys: a small pool (so duplicates, also escaped duplicates, happen) or any string.
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop_oneof![
            Just(r#""a""#), Just(r#""\u0061""#), Just(r#""b""#), Just(r#""name""#),
            Just(r#""description""#), Just(r#""10""#), Just(r#""9""#), Just(r#""""#),
            Just(r#""\ufb01""#), Just(r#""😀""#), Just(r#""\ud83d\ude00""#), Just(r#""é""#),
        ]
        .prop_map(str::to_owned),
        2 => json_string(),
    ]
}

fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any::<i64>().prop_map(|i| i.to_string()),
        1 => any::<u64>().prop_map(|u| u.to_string()),
        2 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:?}")),
        2 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
        4 => (
            any::<bool>(),
            prop_oneof![Just("0".to_owned()), "[1-9][0-9]{0,22}"],
            prop::option::of("[0-9]{1,22}"),
            prop::option::of(("[eE]", "[+-]?", "[0-9]{1,3}")),
        )
            .prop_map(|(neg, int, frac, exp)| {
                let mut s = String::new();
                if neg {
                    s.push('-');
                }
                s.push_str(&int);
                if let Some(f) = frac {
                    s.push('.');
                    s.push_str(&f);
                }
                if let Some((e, sign, d)) = exp {
                    s.push_str(&e);
                    s.push_str(&sign);
                    s.push_str(&d);
                }
                s
            }),
    ]
}

fn ws() -> impl Strategy<Value = &'static str> {
    prop_oneof![8 => Just(""), 1 => Just(" "), 1 => Just("\n\t"), 1 => Just("\r ")]
}

/// JSON text (valid, within serde_json's range and depth).
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        1 => prop_oneof![Just("null"), Just("true"), Just("false")].prop_map(str::to_owned),
        2 => number_text(),
        3 => json_string(),
    ];
    leaf.prop_recursive(6, 96, 7, |inner| {
        prop_oneof![
            prop::collection::vec((ws(), inner.clone(), ws()), 0..7).prop_map(|v| {
                let parts: Vec<String> = v
                    .into_iter()
                    .map(|(a, x, b)| format!("{a}{x}{b}"))
                    .collect();
                format!("[{}]", parts.join(","))
            }),
            prop::collection::vec((ws(), key(), ws(), inner), 0..7).prop_map(|v| {
                let parts: Vec<String> = v
                    .into_iter()
                    .map(|(a, k, b, x)| format!("{a}{k}{b}:{x}"))
                    .collect();
                format!("{{{}}}", parts.join(","))
            }),
        ]
    })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: 512,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(160))]

    #[test]
    fn random_json_text_agrees(text in json_text()) {
        // Numbers out of the double range are the only refusal this generator can produce.
        let accepted = agree(text.as_bytes());
        prop_assert!(accepted || canonical_reference(text.as_bytes()).is_none(), "{text}");
    }

    #[test]
    fn mutated_json_text_agrees(
        text in json_text(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0usize..4, prop_oneof![
            Just(b'"'), Just(b'\\'), Just(b'u'), Just(b'd'), Just(b'8'), Just(b'0'),
            Just(b','), Just(b':'), Just(b'['), Just(b']'), Just(b'{'), Just(b'}'),
            Just(b'e'), Just(b'-'), Just(b'.'), Just(b' '), Just(0x01u8), Just(0xC3u8),
            Just(0xA9u8), Just(0xEDu8), Just(0x80u8), any::<u8>(),
        ]), 1..4),
    ) {
        let mut bytes = text.into_bytes();
        for (at, op, b) in edits {
            if bytes.is_empty() {
                bytes.push(b);
                continue;
            }
            let i = at.index(bytes.len());
            match op {
                0 => bytes[i] = b,
                1 => bytes.insert(i, b),
                2 => { bytes.remove(i); }
                _ => bytes.truncate(i),
            }
        }
        agree(&bytes);
    }

    #[test]
    fn utf16_order_on_bytes_is_utf16_cmp(a in json_string(), b in json_string()) {
        let decode = |s: &str| serde_json::from_str::<String>(s).unwrap_or_default();
        let (a, b) = (decode(&a), decode(&b));
        prop_assert_eq!(utf16_cmp_bytes(a.as_bytes(), b.as_bytes()), utf16_cmp(&a, &b));
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        prop_assert_eq!(utf16_cmp(&a, &b), units(&a).cmp(&units(&b)));
    }
}

#[test]
fn generated_capture_values_agree() {
    // The values of the differential test's generator (also used against Python).
    let mut rng = crate::surface::random::Rng(0xfeed_beef);
    for _ in 0..3_000 {
        let mut text = String::new();
        crate::surface::random::value(&mut rng, 5, &mut text);
        // The generator writes random bit patterns: only NaN-free, finite numbers.
        let accepted = agree(text.as_bytes());
        assert!(
            accepted || canonical_reference(text.as_bytes()).is_none(),
            "{text}"
        );
    }
}
