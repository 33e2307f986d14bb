//! `mcpseal card emit|check` end to end: cards emitted from a real lock, served by the fixture
//! (`--card PATH=FILE`) at every discovery place and in every shape, with ETag/304, a card
//! that lies about the tools, a card on another origin, and a bare card without the headers.

mod lock_support;

use lock_support::{Out, Work, assert_schema, base_surface, with_description};
use mcpseal_fixtures::HttpFixture;
use mcpseal_publish::card::validate::violations;
use mcpseal_publish::keys::SERVER_SCHEMA_URL;
use serde_json::{Value, json};

/// A lock of the base surface (1.0.0) and a server.json whose remote is `{origin}/mcp` (the
/// fixture serving the card fills in its own origin).
fn prepared() -> Work {
    let w = Work::new();
    let s = w.surface("surface.json", &base_surface());
    let fx = HttpFixture::start(&["--surface", &s, "--server-version", "1.0.0"]);
    let out = w.run(&["lock", "--server-version", "1.0.0", &fx.url], None);
    assert_eq!(out.code, 0, "lock: {}", out.stderr);
    w.write(
        "server.json",
        &json!({"$schema": SERVER_SCHEMA_URL, "name": "io.github.me/seal-test",
            "description": "A card test", "version": "1.0.0", "title": "Seal test",
            "remotes": [{"type": "streamable-http", "url": "{origin}/mcp"}]})
        .to_string(),
    );
    w
}

fn emit(w: &Work, shape: &str) -> String {
    let out = w.run(&["card", "emit", "--shape", shape], None);
    assert_eq!(out.code, 0, "emit {shape}: {}", out.stderr);
    out.stdout
}

fn check(w: &Work, url: &str, extra: &[&str]) -> Out {
    let mut args = vec!["card", "check", url, "--format", "json"];
    args.extend_from_slice(extra);
    let out = w.run(&args, None);
    assert_schema("card-check-report.schema.json", &out.json());
    out
}

fn checks_of(doc: &Value) -> Vec<(String, String, String)> {
    doc["cards"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|c| {
            let place = c["place"].as_str().unwrap_or("").to_owned();
            c["checks"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |k| {
                    (
                        place.clone(),
                        k["id"].as_str().unwrap_or("").to_owned(),
                        k["state"].as_str().unwrap_or("").to_owned(),
                    )
                })
        })
        .collect()
}

fn failed(doc: &Value) -> Vec<String> {
    checks_of(doc)
        .into_iter()
        .filter(|(_, _, s)| s == "fail")
        .map(|(p, id, _)| format!("{p} {id}"))
        .collect()
}

#[test]
fn emitted_cards_are_valid_and_byte_stable() {
    let w = prepared();
    let v1 = emit(&w, "v1");
    assert_eq!(v1, emit(&w, "v1"), "byte-stable");
    assert!(v1.ends_with("}\n") && v1.starts_with("{\n  \"$schema\""));
    let doc: Value = serde_json::from_str(&v1).expect("json");
    assert_eq!(violations(&doc), Vec::new());
    assert_eq!(doc["version"], "1.0.0");
    assert_eq!(
        doc["remotes"][0]["supportedProtocolVersions"],
        json!(["2026-07-28"]),
        "the locked supportedVersions of the modern fixture"
    );
    assert!(doc.get("tools").is_none(), "a v1 card lists no primitives");
    let smithery: Value = serde_json::from_str(&emit(&w, "smithery")).expect("json");
    assert_eq!(
        smithery["serverInfo"],
        json!({"name": "seal-test", "version": "1.0.0"})
    );
    assert_eq!(smithery["tools"].as_array().map(Vec::len), Some(2));
    assert_eq!(violations(&smithery), Vec::new());
}

#[test]
fn every_place_and_shape_is_found_and_consistent() {
    let w = prepared();
    let v1 = w.write("v1.json", &emit(&w, "v1"));
    let smithery = w.write("smithery.json", &emit(&w, "smithery"));
    let legacy = w.write(
        "legacy.json",
        &json!({"serverInfo": {"name": "seal-test", "version": "1.0.0"},
                "protocolVersion": "2026-07-28", "capabilities": {}})
        .to_string(),
    );
    let inline: Value =
        serde_json::from_str(&std::fs::read_to_string(&v1).expect("read")).expect("json");
    let catalog = w.write(
        "catalog.json",
        &json!({"specVersion": "1.0", "entries": [
            {"identifier": "urn:air:me:mcp:inline", "type": "application/mcp-server-card+json",
             "data": inline},
            {"identifier": "urn:air:me:mcp:url", "type": "application/mcp-server-card+json",
             "url": "{origin}/mcp/server-card"}]})
        .to_string(),
    );
    let s = w.surface("surface.json", &base_surface());
    let fx = HttpFixture::start(&[
        "--surface",
        &s,
        "--server-version",
        "1.0.0",
        "--card",
        &format!("/.well-known/ai-catalog.json={catalog}"),
        "--card",
        &format!("/mcp/server-card={v1}"),
        "--card",
        &format!("/.well-known/mcp/server-card={v1}"),
        "--card",
        &format!("/.well-known/mcp/server-card.json={smithery}"),
        "--card",
        &format!("/.well-known/mcp.json={legacy}"),
    ]);
    let out = check(&w, &fx.url, &[]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let doc = out.json();
    let shapes: Vec<(String, String)> = doc["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .map(|c| {
            (
                c["place"].as_str().unwrap_or("").to_owned(),
                c["shape"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        shapes,
        [
            ("catalog-entry".into(), "v1".into()),
            ("catalog-entry".into(), "v1".into()),
            ("server-card".into(), "v1".into()),
            ("well-known-server-card".into(), "v1".into()),
            ("well-known-server-card-json".into(), "smithery".into()),
            ("well-known-mcp-json".into(), "legacy".into()),
        ]
    );
    let all = checks_of(&doc);
    for (id, state) in [
        ("card/revalidation", "pass"),
        ("card/cors", "pass"),
        ("card/etag", "pass"),
        ("card/version", "pass"),
        ("card/remote", "pass"),
        ("card/protocol-versions", "pass"),
        ("card/lists", "pass"),
    ] {
        assert!(
            all.iter().any(|(_, i, s)| i == id && s == state),
            "{id} {state} in {all:?}"
        );
    }
    assert_eq!(doc["cards"][2]["revalidationStatus"], 304);
    // The reserved place is asked for the card media type and answers with it.
    assert_eq!(
        doc["cards"][2]["mediaType"],
        "application/mcp-server-card+json"
    );
}

#[test]
fn a_card_that_lies_about_the_tools_is_a_mismatch() {
    let w = prepared();
    let honest: Value = serde_json::from_str(&emit(&w, "smithery")).expect("json");
    let mut lying = honest.clone();
    lying["tools"] =
        with_description(&json!({"tools": honest["tools"]}), "echo", "Echo, safely")["tools"]
            .clone();
    lying["tools"]
        .as_array_mut()
        .expect("tools")
        .retain(|t| t["name"] != "clock");
    let file = w.write("lying.json", &lying.to_string());
    // A v1 card that claims another version and a protocol version the server does not speak.
    let mut v1: Value = serde_json::from_str(&emit(&w, "v1")).expect("json");
    v1["version"] = json!("9.9.9");
    v1["remotes"][0]["supportedProtocolVersions"] = json!(["2026-07-28", "2099-01-01"]);
    let v1 = w.write("v1-lying.json", &v1.to_string());
    let s = w.surface("surface.json", &base_surface());
    let fx = HttpFixture::start(&[
        "--surface",
        &s,
        "--server-version",
        "1.0.0",
        "--card",
        &format!("/mcp/server-card={v1}"),
        "--card",
        &format!("/.well-known/mcp/server-card.json={file}"),
    ]);
    let out = check(&w, &fx.url, &[]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let doc = out.json();
    assert_eq!(
        failed(&doc),
        [
            "server-card card/version",
            "server-card card/protocol-versions",
            "well-known-server-card-json card/lists",
            "well-known-server-card-json card/lists"
        ]
    );
    let text = doc.to_string();
    assert!(
        text.contains("/tools/name=clock"),
        "the live tool the card hides is named"
    );
    assert!(
        text.contains("/tools/name=echo/description"),
        "the rewritten description is named"
    );
}

#[test]
fn a_card_on_another_origin_is_fetched_without_credentials() {
    let w = prepared();
    let v1 = w.write("v1.json", &emit(&w, "v1"));
    let log = w.path("cards.log");
    let log_arg = log.to_string_lossy().into_owned();
    let s = w.surface("surface.json", &base_surface());
    // Origin B hosts the card (its remote, `{origin}/mcp`, is B's own endpoint).
    let b = HttpFixture::start(&[
        "--surface",
        &s,
        "--server-version",
        "1.0.0",
        "--card-log",
        &log_arg,
        "--card",
        &format!("/cards/seal.json={v1}"),
    ]);
    let b_origin = b.url.trim_end_matches("/mcp").to_owned();
    // Origin A is the server checked; its AI Catalog points at B's card.
    let catalog = w.write(
        "catalog.json",
        &json!({"specVersion": "1.0", "entries": [{"identifier": "urn:air:me:mcp:seal",
            "type": "application/mcp-server-card+json", "url": format!("{b_origin}/cards/seal.json")}]})
        .to_string(),
    );
    let a = HttpFixture::start(&[
        "--surface",
        &s,
        "--server-version",
        "1.0.0",
        "--card-log",
        &log_arg,
        "--card",
        &format!("/.well-known/ai-catalog.json={catalog}"),
    ]);
    let out = check(
        &w,
        &a.url,
        &["--header", "Authorization: Bearer s3cret-token"],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let doc = out.json();
    assert_eq!(
        doc["cards"][0]["url"],
        format!("{b_origin}/cards/seal.json")
    );
    // B's remote was asked too (another origin, without the user's header) and served.
    assert!(
        checks_of(&doc)
            .iter()
            .any(|(_, id, st)| id == "card/remote" && st == "pass")
    );
    let logged = std::fs::read_to_string(&log).expect("log");
    assert!(
        logged.contains("GET /.well-known/ai-catalog.json authorization=no"),
        "{logged}"
    );
    assert!(
        logged.contains("GET /cards/seal.json authorization=no"),
        "{logged}"
    );
    assert!(!logged.contains("authorization=yes"), "{logged}");
    assert!(!out.stdout.contains("s3cret-token") && !out.stderr.contains("s3cret-token"));
}

#[test]
fn a_bare_card_fails_cors_and_no_card_is_exit_2() {
    let w = prepared();
    let v1 = w.write("v1.json", &emit(&w, "v1"));
    let s = w.surface("surface.json", &base_surface());
    let fx = HttpFixture::start(&[
        "--surface",
        &s,
        "--server-version",
        "1.0.0",
        "--card",
        &format!("/mcp/server-card={v1}"),
        "--card-bare",
    ]);
    let out = check(&w, &fx.url, &[]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let doc = out.json();
    assert_eq!(failed(&doc), ["server-card card/cors"]);
    let warned: Vec<String> = checks_of(&doc)
        .into_iter()
        .filter(|(_, _, s)| s == "warn")
        .map(|(_, id, _)| id)
        .collect();
    assert_eq!(
        warned,
        ["card/media-type", "card/cache-control", "card/etag"]
    );

    let plain = HttpFixture::start(&["--surface", &s]);
    let none = check(&w, &plain.url, &[]);
    assert_eq!(none.code, 2);
    assert_eq!(none.json()["verdict"], "noCard");
    assert_eq!(none.json()["probed"].as_array().map(Vec::len), Some(5));
}
