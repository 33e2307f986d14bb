//! `--help` wraps to the terminal's width at word boundaries, capped at 100 columns
//! (`max_term_width`, which clap honours only with its `wrap_help` feature).
//!
//! The tests' stdout/stderr are pipes and stdin is closed, so clap finds no terminal and takes the
//! width from `COLUMNS`, exactly as it does for a user whose terminal it cannot query.

use assert_cmd::Command;

/// `mcpseal ARGS` with `COLUMNS=columns`; its stdout (help goes to stdout, exit 0).
fn help(columns: usize, args: &[&str]) -> String {
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .env("COLUMNS", columns.to_string())
        .env_remove("LINES")
        .args(args)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The public subcommands listed by `mcpseal --help` (names at two spaces' indent under
/// `Commands:`; wrapped descriptions are indented deeper).
fn subcommands() -> Vec<String> {
    let top = help(100, &["--help"]);
    let mut names = Vec::new();
    let mut in_commands = false;
    for line in top.lines() {
        if line == "Commands:" {
            in_commands = true;
        } else if in_commands && line.is_empty() {
            break;
        } else if in_commands && line.starts_with("  ") && !line.starts_with("   ") {
            let name = line.split_whitespace().next().expect("a command name");
            if name != "help" {
                names.push(name.to_owned());
            }
        }
    }
    assert!(names.len() >= 8, "too few subcommands parsed from:\n{top}");
    names
}

/// Every line of `text` fits in `width` columns (help is ASCII plus `·`, one column each).
fn widest(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

fn squash(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn help_fits_80_columns_for_every_subcommand() {
    let top = help(80, &["--help"]);
    assert!(widest(&top) <= 80, "mcpseal --help at 80 columns:\n{top}");
    for cmd in subcommands() {
        for flag in ["--help", "-h"] {
            let text = help(80, &[&cmd, flag]);
            assert!(
                widest(&text) <= 80,
                "mcpseal {cmd} {flag} has a line over 80 columns:\n{text}"
            );
        }
    }
}

#[test]
fn help_wraps_at_word_boundaries_and_keeps_every_word() {
    // The top-level about text, wrapped at 80 and at 100 columns, is the same words in the same
    // order: wrapping only ever replaces a space with a line break and an indent.
    let sentence = "2 usage error, unreachable server, unreadable input, or a run that could not finish (with \
         `--format json`, a JSON error document";
    for columns in [80, 100] {
        let top = help(columns, &["--help"]);
        assert!(
            squash(&top).contains(sentence),
            "a word was split or lost at {columns} columns:\n{top}"
        );
    }
}

#[test]
fn a_wide_terminal_is_capped_at_100_columns() {
    let cmds = subcommands();
    let wide: Vec<String> = cmds.iter().map(|c| help(200, &[c, "--help"])).collect();
    for (cmd, text) in cmds.iter().zip(&wide) {
        assert!(
            widest(text) <= 100,
            "mcpseal {cmd} --help at 200 columns passes the 100-column cap:\n{text}"
        );
    }
    // ...and the width is used, not a fixed 80: some help text needs more than 80 columns.
    assert!(
        wide.iter().any(|t| widest(t) > 80),
        "no help line is wider than 80 columns at 200"
    );
}
