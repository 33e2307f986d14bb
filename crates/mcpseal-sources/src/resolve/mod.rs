//! Listing a source's published versions, and resolving one pinned version.

pub(crate) mod git;
pub(crate) mod npm;
pub(crate) mod pypi;

use crate::config::Sources;
use crate::error::SourceError;
use crate::integrity::{Check, check_sha256, check_sri};
use crate::process::{Stdout, run};
use crate::published::{Artifact, PublishedVersion, VersionList, VersionQuery, select};
use crate::source::{NPM_DEFAULT_REGISTRY, PYPI_DEFAULT_INDEX, Pin, Source};

impl Sources {
    /// The versions `source` publishes, filtered by `query`, ascending semver.
    ///
    /// # Errors
    /// [`SourceError`] when the registry, index or repository cannot be read (never an
    /// empty list in place of an unreachable registry).
    pub async fn versions(
        &self,
        source: &Source,
        query: &VersionQuery,
    ) -> Result<VersionList, SourceError> {
        let (origin, all, unparsed) = match source {
            Source::Npm(p) => {
                let registry = self.npm_registry_for(p.registry.as_deref()).await?;
                let all = npm::versions(&self.http, &registry, &p.name).await?;
                (registry, all, Vec::new())
            }
            Source::Pypi(p) => {
                let index = self.pypi_index_for(p.index.as_deref()).await?;
                let (all, unparsed) = pypi::versions(&self.http, &index, p).await?;
                (index, all, unparsed)
            }
            Source::Git(g) => {
                let (all, unparsed) = git::versions(self, g).await?;
                (g.url.clone(), all, unparsed)
            }
        };
        Ok(select(source.clone(), origin, all, unparsed, query))
    }

    /// The one version `pin` names, checked against what the source lists: it must be
    /// published, and a pinned integrity must be what the registry lists (npm SRI; for PyPI,
    /// the SHA-256 of one of the release's files, which is then the only file installed).
    ///
    /// # Errors
    /// [`SourceError::VersionNotFound`], [`SourceError::PinMismatch`], or the listing's own.
    pub async fn resolve_pin(&self, pin: &Pin) -> Result<PublishedVersion, SourceError> {
        if let Source::Git(g) = &pin.source {
            return git::resolve_commit(self, g, &pin.version).await;
        }
        let query = VersionQuery {
            include_prereleases: true,
            include_yanked: true,
            ..VersionQuery::default()
        };
        let list = self.versions(&pin.source, &query).await?;
        let wanted = mcpseal_surface::lock::Version::parse(&pin.version).ok();
        let found = list
            .versions
            .into_iter()
            .find(|v| {
                v.version == pin.version
                    || matches!(&pin.source, Source::Pypi(_))
                        && wanted.is_some()
                        && v.semver() == wanted.as_ref()
                        && v.semver().map(|s| s.semver().build.as_str())
                            == wanted.as_ref().map(|s| s.semver().build.as_str())
            })
            .ok_or_else(|| SourceError::VersionNotFound {
                pin: pin.to_string(),
            })?;
        let Some(expected) = &pin.integrity else {
            return Ok(found);
        };
        let mismatch = |listed: String| SourceError::PinMismatch {
            pin: pin.to_string(),
            listed,
            expected: expected.clone(),
        };
        match &found.artifact {
            Artifact::NpmTarball { integrity, .. } => {
                let listed = integrity.clone().unwrap_or_default();
                if !same_sri(&listed, expected) {
                    return Err(mismatch(listed));
                }
                Ok(found)
            }
            Artifact::PypiFiles { files } => {
                let hex = expected
                    .trim_start_matches("sha256:")
                    .trim_start_matches("sha256=")
                    .to_ascii_lowercase();
                let Some(file) = files
                    .iter()
                    .find(|f| f.sha256.as_deref() == Some(hex.as_str()))
                    .cloned()
                else {
                    let listed = files
                        .iter()
                        .map(|f| {
                            format!(
                                "{} sha256:{}",
                                f.filename,
                                f.sha256.as_deref().unwrap_or("?")
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(", ");
                    return Err(mismatch(listed));
                };
                Ok(PublishedVersion::new(
                    found.version.clone(),
                    found.published_at,
                    found.status.clone(),
                    Artifact::PypiFiles { files: vec![file] },
                ))
            }
            Artifact::GitCommit { .. } => Ok(found),
        }
    }

    /// The registry for an npm source: its own, the configured one, `npm config get
    /// registry`, or the public one; always ending in `/`.
    pub(crate) async fn npm_registry_for(&self, own: Option<&str>) -> Result<String, SourceError> {
        if let Some(r) = own.or(self.config.npm_registry.as_deref()) {
            crate::http::check_url(r)?;
            return Ok(slash(r));
        }
        let r = self
            .npm_registry
            .get_or_try_init(|| async {
                let out = run(self
                    .tool(&self.config.tools.npm, self.config.tool_timeout)
                    .args(["config", "get", "registry"])
                    .stdout(Stdout::Capture(64 * 1024)))
                .await;
                let configured = match out {
                    Ok(o) if o.success => String::from_utf8_lossy(&o.stdout).trim().to_owned(),
                    // No npm, or npm failing: the public registry, as npm itself defaults.
                    _ => String::new(),
                };
                let r = if configured.starts_with("http") {
                    configured
                } else {
                    NPM_DEFAULT_REGISTRY.to_owned()
                };
                crate::http::check_url(&r)?;
                Ok::<_, SourceError>(slash(&r))
            })
            .await?;
        Ok(r.clone())
    }

    /// The simple index for a PyPI source: its own, the configured one, `PIP_INDEX_URL`,
    /// `pip config get global.index-url`, or the public one; always ending in `/`.
    pub(crate) async fn pypi_index_for(&self, own: Option<&str>) -> Result<String, SourceError> {
        if let Some(r) = own.or(self.config.pypi_index.as_deref()) {
            crate::http::check_url(r)?;
            return Ok(slash(r));
        }
        let r = self
            .pypi_index
            .get_or_try_init(|| async {
                let from_env = std::env::var("PIP_INDEX_URL")
                    .ok()
                    .filter(|v| !v.is_empty());
                let configured = match from_env {
                    Some(v) => v,
                    None => {
                        let out = run(self
                            .tool(&self.config.tools.python, self.config.tool_timeout)
                            .args(["-m", "pip", "config", "get", "global.index-url"])
                            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
                            .stdout(Stdout::Capture(64 * 1024)))
                        .await;
                        match out {
                            Ok(o) if o.success => {
                                String::from_utf8_lossy(&o.stdout).trim().to_owned()
                            }
                            _ => String::new(),
                        }
                    }
                };
                let r = if configured.starts_with("http") {
                    configured
                } else {
                    PYPI_DEFAULT_INDEX.to_owned()
                };
                crate::http::check_url(&r)?;
                Ok::<_, SourceError>(slash(&r))
            })
            .await?;
        Ok(r.clone())
    }
}

fn slash(url: &str) -> String {
    format!("{}/", url.trim_end_matches('/'))
}

/// Whether two SRI strings name the same content: some algorithm listed in both with the
/// same digest.
fn same_sri(a: &str, b: &str) -> bool {
    let entries = |s: &str| -> Vec<(String, String)> {
        s.split_whitespace()
            .filter_map(|e| e.split_once('-'))
            .map(|(x, y)| (x.to_ascii_lowercase(), y.to_owned()))
            .collect()
    };
    let (ea, eb) = (entries(a), entries(b));
    ea.iter().any(|x| eb.contains(x))
}

/// Verifies downloaded bytes against the artifact's listed integrity.
pub(crate) fn verify_bytes(bytes: &[u8], expected: &str, sri: bool) -> Result<(), String> {
    let check = if sri {
        check_sri(bytes, expected)
    } else {
        check_sha256(bytes, expected)
    };
    match check {
        Check::Ok => Ok(()),
        Check::Mismatch { actual } => Err(format!(
            "integrity mismatch: the registry lists `{expected}`, the download is `{actual}`"
        )),
        Check::Unusable => Err(format!(
            "the listed integrity `{expected}` names no algorithm mcpseal can check"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sri_equality() {
        assert!(same_sri("sha512-abc sha1-x", "sha512-abc"));
        assert!(!same_sri("sha512-abc", "sha512-abd"));
        assert!(!same_sri("", "sha512-abc"));
    }
}
