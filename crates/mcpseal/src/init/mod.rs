//! `mcpseal init`: detect the project's server, write `mcpseal.toml`, capture and write the
//! first lock, add the CI workflow, and offer the package-script entries.
//!
//! Contract:
//!
//! * **Nothing is overwritten without `force`.** A file that exists with the same bytes is
//!   `unchanged`; one that differs is `kept` (and named, with the flag that would replace it).
//!   The lock is never replaced by `init`, `force` or not: a lock changes only through
//!   `mcpseal lock`'s version rules.
//! * **A second `init` changes nothing**: every planned text depends only on the project's files
//!   and the running version, so a second run finds each file unchanged, starts no server and
//!   says so.
//! * **Fail closed**: the lock is captured first, through [`crate::lock::run`] (two captures,
//!   the same refusals as `mcpseal lock`); when that fails or the surface is volatile, nothing
//!   at all is written.
//! * `dry_run` writes nothing and starts nothing: the report carries each file's text instead.
//! * One config: when the project already has its config in `pyproject.toml` or
//!   `package.json`, no `mcpseal.toml` is written beside it (two configs are an error).

pub mod detect;
pub mod workflow;

use std::path::{Path, PathBuf};

use mcpseal_client::{Options, Target};
use mcpseal_report::{ErrorBody, ErrorKind, LockOutcome, LockReport};
use mcpseal_surface::lock::{Pointer, RuleOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::config::{
    self, CONFIG_FILE, ConfigError, ConfigKind, Flags, Loaded, ProjectConfig, ServerConfig,
    ServerTarget,
};
use crate::described::Described;
use crate::lock::{LockOptions, WorkflowError};
pub use detect::{Detected, ProjectKind};
use workflow::{WORKFLOW_PATH, WorkflowInputs};

/// The version written as `required-version` and pinned in the workflow.
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How to run `init`.
#[derive(Debug, Clone)]
pub struct InitOptions {
    /// The project directory (`""`: the working directory, so paths stay relative).
    pub dir: PathBuf,
    /// The server, when given on the command line (detection is then skipped).
    pub server: Option<ServerTarget>,
    /// Connection options for the lock's captures (the config's `env` and `cwd` are added).
    pub connect: Options,
    /// Most pages per list.
    pub page_cap: usize,
    /// Replace existing files that differ (never the lock).
    pub force: bool,
    /// Write nothing, start nothing; report the texts.
    pub dry_run: bool,
}

/// Why `init` wrote nothing (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum InitError {
    /// The existing config cannot be used.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A manifest cannot be read or parsed.
    #[error("cannot read `{file}`: {message}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// No manifest names a server.
    #[error(
        "no server found: no package.json \"bin\"/\"main\"/\"scripts.start\", no pyproject.toml [project.scripts] or server.py, no Cargo.toml binary"
    )]
    NothingDetected,
    /// Several candidates.
    #[error("more than one server found: {}", .0.join(", "))]
    Ambiguous(Vec<String>),
    /// The detected entry file does not exist (not built yet).
    #[error("the server's entry `{entry}` ({from}) does not exist")]
    EntryMissing {
        /// The file.
        entry: String,
        /// Where it was named.
        from: String,
    },
    /// The first lock could not be captured.
    #[error("the first lock could not be captured: {0}")]
    Lock(#[from] WorkflowError),
    /// The surface changed between the two captures.
    #[error(
        "the surface changed between two captures (at {0}), so no lock can be written; nothing was written"
    )]
    Volatile(String),
    /// A file could not be written.
    #[error("cannot write `{path}`: {message}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
}

impl InitError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            InitError::Config(e) => e.hint(),
            InitError::Read { .. } => "fix the manifest, or name the server: `mcpseal init -- COMMAND`".to_owned(),
            InitError::NothingDetected | InitError::Ambiguous(_) => {
                "name the server: `mcpseal init -- node dist/index.js` (a stdio command, no shell) or `mcpseal init https://…/mcp`".to_owned()
            }
            InitError::EntryMissing { .. } => {
                "build the project first (`npm run build`), or name the server: `mcpseal init -- COMMAND`".to_owned()
            }
            InitError::Lock(e) => format!(
                "{} (nothing was written; `mcpseal init --dry-run` shows the files without starting the server)",
                e.hint()
            ),
            InitError::Volatile(_) => {
                "find what changes with `mcpseal diff`, then `mcpseal lock --exclude POINTER` it and run `mcpseal init` again".to_owned()
            }
            InitError::Write { .. } => "check the directory's permissions".to_owned(),
        }
    }
}

impl Described for InitError {
    fn body(&self) -> ErrorBody {
        let kind = match self {
            InitError::Lock(e) => e.kind(),
            InitError::Config(_) | InitError::Read { .. } => ErrorKind::BadInput,
            InitError::Volatile(_) => ErrorKind::Untrustworthy,
            InitError::Write { .. } => ErrorKind::Write,
            _ => ErrorKind::Usage,
        };
        ErrorBody {
            kind,
            message: self.to_string(),
            hint: Some(self.hint()),
        }
    }
}

/// What `init` did (or, in a dry run, would do) with one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FileAction {
    /// It did not exist and was (would be) written.
    Created,
    /// It existed, differed, and was (would be) replaced (`--force`).
    Overwritten,
    /// It exists with exactly the planned bytes.
    Unchanged,
    /// It exists and differs; left alone (no `--force`, or the lock, which `init` never
    /// replaces).
    Kept,
}

impl FileAction {
    /// Whether the file is (would be) written.
    pub fn writes(self) -> bool {
        matches!(self, FileAction::Created | FileAction::Overwritten)
    }
}

/// Which file of the project setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FileRole {
    /// `mcpseal.toml`.
    Config,
    /// The lock file.
    Lock,
    /// `.github/workflows/mcpseal.yml`.
    Workflow,
}

/// One file of the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitFile {
    /// Which file.
    pub role: FileRole,
    /// The path, relative to the project.
    pub path: String,
    /// What happened to it.
    pub action: FileAction,
    /// The planned text (dry run only; `None` for the lock, which a dry run does not capture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// An entry offered for the project's own manifest (printed, never written).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Suggestion {
    /// The file it belongs in.
    pub file: String,
    /// The text to add.
    pub text: String,
}

/// `mcpseal init --format json`, schemaVersion 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal init report",
    description = "`mcpseal init --format json`, schemaVersion 1. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/init-report.schema.json")
)]
pub struct InitReport {
    /// Always 1.
    pub schema_version: u32,
    /// Nothing was written or started.
    pub dry_run: bool,
    /// The server, as a command line (`-- node dist/index.js`) or URL.
    pub server: String,
    /// Where the server came from: the manifest entry, the existing config, or `command line`.
    pub server_from: String,
    /// The project kind, when detected from a manifest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ProjectKind>,
    /// The files: the config (when init keeps one in `mcpseal.toml`), the lock, the workflow.
    /// The lock is captured and written first.
    pub files: Vec<InitFile>,
    /// The lock run's report, when a lock was captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<LockReport>,
    /// Entries offered for the project's manifest.
    pub suggestions: Vec<Suggestion>,
    /// Whether any file was (would be) written.
    pub changed: bool,
}

/// What a planned text does to the file at `path`.
fn plan(path: &Path, text: &str, force: bool) -> Result<FileAction, InitError> {
    match std::fs::read(path) {
        Ok(bytes) if bytes == text.as_bytes() => Ok(FileAction::Unchanged),
        Ok(_) if force => Ok(FileAction::Overwritten),
        Ok(_) => Ok(FileAction::Kept),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(FileAction::Created),
        Err(e) => Err(InitError::Read {
            file: path.display().to_string(),
            message: e.to_string(),
        }),
    }
}

/// The `mcpseal.toml` text for `server`: the config type itself, serialised (one definition of
/// every key), under a header naming what wrote it.
pub fn config_text(server: &ServerTarget) -> String {
    let (command, url) = match server {
        ServerTarget::Command(c) => (Some(c.clone()), None),
        ServerTarget::Url(u) => (None, Some(u.clone())),
    };
    let config = ProjectConfig {
        required_version: Some(VERSION.to_owned()),
        server: Some(ServerConfig {
            command,
            url,
            ..ServerConfig::default()
        }),
        ..ProjectConfig::default()
    };
    // A plain struct of strings and tables always serialises.
    let body = toml::to_string(&config).unwrap_or_default();
    format!(
        "#:schema https://github.com/mcpseal/mcpseal/blob/main/schemas/mcpseal-config.schema.json\n# Written by `mcpseal init`; every key is described in docs/config.md.\n{body}"
    )
}

fn shown(target: &ServerTarget) -> String {
    match target {
        ServerTarget::Command(c) => format!("-- {}", c.join(" ")),
        ServerTarget::Url(u) => u.clone(),
    }
}

fn suggestions(dir: &Path, kind: Option<ProjectKind>) -> Vec<Suggestion> {
    let mut out = Vec::new();
    if dir.join("package.json").is_file() {
        out.push(Suggestion {
            file: "package.json".to_owned(),
            text: "\"scripts\": {\n  \"surface:check\": \"mcpseal check\",\n  \"surface:lock\": \"mcpseal lock\",\n  \"surface:probe\": \"mcpseal probe\"\n}".to_owned(),
        });
    }
    if kind == Some(ProjectKind::Python) || dir.join("pyproject.toml").is_file() {
        out.push(Suggestion {
            file: "pyproject.toml".to_owned(),
            text: "# mcpseal.toml's keys may live here instead, as [tool.mcpseal] and\n# [tool.mcpseal.server]; keep one of the two (both is an error).".to_owned(),
        });
    }
    out
}

/// The connection options for the lock's captures: the config's environment first (a flag for
/// the same name wins, as on every other command) and its working directory unless given.
fn connect_with(mut connect: Options, server: Option<&config::ResolvedServer>) -> Options {
    if let Some(s) = server {
        let mut env = s.env.clone();
        env.append(&mut connect.env);
        connect.env = env;
        if connect.cwd.is_none() {
            connect.cwd = Some(s.cwd.clone());
        }
    }
    connect
}

/// Runs `init` (see the module docs).
///
/// # Errors
/// [`InitError`]; nothing is written when it is returned, except a workflow file that failed
/// after the lock and config were written (named in [`InitError::Write`]).
pub async fn run(options: &InitOptions) -> Result<InitReport, InitError> {
    let dir = options.dir.as_path();
    let existing = config::discover(dir)?;
    if let Some(l) = &existing {
        config::check_required_version(l, VERSION)?;
    }
    let existing_server = existing.as_ref().and_then(|l| {
        l.config
            .server
            .as_ref()
            .map(|s| match (&s.command, &s.url) {
                (Some(c), _) => ServerTarget::Command(c.clone()),
                (None, Some(u)) => ServerTarget::Url(u.clone()),
                (None, None) => ServerTarget::Command(Vec::new()),
            })
    });
    let replaceable = |l: &Loaded| l.kind == ConfigKind::McpsealToml && options.force;
    // The server: the command line, else the config in use, else the manifests.
    let (server, server_from, detected) = match (&options.server, &existing, existing_server) {
        (Some(s), _, _) => (s.clone(), "command line".to_owned(), None),
        (None, Some(l), Some(s)) if !replaceable(l) => (s, l.label(), None),
        _ => {
            let d = detect::detect(dir)?;
            (
                ServerTarget::Command(d.command.clone()),
                d.from.clone(),
                Some(d),
            )
        }
    };
    let kind = detected.as_ref().map(|d| d.kind).or_else(|| {
        // A server from the config or the command line: the kind from the manifests, if any
        // candidate is unambiguous, only for the workflow's setup steps.
        detect::candidates(dir)
            .ok()
            .filter(|c| c.len() == 1)
            .map(|c| c[0].kind)
    });

    let mut files = Vec::new();
    // mcpseal.toml, unless the config lives in pyproject.toml or package.json.
    let config_path = dir.join(CONFIG_FILE);
    let config_planned = match &existing {
        Some(l) if l.kind != ConfigKind::McpsealToml => None,
        _ => {
            let text = config_text(&server);
            let action = plan(&config_path, &text, options.force)?;
            Some((text, action))
        }
    };
    // The config the lock is taken under: the one written, else the one in use.
    let effective = match &config_planned {
        Some((text, action)) if action.writes() || existing.is_none() => Loaded {
            file: config_path.clone(),
            kind: ConfigKind::McpsealToml,
            config: config::parse_toml(CONFIG_FILE, text)?,
        },
        _ => existing.clone().unwrap_or_else(|| Loaded {
            file: config_path.clone(),
            kind: ConfigKind::McpsealToml,
            config: ProjectConfig::default(),
        }),
    };
    let flags = Flags {
        target_given: options.server.is_some(),
        ..Flags::default()
    };
    let resolved = config::resolve(Some(&effective), &flags);
    let lock_path = resolved.lock.value.clone();
    let lock_label = lock_path
        .strip_prefix(dir)
        .unwrap_or(&lock_path)
        .display()
        .to_string();
    let lock_exists = lock_path.exists();

    let workflow_path = dir.join(WORKFLOW_PATH);
    let python_venv = matches!(&server, ServerTarget::Command(c) if c.first().is_some_and(|p| p.starts_with(".venv")));
    let python_project = std::fs::read_to_string(dir.join("pyproject.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.contains_key("project"));
    let workflow_text = workflow::render(&WorkflowInputs {
        kind: if matches!(server, ServerTarget::Url(_)) {
            None
        } else {
            kind
        },
        version: VERSION.to_owned(),
        npm_lockfile: dir.join("package-lock.json").is_file(),
        python_venv,
        python_project,
        python_requirements: dir.join("requirements.txt").is_file(),
    });
    let workflow_action = plan(&workflow_path, &workflow_text, options.force)?;

    // The lock first: when it cannot be captured, nothing is written.
    let mut lock_report = None;
    let lock_action = if lock_exists {
        FileAction::Kept
    } else {
        FileAction::Created
    };
    if !lock_exists && !options.dry_run {
        let target = match &server {
            ServerTarget::Command(c) => Target::stdio(c.iter().cloned()),
            ServerTarget::Url(u) => Target::http(u.clone()),
        };
        let server_settings = resolved.server.as_ref().map(|s| &s.value);
        let connect = connect_with(options.connect.clone(), server_settings);
        let manifest = resolved.manifest.as_ref().map(|m| m.value.clone());
        let version = crate::version_source::resolve(None, manifest.as_deref(), dir)
            .map_err(WorkflowError::from)?;
        let exclude = resolved
            .exclude
            .value
            .iter()
            .map(|p| Pointer::parse(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| InitError::Read {
                file: effective.label(),
                message: format!("`exclude`: {e}"),
            })?;
        let lock_options = LockOptions {
            path: lock_path.clone(),
            form: None,
            page_cap: options.page_cap.max(1),
            exclude: (!exclude.is_empty()).then_some(exclude),
            rules: RuleOptions {
                strict_semver: resolved.strict_semver.value,
                deny_security: resolved.deny_security.value,
            },
            version,
            lock_wait: crate::lock::default_lock_wait(connect.timeout),
            // Anonymous access is measured only when asked (`mcpseal lock --anonymous`).
            anonymous: None,
            profile: None,
            // The first lock: there is no earlier name to differ from.
            allow_rename: false,
        };
        let report = crate::lock::run(&target, connect, &lock_options).await?;
        if report.outcome == LockOutcome::Volatile || !report.written {
            let at = report
                .diff
                .changes
                .first()
                .map(|c| c.path.clone())
                .unwrap_or_else(|| "the surface".to_owned());
            return Err(InitError::Volatile(at));
        }
        lock_report = Some(report);
    }

    let dry = |text: &str| options.dry_run.then(|| text.to_owned());
    if let Some((text, action)) = &config_planned {
        if action.writes() && !options.dry_run {
            write(&config_path, CONFIG_FILE, text)?;
        }
        files.push(InitFile {
            role: FileRole::Config,
            path: CONFIG_FILE.to_owned(),
            action: *action,
            content: dry(text),
        });
    }
    files.push(InitFile {
        role: FileRole::Lock,
        path: lock_label,
        action: lock_action,
        content: None,
    });
    if workflow_action.writes() && !options.dry_run {
        write(&workflow_path, WORKFLOW_PATH, &workflow_text)?;
    }
    files.push(InitFile {
        role: FileRole::Workflow,
        path: WORKFLOW_PATH.to_owned(),
        action: workflow_action,
        content: dry(&workflow_text),
    });
    let changed = files.iter().any(|f| f.action.writes());
    Ok(InitReport {
        schema_version: 1,
        dry_run: options.dry_run,
        server: shown(&server),
        server_from,
        kind,
        files,
        lock: lock_report,
        suggestions: suggestions(dir, kind),
        changed,
    })
}

fn write(path: &Path, label: &str, text: &str) -> Result<(), InitError> {
    let err = |e: std::io::Error| InitError::Write {
        path: label.to_owned(),
        message: e.to_string(),
    };
    if let Some(parent) = path.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    crate::atomic::write_atomic(path, text.as_bytes()).map_err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_text_is_a_valid_config_naming_the_server() {
        let text = config_text(&ServerTarget::Command(vec![
            "node".into(),
            "dist/index.js".into(),
        ]));
        let parsed = config::parse_toml(CONFIG_FILE, &text).expect("valid");
        assert_eq!(
            parsed.server.and_then(|s| s.command),
            Some(vec!["node".to_owned(), "dist/index.js".to_owned()])
        );
        assert_eq!(parsed.required_version.as_deref(), Some(VERSION));
        let text = config_text(&ServerTarget::Url("https://x.example/mcp".into()));
        let parsed = config::parse_toml(CONFIG_FILE, &text).expect("valid");
        assert_eq!(
            parsed.server.and_then(|s| s.url).as_deref(),
            Some("https://x.example/mcp")
        );
    }
}
