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

/// `mcpseal man`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// A command (`lock`, `probe`…): print its own page, `mcpseal-COMMAND(1)`, instead of
    /// `mcpseal(1)`.
    pub command: Option<String>,
}

/// Writes the `mcpseal(1)` man page (roff), or with a command `mcpseal-COMMAND(1)`, to stdout.
/// It names the release version without the commit: the pages are committed (`docs/man/`), and
/// a commit cannot name itself.
pub fn man(args: &ManArgs) -> Result<Outcome, CliError> {
    let mut top = Cli::command().version(env!("CARGO_PKG_VERSION"));
    let page = match &args.command {
        None => top,
        Some(name) => {
            // Built so the subcommand inherits the global options and the version.
            top.build();
            let Some(sub) = top
                .get_subcommands()
                .find(|c| c.get_name() == name && name != "help")
            else {
                let names: Vec<&str> = top
                    .get_subcommands()
                    .map(clap::Command::get_name)
                    .filter(|n| *n != "help")
                    .collect();
                return Err(CliError::usage(format!(
                    "`{name}` is not an mcpseal command\nhint: one of {}",
                    names.join(", ")
                )));
            };
            // `build` named it `mcpseal-NAME` (its display name), which the page's title uses.
            sub.clone().version(env!("CARGO_PKG_VERSION"))
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page)
        .render(&mut out)
        .map_err(|e| CliError::usage(format!("could not render the man page: {e}")))?;
    crate::output::emit(&String::from_utf8_lossy(&out), None)?;
    Ok(Outcome::Ok)
}
