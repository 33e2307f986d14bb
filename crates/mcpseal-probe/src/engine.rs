//! Orchestration: prelude, reachability, rules in id order, run state, report.
//!
//! Rules run sequentially on the one connection, in id order: several provoke error paths on
//! purpose, and a server probed concurrently gives reports nobody can reproduce. Each rule runs
//! under `catch_unwind`; a rule that panics or returns an error is recorded as crashed and the
//! run goes on. A crash is a bug in mcpseal, and it means a rule did not measure: such a run is
//! reported *incomplete* (never ready, exit 2), exactly like a run with unanswered probes.
//!
//! A finding without evidence is refused the same way: every verdict quotes the exchanges
//! behind it, so a rule that returns one is a bug, recorded as a crashed rule (none of that
//! rule's findings is reported) rather than a claim nobody can check.

use std::panic::AssertUnwindSafe;
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use mcpseal_client::{Connection, TransportKind};
use mcpseal_report::{
    AccessRefusal, CrashedRule, Finding, Incomplete, ProbeReport, RunState, Summary, ToolInfo,
};

use crate::context::ProbeContext;
use crate::prelude::Prelude;
use crate::protocol::TARGET_REVISION;
use crate::recorder::Recorder;
use crate::rules::REGISTRY;

/// What to run.
#[derive(Debug, Clone)]
pub struct ProbeOptions {
    /// Only these rule ids (upper case); empty = all.
    pub only: Vec<String>,
    /// Skip these rule ids (upper case).
    pub skip: Vec<String>,
    /// How long `subscriptions/listen` waits for its acknowledgement. Default 3 s.
    pub listen_timeout: Duration,
    /// Tool calls the user asked for (`--call`); never any by default (SEAL039).
    pub calls: Vec<crate::calls::ToolCall>,
    /// stdio: how many fresh server processes (checks that need their own process) may be
    /// asked at once, beside the probed one (`--jobs`). Default: the number of cores. 1 asks
    /// them one after the other, each when its check needs it; more asks them ahead, while
    /// the probed process is busy. The report is the same either way.
    pub jobs: usize,
}

/// The default of [`ProbeOptions::jobs`]: the number of cores (1 when it cannot be told).
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions {
            only: Vec::new(),
            skip: Vec::new(),
            listen_timeout: Duration::from_secs(3),
            calls: Vec::new(),
            jobs: default_jobs(),
        }
    }
}

/// An id given to `--only`/`--skip` that no rule has.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule id(s): {}", .0.join(", "))]
pub struct UnknownRules(pub Vec<String>);

/// Parses comma-separated rule ids, case-insensitively; unknown ids are an error.
pub fn parse_rule_ids<S: AsRef<str>>(lists: &[S]) -> Result<Vec<String>, UnknownRules> {
    let mut ids = Vec::new();
    let mut unknown = Vec::new();
    for list in lists {
        for raw in list.as_ref().split(',') {
            let id = raw.trim().to_ascii_uppercase();
            if id.is_empty() {
                continue;
            }
            if REGISTRY.iter().any(|r| r.id == id) {
                if !ids.contains(&id) {
                    ids.push(id);
                }
            } else {
                unknown.push(raw.trim().to_owned());
            }
        }
    }
    if unknown.is_empty() {
        Ok(ids)
    } else {
        Err(UnknownRules(unknown))
    }
}

/// A selection (`--only`/`--skip`) that leaves no rule applicable to the target's transport:
/// running it would report "ready across 0 checks", a gate that checks nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct NothingToRun {
    /// The target's transport.
    pub transport: TransportKind,
    /// Rules named by `--only` that do not apply to it, with the transports they apply to.
    pub inapplicable: Vec<(String, Vec<TransportKind>)>,
    /// How many selected rules that do apply `--skip` removed.
    pub skipped: usize,
}

impl NothingToRun {
    fn message(&self) -> String {
        let mut parts: Vec<String> = self
            .inapplicable
            .iter()
            .map(|(id, ts)| {
                let only: Vec<&str> = ts
                    .iter()
                    .map(|t| match t {
                        TransportKind::Http => "HTTP",
                        TransportKind::Stdio => "stdio",
                    })
                    .collect();
                format!("{id} is {}-only", only.join("/"))
            })
            .collect();
        match (self.skipped, parts.is_empty()) {
            (0, _) => {}
            (1, true) => parts.push("`--skip` removes the one rule that does".to_owned()),
            (n, true) => parts.push(format!("`--skip` removes all {n} rules that do")),
            (n, false) => parts.push(format!("`--skip` removes the other {n} that do")),
        }
        format!(
            "no selected rule applies to {}: {}",
            self.transport.as_str(),
            parts.join("; ")
        )
    }
}

/// The rules `options` selects that apply to `transport`, or why none does. Checked before a
/// server starts, so a gate that would check nothing is a usage error (exit 2), never a pass.
pub fn selection_for(
    options: &ProbeOptions,
    transport: TransportKind,
) -> Result<Vec<&'static crate::rule::Rule>, NothingToRun> {
    let named: Vec<&'static crate::rule::Rule> = REGISTRY
        .iter()
        .copied()
        .filter(|r| options.only.is_empty() || options.only.iter().any(|i| i == r.id))
        .collect();
    let skipped = |r: &crate::rule::Rule| options.skip.iter().any(|i| i == r.id);
    let applicable: Vec<_> = named
        .iter()
        .copied()
        .filter(|r| r.applies_to(transport) && !skipped(r))
        .collect();
    if !applicable.is_empty() {
        return Ok(applicable);
    }
    let inapplicable = if options.only.is_empty() {
        Vec::new()
    } else {
        named
            .iter()
            .filter(|r| !r.applies_to(transport) && !skipped(r))
            .map(|r| (r.id.to_owned(), r.transports.to_vec()))
            .collect()
    };
    Err(NothingToRun {
        transport,
        inapplicable,
        skipped: named
            .iter()
            .filter(|r| r.applies_to(transport) && skipped(r))
            .count(),
    })
}

fn tool() -> ToolInfo {
    ToolInfo {
        name: "mcpseal".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}

/// The report of a server that could not be reached (or started): zero findings.
pub fn unreachable_report(target: &str, transport: &str, reason: &str) -> ProbeReport {
    ProbeReport {
        schema_version: 1,
        tool: tool(),
        target: target.to_owned(),
        transport: transport.to_owned(),
        target_revision: TARGET_REVISION.into(),
        protocol_version: None,
        started_at: rfc3339_now(),
        duration_ms: 0,
        state: RunState::Unreachable,
        ready: false,
        unreachable: Some(reason.to_owned()),
        incomplete: None,
        access: None,
        summary: Summary::of(&[], 0, 0),
        findings: Vec::new(),
        crashed_rules: Vec::new(),
        diagnostics: Vec::new(),
        rules: crate::rule_infos(),
    }
}

/// Probes the server behind `conn` with every registered rule.
pub async fn probe(conn: &Connection, options: &ProbeOptions) -> ProbeReport {
    probe_with(conn, options, REGISTRY).await
}

/// Probes with an explicit rule list (extensions, tests); `options.only`/`skip` still apply.
/// Tools named in `options.calls` that the server does not list are not called.
pub async fn probe_with(
    conn: &Connection,
    options: &ProbeOptions,
    rules: &[&crate::rule::Rule],
) -> ProbeReport {
    match run(conn, options, rules, false, &|_| {}).await {
        Ok(report) | Err((report, _)) => report,
    }
}

/// Like [`probe`], but a tool named in `options.calls` that the server's `tools/list` does not
/// list is an error, found after the prelude and before any rule (or tool call) runs. When the
/// listing itself failed, nothing can be checked and the calls are skipped.
pub async fn probe_checked(
    conn: &Connection,
    options: &ProbeOptions,
) -> Result<ProbeReport, crate::calls::UnknownTools> {
    probe_observed(conn, options, &|_| {}).await
}

/// What the probe is doing, for a progress display: the prelude, or one rule about to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeStep<'a> {
    /// The prelude (discovery, handshake, the lists) is about to run.
    Prelude,
    /// Rule number `index + 1` of the `total` selected and applicable ones is about to run.
    Rule {
        /// Rules finished so far.
        index: usize,
        /// Rules that will run.
        total: usize,
        /// Its id (`SEAL023`).
        id: &'a str,
        /// Its one-line title.
        title: &'a str,
    },
}

/// [`probe_checked`], telling `observe` each step as it starts (the engine prints nothing;
/// the caller decides what a step looks like). `observe` runs on the probe's task between
/// exchanges: keep it cheap.
pub async fn probe_observed(
    conn: &Connection,
    options: &ProbeOptions,
    observe: &(dyn Fn(ProbeStep<'_>) + Sync),
) -> Result<ProbeReport, crate::calls::UnknownTools> {
    run(conn, options, REGISTRY, true, observe)
        .await
        .map_err(|(_, unknown)| unknown)
}

async fn run(
    conn: &Connection,
    options: &ProbeOptions,
    rules: &[&crate::rule::Rule],
    refuse_unknown_calls: bool,
    observe: &(dyn Fn(ProbeStep<'_>) + Sync),
) -> Result<ProbeReport, (ProbeReport, crate::calls::UnknownTools)> {
    let started = Instant::now();
    let started_at = rfc3339_now();
    let target = conn.target().display();
    let transport = conn.transport();
    let rec = Recorder::new(conn, options.jobs);
    observe(ProbeStep::Prelude);
    let prelude = Prelude::run(&rec).await;
    if prelude.unreachable() {
        rec.finish().await;
        let reason = prelude
            .discover
            .transport_error
            .as_ref()
            .map(|e| e.message.clone())
            .unwrap_or_default();
        let mut report = unreachable_report(&target, transport.as_str(), &reason);
        report.started_at = started_at;
        report.duration_ms = elapsed_ms(started);
        report.diagnostics = conn.diagnostics();
        return Ok(report);
    }
    let mut ctx = ProbeContext::new(rec, prelude, options.listen_timeout);
    if !options.calls.is_empty()
        && let Some(listing) = ctx.tool_listing().await
    {
        let unknown = crate::calls::unknown_tools(&options.calls, listing.tools);
        if refuse_unknown_calls && !unknown.is_empty() {
            ctx.recorder().finish().await;
            let report = unreachable_report(&target, transport.as_str(), "");
            return Err((report, crate::calls::UnknownTools(unknown)));
        }
        let calls = options
            .calls
            .iter()
            .filter(|c| !unknown.contains(&c.name))
            .cloned()
            .collect();
        ctx.set_calls(calls);
    }
    let mut findings: Vec<Finding> = Vec::new();
    let mut crashed = Vec::new();
    let mut checks = 0;
    let selected: Vec<&&crate::rule::Rule> = rules
        .iter()
        .filter(|r| {
            r.applies_to(transport)
                && (options.only.is_empty() || options.only.iter().any(|i| i == r.id))
                && !options.skip.iter().any(|i| i == r.id)
        })
        .collect();
    let total = selected.len();
    ctx.ask_fresh_ahead(selected.iter().map(|r| r.id));
    for rule in selected {
        observe(ProbeStep::Rule {
            index: checks,
            total,
            id: rule.id,
            title: rule.title,
        });
        checks += 1;
        match AssertUnwindSafe((rule.run)(&ctx)).catch_unwind().await {
            Ok(Ok(mut found)) => {
                if let Some(bare) = found.iter().find(|f| f.evidence.is_empty()) {
                    crashed.push(CrashedRule {
                        rule_id: rule.id.into(),
                        error: format!(
                            "returned a finding without evidence (\"{}\"); every finding must quote the exchanges behind it, so none of this rule's findings is reported (a bug in mcpseal)",
                            bare.title
                        ),
                    });
                    continue;
                }
                if let Some(refused) = found
                    .iter()
                    .find(|f| f.evidence.iter().any(crate::access::evidence_is_refusal))
                {
                    crashed.push(CrashedRule {
                        rule_id: rule.id.into(),
                        error: format!(
                            "returned a finding that quotes an authorization refusal (\"{}\"); a 401/403 is not an answer to the method, so none of this rule's findings is reported (a bug in mcpseal)",
                            refused.title
                        ),
                    });
                    continue;
                }
                for f in &mut found {
                    rule.id.clone_into(&mut f.rule_id);
                }
                findings.extend(found);
            }
            Ok(Err(e)) => crashed.push(CrashedRule {
                rule_id: rule.id.into(),
                error: e.to_string(),
            }),
            Err(panic) => crashed.push(CrashedRule {
                rule_id: rule.id.into(),
                error: format!("panicked: {}", panic_text(panic.as_ref())),
            }),
        }
    }
    findings.sort_by(|a, b| {
        (&a.rule_id, &a.title, &a.observed).cmp(&(&b.rule_id, &b.title, &b.observed))
    });
    // The fresh processes' closes ran beside the rules; the run ends when they have.
    ctx.recorder().finish().await;
    let access = access_refusal(&ctx);
    let incomplete = incompleteness(&ctx, &crashed, access.as_ref());
    let state = if incomplete.is_some() {
        RunState::Incomplete
    } else {
        RunState::Measured
    };
    let summary = Summary::of(&findings, checks, crashed.len());
    let protocol_version = negotiated(ctx.prelude());
    Ok(ProbeReport {
        schema_version: 1,
        tool: tool(),
        target,
        transport: transport.as_str().into(),
        target_revision: TARGET_REVISION.into(),
        protocol_version,
        started_at,
        duration_ms: elapsed_ms(started),
        state,
        ready: ProbeReport::compute_ready(state, &summary),
        unreachable: None,
        incomplete,
        access,
        summary,
        findings,
        crashed_rules: crashed,
        diagnostics: conn.diagnostics(),
        rules: crate::rule_infos(),
    })
}

/// The revision the server negotiated on the client path that worked (see
/// [`ProbeReport::protocol_version`]).
fn negotiated(prelude: &Prelude) -> Option<String> {
    match prelude.path? {
        crate::prelude::ClientPath::Legacy => prelude
            .initialize
            .result()?
            .get("protocolVersion")?
            .as_str()
            .map(str::to_owned),
        crate::prelude::ClientPath::Modern => prelude
            .discover
            .result()?
            .get("supportedVersions")?
            .as_array()?
            .iter()
            .any(|v| v.as_str() == Some(TARGET_REVISION))
            .then(|| TARGET_REVISION.to_owned()),
    }
}

/// What the authorization refusals of the run say (`None` when nothing was refused): how many,
/// the first challenge and the metadata URL it names, and which methods were served without a
/// credential.
fn access_refusal(ctx: &ProbeContext<'_>) -> Option<AccessRefusal> {
    let rec = ctx.recorder();
    let sent = rec.sent();
    let raw = rec.raw();
    let refused: Vec<(u16, Option<String>)> = sent
        .iter()
        .filter(|e| e.refused)
        .map(|e| (e.http_status.unwrap_or(0), e.challenge.clone()))
        .chain(
            raw.iter()
                .filter(|r| crate::access::refused_raw(r))
                .map(|r| {
                    (
                        r.status.unwrap_or(0),
                        crate::access::challenge(&r.headers).map(str::to_owned),
                    )
                }),
        )
        .collect();
    let (status, _) = refused.first()?;
    let challenge = refused.iter().find_map(|(_, c)| c.clone());
    let credential_sent = rec.sends_credential();
    let mut anonymous: Vec<String> = if credential_sent {
        Vec::new()
    } else {
        sent.iter()
            .filter(|e| e.has_result)
            .map(|e| e.method.clone())
            .collect()
    };
    anonymous.sort();
    anonymous.dedup();
    Some(AccessRefusal {
        refused: refused.len(),
        status: *status,
        resource_metadata: challenge
            .as_deref()
            .and_then(crate::access::resource_metadata),
        challenge,
        credential_sent,
        anonymous,
    })
}

/// The incomplete reason of a run with authorization refusals.
fn refusal_reason(a: &AccessRefusal) -> String {
    let what = match &a.challenge {
        Some(c) => format!(
            "this server needs a credential (WWW-Authenticate: {})",
            crate::removed::cut(c, 200)
        ),
        None => format!(
            "HTTP {} without a `WWW-Authenticate` challenge: the server forbids these requests (a credential, or an allowed `Host`/`Origin`)",
            a.status
        ),
    };
    let todo = if a.credential_sent {
        "the credential passed with --header was refused: check it (and its scope)"
    } else {
        "pass --header 'Authorization: Bearer …' (or --header-env)"
    };
    format!(
        "{} refused: {what}; {todo}",
        if a.refused == 1 {
            "1 probe".to_owned()
        } else {
            format!("{} probes", a.refused)
        }
    )
}

/// Unanswered probes (requests with a transport error, raw requests without a status, probes
/// refused for authorization) and crashed rules make a run incomplete. Refusals come first in
/// the reason: they explain every other gap.
fn incompleteness(
    ctx: &ProbeContext<'_>,
    crashed: &[CrashedRule],
    access: Option<&AccessRefusal>,
) -> Option<Incomplete> {
    let rec = ctx.recorder();
    let sent = rec.sent();
    let raw = rec.raw();
    let probes = sent.len() + raw.len();
    let mut reasons: Vec<String> = access.map(refusal_reason).into_iter().collect();
    let refused = access.map_or(0, |a| a.refused);
    let late = rec.late_answers();
    reasons.extend(
        sent.iter()
            .filter(|e| !e.answered_by_status && !e.refused)
            .filter_map(|e| {
                e.transport_error.as_ref().map(|t| {
                    // A timeout whose answer still came: say so, it is what explains the rest.
                    let later = if t.kind == mcpseal_client::TransportErrorKind::Timeout
                        && late.contains(&e.method)
                    {
                        " (its answer came later: the server is slow, e.g. still starting; raise `--timeout`, or `--startup-timeout` for a stdio server's first answer)"
                    } else {
                        ""
                    };
                    format!("`{}`: {}{later}", e.method, t.message)
                })
            }),
    );
    reasons.extend(raw.iter().filter(|r| r.status.is_none()).map(|r| {
        format!(
            "raw {}: {}",
            r.method,
            r.error.as_deref().unwrap_or("no response")
        )
    }));
    let failed = reasons.len() - usize::from(access.is_some()) + refused;
    reasons.extend(
        crashed
            .iter()
            .map(|c| format!("rule {} crashed: {}", c.rule_id, c.error)),
    );
    let reason = reasons.into_iter().next()?;
    Some(Incomplete {
        probes,
        failed,
        reason,
    })
}

fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Now as RFC 3339 UTC to the second (`2026-11-29T14:32:43Z`), the report's `startedAt`.
fn rfc3339_now() -> String {
    let now = jiff::Timestamp::now();
    // Whole seconds: sub-second digits would only add noise to reports and snapshots.
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_parse_case_insensitively_and_refuse_unknown() {
        assert_eq!(
            parse_rule_ids(&["seal001, SEAL002", "seal001"]).ok(),
            Some(vec!["SEAL001".to_owned(), "SEAL002".to_owned()])
        );
        assert_eq!(
            parse_rule_ids(&["SEAL001,MCP999"]),
            Err(UnknownRules(vec!["MCP999".into()]))
        );
    }

    #[test]
    fn timestamps_are_rfc3339_utc_to_the_second() {
        let t = rfc3339_now();
        assert_eq!(t.len(), 20, "{t}");
        assert!(t.ends_with('Z') && t.starts_with("20"), "{t}");
        let parsed: jiff::Timestamp = t.parse().expect("RFC 3339");
        let age = jiff::Timestamp::now().as_second() - parsed.as_second();
        assert!((0..=5).contains(&age), "{t} is {age} s from now");
    }
}
