//! `mcpseal-registry-fixture`: a local MCP Registry (the v0.1 read API over a directory of
//! `server.json` files) for tests; see the `registry` module.
//!
//! ```text
//! mcpseal-registry-fixture --dir entries/ --fail 2 --retry-after 0   # prints http://127.0.0.1:PORT
//! ```
//!
//! Serves until stdin reaches EOF (a test that drops the child's stdin stops it).

mod registry;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// A local MCP Registry for tests.
#[derive(Debug, Parser)]
struct Args {
    /// Directory of `server.json` files, one published version each.
    #[arg(long)]
    dir: PathBuf,
    /// Answer the first N requests with `--fail-status`.
    #[arg(long, default_value_t = 0)]
    fail: usize,
    /// Status of the failing answers.
    #[arg(long, default_value_t = 503)]
    fail_status: u16,
    /// `Retry-After` seconds sent with the failing answers.
    #[arg(long)]
    retry_after: Option<u64>,
    /// Append `GET <raw path and query>` per request to this file.
    #[arg(long)]
    request_log: Option<PathBuf>,
    /// Port on 127.0.0.1 (0: any free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let entries = match registry::store::load(&args.dir) {
        Ok(e) => e,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "mcpseal-registry-fixture: error: {e:#}");
            return ExitCode::from(2);
        }
    };
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
        std::process::exit(0);
    });
    let settings = registry::Settings {
        fail: args.fail,
        fail_status: args.fail_status,
        retry_after: args.retry_after,
        request_log: args.request_log,
    };
    let result = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)
        .and_then(|rt| rt.block_on(registry::serve(entries, settings, args.port)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "mcpseal-registry-fixture: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
