//! Readable text output: wrapped to the terminal's width at word boundaries, and coloured with
//! the one palette, by every command. Pinned with insta at 80 and 120 columns, coloured and
//! not; the width and colour are fixed through `COLUMNS` and `--color` (stdout is a pipe here,
//! so neither comes from a terminal). Escapes are shown as `␛` in the snapshots.

mod lock_support;

use std::time::Duration;

use assert_cmd::Command;
use lock_support::{Out, Work, base_surface, with_description, without_tool};
use mcpseal::report::{Format, Look, ProbeReport, RenderOptions, render_probe};
use mcpseal_fixtures::stdio_argv;
use serde_json::json;

const WIDTHS: [usize; 2] = [80, 120];

/// A command line, the fixture's arguments, and the exit code expected.
type Case<'a> = (&'a [&'a str], Option<&'a [&'a str]>, i32);

/// `text` with escapes made visible.
fn visible(text: &str) -> String {
    text.replace('\u{1b}', "␛")
}

/// Every line of `text` fits `width`, or overflows only by one unit that cannot be broken (a
/// URL, a long JSON value) and is too wide for a continuation line.
fn assert_fits(text: &str, width: usize) {
    let plain = strip(text);
    for line in plain.lines() {
        if line.chars().count() <= width {
            continue;
        }
        let last = line.rsplit(' ').next().unwrap_or(line);
        assert!(
            last.chars().count() > width / 2,
            "wider than {width}, and breakable: {line:?}"
        );
    }
}

/// `text` without escapes.
fn strip(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The words of `text`, escapes and line breaks aside: wrapping may only move breaks.
fn words(text: &str) -> Vec<String> {
    strip(text).split_whitespace().map(str::to_owned).collect()
}

fn shown(out: &Out) -> String {
    format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        out.code,
        visible(&out.stdout),
        visible(&out.stderr)
    )
}

const LONG: &str = "Echo a message back. This description is now much longer than it was, and \
it goes into every model prompt, so `mcpseal check` flags it as a security-class change to review";

#[test]
fn check_drift_wraps_and_colours_the_same_at_each_width() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let changed = w.surface(
        "changed.json",
        &with_description(&without_tool(&base_surface(), "clock"), "echo", LONG),
    );
    let locked = w.run(
        &["lock", "--server-version", "1.0.0"],
        Some(&["--surface", &v1]),
    );
    assert_eq!(locked.code, 0, "{locked:?}");
    let plain = w.run_env(
        &["check", "--server-version", "1.0.0"],
        Some(&["--surface", &changed]),
        &[("COLUMNS", "500")],
    );
    assert_eq!(plain.code, 1, "{plain:?}");
    for width in WIDTHS {
        let columns = width.to_string();
        for color in ["never", "always"] {
            let out = w.run_env(
                &["check", "--server-version", "1.0.0", "--color", color],
                Some(&["--surface", &changed]),
                &[("COLUMNS", columns.as_str())],
            );
            assert_eq!(out.code, 1, "{out:?}");
            assert_fits(&out.stdout, width);
            assert_fits(&out.stderr, width);
            // The same words as the unwrapped, uncoloured output, in the same order.
            assert_eq!(words(&out.stdout), words(&plain.stdout));
            assert_eq!(words(&out.stderr), words(&plain.stderr));
            assert_eq!(out.stdout.contains('\u{1b}'), color == "always");
            assert_eq!(out.stderr.contains('\u{1b}'), color == "always");
            insta::with_settings!({prepend_module_to_snapshot => false}, {
                insta::assert_snapshot!(format!("wrapped_check_{width}_{color}"), shown(&out));
            });
        }
    }
}

#[test]
fn colour_follows_no_color_and_clicolor_force_in_every_command() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let changed = w.surface("changed.json", &without_tool(&base_surface(), "clock"));
    let cases: [Case<'_>; 4] = [
        (&["snapshot"], Some(&["--surface", &v1]), 0),
        (
            &["lock", "--server-version", "1.0.0"],
            Some(&["--surface", &v1]),
            0,
        ),
        (&["verify"], Some(&["--surface", &v1]), 0),
        (
            &["diff", "surface.lock.json"],
            Some(&["--surface", &changed]),
            1,
        ),
    ];
    for (args, fixture, code) in cases {
        // `run_env` sets NO_COLOR=1: no colour, and CLICOLOR_FORCE does not override it.
        let out = w.run_env(args, fixture, &[("CLICOLOR_FORCE", "1")]);
        assert_eq!(out.code, code, "{args:?}: {out:?}");
        assert!(!out.stdout.contains('\u{1b}'), "{args:?}: {}", out.stdout);
        // An explicit `--color always` wins over NO_COLOR.
        let mut forced = args.to_vec();
        forced.extend(["--color", "always"]);
        let out = w.run(&forced, fixture);
        assert!(out.stdout.contains('\u{1b}'), "{args:?}: {}", out.stdout);
        // CLICOLOR_FORCE colours a pipe when NO_COLOR is not set.
        let out = w.run_env(args, fixture, &[("NO_COLOR", ""), ("CLICOLOR_FORCE", "1")]);
        assert!(out.stdout.contains('\u{1b}'), "{args:?}: {}", out.stdout);
        let out = w.run_env(args, fixture, &[("NO_COLOR", ""), ("CLICOLOR_FORCE", "0")]);
        assert!(!out.stdout.contains('\u{1b}'), "{args:?}: {}", out.stdout);
    }
}

/// The probe report (the longest text mcpseal prints) wrapped and coloured: the binary's stdout
/// is exactly the renderer's text of the report it emitted, laid out by [`Look`]; the
/// snapshots pin that at a fixed clock (as `probe_snapshots.rs` does for the unwrapped text).
#[test]
fn probe_report_wraps_at_80_and_120_columns() {
    let dir = tempfile::tempdir().expect("tempdir");
    for width in WIDTHS {
        for color in [false, true] {
            let json_path = dir.path().join(format!("r{width}{color}.json"));
            let out = Command::cargo_bin("mcpseal")
                .expect("binary")
                .timeout(Duration::from_secs(60))
                .env("COLUMNS", width.to_string())
                .env_remove("NO_COLOR")
                .args(["probe", "--color", if color { "always" } else { "never" }])
                .arg("--emit")
                .arg(format!("json:{}", json_path.display()))
                .arg("--")
                .args(stdio_argv(&["--mode", "legacy"]))
                .output()
                .expect("runs");
            assert_eq!(out.status.code(), Some(1));
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            let mut report: ProbeReport =
                serde_json::from_str(&std::fs::read_to_string(&json_path).expect("emitted"))
                    .expect("a probe report");
            let look = Look {
                width: Some(width),
                color,
            };
            let opts = RenderOptions {
                verbose: false,
                color,
                docs_url: None,
            };
            assert_eq!(
                look.apply(&render_probe(&report, Format::Text, &opts)),
                stdout
            );
            assert_fits(&stdout, width);
            // Fixed, not filtered: a path of another length would move the line breaks.
            report.target = "/path/to/mcpseal-fixture --mode legacy".to_owned();
            report.tool.version = "0.0.0".to_owned();
            report.started_at = "2026-07-28T12:00:00Z".to_owned();
            report.duration_ms = 1_234;
            for finding in &mut report.findings {
                for exchange in &mut finding.evidence {
                    if let Some(ms) = exchange.get_mut("durationMs") {
                        *ms = json!(5);
                    }
                }
            }
            let text = visible(&look.apply(&render_probe(&report, Format::Text, &opts)));
            insta::with_settings!({prepend_module_to_snapshot => false}, {
                insta::assert_snapshot!(format!("wrapped_probe_{width}_{}", if color { "always" } else { "never" }), text);
            });
        }
    }
}
