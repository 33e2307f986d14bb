//! The project config: `mcpseal.toml`, `[tool.mcpseal]` in `pyproject.toml`, or an `"mcpseal"`
//! key in `package.json`, and the resolution of each setting with where it came from.
//!
//! Contract: a directory holds at most one config (more than one is an error naming them, so
//! two files can never silently disagree); every unknown key is an error naming the key and the
//! file (a typo must not silently fall back to a default); relative paths in a config are
//! relative to the directory that holds it; a flag always wins over the config, the config over
//! the built-in default, and [`Resolved`] says which one each setting came from.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The config file name.
pub const CONFIG_FILE: &str = "mcpseal.toml";
/// The default lock file name (the `--lock` default).
pub const DEFAULT_LOCK: &str = "surface.lock.json";
/// Largest config-bearing file read, in bytes (a manifest is a few kilobytes).
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// The settings a project config may hold (`mcpseal.toml`, or the same keys under
/// `[tool.mcpseal]` / `"mcpseal"`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
#[schemars(title = "mcpseal project config")]
pub struct ProjectConfig {
    /// The mcpseal version this repository expects: one exact version (`0.3.1`, what the GitHub
    /// Action installs) or a semver requirement (`^0.3`, `>=0.3, <0.5`). A running mcpseal
    /// that does not satisfy it refuses to run (exit 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_version: Option<String>,
    /// The server every command speaks to when no target is given on the command line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<ServerConfig>,
    /// The lock file (default `surface.lock.json`), relative to the config's directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
    /// Where the server's version comes from: a `package.json`, `Cargo.toml` or
    /// `pyproject.toml` (default: the one manifest in the directory, else `serverInfo.version`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<String>,
    /// JSON Pointers left out of the lock's hash (`mcpseal lock --exclude`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
    /// Lowest probe severity that makes the exit code 1 (`--fail-on`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fail_on: Option<FailOn>,
    /// Probe rules to skip (`--skip`), ids such as `SEAL012`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<String>,
    /// Lock rules: also require a new minor for additive and security changes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strict_semver: bool,
    /// Lock rules: refuse security-class changes whatever the version.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deny_security: bool,
    /// How anonymous access is measured (`lock`, `check`, `verify`): the `[anonymous]` table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anonymous: Option<AnonymousConfig>,
    /// Configuration profiles (`[profiles.NAME]`, each a server table like `[server]`): with
    /// `--profile NAME` and no target on the command line, `lock`, `check` and `verify` speak to
    /// that profile's server. A profile named on the command line but missing here is then no
    /// target at all (never `[server]` silently in its place).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub profiles: BTreeMap<String, ServerConfig>,
}

/// The `[anonymous]` table: the anonymous-access flags a command line left out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct AnonymousConfig {
    /// Variables removed from a stdio server's environment for the anonymous probes
    /// (`--anonymous-env-unset`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_unset: Vec<String>,
    /// More paths on the target's origin to measure (`--route`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<String>,
}

/// The `[server]` table: exactly one of `command` and `url`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct ServerConfig {
    /// The stdio server's command line, no shell: `["python3", "server.py"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    /// A Streamable HTTP endpoint (`http://…` or `https://…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Environment variables for a stdio server.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Working directory of a stdio server, relative to the config's directory (default: that
    /// directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// `fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// At least one error finding.
    Error,
    /// At least one error or warning finding.
    Warning,
    /// Never (unreachable and incomplete runs still exit 2).
    Never,
}

impl FailOn {
    /// The spelling in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Never => "never",
        }
    }
}

/// Which file a config came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigKind {
    /// `mcpseal.toml`.
    McpsealToml,
    /// `[tool.mcpseal]` in `pyproject.toml`.
    Pyproject,
    /// `"mcpseal"` in `package.json`.
    PackageJson,
}

/// A config read from disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loaded {
    /// The file it was read from.
    pub file: PathBuf,
    /// Which kind of file.
    pub kind: ConfigKind,
    /// The settings.
    pub config: ProjectConfig,
}

impl Loaded {
    /// How the config is named in provenance: `mcpseal.toml`, `pyproject.toml [tool.mcpseal]`,
    /// `package.json "mcpseal"`.
    pub fn label(&self) -> String {
        let name = self.file.display();
        match self.kind {
            ConfigKind::McpsealToml => format!("{name}"),
            ConfigKind::Pyproject => format!("{name} [tool.mcpseal]"),
            ConfigKind::PackageJson => format!("{name} \"mcpseal\""),
        }
    }

    fn dir(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new("."))
    }
}

/// Why a config could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// More than one config in one directory.
    #[error("more than one mcpseal config here: {}", .0.join(", "))]
    Ambiguous(Vec<String>),
    /// A file could not be read.
    #[error("could not read `{file}`: {message}")]
    Read {
        /// The file.
        file: String,
        /// What went wrong.
        message: String,
    },
    /// The running mcpseal does not satisfy the config's `required-version`.
    #[error("{file} requires mcpseal {required}, but this is mcpseal {running}")]
    WrongVersion {
        /// The config's label.
        file: String,
        /// The requirement as written.
        required: String,
        /// The running version.
        running: String,
        /// How to install a version that satisfies it.
        install: String,
    },
    /// A file is not a valid config (unknown key, wrong type, bad syntax).
    #[error("`{file}` is not a valid mcpseal config: {message}")]
    Invalid {
        /// The file (and key, for a manifest).
        file: String,
        /// The parser's message, naming the key.
        message: String,
    },
}

impl ConfigError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            Self::Ambiguous(_) => {
                "keep one of them (mcpseal.toml, [tool.mcpseal] or \"mcpseal\"), delete the others"
                    .to_owned()
            }
            Self::Read { .. } => "check the file's permissions and that it is UTF-8".to_owned(),
            Self::WrongVersion { install, .. } => install.clone(),
            Self::Invalid { .. } => {
                "the keys are listed in docs/config.md and schemas/mcpseal-config.schema.json"
                    .to_owned()
            }
        }
    }
}

fn read(path: &Path) -> Result<Option<String>, ConfigError> {
    let err = |e: std::io::Error| ConfigError::Read {
        file: path.display().to_string(),
        message: e.to_string(),
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(err(e)),
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(ConfigError::Read {
            file: path.display().to_string(),
            message: format!("larger than {MAX_FILE_BYTES} bytes"),
        });
    }
    std::fs::read_to_string(path).map(Some).map_err(err)
}

/// Parses `mcpseal.toml` text.
pub fn parse_toml(file: &str, text: &str) -> Result<ProjectConfig, ConfigError> {
    toml::from_str(text).map_err(|e| ConfigError::Invalid {
        file: file.to_owned(),
        message: e.to_string().trim().to_owned(),
    })
}

/// `[tool.mcpseal]` of `pyproject.toml` text, if there is one.
pub fn parse_pyproject(file: &str, text: &str) -> Result<Option<ProjectConfig>, ConfigError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| ConfigError::Invalid {
        file: file.to_owned(),
        message: e.to_string().trim().to_owned(),
    })?;
    let Some(section) = table.get("tool").and_then(|t| t.get("mcpseal")) else {
        return Ok(None);
    };
    ProjectConfig::deserialize(section.clone())
        .map(Some)
        .map_err(|e| ConfigError::Invalid {
            file: format!("{file} [tool.mcpseal]"),
            message: e.to_string().trim().to_owned(),
        })
}

/// The `"mcpseal"` key of `package.json` text, if there is one.
pub fn parse_package_json(file: &str, text: &str) -> Result<Option<ProjectConfig>, ConfigError> {
    let invalid = |file: String, e: serde_json::Error| ConfigError::Invalid {
        file,
        message: e.to_string(),
    };
    let doc: serde_json::Value =
        serde_json::from_str(text).map_err(|e| invalid(file.to_owned(), e))?;
    let Some(section) = doc.get("mcpseal") else {
        return Ok(None);
    };
    ProjectConfig::deserialize(section)
        .map(Some)
        .map_err(|e| invalid(format!("{file} \"mcpseal\""), e))
}

/// Finds the config of `dir` (the directory itself, not its parents: relative paths and the
/// version manifest are read from the working directory, so a config found elsewhere would
/// be half-applied). `Ok(None)` when there is none.
pub fn discover(dir: &Path) -> Result<Option<Loaded>, ConfigError> {
    let mut found = Vec::new();
    let toml_path = dir.join(CONFIG_FILE);
    if let Some(text) = read(&toml_path)? {
        let config = parse_toml(CONFIG_FILE, &text)?;
        found.push(Loaded {
            file: toml_path,
            kind: ConfigKind::McpsealToml,
            config,
        });
    }
    let py = dir.join("pyproject.toml");
    if let Some(text) = read(&py)?
        && let Some(config) = parse_pyproject("pyproject.toml", &text)?
    {
        found.push(Loaded {
            file: py,
            kind: ConfigKind::Pyproject,
            config,
        });
    }
    let pkg = dir.join("package.json");
    if let Some(text) = read(&pkg)?
        && let Some(config) = parse_package_json("package.json", &text)?
    {
        found.push(Loaded {
            file: pkg,
            kind: ConfigKind::PackageJson,
            config,
        });
    }
    if found.len() > 1 {
        return Err(ConfigError::Ambiguous(
            found.iter().map(Loaded::label).collect(),
        ));
    }
    for loaded in &found {
        validate(loaded)?;
    }
    Ok(found.pop())
}

fn validate(loaded: &Loaded) -> Result<(), ConfigError> {
    let invalid = |message: &str| ConfigError::Invalid {
        file: loaded.label(),
        message: message.to_owned(),
    };
    if let Some(required) = &loaded.config.required_version {
        requirement(required).map_err(|e| {
            invalid(&format!(
                "`required-version = \"{required}\"` is not a version or a semver requirement ({e}); write one exact version such as \"0.3.1\", or a requirement such as \"^0.3\""
            ))
        })?;
    }
    let tables = loaded
        .config
        .server
        .iter()
        .map(|s| ("[server]".to_owned(), s))
        .chain(
            loaded
                .config
                .profiles
                .iter()
                .map(|(name, s)| (format!("[profiles.{name}]"), s)),
        );
    for (table, server) in tables {
        match (&server.command, &server.url) {
            (Some(_), Some(_)) => {
                return Err(invalid(&format!("{table} has both `command` and `url`")));
            }
            (None, None) => return Err(invalid(&format!("{table} needs `command` or `url`"))),
            (Some(c), None) if c.is_empty() => {
                return Err(invalid(&format!("{table} `command` is empty")));
            }
            (None, Some(u)) if !(u.starts_with("http://") || u.starts_with("https://")) => {
                return Err(invalid(&format!(
                    "{table} `url` is not an http:// or https:// URL"
                )));
            }
            _ => {}
        }
    }
    for name in loaded.config.profiles.keys() {
        mcpseal_surface::lock::check_profile_name(name)
            .map_err(|e| invalid(&format!("[profiles.{name}]: {e}")))?;
    }
    Ok(())
}

/// The requirement a `required-version` spells: a bare version (`0.3.1`, `v0.3.1`) means
/// exactly that version (`=0.3.1`), as the GitHub Action installs exactly it; anything else is
/// a semver requirement (`^0.3`, `~0.3.1`, `>=0.3, <0.5`, `=0.3.1`).
///
/// # Errors
/// The semver parser's error when it is neither.
pub fn requirement(raw: &str) -> Result<semver::VersionReq, semver::Error> {
    let text = raw.trim();
    let bare = text.strip_prefix('v').unwrap_or(text);
    match semver::Version::parse(bare) {
        Ok(v) => semver::VersionReq::parse(&format!("={v}")),
        Err(_) => semver::VersionReq::parse(text),
    }
}

/// Refuses to go on when the running mcpseal (`running`, its semver) does not satisfy the
/// config's `required-version`: a repository that pins a version must not be judged by another
/// one, whose rules or lock format may differ. No `required-version` is always satisfied.
///
/// # Errors
/// [`ConfigError::WrongVersion`] naming both versions and how to install a fitting one;
/// [`ConfigError::Invalid`] for a requirement that does not parse (normally caught by
/// [`discover`] already).
pub fn check_required_version(loaded: &Loaded, running: &str) -> Result<(), ConfigError> {
    let Some(required) = &loaded.config.required_version else {
        return Ok(());
    };
    let invalid = |message: String| ConfigError::Invalid {
        file: loaded.label(),
        message,
    };
    let req = requirement(required).map_err(|e| invalid(format!("`required-version`: {e}")))?;
    let version = semver::Version::parse(running).map_err(|e| {
        invalid(format!(
            "the running version `{running}` is not semver: {e}"
        ))
    })?;
    if req.matches(&version) {
        return Ok(());
    }
    let text = required.trim();
    let bare = text.strip_prefix('v').unwrap_or(text);
    // cargo and npm take both spellings; pip (the PyPI wheel) takes only an exact `==`.
    let install = match semver::Version::parse(bare) {
        Ok(v) => format!(
            "install mcpseal {v}: `cargo install mcpseal --locked --version ={v}`, `npm install --save-dev mcpseal@{v}` or `pip install mcpseal=={v}` (or change `required-version` in {})",
            loaded.label()
        ),
        Err(_) => format!(
            "install a version matching {text}: `cargo install mcpseal --locked --version '{text}'` or `npm install --save-dev 'mcpseal@{text}'` (or change `required-version` in {})",
            loaded.label()
        ),
    };
    Err(ConfigError::WrongVersion {
        file: loaded.label(),
        required: required.clone(),
        running: running.to_owned(),
        install,
    })
}

/// Where a resolved setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A command-line flag.
    Flag,
    /// The project config (its label).
    Config(String),
    /// The built-in default.
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Flag => f.write_str("command line"),
            Self::Config(label) => f.write_str(label),
            Self::Default => f.write_str("default"),
        }
    }
}

/// One resolved setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

/// The server to speak to, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerTarget {
    /// A stdio command line.
    Command(Vec<String>),
    /// A Streamable HTTP endpoint.
    Url(String),
}

/// The server settings a config contributes when no target is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedServer {
    /// The target.
    pub target: ServerTarget,
    /// Environment for a stdio server.
    pub env: Vec<(String, String)>,
    /// Working directory (the config's directory unless `cwd` says otherwise).
    pub cwd: PathBuf,
}

/// What the command line said, for the settings a config can also give (`None`/empty: not
/// given).
#[derive(Debug, Clone, Default)]
pub struct Flags {
    /// A target (URL or `-- COMMAND`) was given.
    pub target_given: bool,
    /// `--lock`.
    pub lock: Option<PathBuf>,
    /// `--manifest` or `--server-version`.
    pub version_given: bool,
    /// `--exclude`.
    pub exclude: Vec<String>,
    /// `--fail-on`.
    pub fail_on: Option<FailOn>,
    /// `--skip`.
    pub skip: Vec<String>,
    /// `--strict-semver`.
    pub strict_semver: bool,
    /// `--deny-security`.
    pub deny_security: bool,
    /// `--profile NAME`: the server comes from `[profiles.NAME]` when the config has profiles.
    pub profile: Option<String>,
}

/// Every setting with its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The config file's label, if one was found.
    pub file: Option<String>,
    /// The server, when the config gives it and the command line does not.
    pub server: Option<Setting<ResolvedServer>>,
    /// The lock file.
    pub lock: Setting<PathBuf>,
    /// The version manifest, when the config names one and no flag does.
    pub manifest: Option<Setting<PathBuf>>,
    /// Excluded pointers.
    pub exclude: Setting<Vec<String>>,
    /// `fail-on`.
    pub fail_on: Setting<FailOn>,
    /// Skipped rules.
    pub skip: Setting<Vec<String>>,
    /// `strict-semver`.
    pub strict_semver: Setting<bool>,
    /// `deny-security`.
    pub deny_security: Setting<bool>,
    /// `required-version`.
    pub required_version: Option<Setting<String>>,
    /// `[profiles.NAME]`: every profile's server, by name (whatever `--profile` says: `check`
    /// and `verify` of every profile need them all).
    pub profiles: BTreeMap<String, Setting<ResolvedServer>>,
    /// `[anonymous]`, when the config has it.
    pub anonymous: Option<Setting<AnonymousConfig>>,
}

/// The flag's setting, else the config's value, else the default.
fn pick<T>(flag: Option<Setting<T>>, conf: Option<T>, default: T, from: &Source) -> Setting<T> {
    flag.or_else(|| {
        conf.map(|value| Setting {
            value,
            source: from.clone(),
        })
    })
    .unwrap_or(Setting {
        value: default,
        source: Source::Default,
    })
}

/// Resolves each setting: flag, else config, else default.
pub fn resolve(loaded: Option<&Loaded>, flags: &Flags) -> Resolved {
    let from_config = || Source::Config(loaded.map(Loaded::label).unwrap_or_default());
    let config = loaded.map(|l| &l.config);
    let rel = |p: &str| match loaded {
        // `Path::join` keeps an absolute `p` as it is.
        Some(l) if l.dir() != Path::new("") => l.dir().join(p),
        _ => PathBuf::from(p),
    };
    let from = from_config();
    let nonempty = |v: &Vec<String>| (!v.is_empty()).then(|| v.clone());
    let server_of = |s: &ServerConfig| Setting {
        value: resolved_server(s, &rel),
        source: from_config(),
    };
    let server = if flags.target_given {
        None
    } else {
        config
            .and_then(|c| match &flags.profile {
                Some(p) if !c.profiles.is_empty() => c.profiles.get(p),
                _ => c.server.as_ref(),
            })
            .map(server_of)
    };
    Resolved {
        file: loaded.map(Loaded::label),
        server,
        lock: pick(
            flags.lock.clone().map(|value| Setting {
                value,
                source: Source::Flag,
            }),
            config.and_then(|c| c.lock.as_deref()).map(rel),
            rel(DEFAULT_LOCK),
            &from,
        ),
        manifest: if flags.version_given {
            None
        } else {
            config.and_then(|c| c.manifest.as_deref()).map(|m| Setting {
                value: rel(m),
                source: from_config(),
            })
        },
        exclude: pick(
            nonempty(&flags.exclude).map(|v| Setting {
                value: v,
                source: Source::Flag,
            }),
            config.and_then(|c| nonempty(&c.exclude)),
            Vec::new(),
            &from,
        ),
        fail_on: pick(
            flags.fail_on.map(|v| Setting {
                value: v,
                source: Source::Flag,
            }),
            config.and_then(|c| c.fail_on),
            FailOn::Error,
            &from,
        ),
        skip: pick(
            nonempty(&flags.skip).map(|v| Setting {
                value: v,
                source: Source::Flag,
            }),
            config.and_then(|c| nonempty(&c.skip)),
            Vec::new(),
            &from,
        ),
        strict_semver: pick(
            flags.strict_semver.then_some(Setting {
                value: true,
                source: Source::Flag,
            }),
            config.and_then(|c| c.strict_semver.then_some(true)),
            false,
            &from,
        ),
        deny_security: pick(
            flags.deny_security.then_some(Setting {
                value: true,
                source: Source::Flag,
            }),
            config.and_then(|c| c.deny_security.then_some(true)),
            false,
            &from,
        ),
        required_version: config
            .and_then(|c| c.required_version.clone())
            .map(|value| Setting {
                value,
                source: from_config(),
            }),
        profiles: config
            .map(|c| {
                c.profiles
                    .iter()
                    .map(|(name, s)| (name.clone(), server_of(s)))
                    .collect()
            })
            .unwrap_or_default(),
        anonymous: config
            .and_then(|c| c.anonymous.clone())
            .map(|value| Setting {
                value,
                source: from_config(),
            }),
    }
}

/// A `[server]` (or `[profiles.NAME]`) table as a target, its `cwd` resolved by `rel`.
fn resolved_server(s: &ServerConfig, rel: &impl Fn(&str) -> PathBuf) -> ResolvedServer {
    let target = match (&s.command, &s.url) {
        (Some(c), _) => ServerTarget::Command(c.clone()),
        (None, Some(u)) => ServerTarget::Url(u.clone()),
        (None, None) => ServerTarget::Command(Vec::new()),
    };
    ResolvedServer {
        target,
        env: s.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        cwd: rel(s.cwd.as_deref().unwrap_or(".")),
    }
}

/// `mcpseal config --format json`: every resolved setting and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigDocument {
    /// Always 1.
    pub schema_version: u32,
    /// The config file read, if any.
    pub file: Option<String>,
    /// Setting name → its value as shown and its source (`flag`, the config file, `default`).
    pub settings: BTreeMap<String, ShownSetting>,
}

/// One setting of [`ConfigDocument`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ShownSetting {
    /// The value as text (env values are never shown, only their names).
    pub value: String,
    /// Where it came from.
    pub source: String,
}

/// The JSON Schema of [`ProjectConfig`] (committed as `schemas/mcpseal-config.schema.json`).
pub fn schema() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(ProjectConfig)).unwrap_or_default();
    if let Some(object) = schema.as_object_mut() {
        // Where editors fetch it from (the other documents say so on their types).
        object.insert(
            "$id".to_owned(),
            serde_json::Value::from(
                "https://github.com/mcpseal/mcpseal/blob/main/schemas/mcpseal-config.schema.json",
            ),
        );
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_is_named() {
        let e = parse_toml("mcpseal.toml", "lokc = \"x\"\n").expect_err("unknown key");
        assert!(e.to_string().contains("lokc"), "{e}");
        assert!(e.to_string().contains("mcpseal.toml"), "{e}");
        let e = parse_toml("mcpseal.toml", "[server]\ncomand = [\"x\"]\n").expect_err("nested");
        assert!(e.to_string().contains("comand"), "{e}");
        let e =
            parse_pyproject("pyproject.toml", "[tool.mcpseal]\nfail-on = 3\n").expect_err("type");
        assert!(e.to_string().contains("[tool.mcpseal]"), "{e}");
        let e = parse_package_json("package.json", r#"{"mcpseal": {"skp": []}}"#)
            .expect_err("json key");
        assert!(e.to_string().contains("skp"), "{e}");
    }

    fn pinned(required: &str) -> Loaded {
        Loaded {
            file: PathBuf::from("mcpseal.toml"),
            kind: ConfigKind::McpsealToml,
            config: ProjectConfig {
                required_version: Some(required.to_owned()),
                ..ProjectConfig::default()
            },
        }
    }

    #[test]
    fn required_version_is_enforced_both_ways() {
        for ok in [
            "0.3.1",
            "v0.3.1",
            "=0.3.1",
            "^0.3",
            "~0.3.0",
            ">=0.3, <0.5",
            "*",
        ] {
            assert!(
                check_required_version(&pinned(ok), "0.3.1").is_ok(),
                "{ok} should accept 0.3.1"
            );
        }
        // A bare version is exact (what the Action installs), not cargo's caret.
        for refused in ["0.3.0", "0.3.2", "^0.4", "<0.3", "=0.3.1-rc.1"] {
            let e =
                check_required_version(&pinned(refused), "0.3.1").expect_err("does not satisfy");
            let text = e.to_string();
            assert!(text.contains(refused) && text.contains("0.3.1"), "{text}");
            assert!(e.hint().contains("cargo install mcpseal"), "{}", e.hint());
        }
        let e = check_required_version(&pinned("0.3.0"), "0.3.1").expect_err("exact");
        assert!(e.hint().contains("--version =0.3.0"), "{}", e.hint());
        assert!(
            e.hint().contains("pip install mcpseal==0.3.0"),
            "{}",
            e.hint()
        );
        assert!(
            check_required_version(
                &Loaded {
                    config: ProjectConfig::default(),
                    ..pinned("x")
                },
                "0.3.1"
            )
            .is_ok()
        );
    }

    #[test]
    fn bad_required_version_is_refused_at_load() {
        let dir = tempfile::tempdir().expect("tempdir");
        crate::atomic::write_atomic(
            &dir.path().join(CONFIG_FILE),
            b"required-version = \"latest\"\n",
        )
        .expect("write");
        let e = discover(dir.path()).expect_err("not a requirement");
        assert!(e.to_string().contains("latest"), "{e}");
    }

    #[test]
    fn absent_sections_are_no_config() {
        assert_eq!(
            parse_pyproject("pyproject.toml", "[project]\nname = \"x\"\n").ok(),
            Some(None)
        );
        assert_eq!(
            parse_package_json("package.json", r#"{"name": "x"}"#).ok(),
            Some(None)
        );
    }

    #[test]
    fn flags_override_config_override_defaults() {
        let loaded = Loaded {
            file: PathBuf::from("mcpseal.toml"),
            kind: ConfigKind::McpsealToml,
            config: parse_toml(
                "mcpseal.toml",
                "lock = \"a.json\"\nfail-on = \"warning\"\n[server]\ncommand = [\"s\"]\n",
            )
            .expect("valid"),
        };
        let r = resolve(Some(&loaded), &Flags::default());
        assert_eq!(r.lock.value, PathBuf::from("a.json"));
        assert_eq!(r.lock.source, Source::Config("mcpseal.toml".into()));
        assert_eq!(r.fail_on.value, FailOn::Warning);
        assert_eq!(r.skip.source, Source::Default);
        assert!(r.server.is_some());
        let flags = Flags {
            target_given: true,
            lock: Some("b.json".into()),
            fail_on: Some(FailOn::Never),
            ..Flags::default()
        };
        let r = resolve(Some(&loaded), &flags);
        assert_eq!(r.lock.value, PathBuf::from("b.json"));
        assert_eq!(r.lock.source, Source::Flag);
        assert_eq!(r.fail_on.value, FailOn::Never);
        assert!(r.server.is_none());
        let r = resolve(None, &Flags::default());
        assert_eq!(r.lock.source, Source::Default);
        assert_eq!(r.fail_on.value, FailOn::Error);
    }
}
