//! `site.toml`: what `mcpseal serve` serves and how strictly it checks it.
//!
//! The file is read once at start-up; every relative path in it (`origin.base_url` as a
//! directory, and through it the manifest and the bundle) resolves against the directory of the
//! config file, so a site can be served from anywhere. Unknown keys are refused (a typo in
//! `signature_mode` must not silently serve unverified bytes). [`site_config_schema`] is the JSON
//! Schema of the file, generated from these types.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ConfigError;

/// The whole `site.toml`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "mcpseal serve site configuration")]
pub struct SiteConfig {
    /// Who the server is.
    pub server: ServerSection,
    /// Where the signed static site lives and how strictly it is checked.
    pub origin: OriginSection,
    /// Streamable HTTP settings (`mcpseal serve --http`).
    #[serde(default)]
    pub http: HttpSection,
    /// Verbs, each served as a read-only MCP tool (and a `--cli` subcommand).
    #[serde(default)]
    pub verbs: Vec<Verb>,
    /// Fixed resources.
    #[serde(default)]
    pub resources: Vec<ResourceEntry>,
    /// Resource templates (RFC 6570 level 1: `{name}` variables).
    #[serde(default)]
    pub resource_templates: Vec<TemplateEntry>,
}

/// `[server]`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServerSection {
    /// Machine name, reported as serverInfo `name`.
    pub name: String,
    /// Version of the site's MCP surface, reported as serverInfo `version` (what `mcpseal lock`
    /// ties the surface to).
    pub version: String,
    /// Display name.
    #[serde(default)]
    pub title: Option<String>,
    /// Instructions for the model (`server/discover`, `initialize`).
    #[serde(default)]
    pub instructions: Option<String>,
    /// Also serve 2025-11-25 clients (`initialize`); `false` makes a 2026-07-28-only server.
    #[serde(default = "yes")]
    pub legacy: bool,
    /// Items per page of every list.
    #[serde(default = "page_size")]
    pub page_size: usize,
}

/// How the manifest's signature is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SignatureMode {
    /// Not checked; results say `signature: off`.
    #[default]
    Off,
    /// Checked; a failure is logged and results are served marked `unverified`.
    Warn,
    /// Checked; until it verifies, every tool call and read is refused.
    Require,
}

impl SignatureMode {
    /// `off`, `warn` or `require`.
    pub fn as_str(self) -> &'static str {
        match self {
            SignatureMode::Off => "off",
            SignatureMode::Warn => "warn",
            SignatureMode::Require => "require",
        }
    }
}

/// `[origin]`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OriginSection {
    /// `https://…`, `http://…` (a directory URL; a trailing `/` is added) or a local directory
    /// (relative to this file).
    pub base_url: String,
    /// Prefix of every verb, resource and template `path`, under the base (`api/v1`; empty for
    /// none).
    #[serde(default = "api_prefix")]
    pub api_prefix: String,
    /// The `sha256sum` manifest, relative to the base.
    #[serde(default = "manifest_path")]
    pub manifest_path: String,
    /// The Sigstore bundle over the manifest, relative to the base.
    #[serde(default = "signature_path")]
    pub signature_path: String,
    /// `off`, `warn` or `require`.
    #[serde(default)]
    pub signature_mode: SignatureMode,
    /// Signer identity (certificate SAN) the bundle must carry: exact, or `regex:PATTERN`
    /// (matched against the whole identity). Required unless the mode is `off`.
    #[serde(default)]
    pub expected_identity: Option<String>,
    /// OIDC issuer of the signer's certificate, exact. Required unless the mode is `off`.
    #[serde(default)]
    pub expected_issuer: Option<String>,
    /// Longest one fetch from the origin may take: `15s`, `500ms`, `2m`.
    #[serde(default = "fetch_timeout")]
    pub fetch_timeout: String,
    /// Largest artifact (and manifest, and bundle) fetched, in bytes.
    #[serde(default = "max_bytes")]
    pub max_bytes: u64,
    /// How long the manifest stays cached before it is fetched again (`10m`); absent: once per
    /// process (refetched once when a digest mismatches). `--manifest-ttl` overrides it.
    #[serde(default)]
    pub manifest_ttl: Option<String>,
}

/// `[http]`.
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HttpSection {
    /// Origins allowed besides loopback ones (`https://app.example`); `*` allows any.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// `Host` names allowed besides loopback ones when bound to loopback; `*` allows any.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
}

/// `[[verbs]]`: one read-only tool.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Verb {
    /// Tool name (1–128 of `A-Za-z0-9_.-`).
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub title: Option<String>,
    /// What the tool returns.
    pub description: String,
    /// JSON Schema (2020-12) of the arguments: an object schema; every `{name}` of `path` must be
    /// a property of it.
    #[serde(default = "empty_object_schema")]
    #[schemars(with = "BTreeMap<String, Value>")]
    pub input_schema: Value,
    /// The artifact, under `api_prefix`: `profile.json`, `posts/{slug}.json`.
    pub path: String,
    /// Media type of the artifact (`application/json`).
    #[serde(default)]
    pub mime_type: Option<String>,
}

/// `[[resources]]`: one fixed resource.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResourceEntry {
    /// The resource URI (`site://profile`).
    pub uri: String,
    /// Name.
    pub name: String,
    /// Display name.
    #[serde(default)]
    pub title: Option<String>,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// The artifact, under `api_prefix`.
    pub path: String,
    /// Media type.
    #[serde(default)]
    pub mime_type: Option<String>,
}

/// `[[resource_templates]]`: a family of resources.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateEntry {
    /// RFC 6570 level-1 template (`site://posts/{slug}`); each variable matches one path segment
    /// piece (no `/`).
    pub uri_template: String,
    /// Name.
    pub name: String,
    /// Display name.
    #[serde(default)]
    pub title: Option<String>,
    /// Description.
    #[serde(default)]
    pub description: Option<String>,
    /// The artifact, under `api_prefix`, with the template's variables (`posts/{slug}.json`).
    pub path: String,
    /// Media type.
    #[serde(default)]
    pub mime_type: Option<String>,
}

fn yes() -> bool {
    true
}
fn page_size() -> usize {
    100
}
fn api_prefix() -> String {
    "api/v1".into()
}
fn manifest_path() -> String {
    "site.sha256".into()
}
fn signature_path() -> String {
    "site.sha256.sigstore.json".into()
}
fn fetch_timeout() -> String {
    "15s".into()
}
fn max_bytes() -> u64 {
    10 * 1024 * 1024
}
fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "additionalProperties": false})
}

/// The JSON Schema of `site.toml` (as JSON), generated from [`SiteConfig`].
pub fn site_config_schema() -> Value {
    serde_json::to_value(schemars::schema_for!(SiteConfig)).unwrap_or(Value::Null)
}

/// Parses `10s`, `500ms`, `2m` or a bare number of seconds (0 < d ≤ 1 day).
pub fn parse_duration(raw: &str) -> Option<Duration> {
    let s = raw.trim();
    let (number, unit) = match s.find(|c: char| !c.is_ascii_digit() && c != '.') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let value: f64 = number.parse().ok()?;
    let secs = match unit {
        "ms" => value / 1000.0,
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        _ => return None,
    };
    (secs.is_finite() && secs > 0.0 && secs <= 86_400.0).then(|| Duration::from_secs_f64(secs))
}

/// A config file read and parsed, with the directory its relative paths resolve against.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The parsed file.
    pub config: SiteConfig,
    /// Its path.
    pub path: PathBuf,
    /// The directory relative paths resolve against.
    pub dir: PathBuf,
}

/// Reads and parses `path` (TOML).
///
/// # Errors
/// [`ConfigError::Read`] when the file cannot be read, [`ConfigError::Parse`] when it is not a
/// valid site config (the message names the key and line).
pub fn load(path: &Path) -> Result<LoadedConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    let config: SiteConfig = toml::from_str(&text).map_err(|e| ConfigError::Parse {
        path: path.to_owned(),
        message: e.to_string().trim_end().to_owned(),
    })?;
    let dir = path
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            }
        })
        .unwrap_or(Path::new("."))
        .to_owned();
    Ok(LoadedConfig {
        config,
        path: path.to_owned(),
        dir,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_defaults() {
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Some(Duration::from_secs(3)));
        for bad in ["0s", "-1s", "1d", "", "s"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        let c: SiteConfig = toml::from_str(
            "[server]\nname = \"s\"\nversion = \"1.0.0\"\n[origin]\nbase_url = \"public\"\n",
        )
        .expect("minimal config");
        assert_eq!(c.origin.manifest_path, "site.sha256");
        assert_eq!(c.origin.signature_mode, SignatureMode::Off);
        assert!(c.server.legacy);
        let typo = toml::from_str::<SiteConfig>(
            "[server]\nname = \"s\"\nversion = \"1\"\n[origin]\nbase_url = \"p\"\nsignature_mod = \"off\"\n",
        );
        assert!(typo.is_err_and(|e| e.to_string().contains("signature_mod")));
    }

    #[test]
    fn the_schema_names_every_section() {
        let s = site_config_schema();
        let props = s["properties"].as_object().expect("properties");
        for key in [
            "server",
            "origin",
            "http",
            "verbs",
            "resources",
            "resource_templates",
        ] {
            assert!(props.contains_key(key), "{key}");
        }
    }
}
