//! `mcpseal lock`: capture twice, apply the lock rules, write `surface.lock.json` atomically.
//!
//! The file is only ever replaced through [`crate::atomic`], and only when the rules say so:
//! a refusal, a volatile surface or any error leaves it byte-identical. One run at a time
//! reads, decides and writes a given lock file ([`crate::writer_lock`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpseal_client::Connection;
use mcpseal_surface::lock::{
    Declared, LockDecision, LockError, LockFile, Pointer, Refusal, RuleOptions, decide_lock,
    exclude,
};
use mcpseal_surface::{Form, jcs, sha256_hex};
use thiserror::Error;

use crate::diff::{change_kinds, engine};
use crate::snapshot::{SnapshotError, SnapshotOptions, TrustedCapture, capture_trusted};
use crate::version_source::{SourcedVersion, VersionRequest, VersionSourceError, settle};

/// The default lock file name, in the working directory.
pub const DEFAULT_LOCK: &str = "surface.lock.json";

/// Why a lock workflow (`lock`, `check`, `verify`) has no verdict. Every variant means exit 2.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WorkflowError {
    /// There is no lock file.
    #[error("no lock file at `{0}`")]
    NoLock(PathBuf),
    /// The lock file could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The lock file fails its checks.
    #[error("`{path}`: {source}")]
    Lock {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LockError,
    },
    /// No trustworthy surface.
    #[error("no trustworthy surface: {0}")]
    Capture(#[from] SnapshotError),
    /// The server could not be contacted (for the second capture).
    #[error("{0}")]
    Open(#[from] crate::OpenError),
    /// No usable server version.
    #[error("{0}")]
    Version(#[from] VersionSourceError),
    /// `--form` differs from the lock's.
    #[error("the lock file is in form `{locked}`, not `{asked}`")]
    FormMismatch {
        /// The lock's form.
        locked: Form,
        /// The form asked for.
        asked: Form,
    },
    /// A new exclusion selects nothing (a typo would silently exclude nothing).
    #[error("`--exclude {0}` selects nothing in the captured surface")]
    ExclusionMatchesNothing(String),
    /// Another run is writing the lock file (or its sidecar cannot be locked).
    #[error("{0}")]
    Locked(#[from] crate::writer_lock::WriterLockError),
    /// The lock file could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl WorkflowError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            WorkflowError::NoLock(_) => {
                "run `mcpseal lock TARGET` to write it (or pass `--lock FILE`)"
            }
            WorkflowError::Read { .. } | WorkflowError::Write { .. } => {
                "check the path and its permissions"
            }
            WorkflowError::Lock { source, .. } => source.hint(),
            WorkflowError::Capture(e) => e.hint(),
            WorkflowError::Locked(e) => e.hint(),
            WorkflowError::Open(e) => e.hint(),
            WorkflowError::Version(e) => e.hint(),
            WorkflowError::FormMismatch { .. } => {
                "drop `--form` to keep the lock's form, or delete the lock file to start over in another form"
            }
            WorkflowError::ExclusionMatchesNothing(_) => {
                "pointers are JSON Pointers into the surface, with `KEY=VALUE` to pick a list item: `/tools/name=clock/description`, `/resources`; see `mcpseal snapshot --format json` for the paths"
            }
        }
    }
}

/// Reads and checks the lock file; `None` when it does not exist.
///
/// # Errors
/// [`WorkflowError::Read`] or [`WorkflowError::Lock`].
pub fn read_lock(path: &Path) -> Result<Option<LockFile>, WorkflowError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(WorkflowError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    LockFile::parse(&text)
        .map(Some)
        .map_err(|source| WorkflowError::Lock {
            path: path.to_owned(),
            source,
        })
}

pub(crate) async fn capture(
    conn: &Connection,
    form: Form,
    page_cap: usize,
) -> Result<TrustedCapture, SnapshotError> {
    capture_trusted(conn, &SnapshotOptions { form, page_cap }).await
}

/// How to lock.
#[derive(Debug, Clone)]
pub struct LockOptions {
    /// The lock file.
    pub path: PathBuf,
    /// The canonical form; `None` keeps the lock's (`mcpseal/1` for a new lock).
    pub form: Option<Form>,
    /// Most pages per list.
    pub page_cap: usize,
    /// Exclusions; `None` keeps the lock's.
    pub exclude: Option<Vec<Pointer>>,
    /// Rule switches.
    pub rules: RuleOptions,
    /// Where the version comes from.
    pub version: VersionRequest,
    /// How long to wait for another run writing the same lock file
    /// ([`crate::writer_lock`]); [`default_lock_wait`] is a good value.
    pub lock_wait: Duration,
}

/// The default wait for another `mcpseal lock` on the same file: as long as that run's two
/// captures can take when each request waits its whole `timeout` (twelve requests: the
/// handshake and the four lists, twice), and five seconds more.
pub fn default_lock_wait(timeout: Duration) -> Duration {
    timeout
        .saturating_mul(12)
        .saturating_add(Duration::from_secs(5))
}

/// What `lock` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockOutcome {
    /// Wrote a new lock file.
    Created,
    /// Same surface under a higher version: wrote the new version.
    Restamped,
    /// Changed surface under a version the rules accept: wrote it.
    Accepted,
    /// Same surface, only the exclusions changed: wrote them.
    ExclusionsUpdated,
    /// Same surface and version: nothing written.
    UpToDate,
    /// Same surface under a lower version: nothing written (never re-stamped downwards).
    KeptHigherStamp,
    /// Refused by a rule: nothing written (exit 1).
    Refused(Refusal),
    /// The surface changed between the two captures: nothing written (exit 1).
    Volatile,
}

impl LockOutcome {
    /// Whether the file was written.
    pub fn written(&self) -> bool {
        matches!(
            self,
            LockOutcome::Created
                | LockOutcome::Restamped
                | LockOutcome::Accepted
                | LockOutcome::ExclusionsUpdated
        )
    }
}

/// The result of `lock`.
#[derive(Debug, Clone)]
pub struct LockReport {
    /// What happened.
    pub outcome: LockOutcome,
    /// The lock file.
    pub path: PathBuf,
    /// The form.
    pub form: Form,
    /// The version the lock had before, if any.
    pub locked_version: Option<String>,
    /// The server version used (absent when the surface was volatile).
    pub version: Option<SourcedVersion>,
    /// The version the server reports in `serverInfo`.
    pub reported_version: Option<String>,
    /// Locked surface → captured surface (for `Volatile`: first capture → second).
    pub diff: engine::SurfaceDiff,
    /// The exclusions in force.
    pub exclude: Vec<String>,
    /// The captured surface's hash (after exclusions).
    pub sha256: String,
    /// What the server contradicted itself about ([`crate::snapshot::warnings`]).
    pub warnings: Vec<String>,
}

/// Captures the server twice and applies the lock rules (see the module docs).
///
/// The whole run holds the lock file's writer lock: it is taken before the lock file is
/// read (waiting up to `options.lock_wait` for another run) and released after the write.
///
/// The first capture uses `conn`; the second a fresh connection from `reopen` (a new process
/// for a stdio server): a stateful server refuses a second `initialize` on one session, and a
/// surface that changes from one start of the server to the next is volatile too.
///
/// # Errors
/// [`WorkflowError`]; a refusal or a volatile surface is an `Ok` report, not an error.
pub async fn lock<F>(
    conn: &Connection,
    reopen: F,
    options: &LockOptions,
) -> Result<LockReport, WorkflowError>
where
    F: AsyncFnOnce() -> Result<Connection, crate::OpenError>,
{
    let _writer =
        crate::writer_lock::acquire(&options.path, "mcpseal lock", options.lock_wait).await?;
    let existing = read_lock(&options.path)?;
    let form = match (options.form, &existing) {
        (Some(asked), Some(l)) if asked != l.form => {
            return Err(WorkflowError::FormMismatch {
                locked: l.form,
                asked,
            });
        }
        (Some(f), _) => f,
        (None, Some(l)) => l.form,
        (None, None) => Form::McpSeal1,
    };
    let pointers: Vec<Pointer> = match (&options.exclude, &existing) {
        (Some(p), _) => p.clone(),
        (None, Some(l)) => l.declared.exclude.clone(),
        (None, None) => Vec::new(),
    };
    let first = capture(conn, form, options.page_cap).await?;
    let again_conn = reopen().await?;
    let second = capture(&again_conn, form, options.page_cap).await;
    again_conn.close().await;
    let second = second?;
    let surface = first.surface.canonical_value(form);
    let hashed = exclude::apply(&surface, &pointers);
    let again = exclude::apply(&second.surface.canonical_value(form), &pointers);
    let reported = first.raw.reported_version();
    let mut report = LockReport {
        outcome: LockOutcome::Volatile,
        path: options.path.clone(),
        form,
        locked_version: existing.as_ref().map(|l| l.declared.version.clone()),
        version: None,
        reported_version: reported.clone(),
        diff: engine::SurfaceDiff::default(),
        exclude: pointers.iter().map(|p| p.as_str().to_owned()).collect(),
        sha256: sha256_hex(&jcs(&hashed)),
        warnings: crate::snapshot::warnings(&first.surface),
    };
    if hashed != again {
        report.diff = engine::diff(&hashed, &again);
        return Ok(report);
    }
    if let Some(new) = &options.exclude
        && let Some(p) = new.iter().find(|p| !p.matches(&surface))
    {
        return Err(WorkflowError::ExclusionMatchesNothing(
            p.as_str().to_owned(),
        ));
    }
    let version = settle(&options.version, reported.as_deref())?;
    let declared = Declared::new(&version.version, surface, pointers.clone());
    let decision = match &existing {
        None => LockDecision::Create,
        Some(l) => {
            let locked_version = l
                .declared
                .parsed_version()
                .map_err(|e| WorkflowError::Lock {
                    path: options.path.clone(),
                    source: LockError::Version(e),
                })?;
            let before = exclude::apply(&l.declared.surface, &pointers);
            report.diff = engine::diff(&before, &hashed);
            let mut kinds = change_kinds(&report.diff);
            kinds.any = kinds.any || sha256_hex(&jcs(&before)) != declared.sha256;
            decide_lock(
                Some(&locked_version),
                &version.version,
                &kinds,
                &options.rules,
            )
        }
    };
    let exclusions_changed = existing
        .as_ref()
        .is_some_and(|l| l.declared.exclude != pointers);
    report.version = Some(version);
    report.outcome = match decision {
        LockDecision::Create => LockOutcome::Created,
        LockDecision::Restamp => LockOutcome::Restamped,
        LockDecision::Accept => LockOutcome::Accepted,
        LockDecision::UpToDate if exclusions_changed => LockOutcome::ExclusionsUpdated,
        LockDecision::UpToDate => LockOutcome::UpToDate,
        LockDecision::KeepHigherStamp => LockOutcome::KeptHigherStamp,
        LockDecision::Refuse(r) => LockOutcome::Refused(r),
    };
    if report.outcome.written() {
        let mut file = LockFile::new(form, declared);
        if report.outcome == LockOutcome::ExclusionsUpdated
            && let Some(l) = &existing
        {
            // Only the exclusions change: keep the stamped version.
            file.declared.version = l.declared.version.clone();
        }
        if let Some(l) = existing {
            file.extra = l.extra;
        }
        crate::atomic::write_atomic(&options.path, file.render().as_bytes()).map_err(|source| {
            WorkflowError::Write {
                path: options.path.clone(),
                source,
            }
        })?;
    }
    Ok(report)
}
