//! The artefacts made by running the built `mcpseal` binary: the man pages (`docs/man/mcpseal.1`
//! and `docs/man/mcpseal-COMMAND.1`, from `mcpseal man [COMMAND]`, clap_mangen over the parser
//! itself) and one page per command
//! (`docs/commands/*.md`: its `--help`, and for every command that can show one offline, a worked
//! example run here against a real server from PyPI).
//!
//! The worked example is `mcp-server-time` 2026.10.19, pinned in
//! `tests/peers/python/requirements.txt` and installed by `tests/peers/install.sh` into
//! `tests/peers/.venv`, run with `--local-timezone UTC` so its descriptions do not depend on the
//! machine. It runs in a fresh temp project whose `.venv` is that venv, so the pages show exactly
//! what a user of that project sees; the only edits are the probe's start time and run time
//! (replaced by `<time>`), `rpc`'s `durationMs` (`"<ms>"`) and the dates and weekdays `convert_time` answers with (`<date>`,
//! `<day>`), which no two days share. The drift examples run the same server with
//! `--local-timezone Europe/Paris`, which rewords three descriptions. Commands left without an
//! example need what the worked example cannot have offline and deterministic (a registry, a
//! signed site, a cohort, a host driving the guard); their pages say where to look instead.

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

/// `docs/man/mcpseal.1` and `docs/man/mcpseal-COMMAND.1` for each command.
pub fn man(root: &Path) -> anyhow::Result<Artefact> {
    let bin = binary(root)?;
    let page = run(&bin, root, &["man"])?;
    anyhow::ensure!(page.code == 0, "`mcpseal man` failed: {}", page.stderr);
    let mut files = vec![(PathBuf::from("docs/man/mcpseal.1"), page.stdout)];
    let top = run(&bin, root, &["--help"])?;
    anyhow::ensure!(top.code == 0, "`mcpseal --help` failed: {}", top.stderr);
    for (name, _) in subcommands(&top.stdout) {
        let page = run(&bin, root, &["man", &name])?;
        anyhow::ensure!(
            page.code == 0,
            "`mcpseal man {name}` failed: {}",
            page.stderr
        );
        files.push((
            Path::new("docs/man").join(format!("mcpseal-{name}.1")),
            page.stdout,
        ));
    }
    Ok(Artefact {
        files,
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

/// Replaces each `YYYY-MM-DD` followed by `T` (a datetime's date) with `<date>` and each
/// `"day_of_week":"…"` value with `<day>`: `convert_time` answers for today.
fn redact_dates(text: &str) -> String {
    const DAY: &str = "\"day_of_week\":\"";
    let bytes = text.as_bytes();
    let is_date = |i: usize| {
        bytes.get(i..i + 11).is_some_and(|w| {
            w.iter().enumerate().all(|(k, b)| match k {
                4 | 7 => *b == b'-',
                10 => *b == b'T',
                _ => b.is_ascii_digit(),
            })
        })
    };
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if is_date(i) {
            out.push_str("<date>");
            i += 10;
        } else if text[i..].starts_with(DAY) {
            out.push_str(DAY);
            i += DAY.len();
            let end = text[i..].find('"').map_or(text.len(), |e| i + e);
            out.push_str("<day>");
            i = end;
        } else {
            let c = text[i..].chars().next().unwrap_or(' ');
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Replaces what differs from run to run (the probe's clock, today's date) and the temp
/// directory.
fn normalise(text: &str, dir: &Path) -> String {
    let text = redact_dates(&text.replace(&dir.display().to_string(), "."));
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
            } else if let Some(rest) = trimmed.strip_prefix("\"durationMs\": ") {
                let comma = if rest.ends_with(',') { "," } else { "" };
                format!("{indent}\"durationMs\": \"<ms>\"{comma}")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + if text.ends_with('\n') { "\n" } else { "" }
}

/// The server, as `init` is given it.
const SERVER: [&str; 3] = [".venv/bin/mcp-server-time", "--local-timezone", "UTC"];
/// The same server with three descriptions reworded (they name the local timezone).
const DRIFTED: [&str; 3] = [
    ".venv/bin/mcp-server-time",
    "--local-timezone",
    "Europe/Paris",
];

/// `mcpseal ARGS… -- SERVER`.
fn with_server(args: &[&'static str], server: [&'static str; 3]) -> Vec<&'static str> {
    let mut out = args.to_vec();
    out.push("--");
    out.extend(server);
    out
}

/// One step of the plan: the page it is shown on, the arguments, and how many lines of its
/// output to show (`None`: all).
struct Planned {
    page: &'static str,
    args: Vec<&'static str>,
    head: Option<usize>,
}

fn step(page: &'static str, args: Vec<&'static str>) -> Planned {
    Planned {
        page,
        args,
        head: None,
    }
}

/// The worked example: a temp project on `mcp-server-time`, set up by `init`, then the other
/// commands with no arguments, then the commands that take a server, a file or a tool. Keyed
/// by command name.
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
    let plan = [
        step("init", with_server(&["init"], SERVER)),
        step("config", vec!["config"]),
        step("snapshot", vec!["snapshot"]),
        step("lock", vec!["lock"]),
        step("check", vec!["check"]),
        step("probe", vec!["probe"]),
        step("init", vec!["init"]),
        step("verify", vec!["verify"]),
        step("verify", with_server(&["verify"], DRIFTED)),
        step(
            "diff",
            with_server(&["snapshot", "--format", "json", "-o", "utc.json"], SERVER),
        ),
        step(
            "diff",
            with_server(
                &["snapshot", "--format", "json", "-o", "paris.json"],
                DRIFTED,
            ),
        ),
        step("diff", vec!["diff", "utc.json", "paris.json"]),
        step("diff", with_server(&["diff", "surface.lock.json"], SERVER)),
        step(
            "call",
            with_server(
                &[
                    "call",
                    "convert_time",
                    "--args",
                    r#"{"source_timezone":"UTC","time":"12:00","target_timezone":"Asia/Tokyo"}"#,
                ],
                SERVER,
            ),
        ),
        step("rpc", with_server(&["rpc", "prompts/list"], SERVER)),
        step("guard", with_server(&["guard", "review"], DRIFTED)),
        step("card", vec!["card", "emit", "--shape", "smithery"]),
        Planned {
            page: "completions",
            args: vec!["completions", "bash"],
            head: Some(12),
        },
    ];
    let mut out: Vec<(&'static str, Vec<Step>)> = Vec::new();
    for Planned {
        page: name,
        args,
        head,
    } in plan
    {
        let args = &args[..];
        let ran = run(bin, dir, args)?;
        anyhow::ensure!(
            ran.code != 2,
            "the worked example `mcpseal {}` failed:\n{}{}",
            args.join(" "),
            ran.stdout,
            ran.stderr
        );
        let mut output = normalise(&format!("{}{}", ran.stdout, ran.stderr), dir);
        if let Some(n) = head {
            let lines: Vec<&str> = output.lines().collect();
            if lines.len() > n {
                output = format!(
                    "{}\n… ({} more lines)\n",
                    lines[..n].join("\n"),
                    lines.len() - n
                );
            }
        }
        let step = Step {
            shown: format!("mcpseal {}", shown(args)),
            code: ran.code,
            output,
        };
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, steps)) => steps.push(step),
            None => out.push((name, vec![step])),
        }
    }
    Ok(out)
}

/// The arguments as a shell would need them typed: an argument with a quote, brace or space is
/// single-quoted.
fn shown(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if a.contains(['"', '{', ' ', '\'', '$']) {
                format!("'{}'", a.replace('\'', r"'\''"))
            } else {
                (*a).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a command without a worked example is shown at work instead.
fn elsewhere(name: &str) -> Option<&'static str> {
    match name {
        "replay" => Some(
            "A replay installs every published version of a package, so it needs a registry: see\n[`docs/replay-example.md`](../replay-example.md) (a real history, generated) and\n[`docs/replay.md`](../replay.md).",
        ),
        "registry" => Some(
            "The registry commands need a `server.json` and a registry; see\n[`docs/publish.md`](../publish.md).",
        ),
        "serve" => Some(
            "`serve` needs a static site with a signed `sha256sum` manifest; its config's JSON Schema is\n`mcpseal serve --print-schema`.",
        ),
        "index" => Some(
            "`index` measures a cohort of pinned servers; `mcpseal index run --help` lists its inputs.",
        ),
        "guard" => Some(
            "Run as a proxy, the guard sits between a host and the server (`mcpseal guard -- SERVER` in\nthe host's configuration; `mcpseal guard wrap` writes that for you).",
        ),
        _ => None,
    }
}

fn page(name: &str, summary: &str, help: &str, steps: Option<&Vec<Step>>) -> String {
    let mut text = format!(
        "# `mcpseal {name}`\n\n<!-- GENERATED by `cargo xtask generate commands` from the built binary. Do not edit. -->\n\n{summary}\n\n## Usage\n\n```console\n$ mcpseal {name} --help\n{help}```\n"
    );
    if let Some(steps) = steps {
        text.push_str(
            "\n## Worked example\n\nA project whose server is `mcp-server-time` 2026.10.19 from PyPI (pinned in\n`tests/peers/python/requirements.txt`), installed in the project's `.venv` and set up by\n`mcpseal init -- .venv/bin/mcp-server-time --local-timezone UTC`; with `--local-timezone\nEurope/Paris` the same server rewords three descriptions. Run by `cargo xtask generate\ncommands`; only the probe's clock (`<time>`) and today's date (`<date>`, `<day>`) are replaced.\n",
        );
        for s in steps {
            text.push_str(&format!(
                "\n```console\n$ {}\n{}```\n\nExit code {}.\n",
                s.shown, s.output, s.code
            ));
        }
    }
    if let Some(note) = elsewhere(name) {
        text.push_str(&format!("\n## See also\n\n{note}\n"));
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
        "# Commands\n\n<!-- GENERATED by `cargo xtask generate commands` from the built binary. Do not edit. -->\n\nOne page per command: its `--help`, and where it can run offline, a worked example against a\nreal server. The man pages are [`docs/man/mcpseal.1`](../man/mcpseal.1) and `docs/man/mcpseal-COMMAND.1`.\n\n| command | what it does |\n|---|---|\n",
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
        assert_eq!(
            normalise("    \"durationMs\": 9227,\n", dir),
            "    \"durationMs\": \"<ms>\",\n"
        );
    }

    #[test]
    fn dates_and_weekdays_are_redacted_and_nothing_else() {
        let text = r#"{"datetime":"2026-12-01T12:00:00+00:00","day_of_week":"Tuesday","v":"2026.10.19","d":"2026-12-01"}"#;
        assert_eq!(
            redact_dates(text),
            r#"{"datetime":"<date>T12:00:00+00:00","day_of_week":"<day>","v":"2026.10.19","d":"2026-12-01"}"#
        );
    }

    #[test]
    fn arguments_are_shown_quoted_when_a_shell_needs_it() {
        assert_eq!(
            shown(&["call", "t", "--args", r#"{"a":"b c"}"#, "it's"]),
            r#"call t --args '{"a":"b c"}' 'it'\''s'"#
        );
    }
}
