//! Errors: resolving versions ([`SourceError`]), installing one ([`InstallError`], a value a
//! replay row carries, never a panic) and planning a launch ([`LaunchError`]).

use std::path::PathBuf;

use serde::Serialize;
use thiserror::Error;

/// Why versions could not be listed, or a pin could not be resolved.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SourceError {
    /// A source or pin spelling that does not parse.
    #[error("`{spec}` is not a package source: {why}")]
    BadSpec {
        /// What was given.
        spec: String,
        /// What is wrong with it.
        why: String,
    },
    /// A registry or index URL that carries credentials (user-info): metadata is fetched
    /// anonymously, so it is refused rather than sent or silently dropped.
    #[error("the URL `{url}` carries credentials; mcpseal fetches package metadata anonymously")]
    CredentialsInUrl {
        /// The URL with its user-info redacted.
        url: String,
    },
    /// An HTTP fetch failed (connection, timeout, status, size).
    #[error("fetching `{url}` failed: {why}")]
    Http {
        /// The URL (no credentials: those are refused earlier).
        url: String,
        /// What went wrong.
        why: String,
    },
    /// The registry has no such package (404).
    #[error("{what} is not on {registry}")]
    NotFound {
        /// The package.
        what: String,
        /// The registry or index URL.
        registry: String,
    },
    /// The registry answered something that is not the document it should be.
    #[error("`{url}` answered an unreadable document: {why}")]
    BadMetadata {
        /// The URL.
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// A pinned version that the source does not list.
    #[error("{pin} is not published (the source lists no such version)")]
    VersionNotFound {
        /// The pin, displayed.
        pin: String,
    },
    /// A pinned integrity that differs from what the registry lists.
    #[error("{pin}: the registry lists integrity `{listed}`, the pin expects `{expected}`")]
    PinMismatch {
        /// The pin, displayed.
        pin: String,
        /// What the registry lists.
        listed: String,
        /// What the pin expects.
        expected: String,
    },
    /// A tool (`npm`, `git`, `python3`) that could not be run or failed.
    #[error("`{program}` failed: {why}")]
    Tool {
        /// The program.
        program: String,
        /// What happened, with the last lines of its output.
        why: String,
    },
    /// A bad tag glob or version range.
    #[error("{0}")]
    BadQuery(String),
}

impl SourceError {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            SourceError::BadSpec { .. } => {
                "write `npm:PKG`, `pypi:PKG` or `git:PATH_OR_URL`; pin one version with `npm:PKG@VER`, `pypi:PKG==VER`, `git:URL@SHA`"
            }
            SourceError::CredentialsInUrl { .. } => {
                "give the registry URL without `user:password@`; public metadata needs no credentials"
            }
            SourceError::Http { .. } => {
                "check the registry URL and the network; a registry that is slow can be given more time"
            }
            SourceError::NotFound { .. } => {
                "check the package name and the registry (`--registry URL`, `npm config get registry`, `PIP_INDEX_URL`)"
            }
            SourceError::BadMetadata { .. } => {
                "the URL must be an npm registry, a PyPI simple index (`…/simple/`) or a PyPI JSON API"
            }
            SourceError::VersionNotFound { .. } => {
                "list the published versions and pin one of them"
            }
            SourceError::PinMismatch { .. } => {
                "the artifact changed since it was pinned, or the pin is wrong: re-pin after checking"
            }
            SourceError::Tool { .. } => {
                "make sure the tool is installed and on `PATH` (npm, python3 with pip, git)"
            }
            SourceError::BadQuery(_) => {
                "a range is semver (`>=1.2, <2`); a tag glob uses `*` and `?`"
            }
        }
    }
}

/// Which step of an install failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum InstallStage {
    /// Choosing what to download (no artifact, sdist only).
    Select,
    /// Downloading the artifact.
    Download,
    /// Checking the artifact's integrity.
    Verify,
    /// Creating the environment (a Python venv).
    Environment,
    /// Running the installer (`npm install`, `pip install`, `git archive`).
    Install,
    /// Running one of the caller's build steps.
    Build,
    /// Reading the installed metadata (entry points, name, version).
    Metadata,
    /// Writing the cache (lock, marker).
    Cache,
}

/// An install that did not complete: a row in a replay, never a crash of the run.
#[derive(Debug, Clone, Error, Serialize)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct InstallError {
    /// The step that failed.
    pub stage: InstallStage,
    /// What went wrong, one line.
    pub message: String,
    /// The last lines the installer printed (stdout and stderr, oldest first), at most
    /// [`crate::process::TAIL_LINES`].
    pub log_tail: Vec<String>,
    /// Set when the version is not installable without running its build (sdist only,
    /// and sdists not allowed): a fact about the version, not a failure of the tools.
    pub needs_build: bool,
}

impl InstallError {
    pub(crate) fn new(stage: InstallStage, message: impl Into<String>) -> InstallError {
        InstallError {
            stage,
            message: message.into(),
            log_tail: Vec::new(),
            needs_build: false,
        }
    }

    pub(crate) fn with_tail(mut self, tail: Vec<String>) -> InstallError {
        self.log_tail = tail;
        self
    }

    pub(crate) fn cache(path: &std::path::Path, e: &std::io::Error) -> InstallError {
        InstallError::new(
            InstallStage::Cache,
            format!("cache `{}`: {e}", path.display()),
        )
    }
}

/// Why a launch could not be planned.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LaunchError {
    /// Several entry points and none chosen.
    #[error("{package} has several entry points: {}", names.join(", "))]
    Ambiguous {
        /// The package.
        package: String,
        /// Their names.
        names: Vec<String>,
    },
    /// The chosen entry point does not exist.
    #[error("{package} has no entry point `{wanted}` (it has: {})", if names.is_empty() { "none".to_owned() } else { names.join(", ") })]
    NoSuchEntry {
        /// The package.
        package: String,
        /// What was asked for.
        wanted: String,
        /// What there is.
        names: Vec<String>,
    },
    /// No entry point at all.
    #[error(
        "{package} declares no entry point (npm `bin`, Python console scripts, or a git `--run` command)"
    )]
    NoEntry {
        /// The package.
        package: String,
    },
    /// A program that is not on `PATH`.
    #[error("`{program}` is not on PATH")]
    ProgramNotFound {
        /// The program.
        program: String,
    },
    /// The temporary home could not be made.
    #[error("cannot create the temporary home under `{}`: {source}", dir.display())]
    TempHome {
        /// The parent directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An environment variable name that cannot be passed (`=` or NUL in it, or empty).
    #[error("environment variable name `{0}` is invalid")]
    BadEnvName(String),
}

impl LaunchError {
    /// What to do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            LaunchError::Ambiguous { .. } | LaunchError::NoSuchEntry { .. } => {
                "choose one with `--bin NAME`"
            }
            LaunchError::NoEntry { .. } => {
                "give the command that starts the server (`--run CMD` for git sources)"
            }
            LaunchError::ProgramNotFound { .. } => "install it, or give its absolute path",
            LaunchError::TempHome { .. } => "check that the temporary directory is writable",
            LaunchError::BadEnvName(_) => "write environment variables as `NAME=value`",
        }
    }
}
