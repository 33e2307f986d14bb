//! The launch plan: what the MCP client should spawn to start an installed version isolated.
//!
//! The plan's argv starts with the launcher ([`crate::sandbox`]), which isolates itself and
//! `exec`s the server's own argv. The environment the spawner sets is the whole environment
//! the server gets: the launcher drops every other variable. It holds:
//!
//! * `PATH` (the caller's, or `/usr/local/bin:/usr/bin:/bin`),
//! * `HOME` and `TMPDIR`: directories in a fresh temporary directory, removed when the plan
//!   is dropped (keep the plan alive while the server runs),
//! * the locale (`LANG`, `LANGUAGE`, `LC_*`) as the caller has it,
//! * what the caller adds (`--env K=V`).
//!
//! Paths the server may read and execute: the install directory, the interpreter's
//! installation (found by resolving the program's real path: `…/bin/node` allows `…/`),
//! [`crate::sandbox::SYSTEM_READ_ONLY`], and what the caller adds; it may write only under the
//! temporary directory's `home/` and `tmp/`, and [`crate::sandbox::SYSTEM_READ_WRITE`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::entry::{EntryCommand, choose};
use crate::error::LaunchError;
use crate::install::Installed;
use crate::sandbox::{
    Isolation, IsolationReport, Launcher, SYSTEM_READ_ONLY, SYSTEM_READ_WRITE, launcher_args,
};

/// How to launch.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// The entry point to start (`--bin`); required when there are several.
    pub bin: Option<String>,
    /// Arguments appended to the entry point's command (`--args`).
    pub args: Vec<String>,
    /// Environment variables added (`--env K=V`).
    pub env: Vec<(String, String)>,
    /// The isolation to ask for.
    pub isolation: Isolation,
    /// The launcher to spawn.
    pub launcher: Launcher,
    /// `node` for npm entry points (looked up on `PATH` unless absolute).
    pub node: PathBuf,
    /// Where the per-launch temporary directory goes (default: the system's).
    pub temp_root: Option<PathBuf>,
}

impl LaunchOptions {
    /// Defaults with `launcher`: full isolation, no extra args or env, `node` from `PATH`.
    pub fn new(launcher: Launcher) -> LaunchOptions {
        LaunchOptions {
            bin: None,
            args: Vec::new(),
            env: Vec::new(),
            isolation: Isolation::default(),
            launcher,
            node: "node".into(),
            temp_root: None,
        }
    }
}

/// What to spawn, and the temporary home it uses (removed on drop).
#[derive(Debug)]
pub struct LaunchPlan {
    /// The full argv to spawn: launcher, its arguments, `--`, then [`LaunchPlan::server_argv`].
    pub argv: Vec<String>,
    /// The server's own argv (what reports show; never the launcher's).
    pub server_argv: Vec<String>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The whole environment of the server, to set on the spawned process (the launcher drops
    /// every variable not listed here).
    pub env: Vec<(String, String)>,
    /// The temporary home.
    pub home: PathBuf,
    /// Where the launcher writes the [`IsolationReport`] before it `exec`s.
    pub report_path: PathBuf,
    /// Read/execute paths allowed.
    pub read_only: Vec<PathBuf>,
    /// Read/write paths allowed.
    pub read_write: Vec<PathBuf>,
    _run_dir: tempfile::TempDir,
}

impl LaunchPlan {
    /// The isolation the launcher achieved for this launch. Read it once the server answered
    /// (the launcher writes it before the `exec`).
    ///
    /// # Errors
    /// When there is no report yet (the launcher has not run, or failed first).
    pub fn isolation_report(&self) -> std::io::Result<IsolationReport> {
        IsolationReport::read(&self.report_path)
    }
}

fn utf8(p: &Path) -> Result<String, LaunchError> {
    p.to_str()
        .map(str::to_owned)
        .ok_or_else(|| LaunchError::ProgramNotFound {
            program: format!("{} (not UTF-8)", p.display()),
        })
}

/// The launch plan for `installed` with `options`.
///
/// # Errors
/// [`LaunchError`]: the entry point cannot be chosen, a program is not on `PATH`, the
/// temporary home cannot be made, an `--env` name is invalid.
pub fn plan(installed: &Installed, options: &LaunchOptions) -> Result<LaunchPlan, LaunchError> {
    let package = format!("{}@{}", installed.source.id(), installed.version);
    let entry = choose(&package, &installed.entry_points, options.bin.as_deref())?;
    let path_var = std::env::var("PATH")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());

    let (program, mut args): (PathBuf, Vec<String>) = match &entry.command {
        EntryCommand::Node { script } => (
            which(&options.node, &path_var)?,
            vec![utf8(&installed.dir.join(script))?],
        ),
        EntryCommand::Python { script } => {
            let venv = match &installed.runtime {
                crate::install::Runtime::Python { venv } => installed.dir.join(venv),
                _ => installed.dir.join("venv"),
            };
            (
                venv.join("bin").join("python"),
                vec![utf8(&installed.dir.join(script))?],
            )
        }
        EntryCommand::Argv { program, args } => {
            let p = Path::new(program);
            let resolved = if p.is_absolute() {
                p.to_owned()
            } else if program.contains('/') {
                installed.workdir.join(p)
            } else {
                which(p, &path_var)?
            };
            (resolved, args.clone())
        }
    };
    args.extend(options.args.iter().cloned());

    let run_dir = match &options.temp_root {
        Some(root) => tempfile::Builder::new()
            .prefix("mcpseal-run-")
            .tempdir_in(root),
        None => tempfile::Builder::new().prefix("mcpseal-run-").tempdir(),
    }
    .map_err(|source| LaunchError::TempHome {
        dir: options.temp_root.clone().unwrap_or_else(std::env::temp_dir),
        source,
    })?;
    let home = run_dir.path().join("home");
    let tmp = run_dir.path().join("tmp");
    for d in [&home, &tmp] {
        std::fs::create_dir_all(d).map_err(|source| LaunchError::TempHome {
            dir: run_dir.path().to_owned(),
            source,
        })?;
    }
    let report_path = run_dir.path().join("isolation.json");

    let mut env: Vec<(String, String)> = vec![
        ("PATH".into(), path_var),
        ("HOME".into(), utf8(&home)?),
        ("TMPDIR".into(), utf8(&tmp)?),
    ];
    for (k, v) in std::env::vars() {
        if k == "LANG" || k == "LANGUAGE" || k.starts_with("LC_") {
            env.push((k, v));
        }
    }
    for (k, v) in &options.env {
        if k.is_empty() || k.contains(['=', '\0']) {
            return Err(LaunchError::BadEnvName(k.clone()));
        }
        env.retain(|(existing, _)| existing != k);
        env.push((k.clone(), v.clone()));
    }

    let mut read_only: Vec<PathBuf> = SYSTEM_READ_ONLY.iter().map(PathBuf::from).collect();
    read_only.push(installed.dir.clone());
    if let Some(prefix) = installation_of(&program) {
        read_only.push(prefix);
    }
    read_only.extend(options.isolation.read_only.iter().cloned());
    read_only.dedup();
    let mut read_write = vec![home.clone(), tmp.clone()];
    read_write.extend(SYSTEM_READ_WRITE.iter().map(PathBuf::from));
    read_write.extend(options.isolation.read_write.iter().cloned());

    let keep: Vec<String> = env.iter().map(|(k, _)| k.clone()).collect();
    let mut argv: Vec<String> = vec![utf8(&options.launcher.program)?];
    for a in options
        .launcher
        .leading_args
        .iter()
        .cloned()
        .chain(launcher_args(
            &options.isolation,
            &read_only,
            &read_write,
            &keep,
            Some(&report_path),
            false,
        ))
    {
        argv.push(os_utf8(a)?);
    }
    let server_argv: Vec<String> = std::iter::once(utf8(&program)?).chain(args).collect();
    argv.extend(server_argv.iter().cloned());
    Ok(LaunchPlan {
        argv,
        server_argv,
        cwd: installed.workdir.clone(),
        env,
        home,
        report_path,
        read_only,
        read_write,
        _run_dir: run_dir,
    })
}

fn os_utf8(s: OsString) -> Result<String, LaunchError> {
    s.into_string().map_err(|s| LaunchError::ProgramNotFound {
        program: format!("{} (not UTF-8)", s.to_string_lossy()),
    })
}

/// `program` as an absolute path: itself when it has a separator, else the first executable
/// of that name on `path_var`.
fn which(program: &Path, path_var: &str) -> Result<PathBuf, LaunchError> {
    if program.components().count() > 1 || program.is_absolute() {
        return Ok(program.to_owned());
    }
    for dir in path_var.split(':').filter(|d| !d.is_empty()) {
        let candidate = Path::new(dir).join(program);
        if is_executable(&candidate) {
            return Ok(candidate);
        }
    }
    Err(LaunchError::ProgramNotFound {
        program: program.display().to_string(),
    })
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// The installation a program belongs to: the real path's `…/bin/x` gives `…`, else the real
/// path's directory. `/usr/bin/node` gives `/usr` (already a system path).
fn installation_of(program: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(program).ok()?;
    let dir = real.parent()?;
    if dir.file_name().is_some_and(|n| n == "bin") {
        dir.parent().map(Path::to_owned)
    } else {
        Some(dir.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups() {
        assert!(which(Path::new("sh"), "/nonexistent:/bin:/usr/bin").is_ok());
        assert!(matches!(
            which(Path::new("no-such-program-xyz"), "/bin:/usr/bin"),
            Err(LaunchError::ProgramNotFound { .. })
        ));
        assert_eq!(which(Path::new("./x"), "").ok(), Some(PathBuf::from("./x")));
        assert_eq!(installation_of(Path::new("/nonexistent/bin/x")), None);
    }
}
