//! The `mcpseal` binary: parse, resolve, one library call, render, exit code.
//!
//! Nothing a library user would need lives here; workflows are in the `mcpseal` crate, and
//! every document is typed and rendered by `mcpseal-report`. Exit codes are decided in one
//! place ([`error::Outcome`]); with `--format json`, a run without a verdict also prints the
//! JSON error document on stdout.

mod args;
mod commands;
mod error;
mod interrupt;
mod lock_args;
mod output;
mod progress;
mod project;
mod publish_args;
mod settings;
mod shell;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use crate::args::{Cli, Command, DocFormat, Format};
use crate::error::{CliError, Outcome};
use crate::interrupt::{Caught, Ended, Signals};
use crate::publish_args::{CardCommand, RegistryCommand};

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
        Command::Init(_) => "init",
        Command::Index(_) => "index",
        Command::Config(_) => "config",
        Command::Completions(_) => "completions",
        Command::Man(_) => "man",
    }
}

/// Runs one command to its end (`serve` and the guard's proxy take the signals as their stop
/// signal).
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
        Command::Guard(args) => commands::guard::run(args, signals).await,
        Command::Replay(args) => commands::replay::run(args).await,
        Command::Init(args) => commands::init::run(args).await,
        Command::Index(args) => commands::index::run_command(args).await,
        Command::Config(args) => project::run(&args),
        Command::Completions(args) => shell::completions(&args),
        Command::Man(args) => shell::man(&args),
    }
}

/// Whether the command's output is JSON, so that an error is a JSON document too.
fn wants_json(command: &Command) -> bool {
    match command {
        Command::Rpc(a) => a.format == DocFormat::Json,
        Command::Snapshot(a) => a.format == DocFormat::Json,
        Command::Probe(a) => a.format == Format::Json,
        Command::Lock(a) => a.report.format == Format::Json,
        Command::Check(a) => a.report.format == Format::Json,
        Command::Verify(a) => a.report.format == Format::Json,
        Command::Diff(a) => a.format == Format::Json,
        Command::Registry(a) => match &a.command {
            RegistryCommand::Stamp(x) | RegistryCommand::Check(x) => {
                x.report.format == Format::Json
            }
            RegistryCommand::Verify(x) => x.report.format == Format::Json,
            RegistryCommand::List(x) => x.format == Format::Json,
        },
        Command::Card(a) => match &a.command {
            CardCommand::Emit(_) => false,
            CardCommand::Check(x) => x.report.format == Format::Json,
        },
        Command::Call(a) => a.format == Format::Json,
        Command::Serve(a) => a.format == DocFormat::Json,
        Command::Guard(_) => false,
        Command::Replay(a) => a.format == commands::replay::ReplayFormat::Json,
        Command::Init(a) => a.format == DocFormat::Json,
        Command::Index(a) => a.json(),
        Command::Config(a) => a.format == DocFormat::Json,
        Command::Completions(_) | Command::Man(_) => false,
    }
}

/// Whether a command line clap refused asked for JSON: its `--format` (before any `--`), or,
/// without one, `rpc` (whose default is JSON). Only for the error document of a parse error.
fn asks_for_json(argv: &[String]) -> bool {
    let words: Vec<&str> = argv
        .iter()
        .skip(1)
        .map(String::as_str)
        .take_while(|w| *w != "--")
        .collect();
    let format = words.iter().enumerate().find_map(|(i, w)| {
        w.strip_prefix("--format=").or_else(|| {
            (*w == "--format")
                .then(|| words.get(i + 1).copied())
                .flatten()
        })
    });
    match format {
        Some(f) => f.eq_ignore_ascii_case("json"),
        None => words.iter().find(|w| !w.starts_with('-')) == Some(&"rpc"),
    }
}

/// Parses the command line; a usage error is printed by clap (exit 2) and, when the command
/// line asked for JSON, followed by the error document on stdout.
fn parse() -> Result<(Cli, clap::ArgMatches), ExitCode> {
    let argv: Vec<String> = std::env::args().collect();
    // The matches too: the project config fills in what the flags left out, by value source.
    let parsed = Cli::command()
        .try_get_matches_from(&argv)
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    parsed.map_err(|e| {
        if e.use_stderr() && asks_for_json(&argv) {
            let text = e.render().to_string();
            let message = text
                .lines()
                .next()
                .unwrap_or("the command line is not valid")
                .trim_start_matches("error: ");
            output::note(text.trim_end());
            let doc = CliError::usage(message).hint("see `mcpseal --help`");
            output::json_error(&doc);
            return ExitCode::from(Outcome::NoVerdict.code());
        }
        // Help, version, and errors of commands that did not ask for JSON: clap's own output
        // and exit code (0 for help and version, 2 for usage errors).
        e.exit()
    })
}

/// The async runtime: `settings::worker_threads` workers, fewer when the command measures at
/// most `jobs` targets at once (`index run --jobs N`: its concurrency is the jobs, and an idle
/// worker per core only costs memory on a shared CI machine).
fn runtime(jobs: Option<usize>) -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(settings::worker_threads_for(jobs)?)
        .enable_all()
        .build()
        .map_err(|e| CliError::usage(format!("could not start the async runtime: {e}")))
}

fn main() -> ExitCode {
    // The sandbox launcher runs before anything else starts a thread (see commands::sandbox).
    if let Some(args) = commands::sandbox::launcher_args() {
        return commands::sandbox::run(args);
    }
    let (mut cli, matches) = match parse() {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    output::configure(cli.color);
    let json = wants_json(&cli.command);
    // One shared "target or config" step for every command that takes a target.
    if let Err(e) = project::apply(&mut cli.command, &matches) {
        output::error(&e, json);
        return ExitCode::from(Outcome::NoVerdict.code());
    }
    let jobs = match &cli.command {
        Command::Index(a) => a.jobs(),
        _ => None,
    };
    let runtime = match runtime(jobs) {
        Ok(r) => r,
        Err(e) => {
            output::error(&e, json);
            return ExitCode::from(Outcome::NoVerdict.code());
        }
    };
    let name = name(&cli.command);
    // What an interrupted `lock` (or `guard approve`) leaves unchanged, for the
    // `interrupted: …` line.
    let lock = match &cli.command {
        Command::Lock(args) => Some(args.lock.path.clone()),
        Command::Guard(args) => commands::guard::written_lock(args),
        _ => None,
    };
    // The servers stop gracefully (requests in flight finish); every other command, the
    // guard's review/approve/wrap/unwrap included, is dropped where it waits.
    let graceful = match &cli.command {
        Command::Serve(_) => true,
        Command::Guard(args) => args.action.is_none(),
        _ => false,
    };
    let ended = runtime.block_on(async {
        // Caught before the command starts, so neither signal ends the process unhandled.
        let signals = Signals::listen();
        let show = !cli.quiet && progress::shows_progress(&cli.command);
        let command = progress::scoped(name, show, run(cli.command, signals.clone()));
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
    // An interrupted command leaves its display behind: erase it before the last line.
    progress::finish();
    match ended {
        Ended::Finished(Ok(Outcome::Interrupted(code))) => {
            output::note(&interrupt::line(Caught::from_code(code), name, None, &[]));
            ExitCode::from(code)
        }
        Ended::Finished(Ok(outcome)) => ExitCode::from(outcome.code()),
        Ended::Finished(Err(e)) => {
            output::error(&e, json);
            ExitCode::from(Outcome::NoVerdict.code())
        }
        Ended::Interrupted(caught, written) => {
            output::note(&interrupt::line(caught, name, lock.as_deref(), &written));
            ExitCode::from(Outcome::Interrupted(caught.code()).code())
        }
    }
}
