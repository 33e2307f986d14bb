//! The server-card extension's examples (`examples/ServerCard/{valid,invalid}` of
//! experimental-ext-server-card @8924e08, plus `with-packages` from its history), rewritten
//! here case by case: each invalid one is rejected for its own defect, the valid ones pass.

use mcpseal_publish::card::validate::violations;
use mcpseal_publish::card::{CardShape, detect};
use mcpseal_publish::keys::CARD_SCHEMA_URL;
use serde_json::{Value, json};

fn minimal() -> Value {
    json!({"$schema": CARD_SCHEMA_URL, "name": "example-org/minimal", "version": "1.0.0",
           "description": "Smallest valid Server Card."})
}

fn rejected_at(doc: &Value, path: &str) {
    assert_eq!(detect(doc), CardShape::V1, "judged as a v1 card: {doc}");
    let v = violations(doc);
    assert!(
        v.iter().any(|x| x.path == path),
        "expected a violation at `{path}`, got {v:?}"
    );
}

#[test]
fn valid_examples_pass() {
    assert_eq!(violations(&minimal()), Vec::new());
    let templated = json!({"$schema": CARD_SCHEMA_URL, "name": "example-org/with-remote",
        "version": "2.1.0", "description": "Server Card with a templated remote endpoint and headers.",
        "title": "Example Remote Server", "websiteUrl": "https://example.com",
        "remotes": [{"type": "streamable-http", "url": "https://{tenant}.example.com/mcp",
            "headers": [{"name": "Authorization", "isRequired": true, "isSecret": true,
                         "value": "Bearer {token}", "variables": {"token": {"isSecret": true}}}],
            "variables": {"tenant": {"isRequired": true, "default": "default"}},
            "supportedProtocolVersions": ["2025-06-18", "2025-11-25"]}]});
    assert_eq!(violations(&templated), Vec::new());
}

#[test]
fn bad_name_pattern() {
    let mut d = minimal();
    d["name"] = json!("no-slash-in-name");
    rejected_at(&d, "/name");
}

#[test]
fn date_versioned_schema() {
    let mut d = minimal();
    d["$schema"] =
        json!("https://static.modelcontextprotocol.io/schemas/2025-11-25/server-card.schema.json");
    rejected_at(&d, "/$schema");
}

#[test]
fn missing_name() {
    let mut d = minimal();
    d.as_object_mut().expect("object").remove("name");
    rejected_at(&d, "");
}

#[test]
fn missing_schema() {
    let mut d = minimal();
    d.as_object_mut().expect("object").remove("$schema");
    rejected_at(&d, "");
}

#[test]
fn wrong_schema_name() {
    let mut d = minimal();
    d["$schema"] = json!("https://static.modelcontextprotocol.io/schemas/v1/server.schema.json");
    rejected_at(&d, "/$schema");
}

#[test]
fn with_packages() {
    let mut d = minimal();
    d["packages"] = json!([{"registryType": "npm", "identifier": "@example-org/with-packages",
                             "transport": {"type": "stdio"}}]);
    rejected_at(&d, "/packages");
}

#[test]
fn a_version_range() {
    let mut d = minimal();
    d["version"] = json!("^1.2.3");
    rejected_at(&d, "/version");
}
