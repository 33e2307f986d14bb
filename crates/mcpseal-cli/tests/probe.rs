//! `mcpseal probe` end to end: the built binary against the real fixture over stdio and HTTP.
//! Exit codes, `--fail-on`, `--only`/`--skip`, `--emit`, `--list-rules`, run states, and no
//! credential in any report format.

use std::time::Duration;

use assert_cmd::Command;
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::Value;

fn mcpseal() -> Command {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    cmd.timeout(Duration::from_secs(30)).env("NO_COLOR", "1");
    cmd
}

/// `mcpseal probe ARGS -- fixture FIXTURE_ARGS`: (exit code, stdout, stderr).
fn probe_stdio(args: &[&str], fixture: &[&str]) -> (i32, String, String) {
    let out = mcpseal()
        .arg("probe")
        .args(["--timeout", "3s"])
        .args(args)
        .arg("--")
        .args(stdio_argv(fixture))
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).expect("stdout is JSON")
}

/// `--only` value selecting mcp-stateless's rules (SEAL001–SEAL021), which these tests pin.
fn anchored() -> String {
    (1..=21)
        .map(|n| format!("SEAL{n:03}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// How many rules are registered (`--list-rules --format json`).
fn registered() -> usize {
    let out = mcpseal()
        .args(["probe", "--list-rules", "--format", "json"])
        .output()
        .expect("runs");
    let doc = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(doc["schemaVersion"], 1);
    doc["rules"].as_array().map_or(0, Vec::len)
}

#[test]
fn exit_codes_follow_the_report_and_fail_on() {
    assert_eq!(probe_stdio(&[], &["--mode", "modern"]).0, 0);
    let (code, out, _) = probe_stdio(&[], &["--mode", "legacy"]);
    assert_eq!(code, 1);
    assert!(out.contains("NOT READY"), "{out}");
    assert_eq!(
        probe_stdio(&["--fail-on", "never"], &["--mode", "legacy"]).0,
        0
    );
    // Warnings only: below the default threshold, at the `warning` one.
    let only = ["--only", "seal015,SEAL017"];
    assert_eq!(probe_stdio(&only, &["--mode", "legacy"]).0, 0);
    let with_warning = [only[0], only[1], "--fail-on", "warning"];
    assert_eq!(probe_stdio(&with_warning, &["--mode", "legacy"]).0, 1);
    assert_eq!(probe_stdio(&[], &["--mode", "dual"]).0, 0);
    assert_eq!(
        probe_stdio(&["--fail-on", "warning"], &["--mode", "dual"]).0,
        1
    );
}

#[test]
fn only_and_skip_select_rules() {
    let (code, out, _) = probe_stdio(
        &["--format", "json", "--skip", "SEAL001,seal002"],
        &["--mode", "legacy"],
    );
    assert_eq!(code, 1);
    let doc = json(&out);
    let ids: Vec<&str> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["ruleId"].as_str())
        .collect();
    assert!(
        !ids.contains(&"SEAL001") && !ids.contains(&"SEAL002"),
        "{ids:?}"
    );
    assert!(ids.contains(&"SEAL006"));
    // Stdio: every registered rule that applies to stdio, minus the two skipped.
    let stdio_rules = json(&String::from_utf8_lossy(
        &mcpseal()
            .args(["probe", "--list-rules", "--format", "json"])
            .output()
            .expect("runs")
            .stdout,
    ))["rules"]
        .as_array()
        .map_or(0, |r| {
            r.iter()
                .filter(|r| {
                    r["transports"]
                        .as_array()
                        .is_some_and(|t| t.contains(&"stdio".into()))
                })
                .count()
        });
    assert_eq!(doc["summary"]["checks"], stdio_rules - 2);
}

#[test]
fn unknown_rule_ids_and_bad_emits_are_usage_errors_before_anything_starts() {
    // The "server" would fail the test if it were started: it does not exist.
    for args in [
        &["--only", "SEAL001,MCP999"][..],
        &["--skip", "nope"][..],
        &["--emit", "yaml:out.yaml"][..],
        &["--emit", "json"][..],
    ] {
        let out = mcpseal()
            .arg("probe")
            .args(args)
            .args(["--", "/nonexistent/server"])
            .output()
            .expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error:"), "{err}");
        assert!(!err.contains("unreachable"), "{err}");
    }
}

#[test]
fn a_selection_with_no_applicable_rule_is_a_usage_error_not_a_pass() {
    // SEAL003 is HTTP-only: over stdio it would run nothing and "pass" across 0 checks. Found
    // before the server starts (the command does not exist).
    let out = mcpseal()
        .args(["probe", "--only", "SEAL003", "--", "/nonexistent/server"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: no selected rule applies to stdio: SEAL003 is HTTP-only"),
        "{err}"
    );
    assert!(err.contains("hint:"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).trim().is_empty());
    // `--skip` that removes every stdio rule: the same refusal.
    let stdio_ids: Vec<String> = json(&String::from_utf8_lossy(
        &mcpseal()
            .args(["probe", "--list-rules", "--format", "json"])
            .output()
            .expect("runs")
            .stdout,
    ))["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter(|r| {
            r["transports"]
                .as_array()
                .is_some_and(|t| t.contains(&"stdio".into()))
        })
        .filter_map(|r| r["id"].as_str().map(str::to_owned))
        .collect();
    let (code, _, err) = probe_stdio(&["--skip", &stdio_ids.join(",")], &["--mode", "modern"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!(
            "no selected rule applies to stdio: `--skip` removes all {} rules that do",
            stdio_ids.len()
        )),
        "{err}"
    );
    // The good case: one applicable rule besides it runs, and the gate means something.
    let (code, out, err) = probe_stdio(
        &["--format", "json", "--only", "SEAL003,SEAL001"],
        &["--mode", "modern"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["summary"]["checks"], 1);
    // Over HTTP SEAL003 applies.
    let fx = HttpFixture::start(&["--mode", "modern"]);
    let (code, out, err) = probe_url(&fx.url, &["--format", "json", "--only", "SEAL003"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json(&out)["summary"]["checks"], 1);
}

#[test]
fn a_command_that_cannot_start_is_unreachable_with_zero_findings() {
    let out = mcpseal()
        .args(["probe", "--format", "json", "--fail-on", "never", "--"])
        .arg("/nonexistent/mcpseal-no-such-server")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let doc = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(doc["state"], "unreachable");
    assert_eq!(doc["findings"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["ready"], false);
}

#[test]
fn a_server_that_exits_after_discover_is_incomplete_even_with_fail_on_never() {
    let (code, out, err) = probe_stdio(
        &["--format", "json", "--fail-on", "never"],
        &["--exit-after-discover"],
    );
    assert_eq!(code, 2, "{err}");
    let doc = json(&out);
    assert_eq!(doc["state"], "incomplete");
    assert_eq!(doc["ready"], false);
    assert!(err.contains("incomplete"), "{err}");
}

#[test]
fn emit_renders_one_probe_many_ways() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
    let emits = [
        format!("json:{}", path("r.json")),
        format!("sarif:{}", path("r.sarif")),
        format!("markdown:{}", path("r.md")),
    ];
    let only = anchored();
    let mut args = vec!["--format", "text", "--only", only.as_str()];
    for e in &emits {
        args.extend(["--emit", e.as_str()]);
    }
    let (code, out, _) = probe_stdio(&args, &["--mode", "legacy"]);
    assert_eq!(code, 1);
    assert!(out.contains("NOT READY"));
    let read = |n: &str| std::fs::read_to_string(dir.path().join(n)).expect("emitted");
    let doc: Value = serde_json::from_str(&read("r.json")).expect("json");
    let sarif: Value = serde_json::from_str(&read("r.sarif")).expect("sarif");
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    assert_eq!(
        results.len(),
        doc["findings"].as_array().map_or(0, Vec::len)
    );
    assert!(read("r.md").contains("SEAL001"));
    // One probe: the same findings in every rendering.
    assert!(doc["findings"].as_array().is_some_and(|f| f.len() == 14));
}

#[test]
fn list_rules_needs_no_target() {
    let out = mcpseal()
        .args(["probe", "--list-rules"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), registered());
    assert!(registered() >= 21);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with("SEAL001") && l.contains("MCP001"))
    );
    let out = mcpseal()
        .args(["probe", "--list-rules", "--format", "json"])
        .output()
        .expect("runs");
    let rules = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(rules["schemaVersion"], 1);
    let ids: Vec<&str> = rules["rules"]
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    for n in 1..=21 {
        assert!(ids.contains(&format!("SEAL{n:03}").as_str()));
    }
    assert_eq!(rules["rules"][2]["transports"], serde_json::json!(["http"]));
    // The README states the count and the JSON shape `--list-rules` really has.
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README");
    let count = format!(
        "{} rules, SEAL001–SEAL{}",
        ids.len(),
        ids.last().map_or("", |l| &l[4..])
    );
    assert!(readme.contains(&count), "the README does not say `{count}`");
    assert!(
        readme.contains("`{\"schemaVersion\": 1, \"rules\": [...]}`"),
        "the README does not show the `--list-rules --format json` shape"
    );
}

#[test]
fn a_bearer_token_appears_in_no_report_format() {
    const TOKEN: &str = "s3cr3t-probe-token-6f1e";
    let fx = HttpFixture::start(&["--mode", "legacy"]);
    let dir = tempfile::tempdir().expect("tempdir");
    let file = |f: &str| dir.path().join(format!("r.{f}"));
    let mut cmd = mcpseal();
    cmd.args(["probe", "--verbose", "--timeout", "3s", "--format", "text"])
        .args(["--header", &format!("Authorization: Bearer {TOKEN}")])
        .args(["--header", &format!("X-Api-Key: {TOKEN}-key")]);
    for f in ["json", "sarif", "markdown", "text"] {
        cmd.args(["--emit", &format!("{f}:{}", file(f).display())]);
    }
    let out = cmd.arg(&fx.url).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let mut all = vec![
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ];
    for f in ["json", "sarif", "markdown", "text"] {
        all.push(std::fs::read_to_string(file(f)).expect("emitted"));
    }
    // The evidence does carry the header, redacted.
    assert!(all[2].contains("Authorization") && all[2].contains("[redacted]"));
    for (i, text) in all.iter().enumerate() {
        assert!(!text.contains(TOKEN), "output {i} leaks the token");
        assert!(
            !text.contains("s3cr3t"),
            "output {i} leaks part of the token"
        );
    }
}

#[test]
fn legacy_over_http_exits_like_stdio() {
    let fx = HttpFixture::start(&["--mode", "legacy"]);
    let out = mcpseal()
        .args([
            "probe",
            "--format",
            "json",
            "--timeout",
            "3s",
            "--only",
            &anchored(),
            &fx.url,
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let doc = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(doc["state"], "measured");
    assert_eq!(doc["summary"]["errors"], 12);
    assert_eq!(doc["summary"]["warnings"], 4);
}

/// `mcpseal probe URL ARGS` against a running HTTP fixture: (exit code, stdout, stderr).
fn probe_url(url: &str, args: &[&str]) -> (i32, String, String) {
    let out = mcpseal()
        .arg("probe")
        .args(["--timeout", "3s"])
        .args(args)
        .arg(url)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_authorization_limited_server_exits_2_with_the_challenge_and_passes_with_the_header() {
    let fx = HttpFixture::start(&[
        "--require-token",
        "s3cret",
        "--open-method",
        "server/discover",
    ]);
    let (code, out, err) = probe_url(&fx.url, &[]);
    assert_eq!(code, 2, "{out}\n{err}");
    assert!(out.contains("INCOMPLETE"), "{out}");
    assert!(
        out.contains("this server needs a credential (WWW-Authenticate: Bearer resource_metadata="),
        "{out}"
    );
    assert!(
        out.contains("served without a credential (enumerable anonymously): server/discover"),
        "{out}"
    );
    assert!(err.contains("pass --header"), "{err}");
    let (code, out, err) = probe_url(&fx.url, &["--format", "json"]);
    assert_eq!(code, 2, "{err}");
    let report = json(&out);
    assert_eq!(
        report["access"]["anonymous"],
        serde_json::json!(["server/discover"])
    );
    assert!(
        report["access"]["resourceMetadata"]
            .as_str()
            .is_some_and(|u| u.ends_with("/.well-known/oauth-protected-resource/mcp"))
    );
    assert_eq!(report["findings"], serde_json::json!([]));
    let (code, out, err) = probe_url(&fx.url, &["-H", "Authorization: Bearer s3cret"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("READY"), "{out}");
    assert!(!out.contains("s3cret") && !err.contains("s3cret"));
}

#[test]
fn an_http_403_gets_the_http_hint_not_the_stdout_one() {
    let fx = HttpFixture::start(&["--localhost-only"]);
    let (code, _, err) = probe_url(&fx.url, &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("HTTP 403") && err.contains("Invalid Host header"),
        "{err}"
    );
    let hint = err
        .lines()
        .find(|l| l.starts_with("hint:"))
        .unwrap_or_default();
    assert!(
        hint.contains("localhost") && !hint.contains("stdout"),
        "{err}"
    );
    // The same hint from snapshot, which says "unreachable" the same way.
    let out = mcpseal()
        .args(["snapshot", &fx.url])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("localhost") && !err.contains("speaks MCP on stdout"),
        "{err}"
    );
    // A stdio server that never answers keeps the stdout hint.
    let (_, _, err) = probe_stdio(&[], &["--no-such-flag"]);
    assert!(err.contains("stdout"), "{err}");
}

#[test]
fn the_start_up_allowance_lets_a_slow_stdio_server_answer() {
    // First answer after 4 s: within the default 30 s start-up allowance, although later
    // requests get `--timeout`-free default 10 s.
    let out = mcpseal()
        .args(["probe", "--only", "SEAL001", "--format", "json", "--"])
        .args(stdio_argv(&["--startup-delay", "4000"]))
        .timeout(Duration::from_secs(90))
        .output()
        .expect("runs");
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(report["state"], "measured", "{report}");
    // An explicit `--timeout` caps the start-up wait too.
    let out = mcpseal()
        .args([
            "probe",
            "--only",
            "SEAL001",
            "--timeout",
            "2s",
            "--format",
            "json",
            "--",
        ])
        .args(stdio_argv(&["--startup-delay", "4000"]))
        .timeout(Duration::from_secs(90))
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let report = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(report["state"], "incomplete", "{report}");
}
