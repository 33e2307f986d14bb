//! `mcpseal completions` for four shells and the man page: generated, and exercised with the
//! real tools installed here (bash runs its completion function; groff renders the page).
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

use std::process::Command as Std;
use std::time::Duration;

use assert_cmd::Command;

fn generate(args: &[&str]) -> String {
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(Duration::from_secs(60))
        .args(args)
        .output()
        .expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn completions_for_four_shells_name_every_command() {
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let script = generate(&["completions", shell]);
        for sub in ["snapshot", "probe", "check", "config", "completions"] {
            assert!(script.contains(sub), "{shell} completions lack `{sub}`");
        }
    }
    let bad = Command::cargo_bin("mcpseal")
        .expect("binary")
        .args(["completions", "tcsh"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn bash_completion_completes_subcommands_and_flags() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mcpseal.bash");
    std::fs::write(&path, generate(&["completions", "bash"])).expect("write");
    let script = format!(
        "source {}; COMP_WORDS=(mcpseal con); COMP_CWORD=1; _mcpseal mcpseal con mcpseal; printf '%s\\n' \"${{COMPREPLY[@]}}\"; \
         COMP_WORDS=(mcpseal check --lo); COMP_CWORD=2; _mcpseal mcpseal --lo check; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        path.display()
    );
    let out = Std::new("bash")
        .args(["--norc", "-c", &script])
        .output()
        .expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let words: Vec<&str> = text.lines().collect();
    assert!(words.contains(&"config"), "{text}");
    assert!(
        !words.contains(&"snapshot"),
        "only words starting with `con`: {text}"
    );
    assert!(words.contains(&"--lock"), "{text}");
}

#[test]
fn man_page_renders() {
    let page = generate(&["man"]);
    assert!(
        page.starts_with(".ie") || page.contains(".TH mcpseal 1"),
        "{page}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mcpseal.1");
    std::fs::write(&path, &page).expect("write");
    let out = Std::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
        .arg(&path)
        .output()
        .expect("groff runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("NAME") && text.contains("SUBCOMMANDS"),
        "{text}"
    );
    assert!(text.contains("completions"), "{text}");
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert!(warnings.trim().is_empty(), "groff warnings: {warnings}");
}

#[test]
fn a_command_has_its_own_man_page_and_an_unknown_one_is_refused() {
    let page = generate(&["man", "lock"]);
    assert!(page.contains(".TH mcpseal-lock 1"), "{page}");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mcpseal-lock.1");
    std::fs::write(&path, &page).expect("write");
    let out = Std::new("groff")
        // `-k`: through preconv, as man(1) reads a page; the commands' help has non-ASCII
        // punctuation (—, →), which clap_mangen writes as UTF-8.
        .args(["-k", "-man", "-Tutf8", "-ww", "-P-cbou"])
        .arg(&path)
        .output()
        .expect("groff runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("mcpseal-lock"), "{text}");
    assert!(text.contains("--server-version"), "{text}");
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert!(warnings.trim().is_empty(), "groff warnings: {warnings}");

    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(Duration::from_secs(60))
        .args(["man", "nosuch"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`nosuch` is not an mcpseal command"), "{err}");
    assert!(
        err.contains("hint: one of") && err.contains("probe"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}
