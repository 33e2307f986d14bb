//! `cargo xtask`: the repository's generated artefacts, written by code and checked in CI.
//!
//! * `cargo xtask generate [ARTEFACT…]` writes them (all when none is named);
//! * `cargo xtask check [ARTEFACT…]` fails (exit 1) naming every file that is stale, missing
//!   or stray, with the command that fixes it; `.ci/run` runs it.
//!
//! Artefacts: `schemas` (`schemas/*.schema.json`, generated from the document types by
//! `mcpseal::schemas::all`), `rules` (`docs/rules/*.md`, from the probe's rule registry by
//! `mcpseal_probe::docs::pages`), `peers` (`docs/peers.md`, from `tests/peers/peers.json` and
//! the expectations files by `mcpseal_peers::render_doc`), `vectors`
//! (`crates/mcpseal-surface/tests/data/mcpseal-1-vectors.json`: each vector's expectations
//! recomputed from its raw capture by the independent implementation, `python3
//! tools/fingerprint.py --vectors`, so the Rust one is held to them, not the other way round),
//! `man` (`docs/man/mcpseal.1`, `docs/man/mcpseal-COMMAND.1`) and `commands`
//! (`docs/commands/*.md`, each command's `--help` and worked examples against real servers
//! run locally: the pinned PyPI `mcp-server-time`, the example site, the registry fixture,
//! [`examples`]), both made by running the built binary ([`cli_docs`]).
//! No test rewrites these files; tests only read them.

#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a command-line tool for developers: what it did on stdout, trouble on stderr"
)]

mod artefacts;
mod cli_docs;
mod examples;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::artefacts::Artefact;

/// Regenerate or check the repository's generated files.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write the artefacts (all when none is named); stray files in their directories are
    /// removed.
    Generate {
        /// Which artefacts.
        #[arg(value_enum)]
        artefacts: Vec<Which>,
    },
    /// Fail when an artefact is stale, missing or stray (all when none is named).
    Check {
        /// Which artefacts.
        #[arg(value_enum)]
        artefacts: Vec<Which>,
    },
}

/// An artefact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Which {
    /// `schemas/*.schema.json`: the JSON Schema of every public document.
    Schemas,
    /// `docs/rules/*.md`: one page per probe rule and the index.
    Rules,
    /// `docs/peers.md`: the peer cohort as mcpseal sees it.
    Peers,
    /// The mcpseal/1 test vectors' expectations (from `tools/fingerprint.py`).
    Vectors,
    /// `docs/man/mcpseal*.1`: the man pages, from `mcpseal man [COMMAND]`.
    Man,
    /// `docs/commands/*.md`: each command's `--help` and the worked examples.
    Commands,
}

impl Which {
    const ALL: [Which; 6] = [
        Which::Schemas,
        Which::Rules,
        Which::Peers,
        Which::Vectors,
        Which::Man,
        Which::Commands,
    ];

    /// Made by running the built binary (so not from the xtask's own test, which would build
    /// the binary from inside a test run; `cargo xtask check` checks them in CI).
    #[cfg(test)]
    fn needs_binary(self) -> bool {
        matches!(self, Which::Man | Which::Commands)
    }

    fn artefact(self) -> anyhow::Result<Artefact> {
        match self {
            Which::Schemas => artefacts::schemas(),
            Which::Rules => Ok(artefacts::rules()),
            Which::Peers => artefacts::peers(),
            Which::Vectors => artefacts::vectors(&root()),
            Which::Man => cli_docs::man(&root()),
            Which::Commands => cli_docs::commands(&root()),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Which::Schemas => "schemas",
            Which::Rules => "rules",
            Which::Peers => "peers",
            Which::Vectors => "vectors",
            Which::Man => "man",
            Which::Commands => "commands",
        }
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let root = root();
    let (write, chosen) = match cli.command {
        Command::Generate { artefacts } => (true, artefacts),
        Command::Check { artefacts } => (false, artefacts),
    };
    let chosen = if chosen.is_empty() {
        Which::ALL.to_vec()
    } else {
        chosen
    };
    let mut stale = Vec::new();
    for which in chosen {
        let artefact = which.artefact()?;
        if write {
            for line in artefact.write(&root)? {
                println!("{line}");
            }
        } else {
            let problems = artefact.check(&root)?;
            for p in &problems {
                eprintln!("{}: {}", which.name(), p);
            }
            if !problems.is_empty() {
                stale.push(which.name());
            }
        }
    }
    if stale.is_empty() {
        if !write {
            println!("generated files are current");
        }
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!(
            "error: generated files are not current\nhint: run `cargo xtask generate {}` and commit the result",
            stale.join(" ")
        );
        Ok(ExitCode::from(1))
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::artefacts::Problem;

    /// The committed artefacts are what the generators make (the same as `cargo xtask check`,
    /// so a plain test run catches a stale file too; the binary-made ones are left to it).
    #[test]
    fn committed_artefacts_are_current() {
        for which in Which::ALL.into_iter().filter(|w| !w.needs_binary()) {
            let problems: Vec<Problem> = which
                .artefact()
                .and_then(|a| a.check(&root()))
                .expect("generates");
            assert!(
                problems.is_empty(),
                "{}: {problems:?}\nhint: run `cargo xtask generate {}`",
                which.name(),
                which.name()
            );
        }
    }
}
