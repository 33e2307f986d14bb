//! The sandbox launcher as its own binary: `mcpseal-sandbox [OPTIONS] -- PROGRAM [ARGS]…`.
//!
//! The `mcpseal` binary does the same through its hidden `__sandbox-exec` subcommand; this
//! one exists for the crate's own tests and for callers that embed the library without the CLI.

fn main() -> std::process::ExitCode {
    mcpseal_sources::run_launcher(std::env::args_os().skip(1))
}
