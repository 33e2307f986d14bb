//! Where the server's version comes from: a flag, a manifest, or the server itself.
//!
//! Order: `--server-version`, then `--manifest PATH`, then the one manifest found in the
//! working directory (`package.json`, `Cargo.toml`, `pyproject.toml`; only those that declare
//! a version count, and more than one is an error), then the version the server reports in its
//! `serverInfo` (so a deployed server without a checkout can still be locked).
//!
//! Manifests read: `package.json` `version`; `Cargo.toml` `[package].version`, or
//! `[workspace.package].version` when the package says `version.workspace = true` or the file
//! is a workspace root; `pyproject.toml` `[project].version`, else Poetry's
//! `[tool.poetry].version` (a `dynamic` version is an error: pass `--server-version`).

use std::path::{Path, PathBuf};

use mcpseal_report::{ErrorBody, ErrorKind};
use mcpseal_surface::lock::{Version, VersionError};
use serde_json::Value;
use thiserror::Error;

use crate::described::Described;

/// The manifests looked for in the working directory.
pub const MANIFESTS: [&str; 3] = ["package.json", "Cargo.toml", "pyproject.toml"];

/// A version and where it came from.
#[derive(Debug, Clone)]
pub struct SourcedVersion {
    /// The version.
    pub version: Version,
    /// For people: `--server-version`, `Cargo.toml`, `the server's serverInfo`.
    pub source: String,
}

/// How the caller asks for the version.
#[derive(Debug, Clone)]
pub enum VersionRequest {
    /// A flag or a manifest already decided it.
    Given(SourcedVersion),
    /// Nothing found: use what the server reports.
    FromServer,
}

/// Why no version could be had.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum VersionSourceError {
    /// A manifest could not be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A manifest is not valid JSON/TOML.
    #[error("`{path}` cannot be parsed: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A manifest without a (static) version.
    #[error("`{path}` declares no version{why}")]
    NoVersion {
        /// The file.
        path: PathBuf,
        /// Extra words (e.g. dynamic).
        why: String,
    },
    /// More than one manifest.
    #[error("more than one manifest declares a version here: {}", names.join(", "))]
    Ambiguous {
        /// The manifests found.
        names: Vec<String>,
    },
    /// A version that is not semver.
    #[error("the version from {source_name} is unusable: {error}")]
    BadVersion {
        /// Where it came from.
        source_name: String,
        /// Why.
        #[source]
        error: VersionError,
    },
    /// The server reports no usable version and nothing else gave one.
    #[error("no server version: no manifest in the working directory and the server reports {0}")]
    NoServerVersion(String),
}

impl VersionSourceError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            VersionSourceError::Ambiguous { .. } => {
                "say which one is the server's: `--manifest package.json` (or pass `--server-version X`)"
            }
            // The flag itself was wrong: telling the user to pass it would be no help.
            VersionSourceError::BadVersion { source_name, .. }
                if source_name == "--server-version" =>
            {
                "give a semver version (`1.2.3`, `v1.2.3`, `1.2.3-rc.1`) or PEP 440 that maps to it (`1.0`, `1.0rc1`, `1.0.post1`)"
            }
            VersionSourceError::BadVersion { .. } => {
                "versions are semver (`1.2.3`, `v1.2.3`, `1.2.3-rc.1`) or PEP 440 that maps to it (`1.0`, `1.0rc1`, `1.0.post1`); pass `--server-version X` to override"
            }
            _ => {
                "pass `--server-version X`, or `--manifest PATH` to the server's package.json, Cargo.toml or pyproject.toml"
            }
        }
    }
}

impl VersionSourceError {
    /// What kind of trouble, for the error document: an unreadable or unparsable manifest is
    /// bad input; anything else is no usable version.
    pub fn kind(&self) -> ErrorKind {
        match self {
            VersionSourceError::Read { .. } | VersionSourceError::Parse { .. } => {
                ErrorKind::BadInput
            }
            _ => ErrorKind::Version,
        }
    }
}

impl Described for VersionSourceError {
    fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint().to_owned()),
        }
    }
}

/// The version from a flag or a manifest, or [`VersionRequest::FromServer`].
///
/// # Errors
/// See [`VersionSourceError`].
pub fn resolve(
    flag: Option<&str>,
    manifest: Option<&Path>,
    dir: &Path,
) -> Result<VersionRequest, VersionSourceError> {
    if let Some(v) = flag {
        return sourced(v, "--server-version".into()).map(VersionRequest::Given);
    }
    if let Some(path) = manifest {
        let text = read_manifest(path)?.ok_or_else(|| VersionSourceError::NoVersion {
            path: path.to_owned(),
            why: String::new(),
        })?;
        return sourced(&text, format!("`{}`", path.display())).map(VersionRequest::Given);
    }
    let mut found = Vec::new();
    for name in MANIFESTS {
        let path = dir.join(name);
        if path.is_file()
            && let Some(v) = read_manifest(&path)?
        {
            found.push((name, v));
        }
    }
    match found.len() {
        0 => Ok(VersionRequest::FromServer),
        1 => {
            let (name, v) = &found[0];
            sourced(v, format!("`{name}`")).map(VersionRequest::Given)
        }
        _ => Err(VersionSourceError::Ambiguous {
            names: found.iter().map(|(n, _)| (*n).to_owned()).collect(),
        }),
    }
}

/// The version the server reports in `serverInfo` (`_meta` first in 2026, then the body).
pub fn reported_by_server(server: Option<&Value>) -> Option<String> {
    mcpseal_surface::server_version(server?).map(str::to_owned)
}

/// Settles a [`VersionRequest`] once the server's own claim is known.
///
/// # Errors
/// [`VersionSourceError::NoServerVersion`] or [`VersionSourceError::BadVersion`].
pub fn settle(
    request: &VersionRequest,
    reported: Option<&str>,
) -> Result<SourcedVersion, VersionSourceError> {
    match request {
        VersionRequest::Given(v) => Ok(v.clone()),
        VersionRequest::FromServer => match reported {
            Some(r) => sourced(r, "the server's `serverInfo.version`".into()),
            None => Err(VersionSourceError::NoServerVersion("none".into())),
        },
    }
}

fn sourced(text: &str, source: String) -> Result<SourcedVersion, VersionSourceError> {
    Version::parse(text)
        .map(|version| SourcedVersion {
            version,
            source: source.clone(),
        })
        .map_err(|error| VersionSourceError::BadVersion {
            source_name: source,
            error,
        })
}

/// The version a manifest declares; `None` when it declares none (so it does not count).
fn read_manifest(path: &Path) -> Result<Option<String>, VersionSourceError> {
    let text = std::fs::read_to_string(path).map_err(|source| VersionSourceError::Read {
        path: path.to_owned(),
        source,
    })?;
    let parse_err = |message: String| VersionSourceError::Parse {
        path: path.to_owned(),
        message,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.ends_with(".json") {
        let v: Value = serde_json::from_str(&text).map_err(|e| parse_err(e.to_string()))?;
        return Ok(v.get("version").and_then(Value::as_str).map(str::to_owned));
    }
    let doc: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| parse_err(e.to_string()))?;
    let str_at = |keys: &[&str]| -> Option<String> {
        let mut node = doc.get(keys[0])?;
        for k in &keys[1..] {
            node = node.get(k)?;
        }
        node.as_str().map(str::to_owned)
    };
    if name == "pyproject.toml" {
        if let Some(v) = str_at(&["project", "version"]) {
            return Ok(Some(v));
        }
        let dynamic = doc
            .get("project")
            .and_then(|p| p.get("dynamic"))
            .and_then(toml::Value::as_array)
            .is_some_and(|d| d.iter().any(|x| x.as_str() == Some("version")));
        if let Some(v) = str_at(&["tool", "poetry", "version"]) {
            return Ok(Some(v));
        }
        if dynamic {
            return Err(VersionSourceError::NoVersion {
                path: path.to_owned(),
                why: " (it is `dynamic`, set by the build backend)".into(),
            });
        }
        return Ok(None);
    }
    // Cargo.toml
    if let Some(v) = str_at(&["package", "version"]) {
        return Ok(Some(v));
    }
    let inherits = doc
        .get("package")
        .and_then(|p| p.get("version"))
        .and_then(|v| v.get("workspace"))
        .and_then(toml::Value::as_bool)
        == Some(true);
    let workspace = str_at(&["workspace", "package", "version"]);
    if inherits || doc.get("package").is_none() {
        return Ok(workspace);
    }
    Ok(None)
}

#[cfg(test)]
#[expect(
    clippy::disallowed_methods,
    reason = "tests write the manifests they read"
)]
mod tests {
    use super::*;

    fn dir_with(files: &[(&str, &str)]) -> PathBuf {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("mcpseal-vs-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        for (name, text) in files {
            std::fs::write(dir.join(name), text).expect("write manifest");
        }
        dir
    }

    fn detected(files: &[(&str, &str)]) -> Result<String, String> {
        match resolve(None, None, &dir_with(files)) {
            Ok(VersionRequest::Given(v)) => Ok(format!("{} from {}", v.version, v.source)),
            Ok(VersionRequest::FromServer) => Ok("server".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[test]
    fn manifests() {
        assert_eq!(
            detected(&[("package.json", r#"{"version":"1.2.3"}"#)]),
            Ok("1.2.3 from `package.json`".into())
        );
        assert_eq!(
            detected(&[("Cargo.toml", "[package]\nname='x'\nversion='0.4.0'\n")]),
            Ok("0.4.0 from `Cargo.toml`".into())
        );
        assert_eq!(
            detected(&[(
                "Cargo.toml",
                "[package]\nversion.workspace = true\n[workspace.package]\nversion = '2.0.0'\n"
            )]),
            Ok("2.0.0 from `Cargo.toml`".into())
        );
        assert_eq!(
            detected(&[("Cargo.toml", "[workspace.package]\nversion = '3.1.0'\n")]),
            Ok("3.1.0 from `Cargo.toml`".into())
        );
        assert_eq!(
            detected(&[("pyproject.toml", "[project]\nversion = '1.0rc1'\n")]),
            Ok("1.0rc1 from `pyproject.toml`".into())
        );
        assert_eq!(
            detected(&[("pyproject.toml", "[tool.poetry]\nversion = '0.2'\n")]),
            Ok("0.2 from `pyproject.toml`".into())
        );
        // A package.json without a version does not count.
        assert_eq!(
            detected(&[
                ("package.json", "{}"),
                ("pyproject.toml", "[project]\nversion='1.0'\n")
            ]),
            Ok("1.0 from `pyproject.toml`".into())
        );
        assert_eq!(detected(&[]), Ok("server".into()));
    }

    #[test]
    fn refusals() {
        let two = detected(&[
            ("package.json", r#"{"version":"1.0.0"}"#),
            ("Cargo.toml", "[package]\nversion='1.0.0'\n"),
        ]);
        assert!(two.is_err_and(|e| e.contains("more than one manifest")));
        let dynamic = detected(&[("pyproject.toml", "[project]\ndynamic = ['version']\n")]);
        assert!(dynamic.is_err_and(|e| e.contains("dynamic")));
        assert!(detected(&[("Cargo.toml", "[package\n")]).is_err());
        assert!(detected(&[("package.json", r#"{"version":"1.0.dev3"}"#)]).is_err());
        let flag = resolve(Some("v2.0.0"), None, Path::new("/nonexistent"));
        assert!(matches!(flag, Ok(VersionRequest::Given(v)) if v.version.as_str() == "v2.0.0"));
    }

    #[test]
    fn server_reported() {
        let v: Value = serde_json::json!({"_meta": {"io.modelcontextprotocol/serverInfo": {"name": "x", "version": "1.0.0"}}});
        assert_eq!(reported_by_server(Some(&v)).as_deref(), Some("1.0.0"));
        let v: Value = serde_json::json!({"serverInfo": {"version": "2.0.0"}});
        assert_eq!(reported_by_server(Some(&v)).as_deref(), Some("2.0.0"));
        assert_eq!(reported_by_server(None), None);
    }
}
