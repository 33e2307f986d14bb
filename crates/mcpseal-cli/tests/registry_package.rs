//! `mcpseal registry verify --package` end to end: the fixture package published to a real
//! Verdaccio, a server.json stamped from a lock of that package's own stdio surface and served
//! by the local registry (`mcpseal-registry-fixture`), and the binary installing the exact
//! pinned version (install scripts off, the replay installer and cache) and comparing its
//! surface. Both ways: the pinned version that was locked matches (exit 0), an entry pinning
//! a version with another surface is a mismatch (exit 1) in every format.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs (packages, server.json, locks)"
)]

mod lock_support;

use lock_support::{Out, Work, assert_schema};
use mcpseal_fixtures::RegistryFixture;
use mcpseal_fixtures::packages::{NPM_NAME, Verdaccio, npm_history, write_npm_package};
use mcpseal_publish::keys::{MCPSEAL_KEY, PUBLISHER_PROVIDED, SERVER_SCHEMA_URL};
use serde_json::{Value, json};

const NAME: &str = "io.github.me/echo";
/// Nothing listens here: the entry is verified by its package alone.
const DEAD_ENDPOINT: &str = "http://127.0.0.1:9/mcp";

fn server_json(registry: &str, package_version: &str) -> Value {
    json!({
        "$schema": SERVER_SCHEMA_URL,
        "name": NAME,
        "description": "Echo for tests",
        "version": "1.0.0",
        "packages": [{
            "registryType": "npm",
            "registryBaseUrl": registry.trim_end_matches('/'),
            "identifier": NPM_NAME,
            "version": package_version,
            "transport": {"type": "stdio"}
        }]
    })
}

fn failed(doc: &Value) -> Vec<String> {
    let mut ids = Vec::new();
    let packages = doc["packages"].as_array().cloned().unwrap_or_default();
    for p in packages {
        for c in p["checks"].as_array().cloned().unwrap_or_default() {
            if c["state"] == "fail" {
                ids.push(c["id"].as_str().unwrap_or("").to_owned());
            }
        }
    }
    ids
}

fn verify(w: &Work, env: &[(&str, &str)], registry: &RegistryFixture, format: &str) -> Out {
    let cache = w.path("cache");
    w.run_env(
        &[
            "registry",
            "verify",
            &format!("{NAME}@1.0.0"),
            "--registry",
            &registry.url,
            "--attempts",
            "1",
            "--timeout",
            "30s",
            "--package",
            "--cache",
            cache.to_str().expect("utf-8"),
            "--format",
            format,
        ],
        None,
        env,
    )
}

#[test]
fn the_pinned_package_is_installed_and_its_stdio_surface_compared() {
    let work = tempfile::tempdir().expect("work");
    let npm = Verdaccio::start(&work.path().join("verdaccio"));
    let history = npm_history();
    let release = |v: &str| {
        history
            .iter()
            .find(|r| r.version == v)
            .cloned()
            .expect("release")
    };
    for v in ["1.0.0", "1.2.0"] {
        let dir = work.path().join("src").join(v);
        write_npm_package(&dir, &release(v));
        npm.publish(&dir, false);
    }
    let npm_env = npm.npm_env();
    let env: Vec<(&str, &str)> = npm_env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();

    // The publisher locks the package's own stdio surface (1.0.0) and stamps server.json.
    let w = Work::new();
    let server = work.path().join("src/1.0.0/server.js");
    let lock = w.run(
        &[
            "lock",
            "--server-version",
            "1.0.0",
            "--",
            "node",
            server.to_str().expect("utf-8"),
        ],
        None,
    );
    assert_eq!(lock.code, 0, "lock: {}", lock.stderr);
    w.write(
        "server.json",
        &serde_json::to_string_pretty(&server_json(&npm.url(), "1.0.0")).expect("json"),
    );
    let s = w.run(
        &[
            "registry",
            "stamp",
            "--endpoint",
            DEAD_ENDPOINT,
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(s.code, 0, "stamp: {}{}", s.stdout, s.stderr);
    let stamped: Value =
        serde_json::from_str(&std::fs::read_to_string(w.path("server.json")).expect("read"))
            .expect("json");

    // Published as stamped: the package installed from Verdaccio has the fingerprint.
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("01.json"), stamped.to_string()).expect("entry");
    let registry = RegistryFixture::start(dir.path(), &[]);
    let ok = verify(&w, &env, &registry, "json");
    assert_eq!(ok.code, 0, "{}{}", ok.stdout, ok.stderr);
    let doc = ok.json();
    assert_schema("registry-verify-report.schema.json", &doc);
    assert_eq!(doc["matches"], true);
    assert_eq!(doc["remotes"][0]["verdict"], "unverifiable", "{doc}");
    let p = &doc["packages"][0];
    assert_eq!(p["verdict"], "match", "{p}");
    assert_eq!(p["registryType"], "npm");
    assert_eq!(p["identifier"], NPM_NAME);
    assert_eq!(p["version"], "1.0.0");
    assert_eq!(
        p["liveSha256"], stamped["_meta"][PUBLISHER_PROVIDED][MCPSEAL_KEY]["declared"]["sha256"],
        "{p}"
    );
    assert!(failed(&doc).is_empty(), "{doc}");
    let text = verify(&w, &env, &registry, "text");
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout
            .contains(&format!("package   npm:{NPM_NAME}@1.0.0 match")),
        "{}",
        text.stdout
    );
    let md = verify(&w, &env, &registry, "markdown");
    assert!(
        md.stdout
            .contains(&format!("| package | npm:{NPM_NAME}@1.0.0 | match |")),
        "{}",
        md.stdout
    );

    // An entry pinning 1.2.0 (echo removed) under the same block: the package differs.
    let mut drifted = stamped.clone();
    drifted["packages"][0]["version"] = json!("1.2.0");
    let dir2 = tempfile::tempdir().expect("dir");
    std::fs::write(dir2.path().join("01.json"), drifted.to_string()).expect("entry");
    let registry2 = RegistryFixture::start(dir2.path(), &[]);
    let bad = verify(&w, &env, &registry2, "json");
    assert_eq!(bad.code, 1, "{}{}", bad.stdout, bad.stderr);
    let doc = bad.json();
    assert_schema("registry-verify-report.schema.json", &doc);
    assert_eq!(doc["matches"], false);
    assert_eq!(doc["packages"][0]["verdict"], "mismatch");
    assert_eq!(failed(&doc), ["registry/package-fingerprint"]);
    let sarif = verify(&w, &env, &registry2, "sarif");
    assert_eq!(sarif.code, 1);
    let sarif: Value = serde_json::from_str(&sarif.stdout).expect("sarif");
    let rules: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["ruleId"].as_str())
        .collect();
    assert!(rules.contains(&"registry/package-fingerprint"), "{sarif}");
    let md = verify(&w, &env, &registry2, "markdown");
    assert!(
        md.stdout
            .contains(&format!("| package | npm:{NPM_NAME}@1.2.0 | MISMATCH |")),
        "{}",
        md.stdout
    );

    // A version the registry does not have: unverifiable, never a match (exit 2).
    let mut missing = stamped.clone();
    missing["packages"][0]["version"] = json!("9.9.9");
    let dir3 = tempfile::tempdir().expect("dir");
    std::fs::write(dir3.path().join("01.json"), missing.to_string()).expect("entry");
    let registry3 = RegistryFixture::start(dir3.path(), &[]);
    let gone = verify(&w, &env, &registry3, "json");
    assert_eq!(gone.code, 2, "{}{}", gone.stdout, gone.stderr);
    assert_eq!(gone.json()["packages"][0]["verdict"], "unverifiable");
}
