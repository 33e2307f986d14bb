//! The `mcpseal` binary: parse, resolve, one library call, render, exit code.
//!
//! Nothing a library user would need lives here; workflows are in the `mcpseal` crate.

mod args;
mod commands;
mod error;
mod lock_args;
mod output;
mod project;
mod publish_args;
mod settings;
mod shell;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use crate::args::{Cli, Command};
use crate::error::Outcome;

fn main() -> ExitCode {
    // The sandbox launcher runs before anything else starts a thread (see commands::sandbox).
    if let Some(args) = commands::sandbox::launcher_args() {
        return commands::sandbox::run(args);
    }
    let matches = Cli::command().get_matches();
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // One shared "target or config" step for every command that takes a target.
    if let Err(e) = project::apply(&mut cli.command, &matches) {
        output::note(&e.to_string());
        return ExitCode::from(Outcome::NoVerdict.code());
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            output::note(&format!("error: could not start the async runtime: {e}"));
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Rpc(args) => commands::rpc::run(args).await,
            Command::Snapshot(args) => commands::snapshot::run(args).await,
            Command::Probe(args) => commands::probe::run(args).await,
            Command::Lock(args) => commands::lock::run(args).await,
            Command::Check(args) => commands::check::run(args).await,
            Command::Verify(args) => commands::verify::run(args).await,
            Command::Diff(args) => commands::diff::run(args).await,
            Command::Registry(args) => commands::registry::run(args).await,
            Command::Card(args) => commands::card::run(args).await,
            Command::Serve(args) => commands::serve::run(args).await,
            Command::Guard(args) => commands::guard::run(args).await,
            Command::Config(args) => project::run(&args),
            Command::Completions(args) => shell::completions(&args),
            Command::Man => shell::man(),
        }
    });
    // Children of stdio targets are killed when their connection drops; do not wait on
    // background tasks that may still hold a hung server's pipes.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match result {
        Ok(outcome) => ExitCode::from(outcome.code()),
        Err(e) => {
            output::note(&e.to_string());
            ExitCode::from(Outcome::NoVerdict.code())
        }
    }
}
