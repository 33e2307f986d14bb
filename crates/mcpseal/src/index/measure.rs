//! Measuring one target: install (the `mcpseal-sources` installer replay uses, cached),
//! start, snapshot fail-closed ([`crate::capture_trusted`]), probe ([`crate::probe::run`]).
//! Every stage runs against the target's one deadline; what goes wrong is the row's state and
//! reason, never an error of the run and never a panic.

use std::time::{Duration, Instant};

use mcpseal_client::{Options, Target as ClientTarget};
use mcpseal_index::cohort::{Install, Target};
use mcpseal_index::document::{Change, Evidence, Row, RowState, RuleHit};
use mcpseal_report::replay::Counts;
use mcpseal_report::{RunState, Severity};
use mcpseal_sources::{LaunchOptions, Sources, launch};
use mcpseal_surface::{Form, ListKind};
use serde_json::Value;
use tokio::time::timeout_at;

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
}

impl Run<'_> {
    fn end(mut self, state: RowState, reason: Option<String>) -> Measured {
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

fn blank_row(t: &Target) -> Row {
    Row {
        id: t.id.clone(),
        install: t.spec.clone(),
        kind: t.install.kind().to_owned(),
        version: t.install.version().map(str::to_owned),
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
        change: Change::first(),
        evidence: Evidence::default(),
    }
}

/// How to reach the target: installs a package (cached), plans its sandboxed launch.
async fn reach(
    run: &mut Run<'_>,
    sources: &Sources,
    launcher: &LaunchOptions,
) -> Result<(ClientTarget, Options, Option<launch::LaunchPlan>), (RowState, String)> {
    let t = run.target;
    let mut connect = Options {
        timeout: Duration::from_secs(t.request_timeout_seconds),
        ..Options::default()
    };
    match &t.install {
        Install::Url(url) => Ok((ClientTarget::http(url.clone()), connect, None)),
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
        Install::Registry { name, version } => Err((
            RowState::NotRun,
            format!(
                "`registry:{name}@{version}`: expanding a registry entry into a package pin is not implemented in this build; pin the package it names instead"
            ),
        )),
        Install::Package(pin) => {
            let begun = Instant::now();
            let resolved = timeout_at(run.deadline, sources.resolve_pin(pin))
                .await
                .map_err(|_| (RowState::InstallFailed, run.out_of_time("resolve")))?
                .map_err(|e| (RowState::InstallFailed, e.to_string()))?;
            let installed = timeout_at(run.deadline, sources.install(&pin.source, &resolved))
                .await
                .map_err(|_| (RowState::InstallFailed, run.out_of_time("install")))?
                .map_err(|e| (RowState::InstallFailed, e.to_string()))?;
            run.timing.install = begun.elapsed();
            run.timing.cached = installed.reused;
            let mut options = launcher.clone();
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
    }
}

/// Measures `t`; never fails (see the module docs).
pub(crate) async fn measure(sources: &Sources, launcher: &LaunchOptions, t: &Target) -> Measured {
    let started = Instant::now();
    let mut run = Run {
        target: t,
        deadline: tokio::time::Instant::now() + Duration::from_secs(t.budget_seconds),
        started,
        row: blank_row(t),
        evidence: Vec::new(),
        canonical: None,
        timing: super::Timing {
            id: t.id.clone(),
            ..super::Timing::default()
        },
    };
    // The plan owns the launcher's report directory: it lives until the probe is done.
    let (target, connect, plan) = match reach(&mut run, sources, launcher).await {
        Ok(r) => r,
        Err((state, reason)) => return run.end(state, Some(reason)),
    };

    // Snapshot: one connection, the fail-closed capture.
    let begun = Instant::now();
    let snapshot = SnapshotOptions {
        form: Form::McpSeal1,
        ..SnapshotOptions::default()
    };
    let captured = timeout_at(run.deadline, async {
        let conn = crate::open(&target, connect.clone())
            .await
            .map_err(|e| e.to_string())?;
        let result = crate::capture_trusted(&conn, &snapshot).await;
        let diagnostics = conn.diagnostics();
        conn.close().await;
        result.map_err(|e| e.with_server_stderr(&diagnostics).to_string())
    })
    .await;
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

    // Probe: a connection of its own (a probe may leave a stateful server changed).
    let begun = Instant::now();
    let probed = timeout_at(
        run.deadline,
        crate::probe::run(&target, connect, &crate::probe::ProbeOptions::default()),
    )
    .await;
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
