//! `mcpseal serve` end to end: the example site locked and checked, mcpseal's own probe over
//! stdio and HTTP (all rules, with a tool call), the CLI face and the deploy check with their exit
//! codes, the config schema, and a clean stop on SIGTERM.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes site files and starts the binary and its peers"
)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("mcpseal")
}

fn mcpseal() -> Command {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    cmd.timeout(Duration::from_secs(60)).env("NO_COLOR", "1");
    cmd
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/site")
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A copy of the example site in a temp dir, its config edited by `edit`.
fn copy_example(edit: impl Fn(&str) -> String) -> tempfile::TempDir {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).expect("mkdir");
        for e in std::fs::read_dir(from).expect("read_dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                copy(&p, &to.join(e.file_name()));
            } else {
                std::fs::copy(&p, to.join(e.file_name())).expect("copy");
            }
        }
    }
    let dir = tempfile::tempdir().expect("tempdir");
    copy(&example().join("public"), &dir.path().join("public"));
    let toml = std::fs::read_to_string(example().join("site.toml")).expect("example config");
    std::fs::write(dir.path().join("site.toml"), edit(&toml)).expect("write config");
    dir
}

fn modern_only(toml: &str) -> String {
    toml.replace("# legacy = true ", "legacy = false #")
}

const CALL: &str = r#"get_post={"slug":"hello-world"}"#;

fn probe_json(args: &[&str]) -> Value {
    let (code, out, err) = run(mcpseal()
        .arg("probe")
        .args(["--format", "json", "--call", CALL])
        .args(args));
    let report: Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("JSON report ({e}): {out}\n{err}"));
    assert_eq!(code, 0, "{err}");
    assert_eq!(report["state"], "measured", "{report:#}");
    assert_eq!(report["ready"], true);
    assert!(report["crashedRules"].as_array().is_some_and(Vec::is_empty));
    report
}

fn finding_ids(report: &Value) -> Vec<(String, String)> {
    report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f["ruleId"].as_str().unwrap_or("").to_owned(),
                f["severity"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_example_site_is_locked_and_its_deploy_verifies() {
    let config = example().join("site.toml");
    let bin = bin();
    let (code, out, err) = run(mcpseal()
        .arg("check")
        .arg("--lock")
        .arg(example().join("surface.lock.json"))
        .arg("--server-version")
        .arg("1.0.0")
        .arg("--")
        .arg(&bin)
        .args(["serve", "--config"])
        .arg(&config));
    assert_eq!(
        code, 0,
        "the example's surface drifted from its lock:\n{out}\n{err}"
    );
    let (code, out, err) = run(mcpseal()
        .args(["serve", "--check", "--config"])
        .arg(&config));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.starts_with("ok: 5 of 5 entries match the manifest"),
        "{out}"
    );
    let (code, out, _) = run(mcpseal()
        .args(["serve", "--check", "--format", "json", "--config"])
        .arg(&config));
    assert_eq!(code, 0);
    let report: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        (
            report["schemaVersion"].clone(),
            report["entries"].clone(),
            report["verified"].clone()
        ),
        (1.into(), 5.into(), 5.into())
    );
    assert_eq!(report["signature"]["status"], "off");
    assert_check_schema(&report);
}

/// `doc` is valid against the committed `schemas/serve-check-report.schema.json`.
fn assert_check_schema(doc: &Value) {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/serve-check-report.schema.json");
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("committed schema"))
            .expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{doc}");
}

#[test]
fn the_example_config_validates_against_the_printed_schema() {
    let (code, out, _) = run(mcpseal().args(["serve", "--print-schema"]));
    assert_eq!(code, 0);
    let schema: Value = serde_json::from_str(&out).expect("schema is JSON");
    let text = std::fs::read_to_string(example().join("site.toml")).expect("read");
    let config: Value = serde_json::to_value(toml_to_json(&text)).expect("json");
    let validator = jsonschema::validator_for(&schema).expect("a valid schema");
    let errors: Vec<String> = validator
        .iter_errors(&config)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let mut typo = config.clone();
    typo["origin"]["signature_mod"] = "off".into();
    assert!(
        !validator.is_valid(&typo),
        "unknown keys are refused by the schema too"
    );
}

/// The config file as the JSON document its schema describes.
fn toml_to_json(text: &str) -> Value {
    let v: toml::Value = toml::from_str(text).expect("the example is TOML");
    serde_json::to_value(v).expect("json")
}

#[test]
fn the_probe_finds_nothing_over_stdio() {
    let bin = bin();
    let site = copy_example(modern_only);
    let config = site.path().join("site.toml");
    let cmd = [
        bin.to_string_lossy().into_owned(),
        "serve".into(),
        "--config".into(),
        config.to_string_lossy().into_owned(),
    ];
    let report = probe_json(&["--", &cmd[0], &cmd[1], &cmd[2], &cmd[3]]);
    assert_eq!(
        finding_ids(&report),
        Vec::<(String, String)>::new(),
        "{report:#}"
    );
    // The dual-era example: only the dual-era advisory.
    let config = example().join("site.toml");
    let report = probe_json(&[
        "--",
        &cmd[0],
        "serve",
        "--config",
        &config.to_string_lossy(),
    ]);
    assert_eq!(
        finding_ids(&report),
        [("SEAL002".to_owned(), "warning".to_owned())],
        "{report:#}"
    );
}

/// `mcpseal serve --http 127.0.0.1:0 --config CONFIG`, its URL, and the child.
fn serve_http(config: &Path) -> (std::process::Child, String) {
    let mut child = StdCommand::new(bin())
        .args(["serve", "--http", "127.0.0.1:0", "--config"])
        .arg(config)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("URL line");
    (child, line.trim().to_owned())
}

fn terminate(mut child: std::process::Child) -> Option<i32> {
    let status = StdCommand::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return s.code();
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("serve did not stop on SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_probe_finds_nothing_over_http_and_sigterm_stops_cleanly() {
    let site = copy_example(modern_only);
    let (child, url) = serve_http(&site.path().join("site.toml"));
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let report = probe_json(&[&url]);
    assert_eq!(
        finding_ids(&report),
        Vec::<(String, String)>::new(),
        "{report:#}"
    );
    assert_eq!(terminate(child), Some(143));

    let (child, url) = serve_http(&example().join("site.toml"));
    let report = probe_json(&[&url]);
    assert_eq!(
        finding_ids(&report),
        [("SEAL002".to_owned(), "warning".to_owned())],
        "{report:#}"
    );
    assert_eq!(terminate(child), Some(143));
}

#[test]
fn the_cli_face_prints_verified_bytes_or_nothing() {
    let config = example().join("site.toml");
    let (code, out, err) = run(mcpseal().args(["serve", "--config"]).arg(&config).args([
        "--cli",
        "get_post",
        "hello-world",
    ]));
    assert_eq!(code, 0, "{err}");
    let file = std::fs::read_to_string(example().join("public/api/v1/posts/hello-world.json"))
        .expect("read");
    assert_eq!(out, file);
    let (code, named, _) = run(mcpseal().args(["serve", "--config"]).arg(&config).args([
        "--cli",
        "get_post",
        "--slug=hello-world",
    ]));
    assert_eq!((code, named), (0, file));
    let (code, out, _) = run(mcpseal()
        .args(["serve", "--config"])
        .arg(&config)
        .args(["--cli", "get_profile"]));
    assert_eq!(code, 0);
    assert!(out.contains("Ada Example"));

    for bad in [
        &["get_post"][..],
        &["get_post", "../profile"],
        &["get_post", "a", "b"],
        &["no_such_verb"],
        &["get_post", "--slug"],
    ] {
        let (code, out, err) = run(mcpseal()
            .args(["serve", "--config"])
            .arg(&config)
            .arg("--cli")
            .args(bad));
        assert_eq!(code, 2, "{bad:?}: {err}");
        assert!(out.is_empty());
        assert!(err.contains("hint:"), "{err}");
    }

    let site = copy_example(|t| t.to_owned());
    let post = site.path().join("public/api/v1/posts/hello-world.json");
    let mut bytes = std::fs::read(&post).expect("read");
    bytes[10] ^= 0x20;
    std::fs::write(&post, &bytes).expect("tamper");
    let (code, out, err) = run(mcpseal()
        .args(["serve", "--config"])
        .arg(site.path().join("site.toml"))
        .args(["--cli", "get_post", "hello-world"]));
    assert_eq!(code, 1, "{err}");
    assert!(
        out.is_empty(),
        "nothing on stdout on a verification failure: {out}"
    );
    assert!(
        err.contains("03bf047fa640d8d4079babe8edf5d5997c2c49187327d6f1ab0fe610e9f82ba9"),
        "the expected digest: {err}"
    );
    let (code, out, _) = run(mcpseal()
        .args(["serve", "--config"])
        .arg(site.path().join("site.toml"))
        .args(["--cli", "get_post", "nope"]));
    assert_eq!((code, out.as_str()), (1, ""), "not a signed artifact");
}

#[test]
fn the_deploy_check_exit_codes() {
    let site = copy_example(|t| t.to_owned());
    let config = site.path().join("site.toml");
    std::fs::write(site.path().join("public/api/v1/profile.json"), "{}").expect("tamper");
    let (code, out, err) = run(mcpseal()
        .args(["serve", "--check", "--config"])
        .arg(&config));
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("api/v1/profile.json: digest-mismatch"),
        "{out}"
    );
    assert!(out.starts_with("failed: 4 of 5"), "{out}");
    let (code, out, _) = run(mcpseal()
        .args(["serve", "--check", "--format", "json", "--config"])
        .arg(&config));
    assert_eq!(code, 1, "{out}");
    let report: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(report["failures"][0]["reason"], "digest-mismatch", "{out}");
    assert_check_schema(&report);
    std::fs::remove_file(site.path().join("public/site.sha256")).expect("rm");
    let (code, _, err) = run(mcpseal()
        .args(["serve", "--check", "--config"])
        .arg(&config));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("manifest") && err.contains("hint:"), "{err}");
    // With `--format json` the same run prints the error document on stdout.
    let (code, out, _) = run(mcpseal()
        .args(["serve", "--check", "--format", "json", "--config"])
        .arg(&config));
    assert_eq!(code, 2, "{out}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("the error document");
    assert_eq!(doc["schemaVersion"], 1, "{out}");
    assert_eq!(doc["error"]["kind"], "unreachable", "{out}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("manifest")),
        "{out}"
    );
    assert!(doc["error"]["hint"].is_string(), "{out}");
    std::fs::write(&config, "[server]\nname = 1\n").expect("write");
    let (code, _, err) = run(mcpseal()
        .args(["serve", "--check", "--config"])
        .arg(&config));
    assert_eq!(code, 2);
    assert!(
        err.contains("not a valid site config") && err.contains("hint:"),
        "{err}"
    );
    let (code, _, err) = run(mcpseal().args(["serve", "--config", "/no/such/site.toml"]));
    assert_eq!(code, 2);
    assert!(err.contains("could not read"), "{err}");
}
