//! The launcher process: parse its arguments, isolate itself, write the report, `exec`.
//!
//! ```text
//! mcpseal __sandbox-exec [--no-network] [--landlock] [--require] [--probe]
//!                        [--ro PATH]... [--rw PATH]... [--keep-env NAME]... [--report FILE]
//!                        -- PROGRAM [ARGS]...
//! ```
//!
//! Exit status when it cannot start the server: 125 (bad arguments, required isolation
//! missing), 126 (the program cannot be executed), 127 (it does not exist). Messages go to
//! stderr prefixed `mcpseal sandbox:`.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use super::{FilesystemIsolation, ISOLATION_SCHEMA_VERSION, IsolationReport, NetworkIsolation};

/// The launcher's exit status when it refuses or fails before the `exec`.
pub const LAUNCHER_FAILED: u8 = 125;

#[derive(Debug, Default)]
struct Args {
    no_network: bool,
    landlock: bool,
    require: bool,
    probe: bool,
    read_only: Vec<PathBuf>,
    read_write: Vec<PathBuf>,
    keep_env: Vec<OsString>,
    report: Option<PathBuf>,
    program: OsString,
    args: Vec<OsString>,
}

fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Args, String> {
    let mut it = args.into_iter();
    let mut a = Args::default();
    let value = |it: &mut dyn Iterator<Item = OsString>, flag: &str| {
        it.next().ok_or_else(|| format!("`{flag}` needs a value"))
    };
    loop {
        let Some(arg) = it.next() else {
            return Err("missing `-- PROGRAM`".into());
        };
        match arg.to_str() {
            Some("--no-network") => a.no_network = true,
            Some("--landlock") => a.landlock = true,
            Some("--require") => a.require = true,
            Some("--probe") => a.probe = true,
            Some("--ro") => a.read_only.push(value(&mut it, "--ro")?.into()),
            Some("--rw") => a.read_write.push(value(&mut it, "--rw")?.into()),
            Some("--keep-env") => a.keep_env.push(value(&mut it, "--keep-env")?),
            Some("--report") => a.report = Some(value(&mut it, "--report")?.into()),
            Some("--") => break,
            _ => {
                return Err(format!(
                    "unknown launcher argument `{}`",
                    arg.to_string_lossy()
                ));
            }
        }
    }
    a.program = it.next().ok_or("missing PROGRAM after `--`")?;
    a.args = it.collect();
    Ok(a)
}

fn say(msg: &str) {
    let _ = writeln!(std::io::stderr(), "mcpseal sandbox: {msg}");
}

/// The launcher's `main`: `args` are its arguments (after the hidden subcommand). On success
/// it does not return (the process becomes the server); it returns an exit status when it
/// cannot start it, or after `--probe`.
///
/// Must run before the process starts any thread (a new user namespace needs a
/// single-threaded caller): the CLI calls it before building its async runtime.
pub fn run_launcher(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let a = match parse(args) {
        Ok(a) => a,
        Err(e) => {
            say(&format!("error: {e}"));
            return ExitCode::from(LAUNCHER_FAILED);
        }
    };
    // Opened before any restriction and kept open: the report's path is outside every
    // allowed path, so under Landlock the server cannot reopen it.
    let mut report_file = match &a.report {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Some(f),
            Err(e) => {
                say(&format!(
                    "error: cannot write the report `{}`: {e}",
                    p.display()
                ));
                return ExitCode::from(LAUNCHER_FAILED);
            }
        },
        None => None,
    };
    let report = isolate(&a);
    let json = serde_json::to_vec_pretty(&report).unwrap_or_default();
    if let Some(f) = &mut report_file
        && f.write_all(&json).and_then(|()| f.flush()).is_err()
    {
        say("error: cannot write the isolation report");
        return ExitCode::from(LAUNCHER_FAILED);
    }
    drop(report_file);
    if a.probe {
        let mut out = std::io::stdout();
        let _ = out.write_all(&json).and_then(|()| out.flush());
        return ExitCode::SUCCESS;
    }
    if a.require {
        let network_missing =
            a.no_network && !matches!(report.network, NetworkIsolation::Isolated { .. });
        let fs_missing =
            a.landlock && !matches!(report.filesystem, FilesystemIsolation::Enforced { .. });
        if network_missing || fs_missing {
            say(&format!(
                "error: the required isolation is not available: {}",
                report.lines().join("; ")
            ));
            return ExitCode::from(LAUNCHER_FAILED);
        }
    }
    let env: Vec<(OsString, OsString)> = a
        .keep_env
        .iter()
        .filter_map(|k| std::env::var_os(k).map(|v| (k.clone(), v)))
        .collect();
    exec(&a, &env)
}

#[cfg(unix)]
fn exec(a: &Args, env: &[(OsString, OsString)]) -> ExitCode {
    let e = crate::process::exec(&a.program, &a.args, env);
    say(&format!(
        "error: cannot execute `{}`: {e}",
        a.program.to_string_lossy()
    ));
    ExitCode::from(if e.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    })
}

#[cfg(not(unix))]
fn exec(_a: &Args, _env: &[(OsString, OsString)]) -> ExitCode {
    say("error: the sandbox launcher needs a Unix system");
    ExitCode::from(LAUNCHER_FAILED)
}

#[cfg(target_os = "linux")]
fn isolate(a: &Args) -> IsolationReport {
    use super::linux;
    let (mut network, namespace_error) = if a.no_network {
        match linux::isolate_network() {
            Ok(method) => (NetworkIsolation::Isolated { method }, None),
            Err(reason) => (
                NetworkIsolation::Unavailable {
                    reason: reason.clone(),
                },
                Some(reason),
            ),
        }
    } else {
        (NetworkIsolation::NotRequested, None)
    };
    let need_net_fallback = namespace_error.is_some();
    let filesystem = if a.landlock || need_net_fallback {
        let fs = a
            .landlock
            .then_some((a.read_only.as_slice(), a.read_write.as_slice()));
        let outcome = linux::restrict(fs, need_net_fallback);
        if let Some(err) = &namespace_error {
            network = linux::fallback_state(&outcome, err);
        }
        outcome.filesystem
    } else {
        FilesystemIsolation::NotRequested
    };
    IsolationReport {
        schema_version: ISOLATION_SCHEMA_VERSION,
        network,
        filesystem,
        environment_scrubbed: true,
    }
}

#[cfg(not(target_os = "linux"))]
fn isolate(a: &Args) -> IsolationReport {
    IsolationReport {
        schema_version: ISOLATION_SCHEMA_VERSION,
        network: if a.no_network {
            NetworkIsolation::Unavailable {
                reason: "network namespaces are Linux-only".into(),
            }
        } else {
            NetworkIsolation::NotRequested
        },
        filesystem: if a.landlock {
            FilesystemIsolation::Unavailable {
                reason: "Landlock is Linux-only".into(),
            }
        } else {
            FilesystemIsolation::NotRequested
        },
        environment_scrubbed: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn arguments() {
        let a = parse(os(&[
            "--no-network",
            "--landlock",
            "--ro",
            "/usr",
            "--rw",
            "/tmp/h",
            "--keep-env",
            "PATH",
            "--report",
            "/tmp/r.json",
            "--",
            "node",
            "--",
            "x",
        ]))
        .expect("parses");
        assert!(a.no_network && a.landlock && !a.require && !a.probe);
        assert_eq!(a.read_only, [PathBuf::from("/usr")]);
        assert_eq!(a.program, "node");
        assert_eq!(a.args, os(&["--", "x"]));
        assert!(parse(os(&["--ro"])).is_err());
        assert!(parse(os(&["--bogus", "--", "x"])).is_err());
        assert!(parse(os(&["--no-network", "--"])).is_err());
        assert!(parse(os(&["--no-network"])).is_err());
    }
}
