//! `mcpseal registry stamp|check|verify|list` end to end: locks made by `mcpseal lock` against
//! fixture servers over HTTP, server.json files stamped by the binary, and a local registry
//! (`mcpseal-registry-fixture`) whose entries point at fixture servers started by the test.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs (server.json, locks)"
)]

mod lock_support;

use std::path::Path;

use lock_support::{Out, Work, assert_schema, base_surface, without_tool};
use mcpseal_fixtures::{HttpFixture, RegistryFixture};
use mcpseal_publish::anonymous::section_sha256;
use mcpseal_publish::keys::{MCP_SURFACE_KEY, MCPSEAL_KEY, PUBLISHER_PROVIDED, SERVER_SCHEMA_URL};
use serde_json::{Value, json};

const NAME: &str = "io.github.me/weather";

fn server_json(url: &str, version: &str) -> Value {
    json!({
        "$schema": SERVER_SCHEMA_URL,
        "name": NAME,
        "description": "Weather for tests",
        "version": version,
        "remotes": [{"type": "streamable-http", "url": url}],
        "_meta": {PUBLISHER_PROVIDED: {"com.example/tool": {"build": "abc"}}}
    })
}

/// A fixture serving `surface` as `version`, locked in `w` under `version`.
fn locked(w: &Work, surface: &Value, version: &str, form: &[&str]) -> HttpFixture {
    locked_with(w, surface, version, form, &[])
}

fn locked_with(
    w: &Work,
    surface: &Value,
    version: &str,
    form: &[&str],
    fixture: &[&str],
) -> HttpFixture {
    let s = w.surface("surface.json", surface);
    let mut fargs = vec!["--surface", s.as_str(), "--server-version", version];
    fargs.extend_from_slice(fixture);
    let fx = HttpFixture::start(&fargs);
    let mut args = vec!["lock", "--server-version", version];
    args.extend_from_slice(form);
    args.push(&fx.url);
    let out = w.run(&args, None);
    assert_eq!(out.code, 0, "lock: {}", out.stderr);
    fx
}

fn stamp(w: &Work, extra: &[&str]) -> Out {
    let mut args = vec!["registry", "stamp", "--format", "json"];
    args.extend_from_slice(extra);
    w.run(&args, None)
}

/// Publishes `w`'s server.json (as stamped) into `dir` as `file`, with an `x-fixture` status.
fn publish(w: &Work, dir: &Path, file: &str, status: Option<&str>) {
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(w.path("server.json")).expect("read")).expect("json");
    if let Some(s) = status {
        doc["x-fixture"] = json!({"status": s});
    }
    std::fs::write(dir.join(file), doc.to_string()).expect("write entry");
}

fn verify(w: &Work, registry: &RegistryFixture, entry: &str, extra: &[&str]) -> Out {
    let mut args = vec![
        "registry",
        "verify",
        entry,
        "--registry",
        &registry.url,
        "--wait",
        "10ms",
    ];
    if !extra.contains(&"--format") {
        args.extend(["--format", "json"]);
    }
    if !extra.contains(&"--attempts") {
        args.extend(["--attempts", "1"]);
    }
    args.extend_from_slice(extra);
    w.run(&args, None)
}

fn failed(out: &Out) -> Vec<String> {
    let doc = out.json();
    let mut ids = Vec::new();
    let remote_checks = doc["remotes"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|r| r["checks"].as_array().cloned().unwrap_or_default());
    let checks = doc["checks"].as_array().cloned().unwrap_or_default();
    for c in checks.into_iter().chain(remote_checks) {
        if c["state"] == "fail" {
            ids.push(c["id"].as_str().unwrap_or("").to_owned());
        }
    }
    ids
}

#[test]
fn stamp_check_verify_round_trip_and_drift() {
    let w = Work::new();
    let fx = locked(&w, &base_surface(), "1.0.0", &[]);
    w.write(
        "server.json",
        &serde_json::to_string_pretty(&server_json(&fx.url, "1.0.0")).expect("json"),
    );
    let s = stamp(&w, &[]);
    assert_eq!(s.code, 0, "{}{}", s.stdout, s.stderr);
    assert_eq!(s.json()["outcome"], "written");
    assert_schema("registry-stamp-report.schema.json", &s.json());
    let text = std::fs::read_to_string(w.path("server.json")).expect("read");
    assert!(
        text.ends_with("}\n") && text.contains("\n  \"name\""),
        "two spaces, final newline"
    );
    let stamped: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(
        stamped["_meta"][PUBLISHER_PROVIDED]["com.example/tool"]["build"],
        "abc"
    );
    assert_eq!(
        stamped["_meta"][PUBLISHER_PROVIDED][MCPSEAL_KEY]["endpoint"],
        fx.url.as_str()
    );
    let again = stamp(&w, &[]);
    assert_eq!(again.json()["outcome"], "unchanged");

    let c = w.run(&["registry", "check"], None);
    assert_eq!(c.code, 0, "{}{}", c.stdout, c.stderr);
    // A stale file: the version no longer the lock's.
    w.write(
        "server.json",
        &text.replace("\"version\": \"1.0.0\"", "\"version\": \"1.0.1\""),
    );
    let stale = w.run(&["registry", "check", "--format", "json"], None);
    assert_eq!(stale.code, 1);
    assert_schema("registry-check-report.schema.json", &stale.json());
    assert!(
        stale.json()["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .any(|c| c["id"] == "registry/version" && c["state"] == "fail")
    );
    w.write("server.json", &text);

    let dir = tempfile::tempdir().expect("dir");
    publish(&w, dir.path(), "01.json", None);
    let registry = RegistryFixture::start(dir.path(), &[]);
    let ok = verify(&w, &registry, &format!("{NAME}@1.0.0"), &[]);
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    let doc = ok.json();
    assert_schema("registry-verify-report.schema.json", &doc);
    assert_eq!(doc["matches"], true);
    assert_eq!(doc["block"]["source"], "mcpseal");
    assert_eq!(doc["remotes"][0]["verdict"], "match");
    let latest = w.run(
        &["registry", "verify", NAME, "--registry", &registry.url],
        None,
    );
    assert_eq!(latest.code, 0, "{}", latest.stderr);
    assert!(
        latest
            .stdout
            .starts_with("verified: io.github.me/weather@latest"),
        "{}",
        latest.stdout
    );

    // The entry's remote now serves a surface without `clock`: a mismatch, exit 1.
    let drifted = w.surface("drifted.json", &without_tool(&base_surface(), "clock"));
    let fx2 = HttpFixture::start(&["--surface", &drifted, "--server-version", "1.0.0"]);
    let mut moved = stamped.clone();
    moved["remotes"][0]["url"] = json!(fx2.url);
    moved["_meta"][PUBLISHER_PROVIDED][MCPSEAL_KEY]["endpoint"] = json!(fx2.url);
    let dir2 = tempfile::tempdir().expect("dir");
    std::fs::write(dir2.path().join("01.json"), moved.to_string()).expect("write");
    let registry2 = RegistryFixture::start(dir2.path(), &[]);
    let bad = verify(
        &w,
        &registry2,
        &format!("{NAME}@1.0.0"),
        &["--format", "sarif"],
    );
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    let sarif: Value = serde_json::from_str(&bad.stdout).expect("sarif");
    let rules: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert_eq!(rules, ["registry/fingerprint"]);
}

#[test]
fn version_mismatch_and_deprecated_status() {
    let w = Work::new();
    let fx = locked(&w, &base_surface(), "1.0.0", &[]);
    w.write("server.json", &server_json(&fx.url, "1.0.0").to_string());
    assert_eq!(stamp(&w, &[]).code, 0);
    let dir = tempfile::tempdir().expect("dir");
    publish(&w, dir.path(), "01.json", Some("deprecated"));
    // Same surface, but the live server says it is 1.0.1.
    let s = w.surface("same.json", &base_surface());
    let fx2 = HttpFixture::start(&["--surface", &s, "--server-version", "1.0.1"]);
    let entry: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("01.json")).expect("read"))
            .expect("json");
    let mut second = entry.clone();
    second["remotes"][0]["url"] = json!(fx2.url);
    second["_meta"][PUBLISHER_PROVIDED][MCPSEAL_KEY]["endpoint"] = json!(fx2.url);
    second["x-fixture"] = json!({"status": "active"});
    let dir2 = tempfile::tempdir().expect("dir");
    std::fs::write(dir2.path().join("01.json"), second.to_string()).expect("write");

    let registry = RegistryFixture::start(dir.path(), &[]);
    let deprecated = verify(
        &w,
        &registry,
        &format!("{NAME}@1.0.0"),
        &["--format", "text"],
    );
    assert_eq!(
        deprecated.code, 0,
        "deprecated is shown, never a mismatch: {}",
        deprecated.stderr
    );
    assert!(
        deprecated.stdout.contains("(entry deprecated)"),
        "{}",
        deprecated.stdout
    );

    let registry2 = RegistryFixture::start(dir2.path(), &[]);
    let mismatch = verify(&w, &registry2, &format!("{NAME}@1.0.0"), &[]);
    assert_eq!(mismatch.code, 1, "{}", mismatch.stderr);
    assert_eq!(failed(&mismatch), ["registry/version"]);
    assert_schema("registry-verify-report.schema.json", &mismatch.json());
}

#[test]
fn no_block_unknown_entry_and_retries() {
    let w = Work::new();
    let fx = locked(&w, &base_surface(), "1.0.0", &[]);
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(
        dir.path().join("01.json"),
        server_json(&fx.url, "1.0.0").to_string(),
    )
    .expect("write");
    let registry = RegistryFixture::start(dir.path(), &[]);
    let none = verify(&w, &registry, &format!("{NAME}@1.0.0"), &[]);
    assert_eq!(none.code, 2);
    assert!(
        none.stderr.contains("publishes no fingerprint"),
        "{}",
        none.stderr
    );
    let missing = verify(&w, &registry, "io.github.me/nothing", &[]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("404"), "{}", missing.stderr);
    // With --format json, each exit 2 is the error document, its kind the workflow error's.
    for (out, kind) in [(&none, "badInput"), (&missing, "badInput")] {
        let doc = out.json();
        assert_eq!(doc["schemaVersion"], 1, "{}", out.stdout);
        assert_eq!(doc["error"]["kind"], kind, "{}", out.stdout);
        assert!(doc["error"]["hint"].is_string(), "{}", out.stdout);
    }

    // Two 503s, then the registry answers: --attempts 3 gets there, --attempts 1 does not.
    w.write("server.json", &server_json(&fx.url, "1.0.0").to_string());
    assert_eq!(stamp(&w, &[]).code, 0);
    let busy = tempfile::tempdir().expect("dir");
    publish(&w, busy.path(), "01.json", None);
    let flaky = RegistryFixture::start(busy.path(), &["--fail", "2", "--retry-after", "0"]);
    let once = verify(&w, &flaky, &format!("{NAME}@1.0.0"), &[]);
    assert_eq!(once.code, 2, "{}", once.stderr);
    assert!(once.stderr.contains("HTTP 503"), "{}", once.stderr);
    assert_eq!(
        once.json()["error"]["kind"],
        "unreachable",
        "{}",
        once.stdout
    );
    let retried = verify(&w, &flaky, &format!("{NAME}@1.0.0"), &["--attempts", "3"]);
    assert_eq!(retried.code, 0, "{}", retried.stderr);
    // The first run used the first 503; this one meets the second, then an answer.
    assert_eq!(retried.json()["fetchAttempts"], 2);
    let flaky2 = RegistryFixture::start(
        busy.path(),
        &["--fail", "2", "--fail-status", "429", "--retry-after", "0"],
    );
    let r = verify(&w, &flaky2, &format!("{NAME}@1.0.0"), &["--attempts", "3"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.json()["fetchAttempts"], 3);
}

#[test]
fn names_with_slash_and_plus_are_encoded_once() {
    let w = Work::new();
    let version = "1.0.0+build.7";
    let fx = locked(&w, &base_surface(), version, &[]);
    w.write("server.json", &server_json(&fx.url, version).to_string());
    assert_eq!(stamp(&w, &[]).code, 0);
    let dir = tempfile::tempdir().expect("dir");
    publish(&w, dir.path(), "01.json", None);
    let log = dir.path().join("requests.log");
    let log_arg = log.to_string_lossy().into_owned();
    let registry = RegistryFixture::start(dir.path(), &["--request-log", &log_arg]);
    let out = verify(&w, &registry, &format!("{NAME}@{version}"), &[]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let logged = std::fs::read_to_string(&log).expect("log");
    assert_eq!(
        logged,
        "GET /v0.1/servers/io.github.me%2Fweather/versions/1.0.0%2Bbuild.7\n"
    );
}

#[test]
fn anonymous_section_is_published_and_widened_access_is_a_mismatch() {
    let w = Work::new();
    let fx = locked(&w, &base_surface(), "1.0.0", &[]);
    // The lock's anonymous section (the documented shape), saying tools/list needs a credential.
    let mut lock: Value = serde_json::from_slice(&w.lock_bytes()).expect("lock");
    let mut section = json!({"answers": {
        "tools/list": {"answers": false, "status": 401},
        "server/discover": {"answers": true, "status": 200}}, "configs": {}});
    let hash = section_sha256(section.as_object().expect("object"));
    section["sha256"] = json!(hash);
    lock["anonymous"] = section;
    w.write(
        "surface.lock.json",
        &serde_json::to_string_pretty(&lock).expect("json"),
    );
    w.write("server.json", &server_json(&fx.url, "1.0.0").to_string());
    let s = stamp(&w, &[]);
    assert_eq!(s.code, 0, "{}{}", s.stdout, s.stderr);
    assert_eq!(s.json()["anonymous"], true);
    let dir = tempfile::tempdir().expect("dir");
    publish(&w, dir.path(), "01.json", None);
    let registry = RegistryFixture::start(dir.path(), &[]);
    // The fixture answers tools/list to anyone: widened anonymous access.
    let out = verify(&w, &registry, &format!("{NAME}@1.0.0"), &[]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert_eq!(failed(&out), ["registry/anonymous"]);
    assert!(
        out.stdout
            .contains("anonymous access widened to `tools/list`"),
        "{}",
        out.stdout
    );

    // A block whose anonymous hash does not hold is a mismatch of its own.
    let mut entry: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("01.json")).expect("read"))
            .expect("json");
    entry["_meta"][PUBLISHER_PROVIDED][MCPSEAL_KEY]["anonymous"]["answers"]["tools/list"]["answers"] =
        json!(true);
    let dir2 = tempfile::tempdir().expect("dir");
    std::fs::write(dir2.path().join("01.json"), entry.to_string()).expect("write");
    let registry2 = RegistryFixture::start(dir2.path(), &[]);
    let tampered = verify(&w, &registry2, &format!("{NAME}@1.0.0"), &[]);
    assert_eq!(tampered.code, 1);
    assert_eq!(failed(&tampered), ["registry/anonymous-hash"]);
}

#[test]
fn mcp_surface_block_alone_is_verified() {
    let w = Work::new();
    // mcp-surface/1 is captured with a lone 2025 `initialize`: a stateless 2025 server.
    let fx = locked_with(
        &w,
        &base_surface(),
        "1.0.0",
        &["--form", "mcp-surface/1"],
        &["--mode", "legacy", "--sessionless"],
    );
    w.write("server.json", &server_json(&fx.url, "1.0.0").to_string());
    let s = stamp(&w, &["--also-mcp-surface"]);
    assert_eq!(s.code, 0, "{}{}", s.stdout, s.stderr);
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(w.path("server.json")).expect("read")).expect("json");
    let block = doc["_meta"][PUBLISHER_PROVIDED][MCP_SURFACE_KEY].clone();
    assert_eq!(block["form"], "mcp-surface/1");
    assert_eq!(block["endpoint"], fx.url.as_str());
    // Only mcp-surface's block published.
    doc["_meta"][PUBLISHER_PROVIDED]
        .as_object_mut()
        .expect("object")
        .remove(MCPSEAL_KEY);
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("01.json"), doc.to_string()).expect("write");
    let registry = RegistryFixture::start(dir.path(), &[]);
    let out = verify(&w, &registry, &format!("{NAME}@1.0.0"), &[]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert_eq!(out.json()["block"]["source"], "mcp-surface");
    // An mcpseal/1 lock cannot give an mcp-surface hash: a usage error, file unchanged.
    let w2 = Work::new();
    let _fx2 = locked(&w2, &base_surface(), "1.0.0", &[]);
    w2.write("server.json", &server_json(&fx.url, "1.0.0").to_string());
    let before = std::fs::read(w2.path("server.json")).expect("read");
    let refused = stamp(&w2, &["--also-mcp-surface"]);
    assert_eq!(refused.code, 2);
    assert!(refused.stderr.contains("hint:"), "{}", refused.stderr);
    assert_eq!(std::fs::read(w2.path("server.json")).expect("read"), before);
}

#[test]
fn stamp_refuses_over_4096_bytes_and_invalid_files_byte_identical() {
    let w = Work::new();
    let fx = locked(&w, &base_surface(), "1.0.0", &[]);
    let mut big = server_json(&fx.url, "1.0.0");
    big["_meta"][PUBLISHER_PROVIDED]["com.example/tool"]["blob"] = json!("x".repeat(4000));
    let text = serde_json::to_string_pretty(&big).expect("json");
    w.write("server.json", &text);
    let out = w.run(&["registry", "stamp"], None);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("the registry accepts at most 4096"),
        "{}",
        out.stderr
    );
    let bytes = out
        .stdout
        .split("would be ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok())
        .expect("the byte count is printed");
    assert!(bytes > 4096);
    assert_eq!(
        std::fs::read_to_string(w.path("server.json")).expect("read"),
        text
    );

    let mut invalid = server_json(&fx.url, "1.0.0");
    invalid["description"] = json!("d".repeat(101));
    let text = invalid.to_string();
    w.write("server.json", &text);
    let out = w.run(&["registry", "stamp", "--format", "json"], None);
    assert_eq!(out.code, 1);
    assert_eq!(out.json()["outcome"], "invalid");
    assert!(
        out.json()["violations"][0]
            .as_str()
            .unwrap_or("")
            .contains("/description")
    );
    assert_eq!(
        std::fs::read_to_string(w.path("server.json")).expect("read"),
        text
    );
}

#[test]
fn list_follows_next_cursor() {
    let w = Work::new();
    let dir = tempfile::tempdir().expect("dir");
    for (i, name) in [
        "io.github.me/weather",
        "io.github.me/weather-eu",
        "com.example/other",
    ]
    .iter()
    .enumerate()
    {
        let mut s = server_json("http://127.0.0.1:9/mcp", "1.0.0");
        s["name"] = json!(name);
        std::fs::write(dir.path().join(format!("{i:02}.json")), s.to_string()).expect("write");
    }
    let registry = RegistryFixture::start(dir.path(), &[]);
    let out = w.run(
        &[
            "registry",
            "list",
            "--search",
            "weather",
            "--limit",
            "1",
            "--registry",
            &registry.url,
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = out.json();
    assert_schema("registry-list-report.schema.json", &doc);
    assert_eq!(doc["pages"], 2);
    let names: Vec<&str> = doc["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["io.github.me/weather", "io.github.me/weather-eu"]);
}
