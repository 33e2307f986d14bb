//! The project config end to end: commands with no target use `mcpseal.toml` (or
//! `[tool.mcpseal]` / `"mcpseal"`), flags override it, `mcpseal config` says where each setting
//! came from, and a bad or ambiguous config is exit 2 naming the file and key.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod lock_support;

use std::path::Path;
use std::time::Duration;

use mcpseal_fixtures::stdio_argv;

use lock_support::{Out, run_in};

/// `mcpseal ARGS` in `dir`.
fn run(dir: &Path, args: &[&str]) -> Out {
    run_in(dir, args, Duration::from_secs(60))
}

/// `command = [...]` for the fixture, as a TOML array.
fn fixture_command() -> String {
    let argv = stdio_argv(&["--mode", "modern"]);
    serde_json::to_string(&argv).expect("json is TOML here")
}

#[test]
fn commands_without_a_target_use_the_config_and_flags_override_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = format!(
        "lock = \"locks/surface.lock.json\"\nfail-on = \"never\"\n\n[server]\ncommand = {}\nenv = {{ MCPSEAL_TEST_CONFIG = \"1\" }}\n",
        fixture_command()
    );
    std::fs::write(dir.path().join("mcpseal.toml"), toml).expect("write");
    std::fs::create_dir(dir.path().join("locks")).expect("mkdir");

    let snap = run(dir.path(), &["snapshot", "--format", "json"]);
    assert_eq!(snap.code, 0, "{}", snap.stderr);
    assert!(
        snap.stdout.contains("\"form\": \"mcpseal/1\""),
        "{}",
        snap.stdout
    );

    let lock = run(dir.path(), &["lock"]);
    assert_eq!(lock.code, 0, "{}", lock.stderr);
    assert!(dir.path().join("locks/surface.lock.json").is_file());
    assert!(!dir.path().join("surface.lock.json").exists());

    let check = run(dir.path(), &["check"]);
    assert_eq!(check.code, 0, "{}{}", check.stdout, check.stderr);

    // A flag wins over the config: there is no lock at the flag's path.
    let other = run(dir.path(), &["check", "--lock", "other.json"]);
    assert_eq!(other.code, 2, "{}", other.stderr);
    assert!(other.stderr.contains("other.json"), "{}", other.stderr);

    let probe = run(dir.path(), &["probe", "--format", "json"]);
    assert_eq!(probe.code, 0, "{}", probe.stderr);

    let shown = run(dir.path(), &["config"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(
        shown
            .stdout
            .contains("lock            locks/surface.lock.json  (mcpseal.toml)"),
        "{}",
        shown.stdout
    );
    assert!(
        shown
            .stdout
            .contains("fail-on         never  (mcpseal.toml)"),
        "{}",
        shown.stdout
    );
    assert!(
        shown.stdout.contains("skip            (none)  (default)"),
        "{}",
        shown.stdout
    );
    // Environment names only: values may be credentials.
    assert!(
        shown.stdout.contains("MCPSEAL_TEST_CONFIG"),
        "{}",
        shown.stdout
    );
    let json = run(dir.path(), &["config", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    assert_eq!(doc["settings"]["lock"]["source"], "mcpseal.toml");
    assert_eq!(doc["settings"]["exclude"]["source"], "default");
    // No profiles and no `[anonymous]`: defaults, said so.
    assert_eq!(doc["settings"]["profiles"]["source"], "default");
    assert_eq!(doc["settings"]["anonymous.routes"]["value"], "(none)");
    assert_eq!(doc["settings"]["anonymous.routes"]["source"], "default");
}

#[test]
fn a_bad_profile_table_is_refused_naming_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("mcpseal.toml"),
        "[profiles.ro]\nurl = \"ftp://x\"\n",
    )
    .expect("write");
    let out = run(dir.path(), &["config"]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("[profiles.ro] `url` is not an http:// or https:// URL"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
    std::fs::write(
        dir.path().join("mcpseal.toml"),
        "[profiles.ro]\nurl = \"http://127.0.0.1:9/mcp\"\n",
    )
    .expect("write");
    let out = run(dir.path(), &["config"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .contains("profiles.ro     http://127.0.0.1:9/mcp  (mcpseal.toml)"),
        "{}",
        out.stdout
    );
}

#[test]
fn package_json_and_pyproject_sections_are_configs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pkg = serde_json::json!({
        "name": "x", "version": "1.0.0",
        "mcpseal": { "server": { "command": stdio_argv(&["--mode", "modern"]) }, "skip": ["SEAL012"] }
    });
    std::fs::write(dir.path().join("package.json"), pkg.to_string()).expect("write");
    let snap = run(dir.path(), &["snapshot"]);
    assert_eq!(snap.code, 0, "{}", snap.stderr);
    let shown = run(dir.path(), &["config"]);
    assert!(
        shown
            .stdout
            .contains("skip            SEAL012  (package.json \"mcpseal\")"),
        "{}",
        shown.stdout
    );

    let py = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        py.path().join("pyproject.toml"),
        format!(
            "[project]\nname = \"x\"\nversion = \"1.0.0\"\n\n[tool.mcpseal.server]\ncommand = {}\n",
            fixture_command()
        ),
    )
    .expect("write");
    let snap = run(py.path(), &["snapshot"]);
    assert_eq!(snap.code, 0, "{}", snap.stderr);
}

#[test]
fn two_configs_are_refused_naming_both() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("mcpseal.toml"), "lock = \"a.json\"\n").expect("write");
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[tool.mcpseal]\nlock = \"b.json\"\n",
    )
    .expect("write");
    let out = run(dir.path(), &["check"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("mcpseal.toml") && out.stderr.contains("pyproject.toml [tool.mcpseal]"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
    // A pyproject.toml without the section is no config: one config, no conflict.
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"x\"\n",
    )
    .expect("write");
    assert_eq!(run(dir.path(), &["config"]).code, 0);
}

#[test]
fn unknown_keys_are_refused_naming_key_and_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        dir.path().join("mcpseal.toml"),
        "[server]\ncomand = [\"node\", \"s.js\"]\n",
    )
    .expect("write");
    let out = run(dir.path(), &["snapshot"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("comand") && out.stderr.contains("mcpseal.toml"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("hint:"), "{}", out.stderr);
    std::fs::write(dir.path().join("mcpseal.toml"), "[server]\ncommand = []\n").expect("write");
    let out = run(dir.path(), &["snapshot"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("`command` is empty"), "{}", out.stderr);
}

#[test]
fn no_config_and_no_target_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = run(dir.path(), &["snapshot"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no server given"), "{}", out.stderr);
    assert!(out.stderr.contains("mcpseal.toml"), "{}", out.stderr);
}

/// `command = [...]` for the fixture with `args`, as a TOML array.
fn fixture_with(args: &[&str]) -> String {
    serde_json::to_string(&stdio_argv(args)).expect("json is TOML here")
}

#[test]
fn profiles_and_anonymous_settings_come_from_the_config() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = format!(
        "[profiles.full]\ncommand = {}\nenv = {{ FIXTURE_KEY = \"k\" }}\n\n[profiles.read-only]\ncommand = {}\nenv = {{ FIXTURE_KEY = \"k\" }}\n\n[anonymous]\nenv-unset = [\"FIXTURE_KEY\"]\n",
        fixture_with(&["--require-env", "FIXTURE_KEY"]),
        fixture_with(&["--require-env", "FIXTURE_KEY", "--hide-tool", "echo"]),
    );
    std::fs::write(dir.path().join("mcpseal.toml"), toml).expect("write");
    for profile in ["full", "read-only"] {
        let out = run(
            dir.path(),
            &["lock", "--profile", profile, "--format", "json"],
        );
        assert_eq!(out.code, 0, "{profile}: {}{}", out.stdout, out.stderr);
        let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
        // `[anonymous] env-unset` made the stdio server measurable without a flag.
        assert!(doc["anonymous"].is_object(), "{profile}: {doc:#}");
    }
    let lock: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("surface.lock.json")).expect("lock"))
            .expect("json");
    let profiles = &lock["declared"]["profiles"];
    assert!(profiles["full"]["anonymous"].is_object(), "{lock:#}");
    let tools = |p: &str| profiles[p]["surface"]["tools"].as_array().map(Vec::len);
    assert_eq!(tools("full"), Some(3), "{lock:#}");
    assert_eq!(tools("read-only"), Some(2), "{lock:#}");
    for profile in ["full", "read-only"] {
        let out = run(dir.path(), &["check", "--profile", profile]);
        assert_eq!(out.code, 0, "{profile}: {}{}", out.stdout, out.stderr);
    }
    // Without `--profile`, both profiles, each against its own table.
    let out = run(dir.path(), &["check", "--format", "json"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(doc["profiles"][0]["profile"], "full", "{doc:#}");
    assert_eq!(doc["profiles"][1]["profile"], "read-only", "{doc:#}");
    assert_eq!(doc["profiles"][1]["verdict"], "passed", "{doc:#}");
    // `mcpseal config` shows each profile and `[anonymous]`, and where they came from.
    let shown = run(dir.path(), &["config"]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    for line in [
        "profiles.full.env FIXTURE_KEY  (mcpseal.toml)",
        "profiles.read-only.env FIXTURE_KEY  (mcpseal.toml)",
        "anonymous.env-unset FIXTURE_KEY  (mcpseal.toml)",
        "anonymous.routes (none)  (mcpseal.toml)",
    ] {
        assert!(shown.stdout.contains(line), "{line}: {}", shown.stdout);
    }
    assert!(
        shown.stdout.contains("profiles.read-only -- ")
            && shown.stdout.contains("--hide-tool echo  (mcpseal.toml)"),
        "{}",
        shown.stdout
    );
    // Names only: the value of a profile's env is never shown.
    assert!(!shown.stdout.contains("FIXTURE_KEY=k"), "{}", shown.stdout);
    let json = run(dir.path(), &["config", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    assert_eq!(
        doc["settings"]["profiles.full.cwd"]["source"],
        "mcpseal.toml"
    );
    assert_eq!(
        doc["settings"]["anonymous.env-unset"]["value"],
        "FIXTURE_KEY"
    );
    assert!(doc["settings"].get("profiles").is_none(), "{doc:#}");
    // A profile the config does not have is no target (never `[server]` in its place).
    let out = run(dir.path(), &["check", "--profile", "other"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("no server given"), "{}", out.stderr);
    // Without `[anonymous]` the stdio server is not measured.
    let plain = tempfile::tempdir().expect("tempdir");
    let toml = format!(
        "[server]\ncommand = {}\nenv = {{ FIXTURE_KEY = \"k\" }}\n",
        fixture_with(&["--require-env", "FIXTURE_KEY"]),
    );
    std::fs::write(plain.path().join("mcpseal.toml"), toml).expect("write");
    let out = run(plain.path(), &["lock", "--format", "json"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert!(
        doc.get("anonymous").is_none_or(serde_json::Value::is_null),
        "{doc:#}"
    );
}
