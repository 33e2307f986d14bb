//! `mcpseal serve`: serve a static site as a verified MCP server, run one of its verbs, or check
//! a deploy.
//!
//! Every workflow starts from [`open`] (the config read, checked and turned into a [`Site`]);
//! nothing is fetched before the first request (or the check). Errors are one type,
//! [`ServeError`], with a hint.

use std::future::Future;
use std::path::Path;

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

/// Serves `site` over Streamable HTTP on `addr` (endpoint `/mcp`) until `shutdown` completes.
/// `ready` gets the endpoint URL once the listener is bound.
///
/// # Errors
/// [`ServeError::Transport`] when the address cannot be bound.
pub async fn serve_http(
    site: Site,
    addr: &str,
    ready: impl FnOnce(&str),
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let http = site.http_options();
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
