//! `mcpseal check`: the CI gate. Capture once, compare with the lock, never write.

use std::path::PathBuf;

use mcpseal_client::{Connection, Options, Target};
use mcpseal_surface::lock::{LockDecision, Need, Relation, RuleOptions, compare, decide_lock};

use crate::lock::{WorkflowError, capture, read_lock, require_lock};
use crate::version_source::{VersionRequest, settle};

pub use mcpseal_report::CheckReport;

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
    let comparison = compare(
        &lock.declared,
        &captured.surface.canonical_value(lock.form),
        &lock.declared.exclude,
    );
    let kinds = comparison.kinds();
    let need = Need::of(&kinds, &options.rules);
    let decision = decide_lock(
        Some(&locked_version),
        &version.version,
        &kinds,
        &options.rules,
    );
    Ok(CheckReport {
        schema_version: 1,
        matches: comparison.matches(),
        lock: options.path.display().to_string(),
        target: conn.target().display(),
        locked_version: lock.declared.version.clone(),
        version: version.version.to_string(),
        version_source: version.source,
        reported_version: reported,
        relation: Relation::of(&locked_version, &version.version),
        exclude: lock
            .declared
            .exclude
            .iter()
            .map(|p| p.as_str().to_owned())
            .collect(),
        accepted_from: (need != Need::Nothing)
            .then(|| need.smallest_after(&locked_version).to_string()),
        lock_would_accept: matches!(decision, LockDecision::Accept),
        need,
        diff: comparison.diff.into(),
    })
}

/// `mcpseal check`: refuses a missing lock before starting the server, then opens `target`,
/// checks, closes.
///
/// # Errors
/// [`WorkflowError`].
pub async fn run(
    target: &Target,
    connect: Options,
    options: &CheckOptions,
) -> Result<CheckReport, WorkflowError> {
    require_lock(&options.path)?;
    let conn = crate::open(target, connect).await?;
    let result = check(&conn, options).await;
    conn.close().await;
    result.map_err(|e| e.with_server_stderr(&conn.diagnostics()))
}
