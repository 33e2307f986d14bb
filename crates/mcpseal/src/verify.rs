//! `mcpseal verify`: is the deployed endpoint serving the locked surface?
//!
//! The sanity check comes first (a method that cannot exist must fail; an endpoint that says
//! yes to everything is refused before anything is compared), then one capture compared with
//! the lock. The server's own version claim is reported against the lock's, never trusted.
//!
//! [`run`] asks again while the surface differs, up to `attempts` times (right after a deploy,
//! an edge may still serve old instances); a refusal (a liar, an unreachable endpoint) is never
//! retried.

use std::path::PathBuf;
use std::time::Duration;

use mcpseal_client::{Connection, Era, Options, SanityCheck, Target, sanity_check};
use mcpseal_report::AnonymousCheck;
use mcpseal_surface::lock::{Version, compare};

use crate::anonymous::AnonymousOptions;
use crate::check::remeasure;
use crate::lock::{WorkflowError, anonymous_section, capture, read_profile, require_lock};
use crate::snapshot::SnapshotError;

pub use mcpseal_report::VerifyReport;

/// How to verify.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The lock file.
    pub path: PathBuf,
    /// Most pages per list.
    pub page_cap: usize,
    /// How to re-measure anonymous access when the lock has it (`None`: `--no-anonymous`).
    pub anonymous: Option<AnonymousOptions>,
    /// The lock's profile to judge (`--profile NAME`); required for a lock of profiles, refused
    /// for a lock of one surface.
    pub profile: Option<String>,
}

/// How [`run`] retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// Ask at most this many times while the surface differs (at least once).
    pub attempts: u32,
    /// Wait this long between attempts.
    pub wait: Duration,
}

impl Default for Retry {
    /// One attempt.
    fn default() -> Retry {
        Retry {
            attempts: 1,
            wait: Duration::from_secs(10),
        }
    }
}

/// Told about the retries of [`run`] (the CLI prints a note per retry).
pub trait VerifyProgress {
    /// Attempt `attempt` of `attempts` saw a differing surface; the next comes after the wait.
    fn retrying(&self, attempt: u32, attempts: u32);

    /// [`VerifyProgress::retrying`] for profile `profile` of a run over every profile
    /// ([`crate::profiles::verify_all`]); by default, as `retrying`.
    fn retrying_profile(&self, profile: &str, attempt: u32, attempts: u32) {
        let _ = profile;
        self.retrying(attempt, attempts);
    }
}

/// No progress reporting.
impl VerifyProgress for () {
    fn retrying(&self, _: u32, _: u32) {}
}

/// Verifies a live endpoint against the lock.
///
/// # Errors
/// [`WorkflowError`]: no or bad lock file, or no trustworthy surface (a liar, unreachable).
pub async fn verify(
    conn: &Connection,
    options: &VerifyOptions,
) -> Result<VerifyReport, WorkflowError> {
    let lock = read_profile(&options.path, options.profile.as_deref())?
        .ok_or_else(|| WorkflowError::NoLock(options.path.clone()))?;
    // Can the endpoint say no? Asked before anything is captured, in the era the lock was
    // made in (the capture asks again in the era it finds).
    let era = lock
        .declared
        .surface
        .get("era")
        .and_then(serde_json::Value::as_str)
        .and_then(Era::from_revision)
        .unwrap_or(Era::Legacy);
    crate::progress::waiting("checking that the server can say no");
    if sanity_check(conn, era).await.is_liar() {
        return Err(WorkflowError::Capture(SnapshotError::Liar {
            method: SanityCheck::METHOD.to_owned(),
        }));
    }
    let captured = capture(conn, lock.form, options.page_cap).await?;
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
    let reported = captured.raw.reported_version();
    let reported_is_locked = reported.as_deref().and_then(|r| {
        let r = Version::parse(r).ok()?;
        let l = Version::parse(&lock.declared.version).ok()?;
        Some(r == l)
    });
    Ok(VerifyReport {
        schema_version: 1,
        matches: comparison.matches() && anonymous_state != Some(AnonymousCheck::Changed),
        lock: options.path.display().to_string(),
        profile: options.profile.clone(),
        target: conn.target().display(),
        locked_version: lock.declared.version.clone(),
        reported_version: reported,
        reported_is_locked,
        locked_sha256: comparison.locked_sha256,
        live_sha256: comparison.live_sha256,
        exclude: lock
            .declared
            .exclude
            .iter()
            .map(|p| p.as_str().to_owned())
            .collect(),
        attempts: 1,
        anonymous: anonymous_state,
        diff: comparison.diff.into(),
    })
}

/// `mcpseal verify`: refuses a missing lock before contacting anything, then verifies on a
/// fresh connection per attempt, asking again while the surface differs (see the module docs).
/// The report is the last attempt's, with `attempts` = how many were made.
///
/// # Errors
/// [`WorkflowError`] of the first attempt that fails; nothing is retried after one.
pub async fn run(
    target: &Target,
    connect: Options,
    options: &VerifyOptions,
    retry: Retry,
    progress: &dyn VerifyProgress,
) -> Result<VerifyReport, WorkflowError> {
    require_lock(&options.path)?;
    let attempts = retry.attempts.max(1);
    let mut attempt = 1;
    loop {
        let conn = crate::open(target, connect.clone()).await?;
        let result = verify(&conn, options).await;
        conn.close().await;
        let mut report = result.map_err(|e| e.with_server_stderr(&conn.diagnostics()))?;
        report.attempts = attempt;
        if report.matches || attempt >= attempts {
            return Ok(report);
        }
        progress.retrying(attempt, attempts);
        crate::progress::waiting(format!(
            "the surface differs from the lock: waiting before attempt {}/{attempts}",
            attempt + 1
        ));
        tokio::time::sleep(retry.wait).await;
        attempt += 1;
    }
}
