//! The `mcpseal` binary: parse, resolve, one library call, render, exit code.
//!
//! Nothing a library user would need lives here; workflows are in the `mcpseal` crate.

mod args;
mod commands;
mod error;
mod interrupt;
mod lock_args;
mod output;
mod publish_args;
mod settings;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command};
use crate::error::{CliError, Outcome};
use crate::interrupt::{Caught, Ended, Signals};

/// The command's name in the `interrupted: …` line.
fn name(command: &Command) -> &'static str {
    match command {
        Command::Rpc(_) => "rpc",
        Command::Snapshot(_) => "snapshot",
        Command::Probe(_) => "probe",
        Command::Lock(_) => "lock",
        Command::Check(_) => "check",
        Command::Verify(_) => "verify",
        Command::Diff(_) => "diff",
        Command::Registry(_) => "registry",
        Command::Card(_) => "card",
        Command::Call(_) => "call",
        Command::Serve(_) => "serve",
        Command::Guard(_) => "guard",
        Command::Replay(_) => "replay",
    }
}

/// Runs one command to its end (`serve` takes the signals as its stop signal).
async fn run(command: Command, signals: Signals) -> Result<Outcome, CliError> {
    match command {
        Command::Rpc(args) => commands::rpc::run(args).await,
        Command::Snapshot(args) => commands::snapshot::run(args).await,
        Command::Probe(args) => commands::probe::run(args).await,
        Command::Lock(args) => commands::lock::run(args).await,
        Command::Check(args) => commands::check::run(args).await,
        Command::Verify(args) => commands::verify::run(args).await,
        Command::Diff(args) => commands::diff::run(args).await,
        Command::Registry(args) => commands::registry::run(args).await,
        Command::Card(args) => commands::card::run(args).await,
        Command::Call(args) => commands::call::run(args).await,
        Command::Serve(args) => commands::serve::run(args, signals).await,
        Command::Guard(args) => commands::guard::run(args).await,
        Command::Replay(args) => commands::replay::run(args).await,
    }
}

fn main() -> ExitCode {
    // The sandbox launcher runs before anything else starts a thread (see commands::sandbox).
    if let Some(args) = commands::sandbox::launcher_args() {
        return commands::sandbox::run(args);
    }
    let cli = Cli::parse();
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
    let name = name(&cli.command);
    // What an interrupted `lock` leaves unchanged, for the `interrupted: …` line.
    let lock = match &cli.command {
        Command::Lock(args) => Some(args.lock.path.clone()),
        _ => None,
    };
    let graceful = matches!(cli.command, Command::Serve(_) | Command::Guard(_));
    let ended = runtime.block_on(async {
        // Caught before the command starts, so neither signal ends the process unhandled.
        let signals = Signals::listen();
        let command = run(cli.command, signals.clone());
        if graceful {
            Ended::Finished(command.await)
        } else {
            interrupt::until_interrupted(&signals, command).await
        }
    });
    // Children of stdio targets are killed when their connection drops (an interrupted
    // command was dropped above); do not wait on background tasks that may still hold a hung
    // server's pipes: shutting down drops them, and with them any server they held.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    match ended {
        Ended::Finished(Ok(Outcome::Interrupted(code))) => {
            output::note(&interrupt::line(Caught::from_code(code), name, None, &[]));
            ExitCode::from(code)
        }
        Ended::Finished(Ok(outcome)) => ExitCode::from(outcome.code()),
        Ended::Finished(Err(e)) => {
            output::note(&e.to_string());
            ExitCode::from(Outcome::NoVerdict.code())
        }
        Ended::Interrupted(caught, written) => {
            output::note(&interrupt::line(caught, name, lock.as_deref(), &written));
            ExitCode::from(Outcome::Interrupted(caught.code()).code())
        }
    }
}
