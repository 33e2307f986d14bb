//! `mcpseal lock`: capture twice, apply the lock rules, write `surface.lock.json` atomically.
//!
//! The file is only ever replaced through [`crate::atomic`], and only when the rules say so:
//! a refusal, a volatile surface or any error leaves it byte-identical. One run at a time
//! reads, decides and writes a given lock file ([`crate::writer_lock`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpseal_client::{Connection, Options, Target};
use mcpseal_report::{DiffDocument, ErrorBody, ErrorKind, LockRefusal, RefusalReason};
use mcpseal_surface::lock::anonymous::{self, AnonymousError};
use mcpseal_surface::lock::{
    AnyLock, Declared, LockAnonymous, LockDecision, LockError, LockFile, Pointer, ProfileLock,
    Refusal, Relation, RuleOptions, compare, decide_lock, exclude,
};
use mcpseal_surface::{Form, jcs, sha256_hex};
use thiserror::Error;

use crate::anonymous::{AnonymousOptions, MeasureError};
use crate::described::Described;
use crate::diff::engine;
use crate::snapshot::{SnapshotError, SnapshotOptions, TrustedCapture, capture_trusted};
use crate::version_source::{VersionRequest, VersionSourceError, settle};

pub use mcpseal_report::{LockOutcome, LockReport};

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
    /// The server's `serverInfo.name` is not the one the lock was written for: most likely the
    /// wrong lock file or the wrong server, so it is not judged as drift (unless
    /// `allow_rename`).
    #[error("this lock was written for `{locked}`; the server says `{live}`")]
    Renamed {
        /// The name in the lock.
        locked: String,
        /// The name the server reports.
        live: String,
    },
    /// A new exclusion selects nothing (a typo would silently exclude nothing).
    #[error("`--exclude {0}` selects nothing in the captured surface")]
    ExclusionMatchesNothing(String),
    /// The lock's anonymous section is unusable (malformed, or edited by hand).
    #[error("`{path}`: {source}")]
    AnonymousSection {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: AnonymousError,
    },
    /// Anonymous access could not be measured (fail closed: no answer is no refusal).
    #[error("{0}")]
    Anonymous(#[from] MeasureError),
    /// `check`/`verify` of every profile: profiles of the lock that the project config gives
    /// no target (`[profiles.NAME]`); never skipped, so the run is refused before any server
    /// starts.
    #[error("{}", no_profile_target(path, missing, config.as_deref()))]
    NoProfileTarget {
        /// The lock file.
        path: PathBuf,
        /// The lock's profiles without a target.
        missing: Vec<String>,
        /// The project config's label (`mcpseal.toml`); `None`: there is none.
        config: Option<String>,
    },
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
            WorkflowError::AnonymousSection { .. } => {
                "the section is written by `mcpseal lock --anonymous`: restore it from version control, or delete the `anonymous` key and lock again"
            }
            WorkflowError::Anonymous(e) => e.hint(),
            WorkflowError::FormMismatch { .. } => {
                "drop `--form` to keep the lock's form, or delete the lock file to start over in another form"
            }
            WorkflowError::Renamed { .. } => {
                "check that `--lock` names this server's lock file; if the server was renamed on purpose, pass `--allow-rename` (the new name is then a SECURITY change to review)"
            }
            WorkflowError::NoProfileTarget { .. } => {
                "every profile of the lock is judged against its own target: add the table to the project config (`command = [\"…\"]` or `url = \"…\"`, with `env` and `cwd` as in `[server]`; docs/config.md), or judge one profile against a target given here with `--profile NAME`"
            }
            WorkflowError::ExclusionMatchesNothing(_) => {
                "pointers are JSON Pointers into the surface, with `KEY=VALUE` to pick a list item: `/tools/name=clock/description`, `/resources`; see `mcpseal snapshot --format json` for the paths"
            }
        }
    }

    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            WorkflowError::NoLock(_) => ErrorKind::NoLock,
            WorkflowError::Read { .. }
            | WorkflowError::Lock { .. }
            | WorkflowError::AnonymousSection { .. } => ErrorKind::BadLock,
            WorkflowError::Anonymous(e) => e.kind(),
            WorkflowError::Capture(e) => e.kind(),
            WorkflowError::Open(e) => e.kind(),
            WorkflowError::Version(e) => e.kind(),
            WorkflowError::FormMismatch { .. }
            | WorkflowError::ExclusionMatchesNothing(_)
            | WorkflowError::NoProfileTarget { .. }
            | WorkflowError::Renamed { .. } => ErrorKind::Usage,
            // Another writer holds the lock file: nothing could be written.
            WorkflowError::Locked(_) | WorkflowError::Write { .. } => ErrorKind::Write,
        }
    }

    /// Adds the server's last stderr line to an unreachable capture's reason: the clearest
    /// word on why a stdio server went away. Called once the connection is closed, when every
    /// line has arrived.
    pub(crate) fn with_server_stderr(self, diagnostics: &[String]) -> WorkflowError {
        match self {
            WorkflowError::Capture(e) => WorkflowError::Capture(e.with_server_stderr(diagnostics)),
            other => other,
        }
    }
}

/// The message of [`WorkflowError::NoProfileTarget`]: the profiles and the tables to add.
fn no_profile_target(path: &Path, missing: &[String], config: Option<&str>) -> String {
    let quoted: Vec<String> = missing.iter().map(|n| format!("`{n}`")).collect();
    let tables: Vec<String> = missing
        .iter()
        .map(|n| format!("`[profiles.{n}]`"))
        .collect();
    let (profile, them) = if missing.len() == 1 {
        ("profile", "it")
    } else {
        ("profiles", "them")
    };
    match config {
        Some(file) => format!(
            "`{}` has {profile} {}, but {file} gives no target for {them}: add {}",
            path.display(),
            quoted.join(", "),
            tables.join(", ")
        ),
        None => format!(
            "`{}` has {profile} {}, and no project config gives a target for {them}: add {} to mcpseal.toml",
            path.display(),
            quoted.join(", "),
            tables.join(", ")
        ),
    }
}

impl Described for WorkflowError {
    fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint().to_owned()),
        }
    }
}

/// Refuses a missing lock file before any server is started: `check` and `verify` need one,
/// and a server process or connection would be wasted on a run that cannot judge.
///
/// # Errors
/// [`WorkflowError::NoLock`].
pub fn require_lock(path: &Path) -> Result<(), WorkflowError> {
    if path.exists() {
        Ok(())
    } else {
        Err(WorkflowError::NoLock(path.to_owned()))
    }
}

/// The `serverInfo.name` a canonical surface records, when it is a string.
pub(crate) fn locked_server_name(surface: &serde_json::Value) -> Option<&str> {
    surface
        .get("server")?
        .get("serverInfo")?
        .get("name")?
        .as_str()
}

/// Refuses a capture whose server name differs from the lock's (see
/// [`WorkflowError::Renamed`]), unless `allow_rename`. A side without a name is no evidence
/// of another server: the surface comparison judges it.
///
/// # Errors
/// [`WorkflowError::Renamed`].
pub(crate) fn same_server(
    lock: &LockFile,
    live: Option<&str>,
    allow_rename: bool,
) -> Result<(), WorkflowError> {
    match (locked_server_name(&lock.declared.surface), live) {
        (Some(locked), Some(live)) if locked != live && !allow_rename => {
            Err(WorkflowError::Renamed {
                locked: locked.to_owned(),
                live: live.to_owned(),
            })
        }
        _ => Ok(()),
    }
}

/// A warning when a version given by a flag or manifest is not the one the server reports in
/// its own `serverInfo` (compared as versions, so `v1.0.0` is `1.0.0`); never a refusal: the
/// given source wins, and the user is told.
pub(crate) fn version_disagreement(
    version: &crate::version_source::SourcedVersion,
    request: &VersionRequest,
    reported: Option<&str>,
) -> Option<String> {
    let VersionRequest::Given(_) = request else {
        return None;
    };
    let reported = reported?;
    let parsed = mcpseal_surface::lock::Version::parse(reported).ok()?;
    (parsed != version.version).then(|| {
        format!(
            "the version from {} is {}, but the server's own `serverInfo.version` says {reported}; the lock is stamped {}",
            version.source, version.version, version.version
        )
    })
}

/// Reads and checks a lock file of one surface (no named profiles); `None` when it does not
/// exist. A lock with profiles is refused ([`LockError::Profiles`]) for the commands that take
/// one surface; `check` and `verify` read one with [`read_profile`].
///
/// # Errors
/// [`WorkflowError::Read`] or [`WorkflowError::Lock`].
pub fn read_lock(path: &Path) -> Result<Option<LockFile>, WorkflowError> {
    read_profile(path, None)
}

/// Reads and checks either kind of lock file; `None` when it does not exist.
///
/// # Errors
/// [`WorkflowError::Read`] or [`WorkflowError::Lock`].
pub fn read_any(path: &Path) -> Result<Option<AnyLock>, WorkflowError> {
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
    AnyLock::parse(&text)
        .map(Some)
        .map_err(|source| WorkflowError::Lock {
            path: path.to_owned(),
            source,
        })
}

/// The surface to judge: the lock itself (`profile` `None`, a lock without profiles) or one of
/// its profiles as a lock (`--profile NAME`); `None` when the file does not exist.
///
/// # Errors
/// [`WorkflowError::Lock`] with [`LockError::Profiles`] (a profile lock, no `--profile`),
/// [`LockError::NotProfiled`] (`--profile` on a lock without profiles) or
/// [`LockError::NoProfile`]; or a read error.
pub fn read_profile(path: &Path, profile: Option<&str>) -> Result<Option<LockFile>, WorkflowError> {
    let bad = |source| WorkflowError::Lock {
        path: path.to_owned(),
        source,
    };
    match (read_any(path)?, profile) {
        (None, _) => Ok(None),
        (Some(AnyLock::Plain(l)), None) => Ok(Some(l)),
        (Some(AnyLock::Plain(_)), Some(name)) => Err(bad(LockError::NotProfiled {
            name: name.to_owned(),
        })),
        (Some(AnyLock::Profiles(p)), None) => Err(bad(LockError::Profiles { names: p.names() })),
        (Some(AnyLock::Profiles(p)), Some(name)) => p.profile(name).map(Some).map_err(bad),
    }
}

/// Puts `/profiles/NAME` in front of every change's path, so a report of one profile names it
/// in every path (text, JSON, Markdown, SARIF all show the path).
pub(crate) fn name_profile(diff: &mut mcpseal_surface::SurfaceDiff, profile: Option<&str>) {
    if let Some(name) = profile {
        for c in &mut diff.changes {
            c.path = format!("/profiles/{name}{}", c.path);
        }
    }
}

/// The lock's anonymous section, checked; `None` when it has none.
///
/// # Errors
/// [`WorkflowError::AnonymousSection`].
pub fn anonymous_section(
    lock: &LockFile,
    path: &Path,
) -> Result<Option<LockAnonymous>, WorkflowError> {
    LockAnonymous::from_lock_extra(&lock.extra).map_err(|source| WorkflowError::AnonymousSection {
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
    /// Accept a lock written for another `serverInfo.name` (`--allow-rename`): the new name is
    /// then judged as a change, not refused as another server.
    pub allow_rename: bool,
    /// How long to wait for another run writing the same lock file
    /// ([`crate::writer_lock`]); [`default_lock_wait`] is a good value.
    pub lock_wait: Duration,
    /// How to measure anonymous access and lock it: on by default for HTTP, for stdio with an
    /// env configuration ([`crate::anonymous::wanted`]). `None` (`--no-anonymous`): not
    /// measured, the lock's section (if any) is kept as it is, and the report says so.
    pub anonymous: Option<AnonymousOptions>,
    /// Lock one named configuration profile (`--profile NAME`): the file is then a lock of
    /// profiles (`schemaVersion: 2`) and only this profile is judged and rewritten, the others
    /// kept byte for byte. `None`: a lock of one surface, as before profiles.
    pub profile: Option<String>,
}

/// The default wait for another `mcpseal lock` on the same file, when that run measures no
/// anonymous access: as long as its two captures can take when each request waits its whole
/// `timeout` (twelve requests: the handshake and the four lists, twice), and five seconds more.
/// [`lock_wait`] adds the anonymous probes.
pub fn default_lock_wait(timeout: Duration) -> Duration {
    lock_wait(timeout, None)
}

/// The wait for another `mcpseal lock` on the same file that measures anonymous access as
/// `anonymous` says: [`default_lock_wait`] plus every anonymous probe waiting its whole
/// `timeout` ([`AnonymousOptions::most_requests`]).
pub fn lock_wait(timeout: Duration, anonymous: Option<&AnonymousOptions>) -> Duration {
    let probes = anonymous.map_or(0, AnonymousOptions::most_requests);
    timeout
        .saturating_mul(12u32.saturating_add(probes))
        .saturating_add(Duration::from_secs(5))
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
    let bad = |source| WorkflowError::Lock {
        path: options.path.clone(),
        source,
    };
    // The profile being locked (`existing`) and, for a profile lock, the whole map it goes
    // back into (`store`).
    let (existing, mut store) = match (read_any(&options.path)?, options.profile.as_deref()) {
        (None, None) => (None, None),
        (None, Some(_)) => (None, Some(ProfileLock::new(Form::McpSeal1))),
        (Some(AnyLock::Plain(l)), None) => (Some(l), None),
        (Some(AnyLock::Plain(_)), Some(name)) => {
            return Err(bad(LockError::NotProfiled {
                name: name.to_owned(),
            }));
        }
        (Some(AnyLock::Profiles(p)), None) => {
            return Err(bad(LockError::Profiles { names: p.names() }));
        }
        (Some(AnyLock::Profiles(p)), Some(name)) => (p.profile(name).ok(), Some(p)),
    };
    // Every profile of one lock is in one form.
    let locked_form = existing.as_ref().map(|l| l.form).or_else(|| {
        store
            .as_ref()
            .filter(|p| !p.profiles.is_empty())
            .map(|p| p.form)
    });
    let form = match (options.form, locked_form) {
        (Some(asked), Some(locked)) if asked != locked => {
            return Err(WorkflowError::FormMismatch { locked, asked });
        }
        (Some(f), _) => f,
        (None, Some(locked)) => locked,
        (None, None) => Form::McpSeal1,
    };
    let pointers: Vec<Pointer> = match (&options.exclude, &existing) {
        (Some(p), _) => p.clone(),
        (None, Some(l)) => l.declared.exclude.clone(),
        (None, None) => Vec::new(),
    };
    let first = capture(conn, form, options.page_cap).await?;
    if let Some(l) = &existing {
        same_server(l, first.surface.server_name(), options.allow_rename)?;
    }
    crate::progress::waiting("second capture on a fresh connection (is the surface stable?)");
    let again_conn = reopen().await?;
    let second = capture(&again_conn, form, options.page_cap).await;
    again_conn.close().await;
    let second = second?;
    let surface = first.surface.canonical_value(form);
    let hashed = exclude::apply(&surface, &pointers);
    let again = exclude::apply(&second.surface.canonical_value(form), &pointers);
    let reported = first.raw.reported_version();
    let mut report = LockReport {
        schema_version: 1,
        outcome: LockOutcome::Volatile,
        written: false,
        lock: options.path.display().to_string(),
        profile: options.profile.clone(),
        target: conn.target().display(),
        form,
        version: None,
        version_source: None,
        locked_version: existing.as_ref().map(|l| l.declared.version.clone()),
        reported_version: reported.clone(),
        sha256: sha256_hex(&jcs(&hashed)),
        exclude: pointers.iter().map(|p| p.as_str().to_owned()).collect(),
        accepted_from: None,
        refusal: None,
        anonymous: None,
        anonymous_skipped: false,
        diff: DiffDocument::default(),
        warnings: mcpseal_report::contradiction_warnings(&first.surface),
    };
    if hashed != again {
        let mut diff = engine::diff(&hashed, &again);
        name_profile(&mut diff, options.profile.as_deref());
        report.diff = diff.into();
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
    let locked_anonymous = match &existing {
        Some(l) => anonymous_section(l, &options.path)?,
        None => None,
    };
    let measured = match &options.anonymous {
        Some(a) if crate::anonymous::wanted(conn, a) => {
            if let Some(old) = &locked_anonymous {
                a.covers(old)?;
            }
            let a = a.with_locked_routes(locked_anonymous.as_ref());
            Some(crate::anonymous::measure(conn, &first, &a).await?)
        }
        _ => None,
    };
    report.anonymous_skipped = options.anonymous.is_none();
    report.anonymous.clone_from(&measured);
    report.warnings.extend(version_disagreement(
        &version,
        &options.version,
        reported.as_deref(),
    ));
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
            // The lock against the capture, both under the exclusions about to be written.
            let mut comparison = compare(&l.declared, &surface, &pointers);
            // The anonymous section is part of the surface: its changes join the diff, and a
            // hash difference is a change even when no cell's verdict moved.
            let mut anonymous_changed = false;
            if let (Some(old), Some(new)) = (&locked_anonymous, &measured) {
                comparison.diff.changes.extend(anonymous::changes(old, new));
                anonymous_changed = old.sha256 != new.sha256;
            }
            let mut kinds = comparison.kinds();
            kinds.any = kinds.any || anonymous_changed;
            name_profile(&mut comparison.diff, options.profile.as_deref());
            report.diff = comparison.diff.into();
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
    report.version = Some(version.version.to_string());
    report.version_source = Some(version.source.clone());
    report.outcome = match decision {
        LockDecision::Create => LockOutcome::Created,
        LockDecision::Restamp => LockOutcome::Restamped,
        LockDecision::Accept => LockOutcome::Accepted,
        LockDecision::UpToDate if exclusions_changed => LockOutcome::ExclusionsUpdated,
        LockDecision::UpToDate if locked_anonymous.is_none() && measured.is_some() => {
            LockOutcome::AnonymousRecorded
        }
        LockDecision::UpToDate => LockOutcome::UpToDate,
        LockDecision::Refuse(r) => {
            report.accepted_from = r.accepted.as_ref().map(ToString::to_string);
            report.refusal = Some(refusal(&r));
            LockOutcome::Refused
        }
    };
    report.written = report.outcome.written();
    if report.written {
        let declared = Declared::new(&version.version, surface, pointers);
        let mut file = LockFile::new(form, declared);
        if matches!(
            report.outcome,
            LockOutcome::ExclusionsUpdated | LockOutcome::AnonymousRecorded
        ) && let Some(l) = &existing
        {
            // Only the exclusions or a first anonymous section change: keep the stamped
            // version.
            file.declared.version = l.declared.version.clone();
        }
        if let Some(l) = existing {
            file.extra = l.extra;
        }
        if let Some(a) = &measured {
            a.store(&mut file.extra);
        }
        let bytes = match (&mut store, options.profile.as_deref()) {
            (Some(profiles), Some(name)) => {
                profiles.set(name, file);
                profiles.render()
            }
            _ => file.render(),
        };
        crate::atomic::write_atomic(&options.path, bytes.as_bytes()).map_err(|source| {
            WorkflowError::Write {
                path: options.path.clone(),
                source,
            }
        })?;
    }
    Ok(report)
}

/// The report's words for a refusal.
fn refusal(r: &Refusal) -> LockRefusal {
    use mcpseal_surface::lock::RefusalReason as Rule;
    LockRefusal {
        reason: match r.reason {
            Rule::NotHigher(Relation::Lower) => RefusalReason::LowerVersion,
            Rule::NotHigher(_) => RefusalReason::SameVersion,
            Rule::BreakWithoutNewLine => RefusalReason::BreakWithoutNewLine,
            Rule::AdditiveWithoutMinor => RefusalReason::AdditiveWithoutMinor,
            Rule::Security => RefusalReason::Security,
            Rule::UnchangedLowerVersion => RefusalReason::UnchangedLowerVersion,
        },
        need: r.need,
    }
}

/// `mcpseal lock`: opens `target` (and a second, fresh connection for the second capture),
/// locks, closes, and adds the server's last stderr line to an unreachable error.
///
/// # Errors
/// [`WorkflowError`]; a refusal or a volatile surface is an `Ok` report.
pub async fn run(
    target: &Target,
    connect: Options,
    options: &LockOptions,
) -> Result<LockReport, WorkflowError> {
    let conn = crate::open(target, connect.clone()).await?;
    let reopen = async || crate::open(target, connect.clone()).await;
    let result = lock(&conn, reopen, options).await;
    conn.close().await;
    result.map_err(|e| e.with_server_stderr(&conn.diagnostics()))
}

#[cfg(test)]
mod wait_tests {
    use super::*;

    #[test]
    fn the_wait_covers_the_anonymous_probes() {
        let t = Duration::from_secs(2);
        assert_eq!(default_lock_wait(t), Duration::from_secs(29));
        let mut a = AnonymousOptions::default();
        assert_eq!(lock_wait(t, Some(&a)), Duration::from_secs(2 * 22 + 5));
        a.routes.push("/mcp/other".into());
        assert_eq!(lock_wait(t, Some(&a)), Duration::from_secs(2 * 32 + 5));
        assert!(lock_wait(t, Some(&a)) > default_lock_wait(t));
    }
}
