//! `mcpseal verify`: is the deployed endpoint serving the locked surface?
//!
//! The sanity check comes first (a method that cannot exist must fail; an endpoint that says
//! yes to everything is refused before anything is compared), then one capture compared with
//! the lock. The server's own version claim is reported against the lock's, never trusted.

use std::path::PathBuf;

use mcpseal_client::{Connection, Era, SanityCheck, sanity_check};
use mcpseal_surface::lock::{Version, exclude};
use mcpseal_surface::{jcs, sha256_hex};

use crate::diff::engine;
use crate::lock::{WorkflowError, capture, read_lock};
use crate::snapshot::SnapshotError;

/// How to verify.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// The lock file.
    pub path: PathBuf,
    /// Most pages per list.
    pub page_cap: usize,
}

/// The result of `verify`.
#[derive(Debug, Clone)]
pub struct VerifyReport {
    /// The live surface is the locked one (exit 0), or it drifted (exit 1).
    pub matches: bool,
    /// The lock's version.
    pub locked_version: String,
    /// The version the server reports, if any.
    pub reported_version: Option<String>,
    /// Whether the reported version is the locked one (`None`: no version, or not semver).
    pub reported_is_locked: Option<bool>,
    /// The lock's hash.
    pub locked_sha256: String,
    /// The live surface's hash (same exclusions).
    pub live_sha256: String,
    /// Locked → live.
    pub diff: engine::SurfaceDiff,
    /// The lock's exclusions.
    pub exclude: Vec<String>,
}

/// Verifies a live endpoint against the lock.
///
/// # Errors
/// [`WorkflowError`]: no or bad lock file, or no trustworthy surface (a liar, unreachable).
pub async fn verify(
    conn: &Connection,
    options: &VerifyOptions,
) -> Result<VerifyReport, WorkflowError> {
    let lock =
        read_lock(&options.path)?.ok_or_else(|| WorkflowError::NoLock(options.path.clone()))?;
    // Can the endpoint say no? Asked before anything is captured, in the era the lock was
    // made in (the capture asks again in the era it finds).
    let era = lock
        .declared
        .surface
        .get("era")
        .and_then(serde_json::Value::as_str)
        .and_then(Era::from_revision)
        .unwrap_or(Era::Legacy);
    if sanity_check(conn, era).await.is_liar() {
        return Err(WorkflowError::Capture(SnapshotError::Liar {
            method: SanityCheck::METHOD.to_owned(),
        }));
    }
    let captured = capture(conn, lock.form, options.page_cap).await?;
    let live = exclude::apply(
        &captured.surface.canonical_value(lock.form),
        &lock.declared.exclude,
    );
    let live_sha256 = sha256_hex(&jcs(&live));
    let matches = live_sha256 == lock.declared.sha256;
    let diff = if matches {
        engine::SurfaceDiff::default()
    } else {
        engine::diff(&lock.declared.hashed_surface(), &live)
    };
    let reported = captured.raw.reported_version();
    let reported_is_locked = reported.as_deref().and_then(|r| {
        let r = Version::parse(r).ok()?;
        let l = Version::parse(&lock.declared.version).ok()?;
        Some(r == l)
    });
    Ok(VerifyReport {
        matches,
        locked_version: lock.declared.version.clone(),
        reported_version: reported,
        reported_is_locked,
        locked_sha256: lock.declared.sha256.clone(),
        live_sha256,
        diff,
        exclude: lock
            .declared
            .exclude
            .iter()
            .map(|p| p.as_str().to_owned())
            .collect(),
    })
}
