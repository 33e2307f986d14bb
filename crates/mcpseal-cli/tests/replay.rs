//! `mcpseal replay` end to end: a real Verdaccio and a real local PyPI index started here,
//! holding the fixture package histories (published with the real npm CLI and built wheels),
//! replayed by the real binary under its own sandbox launcher. Both ways: a history with an
//! unbumped or breaking change is flagged (exit 1, the exact rows, violations and witnesses),
//! a clean history is not (exit 0); the JSON is byte-identical across two runs except
//! `generatedAt` and validates against the committed schema.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod lock_support;
mod replay_support;

use std::path::Path;
use std::process::Output;

use mcpseal_fixtures::packages::{NPM_NAME, PYPI_NAME, PypiIndex, Verdaccio};
use serde_json::{Value, json};

use replay_support::{json_of, replay, schema_check};

fn without_generated_at(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .filter(|l| !l.trim_start().starts_with("\"generatedAt\""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `(version, outcome state, verdict)` of each row.
fn rows(doc: &Value) -> Vec<(String, String, String)> {
    doc["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["version"].as_str().unwrap_or("").to_owned(),
                r["outcome"]["state"].as_str().unwrap_or("").to_owned(),
                r["verdict"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn kinds(doc: &Value) -> Vec<(String, String)> {
    doc["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .map(|v| {
            (
                v["version"].as_str().unwrap_or("").to_owned(),
                v["kind"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

fn owned(rows: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    rows.iter()
        .map(|(a, b, c)| ((*a).to_owned(), (*b).to_owned(), (*c).to_owned()))
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
        .collect()
}

fn net_probe(doc: &Value, version: &str) -> String {
    let row = doc["rows"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["version"] == version))
        .expect("row");
    row["changes"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["path"] == "/tools/name=net_probe"))
        .and_then(|c| c["after"]["description"].as_str())
        .unwrap_or("")
        .to_owned()
}

#[test]
fn npm_history_is_replayed_and_judged() {
    let work = tempfile::tempdir().expect("work");
    let registry = Verdaccio::start(&work.path().join("verdaccio"));
    registry.publish_history();
    let env = registry.npm_env();
    let cache = work.path().join("cache");
    let out_dir = work.path().join("out");
    let src = format!("npm:{NPM_NAME}");
    let url = registry.url();
    // A listener the connecting version tries to reach: isolated, it must not get there.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let connect = format!(
        "MCPSEAL_FIXTURE_CONNECT={}",
        listener.local_addr().expect("addr")
    );
    let base = [
        src.as_str(),
        "--registry",
        url.as_str(),
        "--cache",
        cache.to_str().expect("utf-8"),
        "--env",
        connect.as_str(),
        "--jobs",
        "2",
        "--format",
        "json",
    ];
    let mut with_out = base.to_vec();
    with_out.extend(["--out", out_dir.to_str().expect("utf-8")]);
    let first = replay(&env, &with_out);
    assert_eq!(
        first.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let doc = json_of(&first);
    schema_check(&doc);
    assert_eq!(doc["schemaVersion"], 1);
    assert_eq!(doc["verdict"], "violations");
    assert_eq!(
        rows(&doc),
        owned(&[
            ("1.0.0", "captured", "baseline"),
            ("1.1.0", "captured", "compatible"),
            ("1.1.1", "captured", "violation"),
            ("1.2.0", "captured", "violation"),
            ("1.3.0", "didNotStart", "notJudged"),
            ("1.4.0", "captured", "compatible"),
        ])
    );
    assert_eq!(
        kinds(&doc),
        pairs(&[
            ("1.1.1", "changedUnderSameReportedVersion"),
            ("1.1.1", "breakWithoutNewLine"),
            ("1.2.0", "removalOutsideMajor"),
        ])
    );
    // The witness: what 1.1.0 accepted and 1.1.1 rejects, checked against both schemas.
    let break_111 = &doc["violations"][1];
    assert_eq!(
        break_111["witnesses"][0]["request"],
        json!({"name": "add", "arguments": {"a": 0.0, "b": 0.0}})
    );
    assert!(
        break_111["witnesses"][0]["rejectedBecause"]
            .as_str()
            .is_some_and(|w| w.contains("\"c\" is a required property")),
        "{break_111}"
    );
    let removal = &doc["violations"][2];
    assert_eq!(removal["witnesses"][0]["tool"], "echo");
    assert_eq!(
        removal["witnesses"][0]["rejectedBecause"],
        "1.2.0 has no tool `echo`"
    );
    // Fail closed: the crashing version is a row with its stderr, not an empty surface, and
    // 1.4.0 is compared with 1.2.0, the last one captured.
    let crashed = &doc["rows"][4];
    assert_eq!(crashed["withdrawal"]["state"], "deprecated");
    assert!(
        crashed["outcome"]["stderr"]
            .as_array()
            .is_some_and(|l| l.iter().any(|x| x
                .as_str()
                .is_some_and(|s| s.contains("Dynamic require of \"events\" is not supported")))),
        "{crashed}"
    );
    assert_eq!(doc["rows"][5]["comparedWith"], "1.2.0");
    assert_eq!(doc["rows"][2]["declaredBump"], "patch");
    assert_eq!(doc["rows"][2]["requiredBump"], "major");
    assert!(doc["excluded"].as_array().is_some_and(|e| {
        e.iter()
            .any(|x| x["version"] == "2.0.0-rc.1" && x["reason"] == "prerelease")
    }));
    // Network isolation: the version that connects out was cut off.
    let probe = net_probe(&doc, "1.4.0");
    assert!(probe.contains("blocked"), "{probe}");
    assert!(
        doc["isolation"][0]
            .as_str()
            .is_some_and(|l| l.starts_with("network isolation: on")),
        "{}",
        doc["isolation"]
    );
    // Files only with --out, the JSON there the same document.
    let files: Vec<String> = std::fs::read_dir(&out_dir)
        .expect("out dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let json_file = files
        .iter()
        .find(|f| f.starts_with("replay-") && f.ends_with(".json"));
    let md_file = files
        .iter()
        .find(|f| f.starts_with("replay-") && f.ends_with(".md"));
    let (Some(json_file), Some(md_file)) = (json_file, md_file) else {
        panic!("files: {files:?}");
    };
    assert_eq!(
        std::fs::read_to_string(out_dir.join(json_file)).expect("json file"),
        String::from_utf8_lossy(&first.stdout)
    );
    let md = std::fs::read_to_string(out_dir.join(md_file)).expect("md file");
    assert!(md.contains("| 1.3.0 (deprecated) |"), "{md}");
    assert!(md.contains("### Violations"), "{md}");
    assert!(md.contains("### Timings"), "{md}");

    // A second run (from the cache) is byte-identical but for generatedAt.
    let second = replay(&env, &base);
    assert_eq!(second.status.code(), Some(1));
    assert_eq!(without_generated_at(&first), without_generated_at(&second));
    assert!(String::from_utf8_lossy(&second.stderr).contains("(cached install)"));

    // With the network allowed, the same version reaches the listener (the control).
    let mut open = base.to_vec();
    open.extend(["--allow-network", "--versions", ">=1.2.0"]);
    let allowed = replay(&env, &open);
    let doc = json_of(&allowed);
    assert_eq!(doc["rules"]["networkIsolationRequested"], false);
    let probe = net_probe(&doc, "1.4.0");
    assert!(probe.contains("reached"), "{probe}");
    assert!(doc["notMeasured"].as_array().is_some_and(|l| {
        l.iter()
            .any(|x| x.as_str().is_some_and(|s| s.contains("--allow-network")))
    }));
    drop(listener);

    // A clean history is not flagged.
    let mut clean = base.to_vec();
    clean.extend(["--versions", "<=1.1.0"]);
    let out = replay(&env, &clean);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc = json_of(&out);
    assert_eq!(doc["verdict"], "clean");
    assert_eq!(
        rows(&doc),
        owned(&[
            ("1.0.0", "captured", "baseline"),
            ("1.1.0", "captured", "compatible")
        ])
    );
    assert_eq!(doc["violations"], json!([]));
}

#[test]
fn pypi_history_is_replayed_and_judged() {
    let work = tempfile::tempdir().expect("work");
    let index = PypiIndex::start(&work.path().join("index"));
    let files = index.publish_history(true);
    let cache = work.path().join("cache");
    let src = format!("pypi:{PYPI_NAME}");
    let simple = index.simple_url();
    let args = [
        src.as_str(),
        "--registry",
        simple.as_str(),
        "--cache",
        cache.to_str().expect("utf-8"),
        "--format",
        "json",
    ];
    let env: Vec<(String, String)> = vec![("PIP_DISABLE_PIP_VERSION_CHECK".into(), "1".into())];
    let out = replay(&env, &args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json_of(&out);
    schema_check(&doc);
    assert_eq!(
        rows(&doc),
        owned(&[
            ("1.0.0", "captured", "baseline"),
            ("1.1.0", "captured", "compatible"),
            ("1.1.0.post1", "captured", "violation"),
            ("1.2.0", "captured", "violation"),
            ("1.3.0", "didNotStart", "notJudged"),
            ("1.4.0", "notInstallable", "notJudged"),
        ])
    );
    assert_eq!(
        kinds(&doc),
        pairs(&[
            ("1.1.0.post1", "changedWithoutVersionBump"),
            ("1.2.0", "removalOutsideMajor"),
        ])
    );
    let unbumped = &doc["violations"][0];
    assert_eq!(
        unbumped["witnesses"][0]["request"],
        json!({"name": "add", "arguments": {"a": 0.0, "b": 0.0}})
    );
    assert_eq!(doc["rows"][2]["declaredBump"], "none");
    assert!(
        doc["rows"][4]["outcome"]["stderr"]
            .as_array()
            .is_some_and(|l| l.iter().any(|x| x
                .as_str()
                .is_some_and(|s| s.contains("cannot import name 'Server'")))),
        "{}",
        doc["rows"][4]
    );
    let excluded: Vec<(String, String)> = doc["excluded"]
        .as_array()
        .expect("excluded")
        .iter()
        .map(|e| {
            (
                e["version"].as_str().unwrap_or("").to_owned(),
                e["reason"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert!(
        excluded.contains(&("1.5.0".into(), "yanked".into())),
        "{excluded:?}"
    );
    assert!(
        excluded.contains(&("2.0.0rc1".into(), "prerelease".into())),
        "{excluded:?}"
    );
    assert_eq!(doc["rows"][0]["publishedAt"], "2024-01-01T10:00:00Z");

    let again = replay(&env, &args);
    assert_eq!(without_generated_at(&out), without_generated_at(&again));

    // The same index holding only the clean part of the history: not flagged.
    let clean: Vec<_> = files
        .iter()
        .filter(|f| f.version == "1.0.0" || f.version == "1.1.0")
        .cloned()
        .collect();
    index.write_pages(&clean, true);
    let out = replay(&env, &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let doc = json_of(&out);
    assert_eq!(doc["verdict"], "clean");
    assert_eq!(
        rows(&doc),
        owned(&[
            ("1.0.0", "captured", "baseline"),
            ("1.1.0", "captured", "compatible")
        ])
    );
}

#[test]
fn a_source_that_cannot_be_listed_is_exit_2_with_a_hint() {
    let out = replay(&[], &["npm:no/such"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not a package source"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    // An unreachable registry is exit 2 too, never an empty history.
    let work = tempfile::tempdir().expect("work");
    let dead = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/", dead.local_addr().expect("addr"));
    drop(dead);
    let out = replay(
        &[],
        &[
            "npm:left-pad",
            "--registry",
            &url,
            "--cache",
            work.path().to_str().expect("utf-8"),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stdout).is_empty());
}

fn git(repo: &Path, args: &[&str], date: &str) {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(repo)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Commits the fixture server with `tools` and a build step that copies it into `dist/`.
fn release(repo: &Path, version: &str, tools: &[&str], date: &str) {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcpseal-fixtures/packages/server.js");
    std::fs::copy(fixture, repo.join("server.js")).expect("server.js");
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({"name": t, "description": "x", "inputSchema": {"type": "object"},
                        "annotations": {"readOnlyHint": true}})
        })
        .collect();
    std::fs::write(
        repo.join("surface.json"),
        json!({"serverInfo": {"name": "git-fixture", "version": version}, "tools": tools})
            .to_string(),
    )
    .expect("surface");
    std::fs::write(
        repo.join("build.js"),
        "const fs=require('fs');fs.mkdirSync('dist',{recursive:true});for(const f of ['server.js','surface.json'])fs.copyFileSync(f,'dist/'+f);\n",
    )
    .expect("build.js");
    git(repo, &["add", "-A"], date);
    git(repo, &["commit", "-q", "-m", version], date);
    git(repo, &["tag", &format!("v{version}")], date);
}

#[test]
fn git_tags_are_built_replayed_and_judged() {
    let work = tempfile::tempdir().expect("work");
    let repo = work.path().join("repo");
    std::fs::create_dir(&repo).expect("repo");
    git(&repo, &["init", "-q", "-b", "main"], "2024-01-01T00:00:00Z");
    release(&repo, "1.0.0", &["a"], "2024-01-01T00:00:00Z");
    release(&repo, "1.1.0", &["a", "b"], "2024-02-01T00:00:00Z");
    release(&repo, "1.2.0", &["b"], "2024-03-01T00:00:00Z");
    // A removal in a major keeps the line: not a violation.
    release(&repo, "2.0.0", &["c"], "2024-04-01T00:00:00Z");
    let src = format!("git:{}", repo.display());
    let out = replay(
        &[],
        &[
            &src,
            "--tags",
            "v*",
            "--build",
            "node build.js",
            "--run",
            "node dist/server.js",
            "--cache",
            work.path().join("cache").to_str().expect("utf-8"),
            "--format",
            "json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc = json_of(&out);
    schema_check(&doc);
    assert_eq!(
        rows(&doc),
        owned(&[
            ("1.0.0", "captured", "baseline"),
            ("1.1.0", "captured", "compatible"),
            ("1.2.0", "captured", "violation"),
            ("2.0.0", "captured", "compatible"),
        ])
    );
    assert_eq!(kinds(&doc), pairs(&[("1.2.0", "removalOutsideMajor")]));
    assert_eq!(doc["rows"][3]["declaredBump"], "major");
    assert_eq!(doc["rows"][3]["requiredBump"], "major");
    assert_eq!(doc["rows"][1]["requiredBump"], "minor");
}

#[test]
fn a_live_endpoint_is_matched_against_the_replayed_versions() {
    let work = tempfile::tempdir().expect("work");
    let repo = work.path().join("repo");
    std::fs::create_dir(&repo).expect("repo");
    git(&repo, &["init", "-q", "-b", "main"], "2024-01-01T00:00:00Z");
    std::fs::write(repo.join("README"), "one").expect("readme");
    git(&repo, &["add", "-A"], "2024-01-01T00:00:00Z");
    git(&repo, &["commit", "-q", "-m", "1"], "2024-01-01T00:00:00Z");
    git(&repo, &["tag", "v1.0.0"], "2024-01-01T00:00:00Z");
    // Each tag runs the fixture server over stdio; the live endpoint is the same server over
    // HTTP, and then one with another surface.
    let fixture = mcpseal_fixtures::binary();
    let run = fixture.to_str().expect("utf-8").to_owned();
    let src = format!("git:{}", repo.display());
    let cache = work.path().join("cache");
    let live = mcpseal_fixtures::HttpFixture::start(&[]);
    let args = |url: &str| {
        replay(
            &[],
            &[
                &src,
                "--run",
                &run,
                "--cache",
                cache.to_str().expect("utf-8"),
                "--url",
                url,
                "--format",
                "json",
            ],
        )
    };
    let out = args(&live.url);
    let doc = json_of(&out);
    assert_eq!(
        doc["rows"][0]["outcome"]["state"], "captured",
        "{}",
        doc["rows"][0]
    );
    assert_eq!(doc["live"]["matches"], json!(["1.0.0"]), "{}", doc["live"]);
    assert!(
        doc["live"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("live = 1.0.0's surface")),
        "{}",
        doc["live"]
    );
    let other = mcpseal_fixtures::HttpFixture::start(&["--page-size", "1", "--tools", "3"]);
    let doc = json_of(&args(&other.url));
    assert_eq!(doc["live"]["matches"], json!([]), "{}", doc["live"]);
}
