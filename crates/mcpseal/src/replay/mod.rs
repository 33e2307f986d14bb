//! `mcpseal replay`: a package's published history, version by version.
//!
//! Each version the source lists (`mcpseal-sources`: semver order, filters) is installed into
//! the cache with install-time code off, started over stdio under the sandbox launcher
//! (scrubbed environment, no network, Landlock where the kernel has it) and captured with the
//! normal fail-closed capture ([`crate::capture_trusted`]). Then each captured version is
//! judged against the previous captured one: the classified diff, the bump needed vs the bump
//! declared, the violations, and witnesses for breaking tool changes.
//!
//! # Violations (semver; 0.x per the lock rules)
//!
//! * the surface changed under the same precedence (`1.1.0` → `1.1.0.post1`): changed without
//!   a version bump;
//! * the surface changed while the server still reports the previous version's
//!   `serverInfo.version`: changed under the same reported version;
//! * a breaking change without a new compatibility line (a new major; in 0.x a new minor when
//!   [`ReplayOptions::zero_major`], the default): a break without a new line, or, when a
//!   whole item is gone, a removal outside a major.
//!
//! Additive and security changes in a patch are shown (`needs minor, declared patch`) but are
//! not violations, as the lock rules accept them without `--strict-semver`. A witness is a
//! `tools/call` request the old input schema accepts and the new one rejects (or whose tool
//! is gone), both checked with the JSON Schema validator; output-schema breaks have none.
//!
//! Fail closed: a version that does not install, has no entry point, does not start, hangs,
//! crashes or gives an untrustworthy surface is a row saying so (with the installer's or the
//! server's last lines), never an empty surface and never a baseline for the next version.
//!
//! Concurrency: up to [`ReplayOptions::jobs`] versions are measured at once, each through its
//! own install → start → capture, so the capture of one version never waits for an unrelated
//! install. The rows are put back in semver order before judging, so the report does not
//! depend on which finished first.

mod judge;
pub(crate) mod measure;
pub(crate) mod registry;
mod witness;

pub use registry::RegistryLookup;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use mcpseal_client::{Options, Target};
use mcpseal_report::replay::{
    ExcludedVersion, LiveMatch, Outcome, REPLAY_SCHEMA_VERSION, ReplayReport, ReplaySummary,
    ReplayVerdict, RowVerdict, RuleSettings, Timing, VersionRow, Withdrawal,
};
use mcpseal_sources::{
    Config, LaunchOptions, PublishedVersion, Source, SourceError, Sources, Status, VersionQuery,
    select,
};
use mcpseal_surface::Form;
use mcpseal_surface::lock::Version;
use serde_json::Value;
use thiserror::Error;

use crate::SnapshotOptions;
use judge::Judged;
use measure::Measured;
use registry::Planned;

/// Where the versions come from.
#[derive(Debug, Clone)]
pub enum ReplaySource {
    /// An npm package, a PyPI project or a git repository.
    Package(Source),
    /// `registry:NAME`: the versions an MCP Registry lists, each pinned to its package.
    Registry(RegistryLookup),
}

/// How to replay.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The package, repository or registry entry.
    pub source: ReplaySource,
    /// For a package source: the MCP Registry entry whose listing gives each row's registry
    /// presence (`registry:` sources always have it).
    pub presence: Option<RegistryLookup>,
    /// Which versions.
    pub query: VersionQuery,
    /// Cache, registries, tools, `allow_sdist`.
    pub config: Config,
    /// Entry point, arguments, `--env`, isolation and the launcher.
    pub launch: LaunchOptions,
    /// Versions measured at once (at least 1).
    pub jobs: usize,
    /// In 0.x a new minor is a new compatibility line (the lock rules; default true).
    pub zero_major: bool,
    /// A live endpoint whose surface is matched against every replayed version.
    pub live: Option<(Target, Options)>,
    /// Per-request timeout of the capture. A server that does not answer in time did not start.
    pub request_timeout: Duration,
    /// The whole start + capture of one version (a hung server is killed after it).
    pub version_deadline: Duration,
    /// The mcpseal version written into the report.
    pub tool_version: String,
}

impl ReplayOptions {
    /// Defaults: every kept version, 2 jobs, `zero_major`, 30 s per request, 5 min per version.
    pub fn new(source: Source, config: Config, launch: LaunchOptions) -> ReplayOptions {
        ReplayOptions::of(ReplaySource::Package(source), config, launch)
    }

    /// [`ReplayOptions::new`] for any [`ReplaySource`] (`registry:NAME` too).
    pub fn of(source: ReplaySource, config: Config, launch: LaunchOptions) -> ReplayOptions {
        ReplayOptions {
            source,
            presence: None,
            query: VersionQuery::default(),
            config,
            launch,
            jobs: std::thread::available_parallelism().map_or(2, usize::from),
            zero_major: true,
            live: None,
            request_timeout: Duration::from_secs(30),
            version_deadline: Duration::from_secs(300),
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// A replay's result: the document, and what never goes into its JSON.
#[derive(Debug, Clone)]
pub struct ReplayRun {
    /// The report.
    pub report: ReplayReport,
    /// Per version, how long it took and whether the install was cached.
    pub timings: Vec<Timing>,
}

/// Why nothing could be replayed (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The versions could not be listed.
    #[error("{0}")]
    Source(#[from] SourceError),
    /// The MCP Registry could not be read.
    #[error("cannot read the MCP Registry at {url}: {reason}")]
    Registry {
        /// The URL asked.
        url: String,
        /// Why.
        reason: String,
    },
    /// The source lists no version that passes the filters.
    #[error("{package} has no version to replay ({excluded} left out by the filters)")]
    NoVersions {
        /// The source.
        package: String,
        /// How many versions the filters left out.
        excluded: usize,
    },
}

impl ReplayError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            ReplayError::Source(e) => e.hint(),
            ReplayError::Registry { .. } => {
                "check `--registry URL` (the base, without `/v0.1`) and the server name; `mcpseal registry list --search TEXT` shows what it has"
            }
            ReplayError::NoVersions { .. } => {
                "widen `--versions`, drop `--since`, or add `--include-prereleases` / `--include-yanked`"
            }
        }
    }
}

fn withdrawal(v: &PublishedVersion) -> Withdrawal {
    match &v.status {
        Status::Current => Withdrawal::Current,
        Status::Deprecated { message } => Withdrawal::Deprecated {
            message: message.clone(),
        },
        Status::Yanked { reason } => Withdrawal::Yanked {
            reason: reason.clone(),
        },
    }
}

fn now_seconds() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .map(|t| t.to_string())
        .unwrap_or_else(|_| now.to_string())
}

/// Replays `options.source`'s published history (see the module docs).
///
/// # Errors
/// [`ReplayError`] when the versions cannot be listed or none is left; everything that goes
/// wrong with one version is a row of the report instead.
pub async fn replay(options: &ReplayOptions) -> Result<ReplayRun, ReplayError> {
    let sources = Arc::new(Sources::new(options.config.clone())?);
    let source_label = match &options.source {
        ReplaySource::Package(source) => source.id(),
        ReplaySource::Registry(lookup) => format!("registry:{}", lookup.name),
    };
    crate::progress::waiting(format!("listing the published versions of {source_label}"));
    let (source_id, origin, planned, excluded_list) = match &options.source {
        ReplaySource::Package(source) => {
            let list = sources.versions(source, &options.query).await?;
            let entries = match &options.presence {
                Some(lookup) => Some(registry::listing(lookup).await?),
                None => None,
            };
            let planned: Vec<Planned> = list
                .versions
                .iter()
                .map(|v| Planned {
                    row: v.clone(),
                    install: Ok((source.clone(), v.clone())),
                    package: None,
                    presence: entries
                        .as_deref()
                        .map(|e| registry::presence_for(source, e, &v.version)),
                })
                .collect();
            (source.id(), list.origin, planned, list.excluded)
        }
        ReplaySource::Registry(lookup) => {
            let entries = registry::listing(lookup).await?;
            // The registry's own name stands in as the list's source: only its order and
            // filters are used here.
            let list = select(
                Source::Npm(mcpseal_sources::NpmPackage::new(lookup.name.clone())),
                lookup.base.clone(),
                registry::rows(&entries),
                Vec::new(),
                &options.query,
            );
            let mut planned = Vec::new();
            for row in list.versions {
                planned.push(registry::plan(&sources, &entries, row).await);
            }
            (
                format!("registry:{}", lookup.name),
                lookup.base.clone(),
                planned,
                list.excluded,
            )
        }
    };
    if planned.is_empty() {
        return Err(ReplayError::NoVersions {
            package: source_id,
            excluded: excluded_list.len(),
        });
    }
    let snapshot = SnapshotOptions {
        form: Form::McpSeal1,
        ..SnapshotOptions::default()
    };
    let jobs = options.jobs.max(1);
    let tally = measure::Tally {
        job: "replay",
        done: std::sync::atomic::AtomicUsize::new(0),
        total: planned.len(),
    };
    let tally = &tally;
    let sandboxed = measure::Sandboxed {
        launch: &options.launch,
        request_timeout: options.request_timeout,
        deadline: options.version_deadline,
    };
    let sandboxed = &sandboxed;
    let mut measured: Vec<(usize, Measured)> =
        futures_util::stream::iter(planned.iter().enumerate())
            .map(|(i, p)| {
                let sources = Arc::clone(&sources);
                async move {
                    let m = match &p.install {
                        Ok((source, v)) => {
                            measure::measure(&sources, sandboxed, &snapshot, source, v, tally).await
                        }
                        Err(outcome) => Measured {
                            outcome: outcome.clone(),
                            canonical: None,
                            isolation: None,
                            seconds: 0.0,
                            cached: false,
                        },
                    };
                    (i, m)
                }
            })
            .buffer_unordered(jobs)
            .collect()
            .await;
    measured.sort_by_key(|(i, _)| *i);

    let mut rows = Vec::new();
    let mut violations = Vec::new();
    let mut timings = Vec::new();
    let mut isolation: Vec<String> = Vec::new();
    let mut not_measured: Vec<String> = Vec::new();
    // The previous captured version: (version, parsed, reported, canonical surface).
    let mut prev: Option<(String, Version, Option<String>, Value)> = None;
    let mut captured_sha: Vec<(String, String)> = Vec::new();
    for ((_, m), p) in measured.into_iter().zip(&planned) {
        let v = &p.row;
        timings.push(Timing {
            version: v.version.clone(),
            seconds: m.seconds,
            cached: m.cached,
        });
        if let Some(lines) = &m.isolation {
            for l in lines {
                if !isolation.contains(l) {
                    isolation.push(l.clone());
                }
            }
        }
        let mut row = VersionRow {
            version: v.version.clone(),
            published_at: v.published_at.map(|t| t.to_string()),
            withdrawal: withdrawal(v),
            outcome: m.outcome.clone(),
            compared_with: None,
            declared_bump: None,
            required_bump: None,
            changes: Vec::new(),
            verdict: RowVerdict::NotJudged,
            package: p.package.clone(),
            registry: p.presence.clone(),
        };
        let (Some(canonical), Some(parsed)) = (m.canonical, v.semver()) else {
            rows.push(row);
            continue;
        };
        if let Outcome::Captured { sha256, .. } = &row.outcome {
            captured_sha.push((v.version.clone(), sha256.clone()));
        }
        let reported = match &row.outcome {
            Outcome::Captured {
                reported_version, ..
            } => reported_version.clone(),
            _ => None,
        };
        if let Some((pv, pparsed, preported, pcanon)) = &prev {
            let diff = mcpseal_surface::diff::diff(pcanon, &canonical);
            let declared = judge::declared(pparsed, parsed, options.zero_major);
            row.compared_with = Some(pv.clone());
            row.declared_bump = Some(declared);
            row.required_bump = Some(judge::required(&diff));
            row.changes = judge::changes(&diff);
            let found = judge::violations(
                &Judged {
                    version: pv,
                    parsed: pparsed,
                    reported: preported.as_deref(),
                    canonical: pcanon,
                },
                &Judged {
                    version: &v.version,
                    parsed,
                    reported: reported.as_deref(),
                    canonical: &canonical,
                },
                &diff,
                options.zero_major,
            );
            row.verdict = if !found.is_empty() {
                RowVerdict::Violation
            } else if diff.is_empty() {
                RowVerdict::Unchanged
            } else {
                RowVerdict::Compatible
            };
            violations.extend(found);
        } else {
            row.verdict = RowVerdict::Baseline;
        }
        prev = Some((v.version.clone(), parsed.clone(), reported, canonical));
        rows.push(row);
    }

    let summary = ReplaySummary {
        versions: rows.len(),
        captured: rows
            .iter()
            .filter(|r| matches!(r.outcome, Outcome::Captured { .. }))
            .count(),
        not_installed: rows
            .iter()
            .filter(|r| {
                matches!(
                    r.outcome,
                    Outcome::InstallFailed { .. } | Outcome::NotInstallable { .. }
                )
            })
            .count(),
        did_not_start: rows
            .iter()
            .filter(|r| {
                matches!(
                    r.outcome,
                    Outcome::DidNotStart { .. } | Outcome::NoEntryPoint { .. }
                )
            })
            .count(),
        violations: violations.len(),
    };
    for r in &rows {
        if !matches!(r.outcome, Outcome::Captured { .. }) {
            not_measured.push(format!(
                "{}: not captured, so not compared; the next captured version is compared with the one before it",
                r.version
            ));
        }
    }
    if !options.launch.isolation.network {
        not_measured.push(
            "network isolation was turned off (`--allow-network`): versions could reach the network"
                .into(),
        );
    }
    for l in &isolation {
        if l.contains("unavailable") || l.contains("partial") {
            not_measured.push(format!("{l}: versions ran with less isolation than asked"));
        }
    }
    if !rows.iter().any(|r| r.registry.is_some()) {
        not_measured.push(
            "registry presence: whether an MCP Registry lists each version is not looked up".into(),
        );
    }

    let live = match &options.live {
        Some((target, connect)) => {
            Some(live_match(target, connect, &snapshot, &captured_sha).await)
        }
        None => None,
    };
    let verdict = if summary.captured == 0 {
        ReplayVerdict::NothingCaptured
    } else if violations.is_empty() {
        ReplayVerdict::Clean
    } else {
        ReplayVerdict::Violations
    };
    let excluded = excluded_list
        .iter()
        .map(|e| {
            let value = serde_json::to_value(&e.exclusion).unwrap_or(Value::Null);
            let reason = value
                .get("reason")
                .and_then(Value::as_str)
                .unwrap_or("excluded")
                .to_owned();
            let why = value.get("why").and_then(Value::as_str);
            ExcludedVersion {
                version: e.version.clone(),
                reason: match why {
                    Some(w) => format!("{reason}: {w}"),
                    None => reason,
                },
            }
        })
        .collect();
    Ok(ReplayRun {
        report: ReplayReport {
            schema_version: REPLAY_SCHEMA_VERSION,
            tool_version: options.tool_version.clone(),
            generated_at: now_seconds(),
            source: source_id,
            origin,
            form: Form::McpSeal1.as_str().to_owned(),
            rules: RuleSettings {
                zero_major: options.zero_major,
                network_isolation_requested: options.launch.isolation.network,
            },
            verdict,
            summary,
            rows,
            excluded,
            violations,
            live,
            isolation,
            not_measured,
        },
        timings,
    })
}

/// Captures the live endpoint and names the replayed versions with its surface.
async fn live_match(
    target: &Target,
    connect: &Options,
    snapshot: &SnapshotOptions,
    captured: &[(String, String)],
) -> LiveMatch {
    let url = target.display();
    let fail = |error: String| LiveMatch {
        url: url.clone(),
        sha256: None,
        error: Some(error.clone()),
        reported_version: None,
        matches: Vec::new(),
        message: format!("the live endpoint could not be captured: {error}"),
    };
    let conn = match crate::open(target, connect.clone()).await {
        Ok(c) => c,
        Err(e) => return fail(e.to_string()),
    };
    let trusted = crate::capture_trusted(&conn, snapshot).await;
    conn.close().await;
    let trusted = match trusted {
        Ok(t) => t,
        Err(e) => return fail(e.to_string()),
    };
    let sha = trusted.surface.fingerprint(snapshot.form).sha256;
    let reported = trusted.raw.reported_version();
    let matches: Vec<String> = captured
        .iter()
        .filter(|(_, s)| *s == sha)
        .map(|(v, _)| v.clone())
        .collect();
    let says = reported
        .as_deref()
        .map(|r| format!("; it reports {r}"))
        .unwrap_or_default();
    let message = if matches.is_empty() {
        format!("live = no replayed version's surface{says}")
    } else {
        format!("live = {}'s surface{says}", matches.join(", "))
    };
    LiveMatch {
        url,
        sha256: Some(sha),
        error: None,
        reported_version: reported,
        matches,
        message,
    }
}

/// The committed schema file name of the replay report, and the schema.
pub fn schema() -> (&'static str, Value) {
    (
        "replay-report.schema.json",
        mcpseal_report::replay::schema(),
    )
}

/// Where `--out DIR` writes: `replay-DATE.json` and `replay-DATE.md`, DATE the report's
/// `generatedAt` day.
pub fn out_files(dir: &std::path::Path, report: &ReplayReport) -> (PathBuf, PathBuf) {
    let day: String = report.generated_at.chars().take(10).collect();
    (
        dir.join(format!("replay-{day}.json")),
        dir.join(format!("replay-{day}.md")),
    )
}
