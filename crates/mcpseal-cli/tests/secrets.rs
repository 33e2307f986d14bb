//! Secrets beyond headers, end to end (issue 11 item 7): credential-looking command-line
//! arguments of a stdio server (`--api-key X`, `--token=X`, `API_KEY=X`), `--env` values whose
//! names look secret, and the values of `--secret-env NAME` appear in no output of `snapshot`,
//! `lock` (nor the lock file), `check`, `verify` and `probe`, in any format, even though the
//! server (`mcpseal-hostile --case echo-secrets`) echoes its argv and environment into a tool
//! description, its instructions, every -32601 message and its stderr.

mod lock_support;

use std::time::Duration;

use assert_cmd::Command;
use lock_support::Work;
use mcpseal_fixtures::hostile_argv;

const ARGV_SECRETS: [&str; 3] = [
    "sk-ARGV-SECRET-1111",
    "tok-ARGV-SECRET-2222",
    "ak-ARGV-SECRET-3333",
];
/// Looks secret by its name and shape: always redacted.
const ENV_SECRET: &str = "tk-ENV-SECRET-4444";
/// Has whitespace, so only `--secret-env` marks it.
const NAMED_SECRET: &str = "pass word 5555";

fn server() -> Vec<String> {
    let mut argv = hostile_argv(&["--case", "echo-secrets", "--"]);
    argv.extend(
        [
            "--api-key",
            ARGV_SECRETS[0],
            &format!("--token={}", ARGV_SECRETS[1]),
            &format!("API_KEY={}", ARGV_SECRETS[2]),
        ]
        .map(str::to_owned),
    );
    argv
}

/// Runs mcpseal with the secret environment; returns stdout + stderr.
fn run(w: &Work, args: &[&str], secret_env: bool) -> (i32, String) {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    cmd.timeout(Duration::from_secs(90))
        .current_dir(w.dir.path())
        .env("NO_COLOR", "1")
        .args(args)
        .args([
            "--timeout",
            "5s",
            "--env",
            &format!("SERVICE_TOKEN={ENV_SECRET}"),
            "--env",
            &format!("MY_CRED_NOTE={NAMED_SECRET}"),
        ]);
    if secret_env {
        cmd.args(["--secret-env", "MY_CRED_NOTE"]);
    }
    let out = cmd.arg("--").args(server()).output().expect("runs");
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn leaks(text: &str) -> Vec<&'static str> {
    ARGV_SECRETS
        .iter()
        .chain([&ENV_SECRET, &NAMED_SECRET])
        .copied()
        .filter(|s| text.contains(s))
        .collect()
}

#[test]
fn no_secret_reaches_any_output_in_any_format() {
    let w = Work::new();
    let mut seen = Vec::new();
    let (code, out) = run(&w, &["lock"], true);
    assert_eq!(code, 0, "{out}");
    seen.push(("lock".to_owned(), code, out));
    let lock = String::from_utf8_lossy(&w.lock_bytes()).into_owned();
    assert!(leaks(&lock).is_empty(), "the lock file leaks: {lock}");
    // The echo did reach the lock (the test would see a leak), scrubbed.
    assert!(lock.contains("--api-key [redacted]"), "{lock}");
    for format in ["text", "json"] {
        let args = ["snapshot", "--format", format, "--save-capture", "raw.json"];
        let (code, out) = run(&w, &args, true);
        let raw = std::fs::read_to_string(w.path("raw.json")).unwrap_or_default();
        seen.push((format!("snapshot {format}"), code, format!("{out}\n{raw}")));
    }
    for command in ["lock", "check", "verify"] {
        for format in ["text", "json", "sarif", "markdown"] {
            let (code, out) = run(&w, &[command, "--format", format], true);
            seen.push((format!("{command} {format}"), code, out));
        }
    }
    let emits: Vec<String> = ["json", "sarif", "markdown"]
        .iter()
        .map(|f| format!("{f}:{}", w.path(&format!("probe.{f}")).display()))
        .collect();
    let mut args = vec!["probe", "--verbose"];
    for e in &emits {
        args.extend(["--emit", e.as_str()]);
    }
    let (code, mut out) = run(&w, &args, true);
    for f in ["json", "sarif", "markdown"] {
        out.push_str(&std::fs::read_to_string(w.path(&format!("probe.{f}"))).unwrap_or_default());
    }
    seen.push(("probe".to_owned(), code, out));
    let (_, _, snapshot_json) = &seen[2];
    for scrubbed in ["MY_CRED_NOTE=[redacted]", "SERVICE_TOKEN=[redacted]"] {
        assert!(snapshot_json.contains(scrubbed), "{snapshot_json}");
    }
    for (what, code, out) in &seen {
        assert!(*code >= 0 && *code <= 2, "{what}: exit {code}: {out}");
        assert!(!out.trim().is_empty(), "{what}: some output");
        assert!(
            leaks(out).is_empty(),
            "{what} leaks {:?}:\n{out}",
            leaks(out)
        );
    }
}

/// The control: without `--secret-env` the whitespace-holding value is not recognisable as a
/// secret, and the echoing server's words do reach the output — so the test above can fail.
#[test]
fn a_value_not_named_secret_is_shown() {
    let w = Work::new();
    let (code, out) = run(&w, &["snapshot", "--format", "json"], false);
    assert_eq!(code, 0, "{out}");
    assert_eq!(leaks(&out), [NAMED_SECRET], "{out}");
}
