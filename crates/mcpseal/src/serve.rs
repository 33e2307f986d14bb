//! `mcpseal serve`: serve a static site as a verified MCP server, run one of its verbs, or check
//! a deploy.
//!
//! Every workflow starts from [`open`] (the config read, checked and turned into a [`Site`]);
//! nothing is fetched before the first request (or the check). Errors are one type,
//! [`ServeError`], with a hint.

use std::fmt::Write as _;
use std::future::Future;
use std::path::Path;

use mcpseal_report::DocFormat;
use serde_json::Value;

pub use mcpseal_serve::config::{SignatureMode, SiteConfig, site_config_schema};
pub use mcpseal_serve::signature::{SIGSTORE_BUILT, SignatureStatus};
pub use mcpseal_serve::{
    CheckFailure, ConfigError, DeployCheck, META_VERIFICATION, Site, SiteOptions,
    VERIFICATION_FAILED, VerbError, Verified, VerifyError,
};

/// Why `mcpseal serve` could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The config cannot be served.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The transport failed (the address cannot be bound, stdout closed…).
    #[error(transparent)]
    Transport(#[from] mcpseal_server::ServeError),
    /// The origin or the manifest cannot be read (deploy check).
    #[error(transparent)]
    Unreadable(VerifyError),
}

impl ServeError {
    /// The `hint:` line.
    pub fn hint(&self) -> String {
        match self {
            ServeError::Config(e) => e.hint(),
            ServeError::Transport(mcpseal_server::ServeError::Bind { .. }) => {
                "pick a free address, e.g. `--http 127.0.0.1:0` for any port".into()
            }
            ServeError::Transport(_) => "the client stopped reading or closed its end".into(),
            ServeError::Unreadable(_) => {
                "check `origin.base_url` and `origin.manifest_path`, and that the origin is reachable".into()
            }
        }
    }
}

impl ServeError {
    /// What kind of trouble, for the error document: a config that cannot be served is a usage
    /// error, an unreadable origin or manifest unreachable, a failed transport a write failure.
    pub fn kind(&self) -> mcpseal_report::ErrorKind {
        use mcpseal_report::ErrorKind;
        match self {
            ServeError::Config(_) => ErrorKind::Usage,
            ServeError::Transport(_) => ErrorKind::Write,
            ServeError::Unreadable(_) => ErrorKind::Unreachable,
        }
    }
}

impl crate::Described for ServeError {
    fn body(&self) -> mcpseal_report::ErrorBody {
        mcpseal_report::ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint()),
        }
    }
}

/// Reads `config` and builds the site.
///
/// # Errors
/// [`ServeError::Config`] naming what is wrong.
pub fn open(config: &Path, options: SiteOptions) -> Result<Site, ServeError> {
    let loaded = mcpseal_serve::config::load(config)?;
    Ok(Site::new(&loaded, options)?)
}

/// Serves `site` over stdio until stdin ends or `shutdown` completes.
///
/// # Errors
/// [`ServeError::Transport`] when stdin or stdout fails.
pub async fn serve_stdio(site: Site, shutdown: impl Future<Output = ()>) -> Result<(), ServeError> {
    let server = mcpseal_serve::server(site);
    tokio::select! {
        r = server.serve_stdio() => Ok(r?),
        () = shutdown => {
            server.shutdown();
            Ok(())
        }
    }
}

/// Serves `site` over Streamable HTTP on `addr` (endpoint `/mcp`) until `shutdown` completes,
/// its connections on `connection_threads` threads of their own (one per core is the fast
/// choice: see `mcpseal_server::HttpOptions::connection_threads`; `0` runs them on the
/// caller's runtime). `ready` gets the endpoint URL once the listener is bound.
///
/// # Errors
/// [`ServeError::Transport`] when the address cannot be bound or the threads cannot start.
pub async fn serve_http(
    site: Site,
    addr: &str,
    connection_threads: usize,
    ready: impl FnOnce(&str),
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let http = mcpseal_server::HttpOptions {
        connection_threads,
        ..site.http_options()
    };
    let server = mcpseal_serve::server(site);
    let bound = server.bind_http(addr, http).await?;
    ready(&bound.url());
    Ok(bound.run(shutdown).await?)
}

/// Runs verb `id` with command-line arguments `argv` (read with the verb's input schema).
///
/// # Errors
/// [`VerbError`]: unknown verb, invalid arguments, or an artifact that did not verify.
pub async fn run_verb(site: &Site, id: &str, argv: &[String]) -> Result<Verified, VerbError> {
    let args = mcpseal_serve::cli::parse_args(site, id, argv)?;
    site.run_verb(id, &args).await
}

/// The verbs, one per line with their variables and description, for `--cli` without a verb.
pub fn verbs_usage(site: &Site) -> String {
    mcpseal_serve::cli::usage(site)
}

/// The deploy check: the signature and every manifest entry re-hashed.
///
/// # Errors
/// [`ServeError::Unreadable`] when the manifest cannot be read at all.
pub async fn check(site: &Site) -> Result<DeployCheck, ServeError> {
    site.trust()
        .check_all()
        .await
        .map_err(ServeError::Unreadable)
}

/// The JSON Schema of `site.toml`.
pub fn schema() -> Value {
    site_config_schema()
}

/// `(file name in schemas/, JSON Schema)` of serve's documents: the site config and the
/// deploy check's report.
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("serve-config.schema.json", schema()),
        (
            "serve-check-report.schema.json",
            mcpseal_report::schemas::schema_of::<DeployCheck>(),
        ),
    ]
}

/// The deploy check's report as `format` shows it: the typed document (JSON, one trailing
/// newline) or the text for people.
pub fn render_check(report: &DeployCheck, format: DocFormat) -> String {
    match format {
        DocFormat::Json => {
            // A derived `Serialize` of plain fields cannot fail.
            let mut s = serde_json::to_string_pretty(report).unwrap_or_default();
            s.push('\n');
            s
        }
        DocFormat::Text => check_text(report),
    }
}

fn check_text(r: &DeployCheck) -> String {
    let mut t = String::new();
    let verdict = if r.passed() { "ok" } else { "failed" };
    let _ = writeln!(
        t,
        "{verdict}: {} of {} entries match the manifest",
        r.verified, r.entries
    );
    let _ = writeln!(t, "origin     {}", r.origin);
    let _ = writeln!(
        t,
        "manifest   {} (sha256 {})",
        r.manifest, r.manifest_sha256
    );
    let signature = match &r.signature {
        SignatureStatus::Off => format!("off (signature_mode = \"{}\")", r.signature_mode.as_str()),
        SignatureStatus::Verified { signer } => {
            format!("verified: {} (issuer {})", signer.identity, signer.issuer)
        }
        SignatureStatus::Unverified { reason } => format!("NOT verified: {reason}"),
    };
    let _ = writeln!(t, "signature  {signature}");
    for f in &r.failures {
        let _ = writeln!(t, "  {}: {}: {}", f.path, f.reason, f.detail);
    }
    t
}
