//! `stamp` and `check` on server.json text: every other key kept where it was, the 4096-byte
//! refusal with its count, schema validation, and the block read back as a claim.

use mcpseal_publish::SealBlock;
use mcpseal_publish::block::{ClaimSource, read_claim};
use mcpseal_publish::keys::{PUBLISHER_PROVIDED, SERVER_SCHEMA_URL};
use mcpseal_publish::server_json::{ServerJsonError, check, stamp};
use mcpseal_surface::Form;
use mcpseal_surface::lock::{Declared, LockFile, Version};
use serde_json::{Value, json};

fn lock() -> LockFile {
    let surface = json!({"form": "mcpseal/1", "era": "2026-07-28",
        "server": {"capabilities": {}, "instructions": null, "serverInfo": {"name": "w"},
                   "supportedVersions": ["2026-07-28"]},
        "tools": [], "resources": null, "resourceTemplates": null, "prompts": null});
    let v = Version::parse("1.2.0").expect("version");
    LockFile::new(Form::McpSeal1, Declared::new(&v, surface, Vec::new()))
}

fn server_json(extra_provided: &str) -> String {
    format!(
        "{{\n  \"$schema\": \"{SERVER_SCHEMA_URL}\",\n  \"name\": \"io.github.me/weather\",\n  \"description\": \"Weather\",\n  \"version\": \"1.2.0\",\n  \"remotes\": [\n    {{\n      \"type\": \"streamable-http\",\n      \"url\": \"https://w.example/mcp\"\n    }}\n  ],\n  \"_meta\": {{\n    \"{PUBLISHER_PROVIDED}\": {{\n      \"com.example/tool\": {{\n        \"z\": 1,\n        \"a\": \"{extra_provided}\"\n      }}\n    }},\n    \"com.example/other\": true\n  }}\n}}\n"
    )
}

#[test]
fn other_keys_order_and_indentation_are_kept() {
    let text = server_json("x");
    let block = SealBlock::from_lock(&lock(), "https://w.example/mcp").expect("block");
    let s = stamp(&text, &block, None).expect("stamps");
    assert!(s.changed);
    // Everything before our block is byte-identical: keys, order (`z` before `a`), indentation.
    let head = text
        .split("\n    },\n    \"com.example/other\"")
        .next()
        .expect("head");
    assert!(s.text.starts_with(head), "{}", s.text);
    assert!(
        s.text
            .ends_with("    \"com.example/other\": true\n  }\n}\n")
    );
    let v: Value = serde_json::from_str(&s.text).expect("json");
    assert_eq!(v["_meta"][PUBLISHER_PROVIDED]["com.example/tool"]["z"], 1);
    let claim = read_claim(&v).expect("claim");
    assert_eq!(claim.source, ClaimSource::Mcpseal);
    assert_eq!(claim.sha256, lock().declared.sha256);
    // Stamping again changes nothing, and check agrees.
    let again = stamp(&s.text, &block, None).expect("stamps");
    assert!(!again.changed);
    let c = check(&s.text, &block, None).expect("checks");
    assert!(c.seal.matches());
    assert!(c.violations.is_empty());
    assert!(!check(&text, &block, None).expect("checks").seal.matches());
}

#[test]
fn over_4096_bytes_is_refused_with_the_count() {
    let block = SealBlock::from_lock(&lock(), "https://w.example/mcp").expect("block");
    let small = stamp(&server_json("x"), &block, None).expect("stamps");
    let room = 4096 - small.publisher_provided_bytes;
    // Exactly at the cap: accepted. One byte more: refused, with the count.
    let at = stamp(&server_json(&"x".repeat(1 + room)), &block, None).expect("at the cap");
    assert_eq!(at.publisher_provided_bytes, 4096);
    match stamp(&server_json(&"x".repeat(2 + room)), &block, None) {
        Err(ServerJsonError::TooLarge { bytes }) => assert_eq!(bytes, 4097),
        other => panic!("expected TooLarge, got {other:?}"),
    }
    // `<` counts six bytes, as the registry (Go) marshals it.
    assert!(matches!(
        stamp(&server_json(&"<".repeat(room / 6 + 1)), &block, None),
        Err(ServerJsonError::TooLarge { .. })
    ));
}

#[test]
fn an_invalid_result_is_refused() {
    let block = SealBlock::from_lock(&lock(), "https://w.example/mcp").expect("block");
    let long = server_json("x").replace("\"Weather\"", &format!("\"{}\"", "w".repeat(101)));
    match stamp(&long, &block, None) {
        Err(ServerJsonError::Invalid(v)) => assert_eq!(v[0].path, "/description"),
        other => panic!("expected Invalid, got {other:?}"),
    }
    let no_schema =
        server_json("x").replace(&format!("  \"$schema\": \"{SERVER_SCHEMA_URL}\",\n"), "");
    assert!(matches!(
        stamp(&no_schema, &block, None),
        Err(ServerJsonError::Invalid(_))
    ));
    assert!(matches!(
        stamp("[]", &block, None),
        Err(ServerJsonError::Shape(_))
    ));
}
