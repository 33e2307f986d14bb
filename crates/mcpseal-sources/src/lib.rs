//! Published versions of MCP servers: list them (npm, PyPI, git tags), install each one with
//! its install-time code off into a cache, and plan a sandboxed stdio launch of it.
//!
//! Used by `mcpseal replay` (a package's history, version by version), `registry verify
//! --package` (the exact version a registry entry pins) and `mcpseal index` (a cohort of
//! pinned servers).
//!
//! What it refuses to do: run install scripts (`npm --ignore-scripts`; PyPI wheels only unless
//! sdists are allowed), touch the user's git checkout (tags are read from a mirror in the
//! cache and exported with `git archive`), send credentials with metadata fetches, guess a
//! version's order (semver precedence, PEP 440 mapped as the lock rules map it; what does not
//! map is listed as excluded), or pass the caller's environment to a server.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcpseal_sources::{Cache, Config, LaunchOptions, Launcher, Source, Sources, VersionQuery};
//!
//! let cache = Cache::new(Cache::default_root().ok_or("no cache directory")?);
//! let sources = Sources::new(Config::new(cache))?;
//! let source = Source::parse("npm:@modelcontextprotocol/server-memory")?;
//! let list = sources.versions(&source, &VersionQuery::default()).await?;
//! for version in &list.versions {
//!     match sources.install(&source, version).await {
//!         Ok(installed) => {
//!             let plan = mcpseal_sources::launch::plan(
//!                 &installed,
//!                 &LaunchOptions::new(Launcher::current_exe()?),
//!             )?;
//!             // spawn plan.argv in plan.cwd with exactly plan.env …
//!             # drop(plan);
//!         }
//!         Err(failure) => eprintln!("{}: {failure}", version.version),
//!     }
//! }
//! # Ok(()) }
//! ```

pub mod cache;
mod config;
pub mod entry;
mod error;
mod http;
pub mod install;
mod integrity;
pub mod launch;
pub mod process;
pub mod published;
mod resolve;
pub mod sandbox;
pub mod source;

pub use cache::Cache;
pub use config::{Config, Sources, Tools};
pub use entry::{EntryCommand, EntryPoint};
pub use error::{InstallError, InstallStage, LaunchError, SourceError};
pub use http::{HttpLimits, USER_AGENT};
pub use install::{Installed, Runtime};
pub use launch::{LaunchOptions, LaunchPlan};
pub use published::{
    Artifact, DistFile, Excluded, Exclusion, PublishedVersion, Status, VersionList, VersionQuery,
    select,
};
pub use sandbox::{
    FilesystemIsolation, Isolation, IsolationReport, Launcher, NetworkIsolation, run_launcher,
};
pub use source::{GitRepo, NpmPackage, Pin, PypiProject, Source};
