//! `mcpseal __sandbox-exec …`: the hidden subcommand that makes this binary the sandbox
//! launcher of `mcpseal-sources` (a launch plan's argv starts with it: the binary re-executes
//! itself, isolates itself, then `exec`s the server).
//!
//! It is dispatched before clap and before the async runtime exists because a new user
//! namespace can only be entered by a single-threaded process; it is not in `--help` because
//! nobody types it.

use std::ffi::OsString;
use std::process::ExitCode;

use mcpseal::sources::sandbox::{LAUNCHER_SUBCOMMAND, run_launcher};

/// The launcher's arguments when this process was started as the launcher.
pub fn launcher_args() -> Option<impl Iterator<Item = OsString>> {
    let mut args = std::env::args_os().skip(1);
    (args.next()? == LAUNCHER_SUBCOMMAND).then_some(args)
}

/// Runs the launcher; returns only when it could not start the server (or after `--probe`).
pub fn run(args: impl Iterator<Item = OsString>) -> ExitCode {
    run_launcher(args)
}
