//! `check` and `verify` of every profile of a lock (no `--profile` on a lock of named
//! profiles): each profile judged against its own target, one combined report.
//!
//! Contract: every profile the lock has is judged, none is skipped. Each profile's target comes
//! from the caller (the project config's `[profiles.NAME]`); a profile without one refuses the
//! whole run before any server is started ([`WorkflowError::NoProfileTarget`]), naming every
//! such profile and the table to add. A profile that cannot be judged (unreachable, a liar, a
//! failed anonymous measurement) does not stop the others: its section carries the error, and
//! the run's exit code is the worst profile's (drift 1, no verdict 2). Each section is exactly
//! what `check --profile NAME` / `verify --profile NAME` reports, so every change path starts
//! with `/profiles/NAME`.

use std::collections::BTreeMap;
use std::path::Path;

use mcpseal_client::{Options, Target};
use mcpseal_report::{CheckProfilesReport, ProfileCheck, ProfileVerify, VerifyProfilesReport};
use mcpseal_surface::lock::{AnyLock, LockError};

use crate::check::CheckOptions;
use crate::described::Described;
use crate::lock::{WorkflowError, read_any};
use crate::verify::{Retry, VerifyOptions, VerifyProgress};

/// One profile's server: what to start or reach, and how.
#[derive(Debug, Clone)]
pub struct ProfileTarget {
    /// The target (`[profiles.NAME]`'s `command` or `url`).
    pub target: Target,
    /// How to connect (the command line's options with the profile's `env` and `cwd`).
    pub connect: Options,
}

/// The targets of the profiles, by name, and where they came from.
#[derive(Debug, Clone, Default)]
pub struct ProfileTargets {
    /// The project config that gave them (its label, e.g. `mcpseal.toml`); `None`: no config.
    pub config: Option<String>,
    /// Profile name → its server.
    pub targets: BTreeMap<String, ProfileTarget>,
}

/// The profile names of the lock at `path` when it is a readable lock of named profiles;
/// `None` for anything else (no file, a lock of one surface, a file that fails its checks:
/// the one-surface path reads it again and reports its trouble as before).
pub fn lock_profiles(path: &Path) -> Option<Vec<String>> {
    match read_any(path) {
        Ok(Some(AnyLock::Profiles(p))) => Some(p.names()),
        _ => None,
    }
}

/// The lock's profile names with their targets, refusing the run when one has none.
fn pair<'a>(
    path: &Path,
    targets: &'a ProfileTargets,
) -> Result<Vec<(String, &'a ProfileTarget)>, WorkflowError> {
    let names = match read_any(path)? {
        None => return Err(WorkflowError::NoLock(path.to_owned())),
        Some(AnyLock::Profiles(p)) => p.names(),
        Some(AnyLock::Plain(_)) => {
            // Only when the file was replaced since the caller looked (`lock_profiles`).
            return Err(WorkflowError::Lock {
                path: path.to_owned(),
                source: LockError::Shape(
                    "it now holds one surface, not named profiles: run the command again".into(),
                ),
            });
        }
    };
    let missing: Vec<String> = names
        .iter()
        .filter(|n| !targets.targets.contains_key(*n))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(WorkflowError::NoProfileTarget {
            path: path.to_owned(),
            missing,
            config: targets.config.clone(),
        });
    }
    Ok(names
        .into_iter()
        .filter_map(|n| targets.targets.get(&n).map(|t| (n, t)))
        .collect())
}

/// Checks every profile of the lock at `options.path` against its target (see the module
/// docs); `options.profile` is ignored (each section sets its own).
///
/// # Errors
/// [`WorkflowError`] for the run as a whole: no lock, a lock that fails its checks, a profile
/// without a target. A profile's own failure is its section's `error`, not an `Err`.
pub async fn check_all(
    targets: &ProfileTargets,
    options: &CheckOptions,
) -> Result<CheckProfilesReport, WorkflowError> {
    let pairs = pair(&options.path, targets)?;
    let mut sections = Vec::with_capacity(pairs.len());
    for (name, t) in pairs {
        crate::progress::waiting(format!("profile `{name}`"));
        let one = CheckOptions {
            profile: Some(name.clone()),
            ..options.clone()
        };
        let result = crate::check::run(&t.target, t.connect.clone(), &one).await;
        sections.push(ProfileCheck::of(name, result.map_err(|e| e.body())));
    }
    Ok(CheckProfilesReport::new(
        options.path.display().to_string(),
        sections,
    ))
}

/// Verifies every profile of the lock at `options.path` against its target, each with
/// `retry` (see the module docs and [`crate::verify::run`]).
///
/// # Errors
/// As [`check_all`].
pub async fn verify_all(
    targets: &ProfileTargets,
    options: &VerifyOptions,
    retry: Retry,
    progress: &dyn VerifyProgress,
) -> Result<VerifyProfilesReport, WorkflowError> {
    let pairs = pair(&options.path, targets)?;
    let mut sections = Vec::with_capacity(pairs.len());
    for (name, t) in pairs {
        crate::progress::waiting(format!("profile `{name}`"));
        let one = VerifyOptions {
            profile: Some(name.clone()),
            ..options.clone()
        };
        let named = Named {
            profile: &name,
            inner: progress,
        };
        let result = crate::verify::run(&t.target, t.connect.clone(), &one, retry, &named).await;
        sections.push(ProfileVerify::of(name, result.map_err(|e| e.body())));
    }
    Ok(VerifyProfilesReport::new(
        options.path.display().to_string(),
        sections,
    ))
}

/// Tells `inner` which profile is retrying.
struct Named<'a> {
    profile: &'a str,
    inner: &'a dyn VerifyProgress,
}

impl VerifyProgress for Named<'_> {
    fn retrying(&self, attempt: u32, attempts: u32) {
        self.inner.retrying_profile(self.profile, attempt, attempts);
    }
}
