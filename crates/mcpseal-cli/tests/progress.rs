//! The progress display, seen as a user sees it: the real binary with its stderr on a real
//! pseudo-terminal (openpty), against the fixture server.
//!
//! On a terminal the display says what is waited for; with `--quiet`, or with stderr not a
//! terminal (a pipe, as in CI), nothing of it appears. Whatever goes to stdout stays clean.
#![expect(
    clippy::disallowed_methods,
    reason = "the test starts the binary itself, to hand it a pseudo-terminal"
)]

use std::fs::File;
use std::io::Read;
use std::process::{Command, Stdio};

use mcpseal_fixtures::stdio_argv;
use nix::pty::{Winsize, openpty};

/// What one run left on the terminal (stderr) and on stdout.
struct Seen {
    code: Option<i32>,
    terminal: String,
    stdout: String,
}

/// Runs `mcpseal ARGS -- <fixture>` in `dir`, stderr on a pseudo-terminal when `tty`, else on a
/// pipe; stdout is always a pipe.
fn run(dir: &std::path::Path, args: &[&str], tty: bool) -> Seen {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("mcpseal"));
    cmd.current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env("TERM", "xterm")
        .args(args)
        .arg("--")
        .args(stdio_argv(&[]))
        .stdin(Stdio::null())
        .stdout(Stdio::piped());
    let master = if tty {
        let size = Winsize {
            ws_row: 24,
            ws_col: 120,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        let pty = openpty(Some(&size), None).expect("a pseudo-terminal");
        cmd.stderr(Stdio::from(pty.slave));
        Some(File::from(pty.master))
    } else {
        cmd.stderr(Stdio::piped());
        None
    };
    let mut child = cmd.spawn().expect("mcpseal starts");
    // The parent's copy of the terminal's slave end went into `cmd`: drop it, so that reading
    // the master ends when the child (the last holder) exits.
    drop(cmd);
    let mut err_pipe = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        match (master, err_pipe.as_mut()) {
            // Linux answers EIO once the slave side is closed: that is the end of the output.
            (Some(mut m), _) => {
                let _ = m.read_to_end(&mut bytes);
            }
            (None, Some(p)) => {
                let _ = p.read_to_end(&mut bytes);
            }
            (None, None) => {}
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    let mut stdout = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_string(&mut stdout);
    }
    let status = child.wait().expect("mcpseal ends");
    let terminal = reader.join().expect("reader thread");
    Seen {
        code: status.code(),
        terminal,
        stdout,
    }
}

#[test]
fn probe_shows_each_rule_on_a_terminal_and_keeps_json_clean() {
    let dir = tempfile::tempdir().expect("tempdir");
    let seen = run(dir.path(), &["probe", "--format", "json"], true);
    assert!(matches!(seen.code, Some(0 | 1)), "exit {:?}", seen.code);
    assert!(
        seen.terminal.contains("probing: SEAL001 ("),
        "the display names the rule running:\n{}",
        seen.terminal
    );
    assert!(
        seen.terminal.contains("probe: discovering the server"),
        "the prelude is shown:\n{}",
        seen.terminal
    );
    // A counted bar: `DONE/TOTAL` after the rule.
    let b = seen.terminal.as_bytes();
    assert!(
        (1..b.len().saturating_sub(1))
            .any(|i| b[i] == b'/' && b[i - 1].is_ascii_digit() && b[i + 1].is_ascii_digit()),
        "no DONE/TOTAL count:\n{}",
        seen.terminal
    );
    let doc: serde_json::Value =
        serde_json::from_str(&seen.stdout).expect("stdout is exactly the JSON report");
    assert_eq!(doc["schemaVersion"], 1);
    assert!(!seen.stdout.contains('\u{1b}'), "no escapes on stdout");
}

#[test]
fn probe_shows_nothing_with_quiet_or_without_a_terminal() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (args, tty) in [
        (&["--quiet", "probe", "--format", "json"][..], true),
        (&["probe", "--format", "json", "--quiet"][..], true),
        (&["probe", "--format", "json"][..], false),
    ] {
        let seen = run(dir.path(), args, tty);
        assert!(
            matches!(seen.code, Some(0 | 1)),
            "{args:?}: exit {:?}",
            seen.code
        );
        assert!(
            !seen.terminal.contains("probing") && !seen.terminal.contains("probe:"),
            "{args:?} (tty {tty}): no display:\n{}",
            seen.terminal
        );
        assert!(
            !seen.terminal.contains('\u{1b}') && !seen.terminal.contains('\r'),
            "{args:?} (tty {tty}): no drawing at all:\n{:?}",
            seen.terminal
        );
        serde_json::from_str::<serde_json::Value>(&seen.stdout).expect("the JSON report");
    }
}

#[test]
fn snapshot_and_lock_say_what_they_wait_for() {
    let dir = tempfile::tempdir().expect("tempdir");
    let seen = run(dir.path(), &["snapshot"], true);
    assert_eq!(seen.code, Some(0), "{}", seen.terminal);
    assert!(
        seen.terminal.contains("snapshot: capturing the surface"),
        "{}",
        seen.terminal
    );
    assert!(seen.stdout.contains("mcpseal/1  "), "{}", seen.stdout);

    let seen = run(dir.path(), &["lock", "--server-version", "1.0.0"], true);
    assert_eq!(seen.code, Some(0), "{}", seen.terminal);
    assert!(
        seen.terminal
            .contains("lock: second capture on a fresh connection"),
        "{}",
        seen.terminal
    );
    let quiet = run(dir.path(), &["--quiet", "check"], true);
    assert_eq!(quiet.code, Some(0), "{}", quiet.terminal);
    assert!(!quiet.terminal.contains("check:"), "{}", quiet.terminal);
    let shown = run(dir.path(), &["check"], true);
    assert_eq!(shown.code, Some(0), "{}", shown.terminal);
    assert!(
        shown.terminal.contains("check: capturing the surface"),
        "{}",
        shown.terminal
    );
}
