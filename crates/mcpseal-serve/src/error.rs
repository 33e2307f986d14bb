//! Errors: a config that cannot be served, and an artifact that cannot be vouched for.

use std::path::PathBuf;

use serde_json::{Value, json};

/// The JSON-RPC error code of every verification failure (implementation-defined range, clear of
/// the retired `-32001`…`-32004` and `-32002`). `error.data.reason` says which failure it was.
pub const VERIFICATION_FAILED: i64 = -32010;

/// The config cannot be served as it is.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file could not be read.
    #[error("could not read `{}`", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid site config.
    #[error("`{}` is not a valid site config: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said (key, line).
        message: String,
    },
    /// A value is wrong.
    #[error("{what}")]
    Invalid {
        /// What is wrong, naming the key.
        what: String,
        /// What to do.
        hint: String,
    },
}

impl ConfigError {
    pub(crate) fn invalid(what: impl Into<String>, hint: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            what: what.into(),
            hint: hint.into(),
        }
    }

    /// The `hint:` line for people.
    pub fn hint(&self) -> String {
        match self {
            ConfigError::Read { .. } => "pass the site config with `--config site.toml`".into(),
            ConfigError::Parse { .. } => {
                "compare it with `examples/site/site.toml` and the schema (`mcpseal serve --print-schema`)".into()
            }
            ConfigError::Invalid { hint, .. } => hint.clone(),
        }
    }
}

/// Fetching from the origin failed (no bytes to judge).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// Not answered within the fetch timeout.
    #[error("`{url}` was not fetched within {seconds} s")]
    Timeout {
        /// What was fetched.
        url: String,
        /// The limit.
        seconds: u64,
    },
    /// Larger than `max_bytes`.
    #[error("`{url}` is larger than {max} bytes")]
    Oversize {
        /// What was fetched.
        url: String,
        /// The limit.
        max: u64,
    },
    /// The origin answered with an error status, or the file does not exist.
    #[error("`{url}` could not be fetched: {why}")]
    Failed {
        /// What was fetched.
        url: String,
        /// Why (status, I/O error).
        why: String,
    },
    /// A redirect to another origin, or a path leaving the site directory.
    #[error("`{url}` leads outside the origin: {why}")]
    Escape {
        /// What was fetched.
        url: String,
        /// Where it led.
        why: String,
    },
}

impl FetchError {
    /// The URL (or file) concerned.
    pub fn url(&self) -> &str {
        match self {
            FetchError::Timeout { url, .. }
            | FetchError::Oversize { url, .. }
            | FetchError::Failed { url, .. }
            | FetchError::Escape { url, .. } => url,
        }
    }

    fn reason(&self) -> &'static str {
        match self {
            FetchError::Timeout { .. } => "timeout",
            FetchError::Oversize { .. } => "oversize",
            FetchError::Failed { .. } => "fetch-failed",
            FetchError::Escape { .. } => "outside-origin",
        }
    }
}

/// An artifact could not be vouched for: nothing is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The bytes fetched do not hash to the manifest's digest (after one manifest refetch).
    #[error(
        "`{path}` does not match the signed manifest: expected sha256 {expected}, got {actual}"
    )]
    Mismatch {
        /// The manifest path.
        path: String,
        /// Where the bytes came from.
        url: String,
        /// The manifest's digest.
        expected: String,
        /// The digest of the bytes received.
        actual: String,
    },
    /// The path is not in the manifest.
    #[error("`{path}` is not a signed artifact (no entry in the manifest)")]
    NotSigned {
        /// The manifest path.
        path: String,
    },
    /// The manifest's signature did not verify and the mode is `require`.
    #[error("the manifest's signature did not verify: {reason}")]
    Signature {
        /// Why.
        reason: String,
    },
    /// The manifest (or bundle) could not be read.
    #[error("the manifest could not be loaded: {reason}")]
    Manifest {
        /// Why.
        reason: String,
    },
    /// The artifact could not be fetched.
    #[error(transparent)]
    Fetch(#[from] FetchError),
}

impl VerifyError {
    /// `error.data` of the JSON-RPC error: `reason` plus the facts (`path`, `expected`,
    /// `actual`, `url`).
    pub fn data(&self) -> Value {
        match self {
            VerifyError::Mismatch {
                path,
                url,
                expected,
                actual,
            } => {
                json!({"reason": "digest-mismatch", "path": path, "url": url, "expected": expected, "actual": actual})
            }
            VerifyError::NotSigned { path } => json!({"reason": "not-signed", "path": path}),
            VerifyError::Signature { reason } => json!({"reason": "signature", "detail": reason}),
            VerifyError::Manifest { reason } => json!({"reason": "manifest", "detail": reason}),
            VerifyError::Fetch(f) => {
                json!({"reason": f.reason(), "url": f.url(), "detail": f.to_string()})
            }
        }
    }

    /// The JSON-RPC error a client gets.
    pub fn to_rpc(&self) -> mcpseal_server::RpcError {
        mcpseal_server::RpcError::new(VERIFICATION_FAILED, format!("Verification failed: {self}"))
            .with_data(self.data())
    }
}
