//! Where published versions come from: an npm package, a PyPI project, a git repository's tags;
//! and a pin, one exact version of one of them.
//!
//! Spelling (the CLI's `SOURCE` and a cohort file's target): `npm:PKG` (`@scope/name` allowed),
//! `pypi:PKG`, `git:PATH_OR_URL`; pinned: `npm:PKG@VER`, `pypi:PKG==VER`, `git:URL@SHA` (the
//! last `@` followed by 7–40 hex digits, so `git@host:o/r.git` URLs still read right).

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::error::SourceError;

/// The npm registry used when neither the caller nor `npm config get registry` names one.
pub const NPM_DEFAULT_REGISTRY: &str = "https://registry.npmjs.org/";
/// The PyPI simple index used when neither the caller nor pip's configuration names one.
pub const PYPI_DEFAULT_INDEX: &str = "https://pypi.org/simple/";

/// A package or repository whose published versions can be listed and installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Source {
    /// An npm package.
    Npm(NpmPackage),
    /// A PyPI project.
    Pypi(PypiProject),
    /// A git repository whose tags are the versions.
    Git(GitRepo),
}

/// An npm package, optionally on a registry other than the configured one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NpmPackage {
    /// The package name (`name` or `@scope/name`).
    pub name: String,
    /// The registry base URL; `None` = `npm config get registry`, else the public registry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registry: Option<String>,
}

/// A PyPI project, optionally on an index other than the configured one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PypiProject {
    /// The project name as given (compared and fetched in its PEP 503 normalised form).
    pub name: String,
    /// The simple index URL (`…/simple/`); `None` = `PIP_INDEX_URL`, pip's configuration, or
    /// the public index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<String>,
}

/// A git repository: its tags matching a glob are the versions, built by the caller's steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GitRepo {
    /// A local path or a URL `git clone` accepts.
    pub url: String,
    /// Which tags are versions (`*` and `?` wildcards); the literal text before the first
    /// wildcard is stripped before the rest is read as a version (`server-v*` reads
    /// `server-v1.2.0` as `1.2.0`). Default `*`.
    pub tags: String,
    /// Build steps, each an argv run in the checked-out tag's root, in order (never a shell).
    pub build: Vec<Vec<String>>,
    /// The command that starts the server, run in the checkout's root: a program with a `/`
    /// is relative to that root, a bare name is looked up on `PATH`.
    pub run: Option<Vec<String>>,
}

impl GitRepo {
    /// A repository with the default glob, no build steps and no run command.
    pub fn new(url: impl Into<String>) -> GitRepo {
        GitRepo {
            url: url.into(),
            tags: "*".into(),
            build: Vec::new(),
            run: None,
        }
    }
}

impl NpmPackage {
    /// A package on the configured registry.
    pub fn new(name: impl Into<String>) -> NpmPackage {
        NpmPackage {
            name: name.into(),
            registry: None,
        }
    }
}

impl PypiProject {
    /// A project on the configured index.
    pub fn new(name: impl Into<String>) -> PypiProject {
        PypiProject {
            name: name.into(),
            index: None,
        }
    }

    /// The PEP 503 normalised name: lower case, runs of `-`, `_`, `.` as one `-`.
    pub fn normalized(&self) -> String {
        normalize_pypi(&self.name)
    }
}

/// PEP 503 name normalisation.
pub fn normalize_pypi(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

impl Source {
    /// Parses `npm:PKG`, `pypi:PKG` or `git:PATH_OR_URL` (without a version).
    ///
    /// # Errors
    /// [`SourceError::BadSpec`] naming what is wrong; a pinned spelling is refused here (use
    /// [`Pin::parse`]).
    pub fn parse(spec: &str) -> Result<Source, SourceError> {
        let pin = Pin::parse_inner(spec, false)?;
        Ok(pin.source)
    }

    /// A stable identity for cache keys and reports: `npm:NAME`, `pypi:NORMALISED`,
    /// `git:URL` (registries and indexes are not part of it: an artifact's integrity is).
    pub fn id(&self) -> String {
        match self {
            Source::Npm(p) => format!("npm:{}", p.name),
            Source::Pypi(p) => format!("pypi:{}", p.normalized()),
            Source::Git(g) => format!("git:{}", g.url),
        }
    }

    /// The name used in cache directory names (no path separators).
    pub(crate) fn dir_name(&self) -> String {
        let raw = match self {
            Source::Npm(p) => p.name.clone(),
            Source::Pypi(p) => p.normalized(),
            Source::Git(g) => g
                .url
                .trim_end_matches('/')
                .trim_end_matches(".git")
                .rsplit(['/', ':'])
                .next()
                .unwrap_or("repo")
                .to_owned(),
        };
        sanitize(&raw)
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}

/// File-name-safe text: ASCII alphanumerics, `-`, `_`, `.`; anything else becomes `_`.
pub(crate) fn sanitize(raw: &str) -> String {
    let s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let s = s.trim_start_matches('.').to_owned();
    if s.is_empty() { "_".into() } else { s }
}

/// One exact published version: the target of a cohort row or of `registry verify --package`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pin {
    /// The package or repository.
    pub source: Source,
    /// The exact version (npm, PyPI) or commit (git, 7–40 hex digits).
    pub version: String,
    /// The artifact's expected integrity: npm's SRI (`sha512-…`), a wheel's `sha256:HEX` (or bare
    /// hex); `None` = whatever the registry lists (still verified against the registry).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrity: Option<String>,
}

impl Pin {
    /// Parses `npm:PKG@VER`, `pypi:PKG==VER` or `git:URL@SHA`.
    ///
    /// # Errors
    /// [`SourceError::BadSpec`] when the spelling is not one of those.
    pub fn parse(spec: &str) -> Result<Pin, SourceError> {
        Pin::parse_inner(spec, true)
    }

    fn parse_inner(spec: &str, pinned: bool) -> Result<Pin, SourceError> {
        let bad = |why: &str| SourceError::BadSpec {
            spec: spec.to_owned(),
            why: why.to_owned(),
        };
        let (kind, rest) = spec
            .split_once(':')
            .ok_or_else(|| bad("it has no `npm:`, `pypi:` or `git:` prefix"))?;
        let rest = rest.trim();
        if rest.is_empty() {
            return Err(bad("nothing after the prefix"));
        }
        let (source, version) = match kind {
            "npm" => {
                // A scoped name starts with `@`: the version `@` is the last one after index 0.
                let (name, version) = match rest.get(1..).and_then(|t| t.rfind('@')) {
                    Some(i) => (&rest[..=i], Some(&rest[i + 2..])),
                    None => (rest, None),
                };
                check_npm_name(name).map_err(|w| bad(&w))?;
                (Source::Npm(NpmPackage::new(name)), version)
            }
            "pypi" => {
                let (name, version) = match rest.split_once("==") {
                    Some((n, v)) => (n.trim(), Some(v.trim())),
                    None => (rest, None),
                };
                if name.is_empty()
                    || !name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                {
                    return Err(bad(
                        "a PyPI name is ASCII letters, digits, `-`, `_` and `.` (pin a version with `==`)",
                    ));
                }
                (Source::Pypi(PypiProject::new(name)), version)
            }
            "git" => {
                let (url, sha) = match rest.rsplit_once('@') {
                    Some((u, s))
                        if (7..=40).contains(&s.len())
                            && s.chars().all(|c| c.is_ascii_hexdigit()) =>
                    {
                        (u, Some(s))
                    }
                    _ => (rest, None),
                };
                (Source::Git(GitRepo::new(url)), sha)
            }
            "registry" => {
                return Err(bad(
                    "`registry:` entries are expanded by the registry workflow into npm or PyPI pins",
                ));
            }
            other => return Err(bad(&format!("unknown source kind `{other}`"))),
        };
        match (version, pinned) {
            (Some(v), true) if !v.is_empty() => Ok(Pin {
                source,
                version: v.to_owned(),
                integrity: None,
            }),
            (None, false) => Ok(Pin {
                source,
                version: String::new(),
                integrity: None,
            }),
            (_, true) => Err(bad(
                "a pin names one version: `npm:PKG@VER`, `pypi:PKG==VER`, `git:URL@SHA`",
            )),
            (Some(_), false) => Err(bad(
                "this names one version; a source lists them all (drop the version, or filter with a range)",
            )),
        }
    }

    /// With an expected integrity.
    pub fn with_integrity(mut self, integrity: impl Into<String>) -> Pin {
        self.integrity = Some(integrity.into());
        self
    }

    /// The pin an MCP Registry `server.json` package entry names: `registryType` `npm` or
    /// `pypi`, `identifier`, `version`, `registryBaseUrl` (npm: the registry; PyPI: the site,
    /// whose simple index is `/simple/`), and `fileSha256` as the wheel's expected hash.
    ///
    /// # Errors
    /// [`SourceError::BadSpec`] for another registry type or a missing version.
    pub fn from_registry_package(
        registry_type: &str,
        identifier: &str,
        version: Option<&str>,
        registry_base_url: Option<&str>,
        file_sha256: Option<&str>,
    ) -> Result<Pin, SourceError> {
        let spec = format!("{registry_type}:{identifier}");
        let bad = |why: &str| SourceError::BadSpec {
            spec: spec.clone(),
            why: why.to_owned(),
        };
        let version = version
            .filter(|v| !v.is_empty() && *v != "latest")
            .ok_or_else(|| bad("the package entry pins no exact version"))?;
        let base = registry_base_url.map(|u| u.trim_end_matches('/').to_owned());
        let source = match registry_type {
            "npm" => {
                check_npm_name(identifier).map_err(|w| bad(&w))?;
                Source::Npm(NpmPackage {
                    name: identifier.to_owned(),
                    registry: base.map(|b| format!("{b}/")),
                })
            }
            "pypi" => Source::Pypi(PypiProject {
                name: identifier.to_owned(),
                index: base.map(|b| {
                    if b.ends_with("/simple") {
                        format!("{b}/")
                    } else {
                        format!("{b}/simple/")
                    }
                }),
            }),
            other => {
                return Err(bad(&format!(
                    "registry type `{other}` is not installable here (npm and pypi are)"
                )));
            }
        };
        Ok(Pin {
            source,
            version: version.to_owned(),
            integrity: file_sha256.map(|h| format!("sha256:{h}")),
        })
    }
}

impl fmt::Display for Pin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Source::Npm(p) => write!(f, "npm:{}@{}", p.name, self.version),
            Source::Pypi(p) => write!(f, "pypi:{}=={}", p.name, self.version),
            Source::Git(g) => write!(f, "git:{}@{}", g.url, self.version),
        }
    }
}

fn check_npm_name(name: &str) -> Result<(), String> {
    let body = match name.strip_prefix('@') {
        Some(scoped) => match scoped.split_once('/') {
            Some((scope, pkg)) if !scope.is_empty() && !pkg.is_empty() && !pkg.contains('/') => {
                format!("{scope}{pkg}")
            }
            _ => return Err("a scoped npm name is `@scope/name`".into()),
        },
        None if name.contains('/') => return Err("an npm name has no `/` unless scoped".into()),
        None => name.to_owned(),
    };
    if body.is_empty()
        || name.len() > 214
        || !body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    {
        return Err("npm names are URL-safe: letters, digits, `-`, `_`, `.`, `~`".into());
    }
    Ok(())
}

/// A local git path made absolute (so a cache key does not depend on the working directory);
/// URLs are kept as written.
pub(crate) fn absolute_git_url(url: &str) -> String {
    let looks_remote = url.contains("://") || (url.contains(':') && url.contains('@'));
    if looks_remote {
        return url.to_owned();
    }
    let path = PathBuf::from(url);
    std::fs::canonicalize(&path)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| url.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_and_pins() {
        assert_eq!(
            Source::parse("npm:@scope/pkg").ok(),
            Some(Source::Npm(NpmPackage::new("@scope/pkg")))
        );
        let p = Pin::parse("npm:@scope/pkg@1.2.3").expect("pin");
        assert_eq!(p.version, "1.2.3");
        assert_eq!(p.to_string(), "npm:@scope/pkg@1.2.3");
        let p = Pin::parse("pypi:My_Pkg==1.0rc1").expect("pin");
        assert_eq!(p.version, "1.0rc1");
        assert_eq!(p.source.id(), "pypi:my-pkg");
        let p = Pin::parse("git:git@github.com:o/r.git@0123abcd").expect("pin");
        assert_eq!(p.version, "0123abcd");
        assert!(matches!(&p.source, Source::Git(g) if g.url == "git@github.com:o/r.git"));
        assert!(matches!(
            Source::parse("git:git@github.com:o/r.git"),
            Ok(Source::Git(g)) if g.url == "git@github.com:o/r.git"
        ));
    }

    #[test]
    fn refusals() {
        for bad in [
            "pkg",
            "npm:",
            "cargo:x",
            "npm:a/b",
            "npm:@scope",
            "pypi:a b",
            "registry:io.x/y",
        ] {
            assert!(Source::parse(bad).is_err(), "{bad}");
        }
        assert!(Source::parse("npm:pkg@1.0.0").is_err());
        assert!(Pin::parse("npm:pkg").is_err());
        assert!(Pin::parse("git:/repo").is_err());
        assert!(Pin::parse("pypi:x==").is_err());
    }

    #[test]
    fn normalization_and_dir_names() {
        assert_eq!(normalize_pypi("Foo.Bar__baz"), "foo-bar-baz");
        assert_eq!(
            Source::parse("npm:@a/b").map(|s| s.dir_name()).ok(),
            Some("_a_b".into())
        );
        assert_eq!(
            Source::parse("git:https://host/o/repo.git")
                .map(|s| s.dir_name())
                .ok(),
            Some("repo".into())
        );
    }

    #[test]
    fn registry_packages() {
        let p = Pin::from_registry_package(
            "pypi",
            "mcp-server-time",
            Some("0.6.2"),
            Some("https://pypi.org"),
            Some("ab"),
        )
        .expect("pin");
        assert!(
            matches!(&p.source, Source::Pypi(pp) if pp.index.as_deref() == Some("https://pypi.org/simple/"))
        );
        assert_eq!(p.integrity.as_deref(), Some("sha256:ab"));
        assert!(Pin::from_registry_package("oci", "x", Some("1"), None, None).is_err());
        assert!(Pin::from_registry_package("npm", "x", Some("latest"), None, None).is_err());
    }
}
