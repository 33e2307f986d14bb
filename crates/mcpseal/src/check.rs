//! `mcpseal check`: the CI gate. Capture once, compare with the lock, never write.

use std::path::PathBuf;

use mcpseal_client::{Connection, Options, Target};
use mcpseal_report::AnonymousCheck;
use mcpseal_surface::lock::anonymous;
use mcpseal_surface::lock::{LockDecision, Need, Relation, RuleOptions, compare, decide_lock};

use crate::anonymous::AnonymousOptions;
use crate::lock::{
    WorkflowError, anonymous_section, capture, read_profile, require_lock, same_server,
};
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
    /// How to re-measure anonymous access when the lock has it; `None` (`--no-anonymous`)
    /// skips it, and the report says so.
    pub anonymous: Option<AnonymousOptions>,
    /// The lock's profile to judge (`--profile NAME`); required for a lock of profiles, refused
    /// for a lock of one surface.
    pub profile: Option<String>,
    /// Accept a lock written for another `serverInfo.name` (`--allow-rename`).
    pub allow_rename: bool,
    /// Fail (exit 1) when the server reports a version lower than the lock's
    /// (`--strict-version`); without it that is a warning.
    pub strict_version: bool,
}

/// Compares the server with the lock (see the `check` rules in `mcpseal_surface::lock::rules`).
///
/// # Errors
/// [`WorkflowError`] (no lock file: [`WorkflowError::NoLock`]).
pub async fn check(
    conn: &Connection,
    options: &CheckOptions,
) -> Result<CheckReport, WorkflowError> {
    let lock = read_profile(&options.path, options.profile.as_deref())?
        .ok_or_else(|| WorkflowError::NoLock(options.path.clone()))?;
    let locked_version = lock
        .declared
        .parsed_version()
        .map_err(|e| WorkflowError::Lock {
            path: options.path.clone(),
            source: mcpseal_surface::lock::LockError::Version(e),
        })?;
    let captured = capture(conn, lock.form, options.page_cap).await?;
    same_server(&lock, captured.surface.server_name(), options.allow_rename)?;
    let reported = captured.raw.reported_version();
    let version = settle(&options.version, reported.as_deref())?;
    // A deployment rolled back under a lock stamped higher: the surface may still match, but
    // the running build is older than the one locked.
    let reported_below_lock = reported
        .as_deref()
        .and_then(|r| mcpseal_surface::lock::Version::parse(r).ok())
        .is_some_and(|r| Relation::of(&locked_version, &r) == Relation::Lower);
    let mut warnings = Vec::new();
    if reported_below_lock {
        warnings.push(format!(
            "the server reports {}, lower than the locked {}: an older build than the one locked is running{}",
            reported.as_deref().unwrap_or_default(),
            lock.declared.version,
            if options.strict_version {
                " (`--strict-version`: this fails the check)"
            } else {
                "; `--strict-version` makes this fail the check"
            }
        ));
    }
    let mut comparison = compare(
        &lock.declared,
        &captured.surface.canonical_value(lock.form),
        &lock.declared.exclude,
    );
    let anonymous_state = remeasure(
        conn,
        &captured,
        anonymous_section(&lock, &options.path)?,
        options.anonymous.as_ref(),
        &mut comparison.diff,
    )
    .await?;
    crate::lock::name_profile(&mut comparison.diff, options.profile.as_deref());
    let anonymous_changed = anonymous_state == Some(AnonymousCheck::Changed);
    let mut kinds = comparison.kinds();
    kinds.any = kinds.any || anonymous_changed;
    let need = Need::of(&kinds, &options.rules);
    let decision = decide_lock(
        Some(&locked_version),
        &version.version,
        &kinds,
        &options.rules,
    );
    Ok(CheckReport {
        schema_version: 1,
        matches: comparison.matches() && !anonymous_changed,
        lock: options.path.display().to_string(),
        profile: options.profile.clone(),
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
        anonymous: anonymous_state,
        diff: comparison.diff.into(),
        reported_below_lock,
        strict_version: options.strict_version,
        warnings,
    })
}

/// Re-measures the lock's anonymous section (`locked`) when asked to and the target is
/// measured, adding its changes to `diff`; `None` when the lock has no section.
///
/// # Errors
/// [`WorkflowError::Anonymous`]: the measurement failed (fail closed, exit 2).
pub(crate) async fn remeasure(
    conn: &Connection,
    captured: &crate::snapshot::TrustedCapture,
    locked: Option<mcpseal_surface::lock::LockAnonymous>,
    options: Option<&AnonymousOptions>,
    diff: &mut mcpseal_surface::SurfaceDiff,
) -> Result<Option<AnonymousCheck>, WorkflowError> {
    let Some(old) = locked else {
        return Ok(None);
    };
    let Some(a) = options else {
        return Ok(Some(AnonymousCheck::Skipped));
    };
    if !crate::anonymous::measurable(conn, a) {
        return Ok(Some(AnonymousCheck::Skipped));
    }
    a.covers(&old)?;
    let a = a.with_locked_routes(Some(&old));
    let new = crate::anonymous::measure(conn, captured, &a).await?;
    diff.changes.extend(anonymous::changes(&old, &new));
    Ok(Some(AnonymousCheck::measured(old.sha256 == new.sha256)))
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
