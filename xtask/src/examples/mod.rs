//! The worked examples of `docs/commands/*.md`, run here against real servers: `mcp-server-time`
//! from PyPI ([`time`], and the guard as a proxy in front of it, [`guard`]), the repository's
//! example site served by `mcpseal serve` ([`serve`]; over HTTP for `verify`, [`http`]), the
//! loopback registry fixture publishing that site ([`registry`]) and a small cohort through
//! `index` ([`index`]).
//!
//! Each step is `mcpseal ARGS…` in the example's temp directory, with a deadline (a server that
//! misbehaves fails the generation, it cannot hang it), and must exit with the code the example
//! states (a changed verdict fails the generation instead of being written down). Servers the
//! examples start are killed on every path ([`process::Background`]). What differs from run to
//! run is replaced ([`normalise`]), so the pages are the same bytes every time and `cargo xtask
//! check` can hold them current.

mod guard;
mod http;
mod index;
mod normalise;
mod process;
mod registry;
mod serve;
mod site;
mod time;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;

pub use process::{Ran, bin_dir};

/// The longest one step may take: a probe of `mcp-server-time` takes about 25 s on a loaded
/// 2-core machine, a cohort run about 30 s.
const STEP_TIMEOUT: Duration = Duration::from_secs(240);
/// The longest a background server may take to print its URL.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// A worked-example step: the command line shown, what it printed.
pub struct Step {
    pub shown: String,
    /// `None`: not a run of a command (a file's contents, a listing), so no exit code is shown.
    pub code: Option<i32>,
    pub output: String,
}

/// Consecutive steps of one example on one page.
pub struct Section {
    pub page: &'static str,
    /// Shown after "Worked example" (empty: the page's main example).
    pub title: &'static str,
    pub intro: &'static str,
    pub steps: Vec<Step>,
}

/// Every example, in the order they are shown on their pages.
pub fn all(root: &Path) -> anyhow::Result<Vec<Section>> {
    let bins = bin_dir(root);
    let mut out = time::sections(root, &bins)?;
    out.extend(serve::sections(root, &bins)?);
    out.extend(http::sections(root, &bins)?);
    out.extend(registry::sections(root, &bins)?);
    out.extend(index::sections(root, &bins)?);
    Ok(out)
}

/// `BIN ARGS…` in `dir` (the pages' environment, a deadline), for the help and man pages.
pub fn mcpseal(bin: &Path, dir: &Path, args: &[&str]) -> anyhow::Result<Ran> {
    let bin_dir = bin.parent().context("the binary has no directory")?;
    let name = bin
        .file_name()
        .and_then(|n| n.to_str())
        .context("the binary's name is not UTF-8")?;
    let mut cmd = process::command(bin_dir, name, dir)?;
    cmd.args(args);
    process::run(cmd, &format!("mcpseal {}", args.join(" ")), STEP_TIMEOUT)
}

/// Runs the steps of one example directory and shows them normalised.
pub struct Runner {
    bin_dir: PathBuf,
    dir: PathBuf,
    norm: normalise::Normaliser,
}

impl Runner {
    pub fn new(bin_dir: &Path, dir: &Path) -> Self {
        Runner {
            bin_dir: bin_dir.to_path_buf(),
            dir: dir.to_path_buf(),
            norm: normalise::Normaliser::new(dir, bin_dir),
        }
    }

    /// `mcpseal ARGS…`, which must exit with `expect`.
    pub fn step(&self, args: &[&str], expect: i32) -> anyhow::Result<Step> {
        self.step_head(args, expect, None)
    }

    /// [`Runner::step`] showing only the first `head` lines of the output.
    pub fn step_head(
        &self,
        args: &[&str],
        expect: i32,
        head: Option<usize>,
    ) -> anyhow::Result<Step> {
        let what = format!("mcpseal {}", shown(args));
        let mut cmd = process::command(&self.bin_dir, "mcpseal", &self.dir)?;
        cmd.args(args);
        let ran = process::run(cmd, &what, STEP_TIMEOUT)?;
        anyhow::ensure!(
            ran.code == expect,
            "the worked example `{what}` exited {} (expected {expect}):\n{}{}",
            ran.code,
            ran.stdout,
            ran.stderr
        );
        let mut printed = ran.stdout;
        if !printed.is_empty() && !printed.ends_with('\n') && !ran.stderr.is_empty() {
            printed.push('\n');
        }
        printed.push_str(&ran.stderr);
        let mut output = self.norm.apply(&printed);
        if let Some(n) = head {
            output = first_lines(&output, n);
        }
        Ok(Step {
            shown: self.norm.apply(&what),
            code: Some(ran.code),
            output,
        })
    }

    /// `cat FILE` (read here, first `head` lines), relative to the example directory.
    pub fn file(&self, rel: &str, head: Option<usize>) -> anyhow::Result<Step> {
        let text = std::fs::read_to_string(self.dir.join(rel))
            .with_context(|| format!("reading the example's `{rel}`"))?;
        let mut output = self.norm.apply(&text);
        let shown = match head {
            Some(n) => {
                output = first_lines(&output, n);
                format!("head -n {n} {rel}")
            }
            None => format!("cat {rel}"),
        };
        Ok(Step {
            shown,
            code: None,
            output,
        })
    }

    /// `find DIR… -type f | sort` (listed here).
    pub fn tree(&self, dirs: &[&str]) -> anyhow::Result<Step> {
        let mut files = Vec::new();
        let mut todo: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
        while let Some(rel) = todo.pop() {
            let full = self.dir.join(&rel);
            if full.is_dir() {
                for entry in std::fs::read_dir(&full)
                    .with_context(|| format!("listing `{}`", full.display()))?
                {
                    todo.push(rel.join(entry?.file_name()));
                }
            } else {
                files.push(rel.display().to_string());
            }
        }
        files.sort();
        Ok(Step {
            shown: format!("find {} -type f | sort", dirs.join(" ")),
            code: None,
            output: files.iter().map(|f| format!("{f}\n")).collect(),
        })
    }

    /// Starts `PROGRAM ARGS…` in the background; its URL's port is shown as `<name>`.
    pub fn background(
        &mut self,
        program: &str,
        args: &[&str],
        name: &'static str,
    ) -> anyhow::Result<process::Background> {
        let mut cmd = process::command(&self.bin_dir, program, &self.dir)?;
        cmd.args(args);
        let what = format!("{program} {}", shown(args));
        let bg = process::Background::start(cmd, &what, START_TIMEOUT)?;
        self.norm.ports.push((bg.port()?, name));
        Ok(bg)
    }

    /// A background server's start as a shell shows it (`COMMAND &`, then the URL it printed).
    pub fn started(&self, bg: &process::Background) -> Step {
        Step {
            shown: format!("{} &", bg.shown),
            code: None,
            output: self.norm.apply(&format!("{}\n", bg.first_line)),
        }
    }
}

fn first_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() > n {
        format!(
            "{}\n… ({} more lines)\n",
            lines[..n].join("\n"),
            lines.len() - n
        )
    } else {
        text.to_owned()
    }
}

/// Copies the directory `from` to `to` (files and directories only).
pub fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating `{}`", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("listing `{}`", from.display()))? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("copying `{}`", entry.path().display()))?;
        }
    }
    Ok(())
}

/// Writes an example's input file.
pub fn write(dir: &Path, rel: &str, text: &str) -> anyhow::Result<()> {
    mcpseal::atomic::write_atomic(&dir.join(rel), text.as_bytes())
        .with_context(|| format!("writing the example's `{rel}`"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_shown_quoted_when_a_shell_needs_it() {
        assert_eq!(
            shown(&["call", "t", "--args", r#"{"a":"b c"}"#, "it's"]),
            r#"call t --args '{"a":"b c"}' 'it'\''s'"#
        );
    }

    #[test]
    fn long_output_is_cut_with_a_count() {
        assert_eq!(first_lines("a\nb\nc\n", 2), "a\nb\n… (1 more lines)\n");
        assert_eq!(first_lines("a\nb\n", 2), "a\nb\n");
    }
}
