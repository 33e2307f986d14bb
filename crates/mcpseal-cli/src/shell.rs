//! `mcpseal completions SHELL` and `mcpseal man`: generated from the parser itself, so they
//! can never disagree with `--help`.

use clap::{CommandFactory, ValueEnum};

use crate::args::Cli;
use crate::error::{CliError, Outcome};

/// The shells completions are generated for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
}

/// `mcpseal completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell (`bash`, `zsh`, `fish`, `powershell`).
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Writes the completion script for `args.shell` to stdout.
pub fn completions(args: &CompletionsArgs) -> Result<Outcome, CliError> {
    use clap_complete::Shell as S;
    let shell = match args.shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Powershell => S::PowerShell,
    };
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, "mcpseal", &mut out);
    crate::output::emit(&String::from_utf8_lossy(&out), None)?;
    Ok(Outcome::Ok)
}

/// Writes the `mcpseal(1)` man page (roff) to stdout. It names the release version without
/// the commit: the page is committed (`docs/man/mcpseal.1`), and a commit cannot name itself.
pub fn man() -> Result<Outcome, CliError> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command().version(env!("CARGO_PKG_VERSION")))
        .render(&mut out)
        .map_err(|e| CliError::usage(format!("could not render the man page: {e}")))?;
    crate::output::emit(&String::from_utf8_lossy(&out), None)?;
    Ok(Outcome::Ok)
}
