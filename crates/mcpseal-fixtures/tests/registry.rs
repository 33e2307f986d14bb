//! The local registry answers exactly as the registry's `openapi.yaml` says: every response
//! of every read path is validated against the OpenAPI document's own schemas (vendored in
//! `tests/data/registry-openapi.yaml`), over real sockets, raw HTTP/1.1.

mod common;

use std::path::Path;

use mcpseal_fixtures::RegistryFixture;
use serde_json::{Value, json};

const OPENAPI: &str = include_str!("data/registry-openapi.yaml");

fn openapi() -> Value {
    serde_norway::from_str(OPENAPI).expect("the OpenAPI document parses")
}

/// A validator for `#/components/schemas/NAME` (or any schema given inline), resolving the
/// document's own `$ref`s.
fn validator(schema: Value) -> jsonschema::Validator {
    let doc = openapi();
    let mut root = schema;
    root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    root["components"] = doc["components"].clone();
    jsonschema::options()
        .should_validate_formats(true)
        .build(&root)
        .expect("the OpenAPI schemas compile")
}

fn component(name: &str) -> jsonschema::Validator {
    validator(json!({"$ref": format!("#/components/schemas/{name}")}))
}

fn assert_valid(v: &jsonschema::Validator, doc: &Value, what: &str) {
    let errors: Vec<String> = v.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(
        errors.is_empty(),
        "{what} breaks the OpenAPI schema: {errors:?}\n{doc:#}"
    );
}

struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Value,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A raw `GET target` (path and query exactly as given).
fn get(base: &str, target: &str) -> Answer {
    let port = base
        .trim_start_matches("http://127.0.0.1:")
        .parse()
        .expect("port");
    let r = common::get_raw(port, target, &[("Accept", "application/json")]);
    Answer {
        status: r.status,
        body: serde_json::from_str(&r.body).unwrap_or(Value::Null),
        headers: r.headers,
    }
}

fn server(name: &str, version: &str) -> Value {
    json!({"$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": name, "description": "A test server", "version": version,
        "remotes": [{"type": "streamable-http", "url": "http://127.0.0.1:9/mcp"}]})
}

fn write(dir: &Path, file: &str, doc: &Value) {
    std::fs::write(dir.join(file), doc.to_string()).expect("write entry");
}

fn entries() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "01.json",
        &server("io.github.me/weather", "1.0.0"),
    );
    write(
        dir.path(),
        "02.json",
        &server("io.github.me/weather", "1.0.0+20130313144700"),
    );
    let mut deprecated = server("com.example/old", "2.0.0");
    deprecated["x-fixture"] = json!({"status": "deprecated"});
    write(dir.path(), "03.json", &deprecated);
    let mut deleted = server("com.example/gone", "1.0.0");
    deleted["x-fixture"] = json!({"status": "deleted"});
    write(dir.path(), "04.json", &deleted);
    write(dir.path(), "05.json", &server("com.example/third", "0.1.0"));
    dir
}

#[test]
fn listing_pages_with_next_cursor_and_validates() {
    let dir = entries();
    let reg = RegistryFixture::start(dir.path(), &[]);
    let list = component("ServerList");
    let mut target = "/v0.1/servers?limit=2".to_owned();
    let mut names = Vec::new();
    let mut pages = 0;
    loop {
        let a = get(&reg.url, &target);
        assert_eq!(a.status, 200);
        assert!(
            a.header("content-type")
                .is_some_and(|c| c.starts_with("application/json"))
        );
        assert_valid(&list, &a.body, "a list page");
        pages += 1;
        for s in a.body["servers"].as_array().expect("servers") {
            names.push(format!(
                "{}@{}",
                s["server"]["name"].as_str().unwrap_or(""),
                s["server"]["version"].as_str().unwrap_or("")
            ));
        }
        match a.body["metadata"]["nextCursor"].as_str() {
            Some(c) => target = format!("/v0.1/servers?limit=2&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(pages, 2);
    assert_eq!(
        names,
        [
            "com.example/old@2.0.0",
            "com.example/third@0.1.0",
            "io.github.me/weather@1.0.0+20130313144700",
            "io.github.me/weather@1.0.0"
        ],
        "deleted entries are not listed; newest first within a name"
    );
    let latest = get(&reg.url, "/v0.1/servers?version=latest&search=WEATH");
    assert_valid(&list, &latest.body, "a search");
    assert_eq!(latest.body["servers"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        latest.body["servers"][0]["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"],
        json!(true)
    );
}

#[test]
fn versions_and_one_version_are_read_with_names_encoded_once() {
    let dir = entries();
    let log = dir.path().join("requests.log");
    let log_arg = log.to_string_lossy().into_owned();
    let reg = RegistryFixture::start(dir.path(), &["--request-log", &log_arg]);
    let response = component("ServerResponse");
    // The validator can say no: no `server`, or a registry field the document does not allow.
    assert!(!response.is_valid(&json!({"_meta": {}})));
    let mut extra = get(&reg.url, "/v0.1/servers/com.example%2Fold/versions/2.0.0").body;
    extra["_meta"]["io.modelcontextprotocol.registry/official"]["statusMessage"] = json!("x");
    assert!(!response.is_valid(&extra));
    let doc = openapi();
    let not_found = validator(
        doc["paths"]["/v0.1/servers/{serverName}/versions/{version}"]["get"]["responses"]["404"]
            ["content"]["application/json"]["schema"]
            .clone(),
    );

    let versions = get(&reg.url, "/v0.1/servers/io.github.me%2Fweather/versions");
    assert_eq!(versions.status, 200);
    assert_valid(&component("ServerList"), &versions.body, "versions");
    assert_eq!(
        versions.body["servers"][0]["server"]["version"],
        "1.0.0+20130313144700"
    );

    let one = get(
        &reg.url,
        "/v0.1/servers/io.github.me%2Fweather/versions/1.0.0%2B20130313144700",
    );
    assert_eq!(one.status, 200);
    assert_valid(&response, &one.body, "one version");
    let latest = get(
        &reg.url,
        "/v0.1/servers/io.github.me%2Fweather/versions/latest",
    );
    assert_eq!(latest.body["server"]["version"], "1.0.0+20130313144700");

    let deprecated = get(&reg.url, "/v0.1/servers/com.example%2Fold/versions/2.0.0");
    assert_valid(&response, &deprecated.body, "a deprecated entry");
    assert_eq!(
        deprecated.body["_meta"]["io.modelcontextprotocol.registry/official"]["status"],
        "deprecated"
    );

    for target in [
        "/v0.1/servers/io.github.me%252Fweather/versions/1.0.0",
        "/v0.1/servers/io.github.me%2Fweather/versions/9.9.9",
        "/v0.1/servers/nobody%2Fhere/versions",
    ] {
        let a = get(&reg.url, target);
        assert_eq!(a.status, 404, "{target}");
        assert_valid(&not_found, &a.body, target);
        assert_eq!(a.body["error"], "Server not found");
    }
    let logged = std::fs::read_to_string(&log).expect("request log");
    assert!(
        logged
            .contains("GET /v0.1/servers/io.github.me%2Fweather/versions/1.0.0%2B20130313144700\n"),
        "{logged}"
    );
}

#[test]
fn first_requests_fail_with_retry_after_then_it_answers() {
    let dir = entries();
    let reg = RegistryFixture::start(
        dir.path(),
        &["--fail", "2", "--fail-status", "429", "--retry-after", "3"],
    );
    for _ in 0..2 {
        let a = get(&reg.url, "/v0.1/servers");
        assert_eq!(a.status, 429);
        assert_eq!(a.header("retry-after"), Some("3"));
    }
    assert_eq!(get(&reg.url, "/v0.1/servers").status, 200);
}
