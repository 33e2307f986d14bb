//! `mcpseal replay registry:NAME` and per-row registry presence, end to end: the fixture
//! package published to a real Verdaccio, a local MCP Registry (`mcpseal-registry-fixture`)
//! whose server.json versions pin those package versions (and one that pins none), replayed
//! by the real binary under its sandbox. Both ways: a listed history with a removal in a minor
//! is flagged (exit 1, exact rows), its clean part is not (exit 0); an npm replay with
//! `--listed-as` says per row whether the registry lists that package version.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod lock_support;
mod replay_support;

use mcpseal_fixtures::RegistryFixture;
use mcpseal_fixtures::packages::{NPM_NAME, Verdaccio, npm_history, write_npm_package};
use serde_json::{Value, json};

use replay_support::{json_of, replay, schema_check};

const NAME: &str = "io.github.me/echo";

/// `(version, outcome state, verdict, package, listed, registry status)` of each row.
fn rows(doc: &Value) -> Vec<(String, String, String, String, String, String)> {
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    };
    doc["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                s(&r["version"]),
                s(&r["outcome"]["state"]),
                s(&r["verdict"]),
                s(&r["package"]),
                s(&r["registry"]["listed"]),
                s(&r["registry"]["status"]),
            )
        })
        .collect()
}

fn row(
    v: &str,
    state: &str,
    verdict: &str,
    package: &str,
    listed: &str,
    status: &str,
) -> (String, String, String, String, String, String) {
    (
        v.into(),
        state.into(),
        verdict.into(),
        package.into(),
        listed.into(),
        status.into(),
    )
}

fn entry(version: &str, package: Option<(&str, &str)>, status: &str) -> Value {
    let mut doc = json!({
        "$schema": mcpseal_publish::keys::SERVER_SCHEMA_URL,
        "name": NAME,
        "description": "Echo for tests",
        "version": version,
        "x-fixture": {"status": status, "publishedAt": format!("2025-0{}-01T00:00:00Z", version.as_bytes()[2] - b'0' + 1)}
    });
    match package {
        Some((registry, v)) => {
            doc["packages"] = json!([{
                "registryType": "npm",
                "registryBaseUrl": registry.trim_end_matches('/'),
                "identifier": NPM_NAME,
                "version": v,
                "transport": {"type": "stdio"}
            }]);
        }
        None => {
            doc["remotes"] =
                json!([{"type": "streamable-http", "url": "https://echo.example/mcp"}]);
        }
    }
    doc
}

#[test]
fn registry_versions_are_replayed_pinned_to_their_packages() {
    let work = tempfile::tempdir().expect("work");
    let npm = Verdaccio::start(&work.path().join("verdaccio"));
    let history = npm_history();
    for v in ["1.0.0", "1.1.0", "1.1.1", "1.2.0"] {
        let r = history
            .iter()
            .find(|r| r.version == v)
            .cloned()
            .expect("release");
        let dir = work.path().join("src").join(v);
        write_npm_package(&dir, &r);
        npm.publish(&dir, false);
    }
    let url = npm.url();
    let entries = work.path().join("entries");
    std::fs::create_dir_all(&entries).expect("entries");
    for (file, doc) in [
        ("1.json", entry("1.0.0", Some((&url, "1.0.0")), "active")),
        (
            "2.json",
            entry("1.1.0", Some((&url, "1.1.0")), "deprecated"),
        ),
        ("3.json", entry("1.2.0", Some((&url, "1.2.0")), "active")),
        ("4.json", entry("1.3.0", None, "active")),
    ] {
        std::fs::write(entries.join(file), doc.to_string()).expect("entry");
    }
    let registry = RegistryFixture::start(&entries, &[]);
    let env = npm.npm_env();
    let cache = work.path().join("cache");
    let cache = cache.to_str().expect("utf-8");
    let src = format!("registry:{NAME}");
    let base = [
        src.as_str(),
        "--registry",
        registry.url.as_str(),
        "--cache",
        cache,
        "--jobs",
        "2",
        "--format",
        "json",
    ];

    let all = replay(&env, &base);
    assert_eq!(
        all.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );
    let doc = json_of(&all);
    schema_check(&doc);
    assert_eq!(doc["source"], format!("registry:{NAME}"));
    let pkg = |v: &str| format!("npm:{NPM_NAME}@{v}");
    assert_eq!(
        rows(&doc),
        vec![
            row(
                "1.0.0",
                "captured",
                "baseline",
                &pkg("1.0.0"),
                "true",
                "active"
            ),
            row(
                "1.1.0",
                "captured",
                "compatible",
                &pkg("1.1.0"),
                "true",
                "deprecated"
            ),
            row(
                "1.2.0",
                "captured",
                "violation",
                &pkg("1.2.0"),
                "true",
                "active"
            ),
            row(
                "1.3.0",
                "notInstallable",
                "notJudged",
                "-",
                "true",
                "active"
            ),
        ]
    );
    assert_eq!(doc["rows"][1]["withdrawal"]["state"], "deprecated");
    assert!(
        doc["rows"][3]["outcome"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("lists no package")),
        "{doc}"
    );
    assert_eq!(doc["violations"][0]["kind"], "removalOutsideMajor");
    let md = replay(
        &env,
        &[
            src.as_str(),
            "--registry",
            registry.url.as_str(),
            "--cache",
            cache,
            "--format",
            "markdown",
        ],
    );
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(
        md.contains("| version | published | registry | fingerprint |"),
        "{md}"
    );
    assert!(md.contains("| listed (deprecated) |"), "{md}");

    // The clean part of the same listing: exit 0.
    let mut clean = base.to_vec();
    clean.extend(["--versions", "<1.2"]);
    let ok = replay(&env, &clean);
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(json_of(&ok)["verdict"], "clean");

    // npm replay with presence: 1.1.1 is published on npm but no registry version pins it.
    let npm_src = format!("npm:{NPM_NAME}");
    let listed = replay(
        &env,
        &[
            npm_src.as_str(),
            "--registry",
            url.as_str(),
            "--mcp-registry",
            registry.url.as_str(),
            "--listed-as",
            NAME,
            "--versions",
            "<1.2",
            "--cache",
            cache,
            "--format",
            "json",
        ],
    );
    let doc = json_of(&listed);
    schema_check(&doc);
    let presence: Vec<(String, String)> = rows(&doc).into_iter().map(|r| (r.0, r.4)).collect();
    assert_eq!(
        presence,
        vec![
            ("1.0.0".into(), "true".into()),
            ("1.1.0".into(), "true".into()),
            ("1.1.1".into(), "false".into()),
        ]
    );
    // Without a registry, presence is not known: absent, and said so.
    let unknown = replay(
        &env,
        &[
            npm_src.as_str(),
            "--registry",
            url.as_str(),
            "--versions",
            "<1.1",
            "--cache",
            cache,
            "--format",
            "json",
        ],
    );
    let doc = json_of(&unknown);
    assert!(doc["rows"][0].get("registry").is_none(), "{doc}");
    assert!(
        doc["notMeasured"]
            .as_array()
            .is_some_and(|n| n.iter().any(|l| l
                .as_str()
                .is_some_and(|l| l.starts_with("registry presence")))),
        "{doc}"
    );
}
