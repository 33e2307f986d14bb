//! Installing one published version into its cache directory, with install-time code off:
//! npm with `--ignore-scripts`, PyPI wheels only, git by `git archive` plus the caller's
//! build steps. An install that fails is an [`InstallError`] value (with the installer's last
//! lines), never a panic; a completed one is marked atomically (see [`crate::cache`]), so a
//! second run reuses it and an interrupted one is redone.

mod git;
mod npm;
mod npm_tarball;
mod npm_tree;
pub(crate) mod pypi;

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::cache::{fresh_dir, key, lock, read_marker, write_marker};
use crate::config::Sources;
use crate::entry::EntryPoint;
use crate::error::{InstallError, InstallStage};
use crate::published::PublishedVersion;
use crate::source::Source;

/// The version of the completion marker's format.
const RECORD_VERSION: u32 = 1;

/// What an installed version needs to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Runtime {
    /// `node` from `PATH` (or [`crate::Tools::node`]).
    Node,
    /// The venv's own Python.
    Python {
        /// The venv, relative to the install directory.
        venv: PathBuf,
    },
    /// Whatever the entry command names (git sources).
    Native,
}

/// An installed version in the cache, ready for [`crate::launch::plan`].
#[derive(Debug, Clone)]
pub struct Installed {
    /// The source.
    pub source: Source,
    /// The version as published.
    pub version: String,
    /// The install directory (the cache entry).
    pub dir: PathBuf,
    /// Where the server runs: the install directory, or a git checkout's root.
    pub workdir: PathBuf,
    /// The artifact identity the cache key was made from (npm SRI, PyPI file hashes, commit).
    pub identity: String,
    /// What runs the entry points.
    pub runtime: Runtime,
    /// Entry points, sorted by name.
    pub entry_points: Vec<EntryPoint>,
    /// The cache already held it (for timings on stderr; never part of a report's JSON).
    pub reused: bool,
    /// When the install completed.
    pub installed_at: Timestamp,
}

/// The completion marker's content.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Record {
    pub schema_version: u32,
    pub source: String,
    pub version: String,
    pub identity: String,
    pub workdir: PathBuf,
    pub runtime: Runtime,
    pub entry_points: Vec<EntryPoint>,
    pub installed_at: Timestamp,
}

impl Record {
    pub(crate) fn new(
        source: &Source,
        version: &PublishedVersion,
        identity: &str,
        workdir: &str,
        runtime: Runtime,
        entry_points: Vec<EntryPoint>,
    ) -> Record {
        Record {
            schema_version: RECORD_VERSION,
            source: source.id(),
            version: version.version.clone(),
            identity: identity.to_owned(),
            workdir: PathBuf::from(workdir),
            runtime,
            entry_points,
            installed_at: Timestamp::now(),
        }
    }

    fn into_installed(self, source: &Source, dir: &Path, reused: bool) -> Installed {
        Installed {
            source: source.clone(),
            version: self.version,
            workdir: dir.join(&self.workdir),
            dir: dir.to_owned(),
            identity: self.identity,
            runtime: self.runtime,
            entry_points: self.entry_points,
            reused,
            installed_at: self.installed_at,
        }
    }
}

impl Sources {
    /// Installs `version` of `source` into the cache (or finds it there), with install-time
    /// code off. Safe to call concurrently, for the same version too (the second waits, then
    /// reuses the first's result).
    ///
    /// # Errors
    /// [`InstallError`], carrying the step that failed and the installer's last lines; a PyPI
    /// version with only an sdist (and sdists not allowed) fails at once with
    /// [`InstallError::needs_build`] set.
    pub async fn install(
        &self,
        source: &Source,
        version: &PublishedVersion,
    ) -> Result<Installed, InstallError> {
        let (kind, identity) = match source {
            Source::Npm(_) => ("npm", version.artifact.identity()),
            Source::Pypi(_) => {
                let interp = self.interpreter().await?;
                pypi::check_installable(version, self.config.allow_sdist)?;
                (
                    "pypi",
                    format!(
                        "{} python={} prefix={} sdist={}",
                        version.artifact.identity(),
                        interp.version,
                        interp.base_prefix.display(),
                        self.config.allow_sdist
                    ),
                )
            }
            Source::Git(g) => {
                let steps = serde_json::to_string(&(&g.build, &g.run)).unwrap_or_default();
                (
                    "git",
                    format!("{} build={steps}", version.artifact.identity()),
                )
            }
        };
        let id = source.id();
        let k = key(&[&id, &version.version, &identity]);
        let dir = self
            .config
            .cache
            .install_dir(kind, &source.dir_name(), &version.version, &k);
        let _guard = lock(&dir)
            .await
            .map_err(|e| InstallError::cache(&dir, &e))?;
        if let Some(rec) = read_marker::<Record>(&dir)
            && rec.schema_version == RECORD_VERSION
            && rec.source == id
            && rec.version == version.version
            && rec.identity == identity
        {
            return Ok(rec.into_installed(source, &dir, true));
        }
        fresh_dir(&dir).map_err(|e| InstallError::cache(&dir, &e))?;
        let record = match source {
            Source::Npm(p) => npm::install(self, p, version, &dir, &identity).await?,
            Source::Pypi(p) => pypi::install(self, p, version, &dir, &identity).await?,
            Source::Git(g) => git::install(self, g, version, &dir, &identity).await?,
        };
        write_marker(&dir, &record).map_err(|e| InstallError::cache(&dir, &e))?;
        Ok(record.into_installed(source, &dir, false))
    }
}

/// An [`InstallError`] from a failed bounded run.
pub(crate) fn run_failed(
    stage: InstallStage,
    shown: &str,
    timeout: std::time::Duration,
    r: Result<crate::process::Output, crate::process::RunError>,
) -> Result<crate::process::Output, InstallError> {
    match r {
        Ok(o) if o.success => Ok(o),
        Ok(o) => Err(InstallError::new(
            stage,
            format!("`{shown}` failed with {}", o.status_text()),
        )
        .with_tail(o.tail)),
        Err(e) => Err(InstallError::new(stage, e.message(shown, timeout)).with_tail(e.tail())),
    }
}
