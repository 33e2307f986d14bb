//! Running a published version isolated: the launcher, what it is asked to do, and what it
//! could really do.
//!
//! The workspace forbids `unsafe`, so there is no `pre_exec` hook between `fork` and `exec`.
//! Instead a small **launcher** is the program spawned: mcpseal re-executes itself with a
//! hidden subcommand ([`LAUNCHER_SUBCOMMAND`], wired by the CLI to [`run_launcher`]), or the
//! `mcpseal-sandbox` binary of this crate is run. The launcher is a fresh, single-threaded
//! process; it applies the isolation to itself and then `exec`s the server, which inherits it:
//!
//! 1. network (Linux): `unshare(CLONE_NEWUSER | CLONE_NEWNET)` with the caller's uid/gid mapped
//!    to themselves, else `unshare(CLONE_NEWNET)` (works with `CAP_SYS_ADMIN`); the new network
//!    namespace has only a loopback interface, down — even `127.0.0.1` is unreachable. When
//!    neither works, Landlock's TCP rules (kernel ABI ≥ 4) deny TCP connect and bind instead,
//!    reported as partial;
//! 2. filesystem (Linux ≥ 5.13): a Landlock ruleset allowing read/execute beneath the install
//!    directory, the interpreter's prefix and the system's read-only paths, read/write beneath
//!    the temporary home, and nothing else; signals and abstract UNIX sockets scoped to the
//!    sandbox (ABI ≥ 6);
//! 3. environment: cleared, then only the variables named with `--keep-env` are passed on
//!    (their values come from the launcher's own environment, so no value is ever in an argv);
//! 4. the report: an [`IsolationReport`] written to `--report FILE` before the `exec`, the file
//!    opened before the Landlock restriction and kept outside every allowed path, so the
//!    server cannot rewrite it under Landlock.
//!
//! What could not be applied is recorded and the launch goes on, unless `--require` was given:
//! then the launcher exits with status 125 and says what was missing on stderr.

mod launcher;
#[cfg(target_os = "linux")]
mod linux;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use launcher::{LAUNCHER_FAILED, run_launcher};

/// The hidden subcommand the CLI dispatches to [`run_launcher`] (before it starts any thread).
pub const LAUNCHER_SUBCOMMAND: &str = "__sandbox-exec";

/// The version of the [`IsolationReport`] format.
pub const ISOLATION_SCHEMA_VERSION: u32 = 1;

/// Read-only system paths every sandboxed server may read and execute from (those that exist).
pub const SYSTEM_READ_ONLY: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/dev", "/proc", "/sys",
];

/// Paths every sandboxed server may write (devices a program expects to open for writing).
pub const SYSTEM_READ_WRITE: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// The program that applies the isolation and `exec`s the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launcher {
    /// The executable.
    pub program: PathBuf,
    /// Arguments before the launcher's own (the hidden subcommand, when re-executing mcpseal).
    pub leading_args: Vec<OsString>,
}

impl Launcher {
    /// The running executable with the hidden subcommand: what the `mcpseal` binary uses.
    ///
    /// # Errors
    /// When the running executable's path cannot be read.
    pub fn current_exe() -> std::io::Result<Launcher> {
        Ok(Launcher {
            program: std::env::current_exe()?,
            leading_args: vec![LAUNCHER_SUBCOMMAND.into()],
        })
    }

    /// A standalone launcher binary (`mcpseal-sandbox`), which takes the launcher's arguments
    /// directly.
    pub fn standalone(program: impl Into<PathBuf>) -> Launcher {
        Launcher {
            program: program.into(),
            leading_args: Vec::new(),
        }
    }
}

/// What isolation to ask for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Isolation {
    /// Cut the network off (default on; `--allow-network` turns it off).
    pub network: bool,
    /// Restrict the filesystem with Landlock (default on).
    pub filesystem: bool,
    /// Refuse to start the server when asked isolation is not achieved (default off: record
    /// it and go on).
    pub require: bool,
    /// Extra read/execute paths, beyond the install directory and [`SYSTEM_READ_ONLY`].
    pub read_only: Vec<PathBuf>,
    /// Extra read/write paths, beyond the temporary home.
    pub read_write: Vec<PathBuf>,
}

impl Default for Isolation {
    fn default() -> Self {
        Isolation {
            network: true,
            filesystem: true,
            require: false,
            read_only: Vec::new(),
            read_write: Vec::new(),
        }
    }
}

/// What isolation the launcher achieved for one launch: data a report prints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IsolationReport {
    /// [`ISOLATION_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Network isolation.
    pub network: NetworkIsolation,
    /// Filesystem isolation.
    pub filesystem: FilesystemIsolation,
    /// The environment was cleared and only named variables passed (always true: the
    /// launcher does it on every platform).
    pub environment_scrubbed: bool,
}

/// Network isolation for one launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum NetworkIsolation {
    /// Not asked for (`--allow-network`).
    NotRequested,
    /// No network at all: a new network namespace.
    Isolated {
        /// `user and network namespace` or `network namespace`.
        method: String,
    },
    /// Some traffic denied, some not.
    Partial {
        /// What is denied.
        method: String,
        /// Why full isolation was not available.
        reason: String,
    },
    /// Nothing could be applied.
    Unavailable {
        /// Why (`EPERM on unshare(CLONE_NEWUSER|CLONE_NEWNET); …`).
        reason: String,
    },
}

/// Filesystem isolation for one launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum FilesystemIsolation {
    /// Not asked for.
    NotRequested,
    /// A Landlock ruleset is in force.
    Enforced {
        /// The kernel's Landlock ABI.
        abi: u32,
        /// Every requested restriction is enforced (`false`: the kernel's ABI lacks some; see
        /// `not_covered`).
        complete: bool,
        /// What this kernel's Landlock cannot restrict.
        not_covered: Vec<String>,
        /// Read/execute paths allowed.
        read_only: Vec<String>,
        /// Read/write paths allowed.
        read_write: Vec<String>,
    },
    /// Landlock could not be applied.
    Unavailable {
        /// Why.
        reason: String,
    },
}

impl IsolationReport {
    /// One line per kind, for a report's "what was not measured" section and the terminal:
    /// `network isolation: unavailable (EPERM on unshare(…))`.
    pub fn lines(&self) -> Vec<String> {
        let network = match &self.network {
            NetworkIsolation::NotRequested => "network isolation: off (network allowed)".into(),
            NetworkIsolation::Isolated { method } => format!("network isolation: on ({method})"),
            NetworkIsolation::Partial { method, reason } => {
                format!("network isolation: partial ({method}; {reason})")
            }
            NetworkIsolation::Unavailable { reason } => {
                format!("network isolation: unavailable ({reason})")
            }
        };
        let filesystem = match &self.filesystem {
            FilesystemIsolation::NotRequested => "filesystem isolation: off".into(),
            FilesystemIsolation::Enforced {
                abi,
                complete,
                not_covered,
                ..
            } => {
                if *complete {
                    format!("filesystem isolation: on (Landlock ABI {abi})")
                } else {
                    format!(
                        "filesystem isolation: on (Landlock ABI {abi}; this kernel cannot restrict: {})",
                        not_covered.join(", ")
                    )
                }
            }
            FilesystemIsolation::Unavailable { reason } => {
                format!("filesystem isolation: unavailable ({reason})")
            }
        };
        vec![network, filesystem]
    }

    /// Network and filesystem isolation both fully on.
    pub fn is_complete(&self) -> bool {
        matches!(self.network, NetworkIsolation::Isolated { .. })
            && matches!(
                self.filesystem,
                FilesystemIsolation::Enforced { complete: true, .. }
            )
    }

    /// Reads a report the launcher wrote (bounded: 1 MiB).
    ///
    /// # Errors
    /// When it is missing (the launcher did not get that far), too large or unreadable.
    pub fn read(path: &Path) -> std::io::Result<IsolationReport> {
        let meta = std::fs::metadata(path)?;
        if meta.len() > 1024 * 1024 {
            return Err(std::io::Error::other("the isolation report is over 1 MiB"));
        }
        let bytes = std::fs::read(path)?;
        serde_json::from_slice(&bytes).map_err(std::io::Error::other)
    }
}

/// The launcher's arguments (after [`Launcher::leading_args`]) for one launch.
pub(crate) fn launcher_args(
    isolation: &Isolation,
    read_only: &[PathBuf],
    read_write: &[PathBuf],
    keep_env: &[String],
    report: Option<&Path>,
    probe: bool,
) -> Vec<OsString> {
    let mut a: Vec<OsString> = Vec::new();
    if isolation.network {
        a.push("--no-network".into());
    }
    if isolation.filesystem {
        a.push("--landlock".into());
    }
    if isolation.require {
        a.push("--require".into());
    }
    if probe {
        a.push("--probe".into());
    }
    for p in read_only {
        a.push("--ro".into());
        a.push(p.clone().into_os_string());
    }
    for p in read_write {
        a.push("--rw".into());
        a.push(p.clone().into_os_string());
    }
    for k in keep_env {
        a.push("--keep-env".into());
        a.push(k.into());
    }
    if let Some(r) = report {
        a.push("--report".into());
        a.push(r.as_os_str().to_owned());
    }
    a.push("--".into());
    a
}

/// Asks the launcher what isolation this machine gives: it applies `isolation` (with only the
/// system paths and a temporary directory allowed) and prints its report instead of starting
/// anything. Once per run is enough for the run-level lines; each launch's own report is the
/// per-row truth.
///
/// # Errors
/// When the launcher cannot be run or prints no report.
pub async fn probe(launcher: &Launcher, isolation: &Isolation) -> Result<IsolationReport, String> {
    let tmp = tempfile::Builder::new()
        .prefix("mcpseal-probe-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let ro: Vec<PathBuf> = SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect();
    let rw = vec![tmp.path().to_owned()];
    let mut isolation = isolation.clone();
    isolation.require = false;
    let args = launcher_args(&isolation, &ro, &rw, &[], None, true);
    let r = crate::process::Run::new(&launcher.program, std::time::Duration::from_secs(30))
        .args(&launcher.leading_args)
        .args(args)
        .arg("true")
        .stdout(crate::process::Stdout::Capture(1024 * 1024));
    let shown = r.display();
    let out = crate::process::run(r)
        .await
        .map_err(|e| e.message(&shown, std::time::Duration::from_secs(30)))?;
    if !out.success {
        return Err(format!(
            "the launcher `{shown}` failed with {}: {}",
            out.status_text(),
            out.tail.join(" | ")
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("the launcher printed no report: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_say_what_happened() {
        let r = IsolationReport {
            schema_version: 1,
            network: NetworkIsolation::Unavailable {
                reason: "EPERM on unshare(CLONE_NEWUSER|CLONE_NEWNET)".into(),
            },
            filesystem: FilesystemIsolation::Enforced {
                abi: 3,
                complete: false,
                not_covered: vec!["TCP".into()],
                read_only: vec![],
                read_write: vec![],
            },
            environment_scrubbed: true,
        };
        assert_eq!(
            r.lines(),
            [
                "network isolation: unavailable (EPERM on unshare(CLONE_NEWUSER|CLONE_NEWNET))",
                "filesystem isolation: on (Landlock ABI 3; this kernel cannot restrict: TCP)"
            ]
        );
        assert!(!r.is_complete());
        let json = serde_json::to_value(&r).expect("serialises");
        assert_eq!(json["network"]["state"], "unavailable");
        assert_eq!(json["filesystem"]["notCovered"][0], "TCP");
    }
}
