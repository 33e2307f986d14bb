//! Published versions as typed rows, and the one place they are ordered and filtered.
//!
//! Order is semver precedence (PEP 440 mapped the way the lock rules map it, in
//! `mcpseal_surface::lock::Version`), never publish date; versions of equal precedence (`1.0`
//! and `1.0.0.post1` on PyPI) keep the order they were published in, then their text. A
//! version that does not map to semver is never guessed into place: it is listed in
//! [`VersionList::excluded`] with the reason.

use jiff::Timestamp;
use mcpseal_surface::lock::Version;
use serde::Serialize;

use crate::error::SourceError;
use crate::source::Source;

/// One published version of a [`Source`].
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PublishedVersion {
    /// The version as published (`1.2.0`, `1.0rc1`, the tag's version part for git).
    pub version: String,
    /// When it was published: npm's `time[version]`, the earliest upload of its PyPI files,
    /// the tagged commit's committer date; `None` when the source does not say (a PEP 503
    /// HTML index).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published_at: Option<Timestamp>,
    /// Deprecated (npm), yanked (PyPI) or neither.
    pub status: Status,
    /// What gets installed, and how it is verified.
    pub artifact: Artifact,
    #[serde(skip)]
    parsed: Option<Version>,
}

impl PublishedVersion {
    /// A version row; its semver meaning is computed here (`None` when it has none).
    pub fn new(
        version: impl Into<String>,
        published_at: Option<Timestamp>,
        status: Status,
        artifact: Artifact,
    ) -> PublishedVersion {
        let version = version.into();
        let parsed = Version::parse(&version).ok();
        PublishedVersion {
            version,
            published_at,
            status,
            artifact,
            parsed,
        }
    }

    /// The semver meaning used for ordering and compatibility lines (`None`: it has none, and
    /// such a version is only ever in [`VersionList::excluded`]).
    pub fn semver(&self) -> Option<&Version> {
        self.parsed.as_ref()
    }

    /// A pre-release (`-rc.1`, PEP 440 `a`/`b`/`rc`).
    pub fn is_prerelease(&self) -> bool {
        self.parsed
            .as_ref()
            .is_some_and(|v| !v.semver().pre.is_empty())
    }
}

/// Whether the publisher withdrew a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Status {
    /// Neither deprecated nor yanked.
    Current,
    /// npm `deprecated`: still installable, listed and flagged.
    Deprecated {
        /// The deprecation message.
        message: String,
    },
    /// PyPI yanked (PEP 592): skipped unless asked for.
    Yanked {
        /// The reason given, if any.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
}

/// What is installed for a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Artifact {
    /// An npm tarball.
    NpmTarball {
        /// Its URL (`dist.tarball`).
        url: String,
        /// Its SRI integrity (`sha512-…`), or `sha1-…` built from the legacy `shasum`.
        #[serde(skip_serializing_if = "Option::is_none")]
        integrity: Option<String>,
    },
    /// The files of a PyPI release.
    PypiFiles {
        /// Wheels and sdists, in the index's order.
        files: Vec<DistFile>,
    },
    /// A tagged git commit.
    GitCommit {
        /// The full commit hash.
        commit: String,
        /// The tag naming it (`None` for a pin by commit).
        #[serde(skip_serializing_if = "Option::is_none")]
        tag: Option<String>,
    },
}

impl Artifact {
    /// The integrity that identifies this version's artifact in the cache key: the npm SRI,
    /// the sorted `filename=sha256` list of a PyPI release's files, the git commit.
    pub fn identity(&self) -> String {
        match self {
            Artifact::NpmTarball { integrity, url } => {
                integrity.clone().unwrap_or_else(|| format!("url:{url}"))
            }
            Artifact::PypiFiles { files } => {
                let mut parts: Vec<String> = files
                    .iter()
                    .map(|f| format!("{}={}", f.filename, f.sha256.as_deref().unwrap_or("?")))
                    .collect();
                parts.sort();
                parts.join(",")
            }
            Artifact::GitCommit { commit, .. } => commit.clone(),
        }
    }
}

/// One file of a PyPI release.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DistFile {
    /// The file name (`pkg-1.0-py3-none-any.whl`, `pkg-1.0.tar.gz`).
    pub filename: String,
    /// Its URL (the hash fragment removed).
    pub url: String,
    /// Its SHA-256, lower-case hex, when the index gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// A wheel (installable without running a build) or not.
    pub wheel: bool,
    /// Yanked (PEP 592).
    pub yanked: bool,
    /// Its upload time (JSON API, PEP 700).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uploaded_at: Option<Timestamp>,
}

/// Which versions to keep.
#[derive(Debug, Clone, Default)]
pub struct VersionQuery {
    /// Keep pre-releases (excluded by default).
    pub include_prereleases: bool,
    /// Keep yanked versions (excluded by default; deprecated npm versions are always kept and
    /// flagged: a broken release deprecated later is exactly what a replay should show).
    pub include_yanked: bool,
    /// Keep only versions published at or after this instant (a version without a publish
    /// date is then excluded: it cannot be shown to be recent).
    pub since: Option<Timestamp>,
    /// Keep only versions whose precedence matches this range.
    pub range: Option<semver::VersionReq>,
    /// Keep only the newest N (after the other filters).
    pub last: Option<usize>,
}

impl VersionQuery {
    /// Parses a `--since` value: `YYYY-MM-DD` (midnight UTC) or an RFC 3339 instant.
    ///
    /// # Errors
    /// [`SourceError::BadQuery`].
    pub fn parse_since(text: &str) -> Result<Timestamp, SourceError> {
        let t = text.trim();
        if let Ok(ts) = t.parse::<Timestamp>() {
            return Ok(ts);
        }
        t.parse::<jiff::civil::Date>()
            .ok()
            .and_then(|d| d.to_zoned_datetime(jiff::tz::TimeZone::UTC).ok())
            .map(|z| z.timestamp())
            .ok_or_else(|| {
                SourceError::BadQuery(format!(
                    "`{text}` is not a date: write `YYYY-MM-DD` or an RFC 3339 instant"
                ))
            })
    }

    /// Parses a `--versions` range (`>=1.2, <2`, `^0.4`).
    ///
    /// # Errors
    /// [`SourceError::BadQuery`].
    pub fn parse_range(text: &str) -> Result<semver::VersionReq, SourceError> {
        semver::VersionReq::parse(text)
            .map_err(|e| SourceError::BadQuery(format!("`{text}` is not a semver range: {e}")))
    }
}

/// Why a published version is not in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    tag = "reason",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Exclusion {
    /// It has no semver meaning.
    NotSemver {
        /// Why.
        why: String,
    },
    /// A pre-release, and pre-releases were not asked for.
    Prerelease,
    /// Yanked, and yanked versions were not asked for.
    Yanked,
    /// Published before `since`.
    BeforeSince,
    /// `since` was given and the source gives no publish date.
    NoPublishDate,
    /// Outside the range.
    OutOfRange,
    /// Older than the newest N kept.
    NotAmongLast,
    /// Listed without any file to install (a PyPI release emptied by its publisher).
    NoFiles,
}

/// A version left out, and why.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Excluded {
    /// The version (or git tag) as published.
    pub version: String,
    /// Why it is left out.
    #[serde(flatten)]
    pub exclusion: Exclusion,
}

/// The versions of a source, oldest first by semver, and what was left out.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionList {
    /// The source.
    pub source: Source,
    /// The registry, index or repository URL they were read from.
    pub origin: String,
    /// Kept versions, ascending semver precedence.
    pub versions: Vec<PublishedVersion>,
    /// Left out, in the order published.
    pub excluded: Vec<Excluded>,
}

/// Whether `v` is in `range`. The semver crate never matches a pre-release against a range
/// without a pre-release comparator; when pre-releases are asked for, `2.0.0-rc.1` is in
/// `>=1.2` as its release would be.
fn in_range(range: &semver::VersionReq, v: &Version, include_prereleases: bool) -> bool {
    let p = v.precedence();
    if range.matches(&p) {
        return true;
    }
    if include_prereleases && !p.pre.is_empty() {
        let mut release = p;
        release.pre = semver::Prerelease::EMPTY;
        return range.matches(&release);
    }
    false
}

/// Orders and filters `all` by `query` (the one implementation every source uses, and the
/// facade's `registry:` replay over the versions a registry lists).
pub fn select(
    source: Source,
    origin: String,
    all: Vec<PublishedVersion>,
    not_semver: Vec<Excluded>,
    query: &VersionQuery,
) -> VersionList {
    let mut excluded = not_semver;
    let mut kept = Vec::new();
    for v in all {
        let exclusion = match v.semver() {
            None => Some(Exclusion::NotSemver {
                why: Version::parse(&v.version)
                    .err()
                    .map(|e| e.why)
                    .unwrap_or_default(),
            }),
            Some(sv) => {
                if v.is_prerelease() && !query.include_prereleases {
                    Some(Exclusion::Prerelease)
                } else if matches!(v.status, Status::Yanked { .. }) && !query.include_yanked {
                    Some(Exclusion::Yanked)
                } else if query
                    .range
                    .as_ref()
                    .is_some_and(|r| !in_range(r, sv, query.include_prereleases))
                {
                    Some(Exclusion::OutOfRange)
                } else {
                    match (query.since, v.published_at) {
                        (Some(since), Some(at)) if at < since => Some(Exclusion::BeforeSince),
                        (Some(_), None) => Some(Exclusion::NoPublishDate),
                        _ => None,
                    }
                }
            }
        };
        match exclusion {
            Some(exclusion) => excluded.push(Excluded {
                version: v.version.clone(),
                exclusion,
            }),
            None => kept.push(v),
        }
    }
    kept.sort_by(|a, b| {
        a.semver()
            .cmp(&b.semver())
            .then_with(|| a.published_at.cmp(&b.published_at))
            .then_with(|| a.version.cmp(&b.version))
    });
    if let Some(n) = query.last
        && kept.len() > n
    {
        let cut = kept.len() - n;
        for v in kept.drain(..cut) {
            excluded.push(Excluded {
                version: v.version,
                exclusion: Exclusion::NotAmongLast,
            });
        }
    }
    VersionList {
        source,
        origin,
        versions: kept,
        excluded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::NpmPackage;

    fn v(text: &str, at: Option<&str>, status: Status) -> PublishedVersion {
        PublishedVersion::new(
            text,
            at.map(|a| a.parse().expect("timestamp")),
            status,
            Artifact::GitCommit {
                commit: "0".into(),
                tag: None,
            },
        )
    }

    fn names(l: &VersionList) -> Vec<&str> {
        l.versions.iter().map(|v| v.version.as_str()).collect()
    }

    #[test]
    fn order_and_filters() {
        let all = || {
            vec![
                v("1.10.0", Some("2024-01-01T00:00:00Z"), Status::Current),
                v("1.2.0", Some("2024-06-01T00:00:00Z"), Status::Current),
                v("2.0.0-rc.1", Some("2024-02-01T00:00:00Z"), Status::Current),
                v("1.0", Some("2023-01-01T00:00:00Z"), Status::Current),
                v("1.0.0.post1", Some("2023-02-01T00:00:00Z"), Status::Current),
                v(
                    "1.3.0",
                    Some("2024-07-01T00:00:00Z"),
                    Status::Yanked { reason: None },
                ),
                v(
                    "1.1.0",
                    None,
                    Status::Deprecated {
                        message: "broken".into(),
                    },
                ),
                v("1.0.dev3", None, Status::Current),
            ]
        };
        let src = Source::Npm(NpmPackage::new("x"));
        let q = VersionQuery::default();
        let l = select(src.clone(), String::new(), all(), Vec::new(), &q);
        // semver, not date; equal precedence by publish time; deprecated kept.
        assert_eq!(
            names(&l),
            ["1.0", "1.0.0.post1", "1.1.0", "1.2.0", "1.10.0"]
        );
        let reasons: Vec<_> = l
            .excluded
            .iter()
            .map(|e| (e.version.as_str(), e.exclusion.clone()))
            .collect();
        assert!(reasons.contains(&("2.0.0-rc.1", Exclusion::Prerelease)));
        assert!(reasons.contains(&("1.3.0", Exclusion::Yanked)));
        assert!(
            reasons
                .iter()
                .any(|(v, e)| *v == "1.0.dev3" && matches!(e, Exclusion::NotSemver { .. }))
        );

        let q = VersionQuery {
            include_prereleases: true,
            include_yanked: true,
            since: Some(VersionQuery::parse_since("2024-01-01").expect("date")),
            range: Some(VersionQuery::parse_range(">=1.2").expect("range")),
            last: Some(3),
        };
        let l = select(src, String::new(), all(), Vec::new(), &q);
        assert_eq!(names(&l), ["1.3.0", "1.10.0", "2.0.0-rc.1"]);
        let why = |ver: &str| {
            l.excluded
                .iter()
                .find(|e| e.version == ver)
                .map(|e| e.exclusion.clone())
        };
        assert_eq!(why("1.2.0"), Some(Exclusion::NotAmongLast));
        assert_eq!(why("1.1.0"), Some(Exclusion::OutOfRange));
        assert!(VersionQuery::parse_since("yesterday").is_err());
        assert!(VersionQuery::parse_range("one").is_err());
    }
}
