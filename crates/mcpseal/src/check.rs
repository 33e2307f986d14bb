//! `mcpseal check`: the CI gate. Capture once, compare with the lock, never write.

use std::path::PathBuf;

use mcpseal_client::Connection;
use mcpseal_surface::lock::{LockDecision, Need, Relation, RuleOptions, decide_lock, exclude};
use mcpseal_surface::{jcs, sha256_hex};

use crate::diff::{change_kinds, engine};
use crate::lock::{WorkflowError, capture, read_lock};
use crate::version_source::{SourcedVersion, VersionRequest, settle};

/// How to check.
#[derive(Debug, Clone)]
pub struct CheckOptions {
    /// The lock file.
    pub path: PathBuf,
    /// Most pages per list.
    pub page_cap: usize,
    /// The rules `lock` would apply (to say whether the bump would be accepted).
    pub rules: RuleOptions,
    /// Where the version comes from.
    pub version: VersionRequest,
}

/// The result of `check`.
#[derive(Debug, Clone)]
pub struct CheckReport {
    /// Same surface as locked (exit 0) or not (exit 1).
    pub matches: bool,
    /// The server version against the lock's.
    pub relation: Relation,
    /// The lock's version.
    pub locked_version: String,
    /// The server version used.
    pub version: SourcedVersion,
    /// The version the server reports in `serverInfo`.
    pub reported_version: Option<String>,
    /// Locked → live.
    pub diff: engine::SurfaceDiff,
    /// The lock's exclusions.
    pub exclude: Vec<String>,
    /// What the change needs under the rules.
    pub need: Need,
    /// The smallest version `mcpseal lock` would accept for this change.
    pub accepted_from: Option<semver::Version>,
    /// Whether `mcpseal lock` would accept the change under the current version.
    pub lock_would_accept: bool,
}

/// Compares the server with the lock (see the `check` rules in `mcpseal_surface::lock::rules`).
///
/// # Errors
/// [`WorkflowError`] (no lock file: [`WorkflowError::NoLock`]).
pub async fn check(
    conn: &Connection,
    options: &CheckOptions,
) -> Result<CheckReport, WorkflowError> {
    let lock =
        read_lock(&options.path)?.ok_or_else(|| WorkflowError::NoLock(options.path.clone()))?;
    let locked_version = lock
        .declared
        .parsed_version()
        .map_err(|e| WorkflowError::Lock {
            path: options.path.clone(),
            source: mcpseal_surface::lock::LockError::Version(e),
        })?;
    let captured = capture(conn, lock.form, options.page_cap).await?;
    let reported = captured.raw.reported_version();
    let version = settle(&options.version, reported.as_deref())?;
    let live = exclude::apply(
        &captured.surface.canonical_value(lock.form),
        &lock.declared.exclude,
    );
    let locked = lock.declared.hashed_surface();
    let matches = sha256_hex(&jcs(&live)) == lock.declared.sha256;
    let diff = if matches {
        engine::SurfaceDiff::default()
    } else {
        engine::diff(&locked, &live)
    };
    let mut kinds = change_kinds(&diff);
    kinds.any = kinds.any || !matches;
    let need = Need::of(&kinds, &options.rules);
    let decision = decide_lock(
        Some(&locked_version),
        &version.version,
        &kinds,
        &options.rules,
    );
    Ok(CheckReport {
        matches,
        relation: Relation::of(&locked_version, &version.version),
        locked_version: lock.declared.version.clone(),
        version,
        reported_version: reported,
        diff,
        exclude: lock
            .declared
            .exclude
            .iter()
            .map(|p| p.as_str().to_owned())
            .collect(),
        need,
        accepted_from: (need != Need::Nothing).then(|| need.smallest_after(&locked_version)),
        lock_would_accept: matches!(decision, LockDecision::Accept),
    })
}
