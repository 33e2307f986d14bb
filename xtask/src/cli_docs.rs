//! The artefacts made by running the built `mcpseal` binary: the man page (`docs/man/mcpseal.1`,
//! from `mcpseal man`, clap_mangen over the parser itself) and one page per command
//! (`docs/commands/*.md`: its `--help`, and for the commands a new project uses, a worked
//! example run here against a real server from PyPI).
//!
//! The worked example is `mcp-server-time` 2026.10.19, pinned in
//! `tests/peers/python/requirements.txt` and installed by `tests/peers/install.sh` into
//! `tests/peers/.venv`, run with `--local-timezone UTC` so its descriptions do not depend on the
//! machine. It runs in a fresh temp project whose `.venv` is that venv, so the pages show exactly
//! what a user of that project sees; the only edits are the probe's start time and run time
//! (replaced by `<time>`), which no two runs share.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;

use crate::artefacts::Artefact;

/// Builds the `mcpseal` binary (debug, as the tests do) and returns its path.
fn binary(root: &Path) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build", "--quiet", "--locked", "-p", "mcpseal", "--bin", "mcpseal",
        ])
        .current_dir(root)
        .status()
        .context("running `cargo build -p mcpseal`")?;
    anyhow::ensure!(
        status.success(),
        "`cargo build -p mcpseal` failed ({status})"
    );
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    Ok(target
        .join("debug")
        .join(format!("mcpseal{}", std::env::consts::EXE_SUFFIX)))
}

/// One run of the binary: its exit code and stdout (and stderr, which people see too).
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(bin: &Path, dir: &Path, args: &[&str]) -> anyhow::Result<Ran> {
    let out = Command::new(bin)
        .args(args)
        .current_dir(dir)
        // The help text wraps at the terminal's width; the pages at clap's 100 columns.
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .env_remove("MCPSEAL_WORKER_THREADS")
        .output()
        .with_context(|| format!("running `mcpseal {}`", args.join(" ")))?;
    Ok(Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).context("mcpseal printed non-UTF-8")?,
        stderr: String::from_utf8(out.stderr).context("mcpseal printed non-UTF-8")?,
    })
}

/// `docs/man/mcpseal.1`.
pub fn man(root: &Path) -> anyhow::Result<Artefact> {
    let bin = binary(root)?;
    let page = run(&bin, root, &["man"])?;
    anyhow::ensure!(page.code == 0, "`mcpseal man` failed: {}", page.stderr);
    Ok(Artefact {
        files: vec![(PathBuf::from("docs/man/mcpseal.1"), page.stdout)],
        owns: vec![(PathBuf::from("docs/man"), ".1")],
    })
}

/// The subcommands, in `--help` order, with their one-line summaries.
fn subcommands(help: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line == "Commands:" {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if !line.starts_with(' ') {
            break;
        }
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match (indent, out.last_mut()) {
            (2, _) => {
                let (name, summary) = trimmed.split_once(' ').unwrap_or((trimmed, ""));
                out.push((name.to_owned(), summary.trim().to_owned()));
            }
            (_, Some((_, summary))) => {
                summary.push(' ');
                summary.push_str(trimmed);
            }
            _ => {}
        }
    }
    out.retain(|(name, _)| name != "help");
    out
}

/// A worked-example step: the command line shown, what it printed.
struct Step {
    shown: String,
    code: i32,
    output: String,
}

/// Replaces what differs from run to run (the probe's clock) and the temp directory.
fn normalise(text: &str, dir: &Path) -> String {
    let text = text.replace(&dir.display().to_string(), ".");
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            let indent = &line[..line.len() - trimmed.len()];
            if let Some(rest) = trimmed.strip_prefix("started ") {
                format!(
                    "{indent}started {}<time>",
                    " ".repeat(rest.len() - rest.trim_start().len())
                )
            } else if trimmed.starts_with("Run time: ") {
                format!("{indent}Run time: <time>")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}

/// The worked example: a temp project on `mcp-server-time`, set up by `init`, then the other
/// commands with no arguments. Keyed by command name.
fn example(root: &Path, bin: &Path) -> anyhow::Result<Vec<(&'static str, Vec<Step>)>> {
    let venv = root.join("tests/peers/.venv");
    anyhow::ensure!(
        venv.join("bin/mcp-server-time").exists(),
        "{} has no mcp-server-time\nhint: run `tests/peers/install.sh` (the worked examples run the pinned PyPI server)",
        venv.display()
    );
    let project = tempfile::tempdir().context("a temp project")?;
    let dir = project.path();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&venv, dir.join(".venv")).context("linking .venv")?;
    let plan: [(&'static str, &[&str]); 7] = [
        (
            "init",
            &[
                "init",
                "--",
                ".venv/bin/mcp-server-time",
                "--local-timezone",
                "UTC",
            ],
        ),
        ("config", &["config"]),
        ("snapshot", &["snapshot"]),
        ("lock", &["lock"]),
        ("check", &["check"]),
        ("probe", &["probe"]),
        ("init", &["init"]),
    ];
    let mut out: Vec<(&'static str, Vec<Step>)> = Vec::new();
    for (name, args) in plan {
        let ran = run(bin, dir, args)?;
        anyhow::ensure!(
            ran.code != 2,
            "the worked example `mcpseal {}` failed:\n{}{}",
            args.join(" "),
            ran.stdout,
            ran.stderr
        );
        let step = Step {
            shown: format!("mcpseal {}", args.join(" ")),
            code: ran.code,
            output: normalise(&format!("{}{}", ran.stdout, ran.stderr), dir),
        };
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, steps)) => steps.push(step),
            None => out.push((name, vec![step])),
        }
    }
    Ok(out)
}

fn page(name: &str, summary: &str, help: &str, steps: Option<&Vec<Step>>) -> String {
    let mut text = format!(
        "# `mcpseal {name}`\n\n<!-- GENERATED by `cargo xtask generate commands` from the built binary. Do not edit. -->\n\n{summary}\n\n## Usage\n\n```console\n$ mcpseal {name} --help\n{help}```\n"
    );
    if let Some(steps) = steps {
        text.push_str(
            "\n## Worked example\n\nA project whose server is `mcp-server-time` 2026.10.19 from PyPI (pinned in\n`tests/peers/python/requirements.txt`), installed in the project's `.venv`. Run by\n`cargo xtask generate commands`; only the probe's clock is replaced by `<time>`.\n",
        );
        for s in steps {
            text.push_str(&format!(
                "\n```console\n$ {}\n{}```\n\nExit code {}.\n",
                s.shown, s.output, s.code
            ));
        }
    }
    text
}

/// `docs/commands/*.md`: one page per command and the index.
pub fn commands(root: &Path) -> anyhow::Result<Artefact> {
    let bin = binary(root)?;
    let top = run(&bin, root, &["--help"])?;
    anyhow::ensure!(top.code == 0, "`mcpseal --help` failed: {}", top.stderr);
    let examples = example(root, &bin)?;
    let mut files = Vec::new();
    let mut index = String::from(
        "# Commands\n\n<!-- GENERATED by `cargo xtask generate commands` from the built binary. Do not edit. -->\n\nOne page per command: its `--help`, and for the commands a project starts with, a worked\nexample against a real server. The man page is [`docs/man/mcpseal.1`](../man/mcpseal.1).\n\n| command | what it does |\n|---|---|\n",
    );
    for (name, summary) in subcommands(&top.stdout) {
        let help = run(&bin, root, &[&name, "--help"])?;
        anyhow::ensure!(
            help.code == 0,
            "`mcpseal {name} --help` failed: {}",
            help.stderr
        );
        let steps = examples.iter().find(|(n, _)| *n == name).map(|(_, s)| s);
        files.push((
            Path::new("docs/commands").join(format!("{name}.md")),
            page(&name, &summary, &help.stdout, steps),
        ));
        index.push_str(&format!("| [`{name}`]({name}.md) | {summary} |\n"));
    }
    files.push((PathBuf::from("docs/commands/README.md"), index));
    Ok(Artefact {
        files,
        owns: vec![(PathBuf::from("docs/commands"), ".md")],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subcommands_are_read_from_help_with_wrapped_summaries() {
        let help = "Usage: x\n\nCommands:\n  rpc   Send one\n  probe  Probe a live\n         server\n  help   Print this\n\nOptions:\n  -h\n";
        assert_eq!(
            subcommands(help),
            [
                ("rpc".to_owned(), "Send one".to_owned()),
                ("probe".to_owned(), "Probe a live server".to_owned()),
            ]
        );
    }

    #[test]
    fn the_probe_clock_is_normalised() {
        let dir = Path::new("/tmp/x1");
        let text =
            "  target    /tmp/x1/.venv/bin/s\n  started   2026-12-01T19:16:41Z\nRun time: 40.6 s\n";
        assert_eq!(
            normalise(text, dir),
            "  target    ./.venv/bin/s\n  started   <time>\nRun time: <time>\n"
        );
    }
}
