//! `mcpseal guard`: run the pinning proxy of `mcpseal-guard` between a host and a server.
//!
//! [`prepare`] reads everything the guard needs from files — the lock, the policy, the audit
//! log — and refuses to start on any of them being missing or wrong (fail closed: a guard
//! without a usable lock would have nothing to verify against). [`run`] then opens the upstream
//! (the server command, or its URL) and serves the host on stdio or on a Streamable HTTP
//! listener until the host goes away or `shutdown` completes.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::sync::Arc;

use mcpseal_client::{Options, Target, Transport, TransportKind};
pub use mcpseal_guard::{
    AuditLog, Guard, GuardOptions, HttpFront, LockUnusable, Mode, Notes, Policy, PolicyError,
    ReviewHint, StdioEnd, Upstream,
};
use mcpseal_server::HttpOptions;

use crate::lock::{WorkflowError, read_lock};

pub mod review;

/// Items per page of the filtered lists the host sees.
pub const PAGE_SIZE: usize = 100;

/// Most pages per list the start-up listing and `guard review`/`approve` read.
pub const PAGE_CAP: usize = 1000;

/// What a guard is started with.
pub struct GuardSetup {
    /// The lock file it enforces.
    pub lock: PathBuf,
    /// The policy file (`guard.toml`); the default policy without one.
    pub policy: Option<PathBuf>,
    /// `--mode`, overriding the policy file's.
    pub mode: Option<Mode>,
    /// The audit log (JSON lines, appended, created 0600).
    pub audit: Option<PathBuf>,
    /// The commands refusals point at (rendered by the caller, without credentials).
    pub hint: ReviewHint,
    /// Notes for people (stderr).
    pub notes: Notes,
}

/// Where the host is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Front {
    /// The process's stdin and stdout.
    Stdio,
    /// A Streamable HTTP endpoint on this address (`127.0.0.1:0` picks a port).
    Http {
        /// The address.
        listen: String,
    },
}

/// Why a guard could not start or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GuardError {
    /// No lock file.
    #[error("no lock file at `{0}`")]
    NoLock(PathBuf),
    /// The lock file cannot be read or fails its checks.
    #[error(transparent)]
    Lock(WorkflowError),
    /// The lock cannot be enforced.
    #[error("`{path}`: {source}")]
    LockUnusable {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: LockUnusable,
    },
    /// The policy file cannot be read.
    #[error("cannot read the policy `{path}`: {source}")]
    PolicyRead {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The policy file is wrong.
    #[error("the policy `{path}`: {source}")]
    Policy {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: PolicyError,
    },
    /// The audit log cannot be opened.
    #[error("cannot open the audit log `{path}`: {source}")]
    Audit {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An HTTP front needs an HTTP upstream.
    #[error("`--listen` serves Streamable HTTP in front of an HTTP upstream, not a command")]
    HttpFrontNeedsUrl,
    /// The upstream cannot be opened.
    #[error(transparent)]
    Open(#[from] crate::OpenError),
    /// The upstream's surface cannot be listed at start (it crashed, timed out, refused the
    /// credentials, lied…): the guard would have nothing it could verify.
    #[error("the upstream's surface cannot be listed, so the guard does not start: {0}")]
    Listing(#[source] crate::SnapshotError),
    /// The front failed (the address cannot be bound, stdin failed…).
    #[error(transparent)]
    Serve(#[from] mcpseal_server::ServeError),
    /// Reading stdin failed.
    #[error("reading stdin failed: {0}")]
    Stdin(#[source] std::io::Error),
}

impl GuardError {
    /// The `hint:` line.
    pub fn hint(&self) -> String {
        match self {
            GuardError::NoLock(_) => {
                "write the lock first with `mcpseal lock -- COMMAND` (or `mcpseal lock URL`); a guard without a lock has nothing to verify against".into()
            }
            GuardError::Lock(e) => e.hint().into(),
            GuardError::LockUnusable { .. } => {
                "re-lock in mcpseal's own form: `mcpseal lock --form mcpseal/1 …`".into()
            }
            GuardError::PolicyRead { .. } | GuardError::Audit { .. } => {
                "check the path and its permissions".into()
            }
            GuardError::Policy { source, .. } => source.hint(),
            GuardError::HttpFrontNeedsUrl => {
                "give the server's URL with `--upstream URL`, or drop `--listen` to serve stdio".into()
            }
            GuardError::Open(e) => e.hint().into(),
            GuardError::Listing(e) => format!(
                "{}; the guard forwards nothing it cannot verify",
                e.hint()
            ),
            GuardError::Serve(mcpseal_server::ServeError::Bind { .. }) => {
                "pick a free address, e.g. `--listen 127.0.0.1:0` for any port".into()
            }
            GuardError::Serve(_) | GuardError::Stdin(_) => {
                "the host stopped reading or closed its end".into()
            }
        }
    }
}

/// How a guard ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardEnd {
    /// stdio: how the front ended.
    Stdio(StdioEnd),
    /// `shutdown` completed.
    Shutdown,
}

/// Reads the lock, the policy and the audit log, and builds the guard.
///
/// # Errors
/// [`GuardError`] naming the file that is missing or wrong.
pub fn prepare(setup: GuardSetup) -> Result<Guard, GuardError> {
    let lock = match read_lock(&setup.lock) {
        Ok(Some(l)) => l,
        Ok(None) => return Err(GuardError::NoLock(setup.lock)),
        Err(e) => return Err(GuardError::Lock(e)),
    };
    let mut policy = match &setup.policy {
        Some(path) => read_policy(path)?,
        None => Policy::default(),
    };
    if let Some(mode) = setup.mode {
        policy = policy.with_mode(mode);
    }
    let audit = setup
        .audit
        .as_deref()
        .map(|path| {
            AuditLog::open(path).map_err(|source| GuardError::Audit {
                path: path.to_owned(),
                source,
            })
        })
        .transpose()?;
    let options = GuardOptions {
        policy,
        audit,
        hint: setup.hint,
        notes: setup.notes,
        page_size: PAGE_SIZE,
    };
    Guard::new(lock, options).map_err(|source| GuardError::LockUnusable {
        path: setup.lock,
        source,
    })
}

fn read_policy(path: &Path) -> Result<Policy, GuardError> {
    let text = std::fs::read_to_string(path).map_err(|source| GuardError::PolicyRead {
        path: path.to_owned(),
        source,
    })?;
    Policy::parse(&text).map_err(|source| GuardError::Policy {
        path: path.to_owned(),
        source,
    })
}

/// Opens the upstream and serves the host (see the module docs). `ready` gets the endpoint URL
/// of an HTTP front once it is bound.
///
/// Fail closed at start: before serving, the upstream's surface is listed once on a fresh
/// connection (a new process for a command, as `lock` does); a listing that fails — a crash, a
/// timeout, a 401, a list that is not served in full — ends the guard with
/// [`GuardError::Listing`] instead of a guard that would answer every host request with an
/// error.
///
/// # Errors
/// [`GuardError::Open`] when the upstream cannot be started, [`GuardError::Listing`] when its
/// surface cannot be listed, [`GuardError::Serve`] when the front cannot be bound or fails.
pub async fn run(
    guard: Guard,
    target: &Target,
    options: &Options,
    front: Front,
    ready: impl FnOnce(&str),
    shutdown: impl Future<Output = ()> + Send,
) -> Result<GuardEnd, GuardError> {
    if matches!(front, Front::Http { .. }) && matches!(target, Target::Stdio { .. }) {
        return Err(GuardError::HttpFrontNeedsUrl);
    }
    // `shutdown` is watched from the start: a stop asked for during the start-up listing (a
    // server that hangs) ends the guard there, and dropping the listing's connection kills the
    // server it started.
    let mut shutdown = pin!(shutdown);
    let started = async {
        list_upstream(target, options, guard.lock().form).await?;
        Transport::open(target, options)
            .await
            .map_err(|e| GuardError::Open(crate::OpenError::from(e)))
    };
    let (transport, inbox) = tokio::select! {
        opened = started => opened?,
        () = &mut shutdown => return Ok(GuardEnd::Shutdown),
    };
    let upstream = Arc::new(Upstream::new(transport, options.timeout));
    let guard = Arc::new(guard);
    match front {
        Front::Stdio => {
            let served = mcpseal_guard::serve_stdio(
                guard,
                Arc::clone(&upstream),
                inbox,
                tokio::io::stdin(),
                tokio::io::stdout(),
                options.timeout,
            );
            let end = tokio::select! {
                r = served => GuardEnd::Stdio(r.map_err(GuardError::Stdin)?),
                () = &mut shutdown => GuardEnd::Shutdown,
            };
            if upstream.transport().kind() == TransportKind::Stdio {
                upstream.transport().close().await;
            }
            Ok(end)
        }
        Front::Http { listen } => {
            let bound = HttpFront::bind(&listen).await?;
            ready(&bound.url());
            mcpseal_guard::serve_http(
                bound,
                guard,
                upstream,
                HttpOptions::default(),
                options.timeout,
                shutdown,
            )
            .await?;
            Ok(GuardEnd::Shutdown)
        }
    }
}

/// Lists the upstream's surface on a fresh connection (a new process for a command), closes it,
/// and refuses what the guard could not verify against: any capture `lock` would refuse (a
/// crash, a timeout or a 401 is never "not served").
///
/// # Errors
/// [`GuardError::Open`] or [`GuardError::Listing`].
pub async fn list_upstream(
    target: &Target,
    options: &Options,
    form: mcpseal_surface::Form,
) -> Result<crate::TrustedCapture, GuardError> {
    let conn = crate::connect::open(target, options.clone()).await?;
    let listed = crate::lock::capture(&conn, form, PAGE_CAP).await;
    conn.close().await;
    // Since the capture records failures apart from "not served" (a timeout, a crash, a 401),
    // a capture that is not refused is one the guard can verify against.
    listed.map_err(GuardError::Listing)
}

/// The backup `mcpseal guard wrap` writes next to `config` (and `unwrap` restores).
pub fn backup_path(config: &Path) -> PathBuf {
    let mut name = config
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".mcpseal-guard.bak");
    config.with_file_name(name)
}

/// Why a host configuration could not be wrapped or unwrapped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HostConfigError {
    /// The file cannot be read or written.
    #[error("`{path}`: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("`{path}` is not JSON: {why}")]
    NotJson {
        /// The file.
        path: PathBuf,
        /// The parser's words.
        why: String,
    },
    /// The configuration cannot be wrapped.
    #[error("`{path}`: {source}")]
    Config {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: mcpseal_guard::hostconfig::HostConfigError,
    },
    /// `unwrap` without a backup.
    #[error("no backup `{0}` to restore")]
    NoBackup(PathBuf),
}

impl HostConfigError {
    /// The `hint:` line.
    pub fn hint(&self) -> &'static str {
        match self {
            HostConfigError::Io { .. } => "check the path and its permissions",
            HostConfigError::NotJson { .. } | HostConfigError::Config { .. } => {
                "pass the host's MCP configuration: Claude Desktop's or Cursor's (`mcpServers`), VS Code's `mcp.json` (`servers`); nothing was changed"
            }
            HostConfigError::NoBackup(_) => {
                "the configuration was not wrapped by `mcpseal guard wrap` (or its backup was removed); nothing was changed"
            }
        }
    }
}

/// Wraps the host configuration `config` so every server runs behind `program guard` with its
/// own lock under `locks` (see `mcpseal_guard::hostconfig`). The original bytes are kept in
/// [`backup_path`] (mode 0600) the first time; both writes are atomic and keep the
/// configuration's permissions. Wrapping a wrapped configuration changes nothing.
///
/// # Errors
/// [`HostConfigError`]; the configuration is then untouched.
pub fn wrap_config(
    config: &Path,
    program: &str,
    locks: &Path,
) -> Result<mcpseal_guard::hostconfig::Wrapped, HostConfigError> {
    let io = |source| HostConfigError::Io {
        path: config.to_owned(),
        source,
    };
    let bytes = std::fs::read(config).map_err(io)?;
    let mut value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| HostConfigError::NotJson {
            path: config.to_owned(),
            why: e.to_string(),
        })?;
    let done = mcpseal_guard::hostconfig::wrap(&mut value, program, locks).map_err(|source| {
        HostConfigError::Config {
            path: config.to_owned(),
            source,
        }
    })?;
    if done.wrapped.is_empty() {
        return Ok(done);
    }
    // Created now, so that `mcpseal lock --lock DIR/NAME.lock.json` can write there.
    std::fs::create_dir_all(locks).map_err(|source| HostConfigError::Io {
        path: locks.to_owned(),
        source,
    })?;
    let backup = backup_path(config);
    if !backup.exists() {
        write_private(&backup, &bytes, 0o600).map_err(|source| HostConfigError::Io {
            path: backup.clone(),
            source,
        })?;
    }
    let mut text =
        serde_json::to_string_pretty(&value).map_err(|e| io(std::io::Error::other(e)))?;
    text.push('\n');
    write_private(config, text.as_bytes(), mode_of(config)).map_err(io)?;
    Ok(done)
}

/// Restores the host configuration from its backup, byte for byte, and removes the backup.
///
/// # Errors
/// [`HostConfigError::NoBackup`], or an I/O error (the configuration is then untouched).
pub fn unwrap_config(config: &Path) -> Result<(), HostConfigError> {
    let backup = backup_path(config);
    let bytes = match std::fs::read(&backup) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(HostConfigError::NoBackup(backup));
        }
        Err(source) => {
            return Err(HostConfigError::Io {
                path: backup,
                source,
            });
        }
    };
    // The configuration keeps its own permissions (wrap kept them too).
    write_private(config, &bytes, mode_of(config)).map_err(|source| HostConfigError::Io {
        path: config.to_owned(),
        source,
    })?;
    std::fs::remove_file(&backup).map_err(|source| HostConfigError::Io {
        path: backup,
        source,
    })
}

#[cfg(unix)]
fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0o600)
}

#[cfg(not(unix))]
fn mode_of(_: &Path) -> u32 {
    0o600
}

/// Replaces `path` with `bytes` atomically (a synced temporary file in the same directory,
/// created with `mode` before any byte is written, renamed over it).
fn write_private(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.mcpseal-guard-{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let written = (|| {
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
