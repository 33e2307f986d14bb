//! Measuring one target: install (the `mcpseal-sources` installer replay uses, cached) or
//! expand its registry entry (`super::expand`), start, snapshot fail-closed
//! ([`crate::capture_trusted`]), probe ([`crate::probe::run`]); remotes with the manners of
//! `super::manners`.
//! Every stage runs against the target's one deadline; what goes wrong is the row's state and
//! reason, never an error of the run and never a panic.

use std::time::{Duration, Instant};

use mcpseal_client::{Options, Target as ClientTarget};
use mcpseal_index::cohort::{Install, Target};
use mcpseal_index::document::{Change, Evidence, Row, RowState, RuleHit};
use mcpseal_publish::ClaimError;
use mcpseal_publish::block::Claim;
use mcpseal_report::replay::Counts;
use mcpseal_report::{RunState, Severity};
use mcpseal_sources::{LaunchOptions, Pin, Sources, launch};
use mcpseal_surface::{Form, ListKind};
use serde_json::Value;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::timeout_at;

use super::expand::{self, Expanded};
use super::manners::{self, HostLimits};
use crate::SnapshotOptions;

/// What measuring one target gave: its row (without the change, which needs the previous run),
/// the evidence bytes by address, its canonical surface, and the time each stage took.
pub(crate) struct Measured {
    pub row: Row,
    pub evidence: Vec<(String, Vec<u8>)>,
    pub canonical: Option<Value>,
    pub timing: super::Timing,
}

/// Keys of the probe report that hold times measured during the run: not evidence of what the
/// server said, and removed so that equal answers store equal bytes.
const VOLATILE_KEYS: [&str; 2] = ["startedAt", "durationMs"];

/// Removes [`VOLATILE_KEYS`] and spells the per-launch temporary paths (the sandbox's run
/// directory and HOME, new for every launch) as fixed placeholders.
fn strip_volatile(v: &mut Value, paths: &[(String, &'static str)]) {
    match v {
        Value::Object(map) => {
            for k in VOLATILE_KEYS {
                map.remove(k);
            }
            map.values_mut().for_each(|x| strip_volatile(x, paths));
        }
        Value::Array(items) => items.iter_mut().for_each(|x| strip_volatile(x, paths)),
        Value::String(s) => {
            for (path, placeholder) in paths {
                if !path.is_empty() && s.contains(path.as_str()) {
                    *s = s.replace(path.as_str(), placeholder);
                }
            }
        }
        _ => {}
    }
}

/// The per-launch paths of a plan, longest first (so a path inside another is replaced first).
fn launch_paths(plan: Option<&launch::LaunchPlan>) -> Vec<(String, &'static str)> {
    let Some(p) = plan else {
        return Vec::new();
    };
    let mut paths = vec![(p.home.to_string_lossy().into_owned(), "<launch-home>")];
    if let Some(dir) = p.report_path.parent() {
        paths.push((dir.to_string_lossy().into_owned(), "<launch-dir>"));
    }
    paths.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
    paths
}

fn pretty(v: &impl serde::Serialize) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).unwrap_or_default();
    out.push(b'\n');
    out
}

struct Run<'a> {
    target: &'a Target,
    deadline: tokio::time::Instant,
    started: Instant,
    row: Row,
    evidence: Vec<(String, Vec<u8>)>,
    canonical: Option<Value>,
    timing: super::Timing,
    /// A `registry:` target's fingerprint block, once its entry was read.
    claim: Option<Result<Claim, ClaimError>>,
    /// Reached over HTTP: the manners apply.
    remote: bool,
    /// The remote's turn at its host, held until the row is done.
    turn: Option<OwnedSemaphorePermit>,
}

impl Run<'_> {
    fn end(mut self, state: RowState, reason: Option<String>) -> Measured {
        if let (None, Some(claim)) = (&self.row.published, &self.claim) {
            self.row.published = Some(expand::published(claim, None));
        }
        drop(self.turn.take());
        self.row.state = state;
        self.row.reason = reason;
        self.timing.total = self.started.elapsed();
        Measured {
            row: self.row,
            evidence: self.evidence,
            canonical: self.canonical,
            timing: self.timing,
        }
    }

    fn out_of_time(&self, stage: &str) -> String {
        format!(
            "the target's budget of {} s ran out during {stage}",
            self.target.budget_seconds
        )
    }
}

fn blank_row(t: &Target, cohort: &str) -> Row {
    Row {
        id: t.id.clone(),
        install: t.spec.clone(),
        kind: t.install.kind().to_owned(),
        version: t.install.version().map(str::to_owned),
        expanded: None,
        rerun: mcpseal_index::document::rerun_command(&t.id, cohort),
        state: RowState::NotRun,
        reason: None,
        era_hint: t.era.clone(),
        era: None,
        reported_version: None,
        fingerprint: None,
        counts: None,
        probe_state: None,
        errors: 0,
        warnings: 0,
        sdk_findings: 0,
        application_findings: 0,
        rules: Vec::new(),
        skipped_rules: Vec::new(),
        published: None,
        change: Change::first(),
        evidence: Evidence::default(),
    }
}

/// What every target of a run shares.
pub(crate) struct Context<'a> {
    /// The installer.
    pub sources: &'a Sources,
    /// The sandbox launcher and isolation.
    pub launcher: &'a LaunchOptions,
    /// Turns per host of remote targets.
    pub hosts: &'a HostLimits,
    /// The cohort file as named to `run` (for each row's rerun command).
    pub cohort: &'a str,
}

type Reached = (ClientTarget, Options, Option<launch::LaunchPlan>);

/// How to reach the target: installs a package (cached) and plans its sandboxed launch, reads
/// and expands a registry entry, or waits for a remote's turn at its host.
async fn reach(run: &mut Run<'_>, ctx: &Context<'_>) -> Result<Reached, (RowState, String)> {
    let t = run.target;
    let mut connect = Options {
        timeout: Duration::from_secs(t.request_timeout_seconds),
        ..Options::default()
    };
    match &t.install {
        Install::Url(url) => Ok(remote(run, ctx, connect, url).await),
        Install::Command(program) => {
            connect.env = t.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            // Env values are the cohort's secrets as far as reports go.
            connect.secret_env = t.env.keys().cloned().collect();
            Ok((
                ClientTarget::stdio(std::iter::once(program.clone()).chain(t.args.iter().cloned())),
                connect,
                None,
            ))
        }
        Install::Registry {
            name,
            version,
            base,
        } => {
            let entry = timeout_at(
                run.deadline,
                expand::entry(base.as_deref(), name, version, connect.timeout),
            )
            .await
            .map_err(|_| {
                (
                    RowState::InstallFailed,
                    run.out_of_time("the registry lookup"),
                )
            })?
            .map_err(|e| (RowState::InstallFailed, e))?;
            run.claim = Some(expand::claim(&entry));
            let expanded = expand::expand(&entry).map_err(|e| (RowState::NotRun, e))?;
            run.row.expanded = Some(expanded.label());
            match expanded {
                Expanded::Package(pin) => package(run, ctx, connect, &pin).await,
                Expanded::Remote(url) => Ok(remote(run, ctx, connect, &url).await),
            }
        }
        Install::Package(pin) => package(run, ctx, connect, pin).await,
    }
}

/// A remote: its host's turn (the budget starts once it is held), the `User-Agent`.
async fn remote(run: &mut Run<'_>, ctx: &Context<'_>, mut connect: Options, url: &str) -> Reached {
    connect
        .headers
        .push(("User-Agent".into(), manners::user_agent()));
    run.turn = ctx.hosts.turn(url).await;
    run.deadline = tokio::time::Instant::now() + Duration::from_secs(run.target.budget_seconds);
    run.remote = true;
    (ClientTarget::http(url.to_owned()), connect, None)
}

/// A package: resolved, installed (cached), its sandboxed launch planned.
async fn package(
    run: &mut Run<'_>,
    ctx: &Context<'_>,
    mut connect: Options,
    pin: &Pin,
) -> Result<Reached, (RowState, String)> {
    let t = run.target;
    let begun = Instant::now();
    let installed = {
        let run = &*run;
        async move {
            let resolved = timeout_at(run.deadline, ctx.sources.resolve_pin(pin))
                .await
                .map_err(|_| (RowState::InstallFailed, run.out_of_time("resolve")))?
                .map_err(|e| (RowState::InstallFailed, e.to_string()))?;
            timeout_at(run.deadline, ctx.sources.install(&pin.source, &resolved))
                .await
                .map_err(|_| (RowState::InstallFailed, run.out_of_time("install")))?
                .map_err(|e| (RowState::InstallFailed, e.to_string()))
        }
    }
    .await;
    // Timed whether it worked or not: an install the budget cut is where the budget went (it
    // used to read 0.0 s, and the cost split lost it).
    run.timing.install = begun.elapsed();
    let installed = installed?;
    run.timing.cached = installed.reused;
    let mut options = ctx.launcher.clone();
    options.bin.clone_from(&t.bin);
    options.args.clone_from(&t.args);
    options.env = t.env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let plan = launch::plan(&installed, &options).map_err(|e| {
        (
            RowState::InstallFailed,
            format!("installed, but it cannot be started: {e} ({})", e.hint()),
        )
    })?;
    connect.env = plan.env.clone();
    connect.cwd = Some(plan.cwd.clone());
    connect.secret_env = t.env.keys().cloned().collect();
    let target = ClientTarget::stdio(plan.argv.iter().cloned());
    Ok((target, connect, Some(plan)))
}

/// One fail-closed capture over its own connection.
async fn capture(
    target: &ClientTarget,
    connect: &Options,
    snapshot: &SnapshotOptions,
) -> Result<crate::TrustedCapture, String> {
    let conn = crate::open(target, connect.clone())
        .await
        .map_err(|e| e.to_string())?;
    let result = crate::capture_trusted(&conn, snapshot).await;
    let diagnostics = conn.diagnostics();
    conn.close().await;
    result.map_err(|e| e.with_server_stderr(&diagnostics).to_string())
}

/// Measures `t`; never fails (see the module docs).
pub(crate) async fn measure(ctx: &Context<'_>, t: &Target) -> Measured {
    let started = Instant::now();
    let mut run = Run {
        target: t,
        deadline: tokio::time::Instant::now() + Duration::from_secs(t.budget_seconds),
        started,
        row: blank_row(t, ctx.cohort),
        evidence: Vec::new(),
        canonical: None,
        timing: super::Timing {
            id: t.id.clone(),
            ..super::Timing::default()
        },
        claim: None,
        remote: false,
        turn: None,
    };
    // The plan owns the launcher's report directory: it lives until the probe is done.
    let (target, connect, plan) = match reach(&mut run, ctx).await {
        Ok(r) => r,
        Err((state, reason)) => return run.end(state, Some(reason)),
    };

    // Snapshot: one connection, the fail-closed capture.
    let begun = Instant::now();
    let snapshot = SnapshotOptions {
        form: Form::McpSeal1,
        ..SnapshotOptions::default()
    };
    let mut attempt = 1;
    let captured = loop {
        let captured = timeout_at(run.deadline, capture(&target, &connect, &snapshot)).await;
        let reason = match &captured {
            Ok(Err(reason)) if run.remote && attempt < manners::MAX_ATTEMPTS => reason.clone(),
            _ => break captured,
        };
        // A failed capture of a remote: is it asking to be asked later?
        let asked = timeout_at(run.deadline, manners::asked_to_wait(&target, &connect))
            .await
            .ok()
            .flatten();
        let Some(wait) = asked else {
            break captured;
        };
        let left = run
            .deadline
            .saturating_duration_since(tokio::time::Instant::now());
        if wait > manners::MAX_RETRY_AFTER || wait >= left {
            break Ok(Err(format!(
                "{reason}\n  the server asks to be asked again in {} s (Retry-After), longer than an index run waits ({} s at most, {} s left of the target's budget)",
                wait.as_secs(),
                manners::MAX_RETRY_AFTER.as_secs(),
                left.as_secs()
            )));
        }
        tokio::time::sleep(wait).await;
        attempt += 1;
    };
    run.timing.capture = begun.elapsed();
    let trusted = match captured {
        Err(_) => {
            let reason = run.out_of_time("the snapshot");
            return run.end(RowState::Unreachable, Some(reason));
        }
        Ok(Err(reason)) => return run.end(RowState::Unreachable, Some(reason)),
        Ok(Ok(t)) => t,
    };
    let s = &trusted.surface;
    let bytes = pretty(&trusted.raw);
    let address = mcpseal_index::sha256_tagged(&bytes);
    run.evidence.push((address.clone(), bytes));
    run.row.evidence.capture = Some(address);
    run.row.fingerprint = Some(s.fingerprint(Form::McpSeal1).sha256);
    run.row.era = Some(s.era().as_str().to_owned());
    run.row.reported_version = trusted.raw.reported_version();
    run.row.counts = Some(Counts {
        tools: s.count(ListKind::Tools),
        resources: s.count(ListKind::Resources),
        resource_templates: s.count(ListKind::ResourceTemplates),
        prompts: s.count(ListKind::Prompts),
    });
    run.canonical = Some(s.canonical_value(Form::McpSeal1));
    if let Some(claim) = &run.claim {
        run.row.published = Some(expand::published(claim, Some(s)));
    }

    // Probe: a connection of its own (a probe may leave a stateful server changed).
    let begun = Instant::now();
    let mut probe = crate::probe::ProbeOptions::default();
    if run.remote {
        probe.skip = manners::TOOL_CALLING_RULES.map(str::to_owned).to_vec();
        run.row.skipped_rules.clone_from(&probe.skip);
    }
    let probed = timeout_at(run.deadline, crate::probe::run(&target, connect, &probe)).await;
    run.timing.probe = begun.elapsed();
    let report = match probed {
        Err(_) => {
            let reason = run.out_of_time("the probe");
            return run.end(RowState::Incomplete, Some(reason));
        }
        Ok(Err(e)) => {
            return run.end(
                RowState::Incomplete,
                Some(format!("the probe could not run: {e}")),
            );
        }
        Ok(Ok(r)) => r,
    };
    let mut doc = serde_json::to_value(&report).unwrap_or(Value::Null);
    strip_volatile(&mut doc, &launch_paths(plan.as_ref()));
    let bytes = pretty(&doc);
    let address = mcpseal_index::sha256_tagged(&bytes);
    run.evidence.push((address.clone(), bytes));
    run.row.evidence.probe = Some(address);
    let mut hits: std::collections::BTreeMap<(String, Severity), usize> = Default::default();
    for f in &report.findings {
        *hits.entry((f.rule_id.clone(), f.severity)).or_default() += 1;
        match f.severity {
            Severity::Error => run.row.errors += 1,
            Severity::Warning => run.row.warnings += 1,
        }
        match f.remediation {
            mcpseal_report::Remediation::Sdk => run.row.sdk_findings += 1,
            mcpseal_report::Remediation::Application => run.row.application_findings += 1,
        }
    }
    run.row.rules = hits
        .into_iter()
        .map(|((rule, severity), count)| RuleHit {
            rule,
            severity,
            count,
        })
        .collect();
    let (state_name, state, reason) = match report.state {
        RunState::Measured if report.ready => ("measured", RowState::Ready, None),
        RunState::Measured => ("measured", RowState::Findings, None),
        RunState::Incomplete => (
            "incomplete",
            RowState::Incomplete,
            Some(
                report
                    .incomplete
                    .as_ref()
                    .map(|i| {
                        format!(
                            "the probe was incomplete: {} of {} probes went unanswered ({})",
                            i.failed, i.probes, i.reason
                        )
                    })
                    .unwrap_or_else(|| "the probe was incomplete".to_owned()),
            ),
        ),
        RunState::Unreachable => (
            "unreachable",
            RowState::Incomplete,
            Some(format!(
                "captured, but the probe could not reach it: {}",
                report.unreachable.as_deref().unwrap_or("no answer")
            )),
        ),
    };
    run.row.probe_state = Some(state_name.to_owned());
    run.end(state, reason)
}
