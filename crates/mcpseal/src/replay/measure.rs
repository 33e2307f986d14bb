//! Measuring one version: install (cache), plan the sandboxed launch, start it over stdio,
//! capture fail-closed, read back the isolation the launcher achieved. Every failure is an
//! [`Outcome`] value; nothing here returns an error or panics on what a package does.
//!
//! The one implementation of "install a published version and capture it": `replay` runs it
//! per version, `registry verify --package` per package entry.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcpseal_client::{Options, Target};
use mcpseal_report::replay::{Counts, Outcome};
use mcpseal_sources::{LaunchOptions, PublishedVersion, Source, Sources, launch};
use mcpseal_surface::ListKind;
use serde_json::Value;

use crate::SnapshotOptions;

/// How a version is started and how long it is given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sandboxed<'a> {
    /// Entry point, arguments, `--env`, isolation and the launcher.
    pub launch: &'a LaunchOptions,
    /// Per-request timeout of the capture.
    pub request_timeout: Duration,
    /// The whole start + capture (a hung server is killed after it).
    pub deadline: Duration,
}

/// Server stderr lines kept in a "did not start" row.
const STDERR_LINES: usize = 10;

/// What measuring one version gave.
#[derive(Debug)]
pub(crate) struct Measured {
    pub outcome: Outcome,
    /// The canonical surface, when captured.
    pub canonical: Option<Value>,
    /// The launcher's isolation lines, when it got that far.
    pub isolation: Option<Vec<String>>,
    pub seconds: f64,
    pub cached: bool,
}

fn failed(outcome: Outcome, started: Instant, cached: bool) -> Measured {
    Measured {
        outcome,
        canonical: None,
        isolation: None,
        seconds: started.elapsed().as_secs_f64(),
        cached,
    }
}

fn stage_name(stage: mcpseal_sources::InstallStage) -> String {
    serde_json::to_value(stage)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| format!("{stage:?}"))
}

/// The server's own stderr lines from a connection's diagnostics (newest last).
fn stderr_of(diagnostics: &[String]) -> Vec<String> {
    let lines: Vec<String> = diagnostics
        .iter()
        .filter_map(|l| l.strip_prefix("[stderr] ").map(str::to_owned))
        .collect();
    let skip = lines.len().saturating_sub(STDERR_LINES);
    lines.into_iter().skip(skip).collect()
}

/// How many versions of the replay are measured, for [`Event::Step`](crate::progress::Event)s
/// that say which version is in which stage.
#[derive(Debug)]
pub(crate) struct Tally {
    /// The job the steps belong to (`replay`, `registry verify`).
    pub job: &'static str,
    /// Versions measured so far (measurements run concurrently).
    pub done: AtomicUsize,
    /// Versions to measure.
    pub total: usize,
}

impl Tally {
    /// `stage` (`installing`, `starting`, `capturing`) of `package@version` starts.
    fn step(&self, stage: &str, package: &str, version: &str) {
        crate::progress::emit(crate::progress::Event::Step {
            job: self.job,
            done: self.done.load(Ordering::Relaxed),
            total: self.total,
            item: format!("{stage} {package}@{version}"),
        });
    }
}

pub(crate) async fn measure(
    sources: &Sources,
    options: &Sandboxed<'_>,
    snapshot: &SnapshotOptions,
    source: &Source,
    version: &PublishedVersion,
    tally: &Tally,
) -> Measured {
    let measured = measure_one(sources, options, snapshot, source, version, tally).await;
    tally.done.fetch_add(1, Ordering::Relaxed);
    tally.step("measured", &source.id(), &version.version);
    measured
}

async fn measure_one(
    sources: &Sources,
    options: &Sandboxed<'_>,
    snapshot: &SnapshotOptions,
    source: &Source,
    version: &PublishedVersion,
    tally: &Tally,
) -> Measured {
    let started = Instant::now();
    let package = source.id();
    tally.step("installing", &package, &version.version);
    let installed = match sources.install(source, version).await {
        Ok(i) => i,
        Err(e) if e.needs_build => {
            return failed(
                Outcome::NotInstallable {
                    message: format!("not installable without running its build: {}", e.message),
                },
                started,
                false,
            );
        }
        Err(e) => {
            return failed(
                Outcome::InstallFailed {
                    stage: stage_name(e.stage),
                    message: e.message.clone(),
                    log_tail: e.log_tail.clone(),
                },
                started,
                false,
            );
        }
    };
    let cached = installed.reused;
    let plan = match launch::plan(&installed, options.launch) {
        Ok(p) => p,
        Err(e) => {
            return failed(
                Outcome::NoEntryPoint {
                    message: format!("{e} ({})", e.hint()),
                },
                started,
                cached,
            );
        }
    };
    let target = Target::stdio(plan.argv.iter().cloned());
    let connect = Options {
        timeout: options.request_timeout,
        env: plan.env.clone(),
        cwd: Some(plan.cwd.clone()),
        ..Options::default()
    };
    tally.step("starting", &package, &version.version);
    let conn = match crate::open(&target, connect).await {
        Ok(c) => c,
        Err(e) => {
            return failed(
                Outcome::DidNotStart {
                    reason: e.to_string(),
                    stderr: Vec::new(),
                },
                started,
                cached,
            );
        }
    };
    tally.step("capturing", &package, &version.version);
    let captured =
        tokio::time::timeout(options.deadline, crate::capture_trusted(&conn, snapshot)).await;
    let diagnostics = conn.diagnostics();
    conn.close().await;
    let isolation = plan.isolation_report().ok().map(|r| r.lines());
    let outcome_of_failure = |reason: String| Outcome::DidNotStart {
        reason,
        stderr: stderr_of(&diagnostics),
    };
    let trusted = match captured {
        Err(_) => {
            return Measured {
                isolation,
                ..failed(
                    outcome_of_failure(format!(
                        "no trustworthy surface within {} s (hung)",
                        options.deadline.as_secs()
                    )),
                    started,
                    cached,
                )
            };
        }
        Ok(Err(e)) => {
            return Measured {
                isolation,
                ..failed(outcome_of_failure(e.to_string()), started, cached)
            };
        }
        Ok(Ok(t)) => t,
    };
    let fp = trusted.surface.fingerprint(snapshot.form);
    let s = &trusted.surface;
    Measured {
        outcome: Outcome::Captured {
            sha256: fp.sha256,
            era: s.era().as_str().to_owned(),
            counts: Counts {
                tools: s.count(ListKind::Tools),
                resources: s.count(ListKind::Resources),
                resource_templates: s.count(ListKind::ResourceTemplates),
                prompts: s.count(ListKind::Prompts),
            },
            reported_version: trusted.raw.reported_version(),
        },
        canonical: Some(s.canonical_value(snapshot.form)),
        isolation,
        seconds: started.elapsed().as_secs_f64(),
        cached,
    }
}
