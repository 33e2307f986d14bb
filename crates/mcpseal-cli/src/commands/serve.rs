//! `mcpseal serve`: the verified static server, its verbs on the command line, the deploy check.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use clap::Args;
use mcpseal::serve::{SignatureStatus, SiteOptions, VerbError};

use crate::args::DocFormat;
use crate::error::{CliError, Outcome};
use crate::interrupt::Signals;
use crate::{output, settings};

/// `mcpseal serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The site config (TOML; its JSON Schema: `--print-schema`). Relative paths in it resolve
    /// against its directory.
    #[arg(long, default_value = "site.toml", value_name = "FILE")]
    pub config: PathBuf,
    /// Serve Streamable HTTP on this address (`127.0.0.1:8080`; port 0 picks one); the endpoint
    /// is `/mcp` and its URL is printed on stdout once listening. Connections are served on one
    /// thread per core (`MCPSEAL_WORKER_THREADS` sets how many), each keeping its connections.
    #[arg(long, value_name = "ADDR", conflicts_with = "stdio")]
    pub http: Option<String>,
    /// Serve stdio (the default without `--http`): JSON-RPC lines on stdin/stdout, notes on
    /// stderr.
    #[arg(long)]
    pub stdio: bool,
    /// Fetch the manifest again after this long (`10m`); default: once per process, and once
    /// more when a digest mismatches.
    #[arg(long, value_name = "DURATION")]
    pub manifest_ttl: Option<String>,
    /// Deploy check: verify the signature and re-hash every manifest entry, listing each failing
    /// path (exit 0 all verified, 1 a bad digest or signature, 2 the origin or manifest cannot be
    /// read).
    #[arg(long, conflicts_with_all = ["http", "stdio", "cli"])]
    pub check: bool,
    /// Run one verb and print its verified bytes: `--cli VERB [ARGS…]`, last on the line (`ARGS`
    /// are `--name value` or the path's variables in order). On a verification failure nothing
    /// is printed on stdout and the exit code is 1.
    #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "VERB", conflicts_with_all = ["http", "stdio"])]
    pub cli: Option<Vec<String>>,
    /// Print the JSON Schema of the site config and exit.
    #[arg(long, conflicts_with_all = ["http", "stdio", "check", "cli"])]
    pub print_schema: bool,
    /// Output format of `--check`.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

pub async fn run(args: ServeArgs, signals: Signals) -> Result<Outcome, CliError> {
    if args.print_schema {
        output::emit(
            &mcpseal::report::schemas::render(&mcpseal::serve::schema()),
            None,
        )?;
        return Ok(Outcome::Ok);
    }
    let manifest_ttl = args
        .manifest_ttl
        .as_deref()
        .map(settings::parse_duration)
        .transpose()?;
    let options = SiteOptions {
        manifest_ttl,
        notes: Arc::new(|line: &str| output::note(line)),
    };
    let site = mcpseal::serve::open(&args.config, options)?;
    if args.check {
        return check(&site, args.format).await;
    }
    if let Some(cli) = &args.cli {
        return verb(&site, cli).await;
    }
    // The run's signals (crate::interrupt) are the stop signal: serving ends gracefully.
    let signal = Arc::new(AtomicU8::new(0));
    let stop = {
        let signal = Arc::clone(&signal);
        async move {
            let caught = signals.caught().await;
            signal.store(caught.code(), Ordering::SeqCst);
        }
    };
    match &args.http {
        Some(addr) => {
            // One connection thread per core (or `MCPSEAL_WORKER_THREADS`): a connection stays
            // on the thread that polls its socket, the fastest shape for a static server.
            mcpseal::serve::serve_http(
                site,
                addr,
                settings::worker_threads()?,
                |url| {
                    let _ = output::emit(&format!("{url}\n"), None);
                    output::note(&format!("mcpseal serve: Streamable HTTP on {url}"));
                },
                stop,
            )
            .await?;
        }
        None => mcpseal::serve::serve_stdio(site, stop).await?,
    }
    Ok(match signal.load(Ordering::SeqCst) {
        0 => Outcome::Ok,
        code => Outcome::Interrupted(code),
    })
}

async fn verb(site: &mcpseal::serve::Site, cli: &[String]) -> Result<Outcome, CliError> {
    let Some((id, rest)) = cli.split_first() else {
        return Err(CliError::usage("`--cli` needs a verb")
            .hint(format!("the verbs:\n{}", mcpseal::serve::verbs_usage(site))));
    };
    match mcpseal::serve::run_verb(site, id, rest).await {
        Ok(v) => {
            output::stdout(&v.bytes)?;
            output::note(&format!(
                "verified: {} sha256 {} (signature {})",
                v.path,
                v.sha256,
                v.signature.as_str()
            ));
            Ok(Outcome::Ok)
        }
        Err(VerbError::Verify(e)) => {
            output::note(&format!(
                "error: {e}\nhint: nothing was printed: the bytes did not verify against the signed manifest"
            ));
            Ok(Outcome::Found)
        }
        Err(e @ VerbError::Unknown(_)) => Err(CliError::usage(e.to_string())
            .hint(format!("the verbs:\n{}", mcpseal::serve::verbs_usage(site)))),
        Err(e) => Err(CliError::usage(format!("verb `{id}`: {e}"))
            .hint(format!("the verbs:\n{}", mcpseal::serve::verbs_usage(site)))),
    }
}

async fn check(site: &mcpseal::serve::Site, format: DocFormat) -> Result<Outcome, CliError> {
    // An unreadable origin or manifest is exit 2 through the one error path (with `--format
    // json`, the error document on stdout).
    let report = mcpseal::serve::check(site).await?;
    output::emit(&mcpseal::serve::render_check(&report, format), None)?;
    if report.passed() {
        return Ok(Outcome::Ok);
    }
    output::note(&format!(
        "error: the deploy does not verify: {} of {} entries failed{}\nhint: rebuild the manifest (and its signature) from the files that are deployed, or redeploy the files the manifest lists",
        report.failures.len(),
        report.entries,
        if matches!(report.signature, SignatureStatus::Unverified { .. }) {
            ", and the signature did not verify"
        } else {
            ""
        }
    ));
    Ok(Outcome::Found)
}
