//! `mcpseal-hostile`: an MCP server that attacks its client, one behaviour per run, for the
//! hostile-server suite (issue 11). Every case is a clean 2026-07-28 server (discover, one
//! tool, the other lists unknown) until the *trigger* method (`--on`, default `tools/list`)
//! arrives; then it misbehaves exactly as its case says. A client must end every run with a
//! clear error within its timeout (or a size or page cap), in bounded memory, leaving no
//! process of the server's group behind.
//!
//! ```text
//! mcpseal-hostile --case slowloris                 # stdio
//! mcpseal-hostile --case gzip-bomb --http          # prints http://127.0.0.1:PORT/mcp
//! mcpseal-hostile --case grandchildren --pid-file /tmp/pids
//! ```
//!
//! Kept apart from `mcpseal-fixture` (a server with deliberate protocol deviations): these are
//! attacks on the client's bounds, and each lives in its own module under `cases/`.

mod cases;
mod http;
mod pids;
mod server;
mod stdio;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::cases::Case;

/// Command-line arguments.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "mcpseal-hostile",
    about = "An MCP server that attacks its client (one case per run), for mcpseal's hostile-server suite"
)]
pub struct Args {
    /// The attack.
    #[arg(long, value_enum)]
    pub case: Case,
    /// Serve Streamable HTTP on 127.0.0.1 (prints `http://127.0.0.1:PORT/mcp`; exits at stdin
    /// EOF) instead of stdio.
    #[arg(long)]
    pub http: bool,
    /// The method that triggers the attack.
    #[arg(long, value_name = "METHOD", default_value = "tools/list")]
    pub on: String,
    /// Append `PID PGID` of this process (and of every grandchild it starts) to FILE.
    #[arg(long, value_name = "FILE")]
    pub pid_file: Option<PathBuf>,
    /// Internal: run as a grandchild of `--case grandchildren` (record the pid, then sleep).
    #[arg(long, hide = true)]
    pub grandchild: bool,
    /// Words after `--`, ignored: `--case echo-secrets` gives them away (credential-looking
    /// command-line arguments for the secrets tests).
    #[arg(last = true, value_name = "WORDS")]
    pub extra: Vec<String>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if let Some(file) = &args.pid_file
        && let Err(e) = pids::record(file)
    {
        log(&format!("cannot write the pid file: {e}"));
        return ExitCode::from(2);
    }
    if args.grandchild {
        cases::grandchildren::linger();
    }
    if args.http != args.case.over_http() && !args.case.over_both() {
        let needs = if args.case.over_http() {
            "needs"
        } else {
            "does not take"
        };
        log(&format!(
            "error: `--case {}` {needs} `--http`",
            args.case.name()
        ));
        return ExitCode::from(2);
    }
    if let Err(e) = cases::prepare(&args) {
        log(&format!("error: {e}"));
        return ExitCode::from(2);
    }
    let result = if args.http {
        http::serve(&args)
    } else {
        stdio::serve(&args)
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log(&format!("error: {e}"));
            ExitCode::FAILURE
        }
    }
}

/// One line on stderr (never stdout).
pub fn log(msg: &str) {
    let _ = writeln!(std::io::stderr(), "mcpseal-hostile: {msg}");
}
