//! Run states: measured, unreachable, incomplete; crashed rules; timeouts are never a pass.

mod common;

use std::time::Duration;

use mcpseal_client::{Options, Target};
use mcpseal_fixtures::stdio_argv;
use mcpseal_probe::{ProbeContext, Rule, RuleResult, probe_with};
use mcpseal_report::{Remediation, RunState, Severity};

use common::{DEADLINE, http, options, probe_options, probe_target, stdio};

#[tokio::test]
async fn a_server_that_answers_discover_then_exits_is_incomplete() {
    for report in [
        stdio(&["--exit-after-discover"]).await,
        // HTTP exits 200 ms after answering discover: slow every answer so probes remain.
        http(&["--exit-after-discover", "--delay", "150"]).await,
    ] {
        assert_eq!(report.state, RunState::Incomplete, "{report:?}");
        assert!(!report.ready);
        let inc = report.incomplete.as_ref().expect("incomplete");
        assert!(inc.failed > 0 && inc.failed < inc.probes, "{inc:?}");
    }
}

#[tokio::test]
async fn a_server_that_never_answers_is_unreachable_with_zero_findings() {
    // Starts, then exits on a usage error before answering anything.
    let target = Target::stdio(stdio_argv(&["--no-such-flag"]));
    let report = probe_target(target, options(), &probe_options()).await;
    assert_eq!(report.state, RunState::Unreachable);
    assert!(report.findings.is_empty());
    assert_eq!(report.summary.checks, 0);
    assert!(!report.ready);
    assert!(report.unreachable.is_some());
}

#[tokio::test]
async fn a_hung_probe_is_never_a_pass_nor_a_finding() {
    let target = Target::stdio(stdio_argv(&["--ping", "--hang-on", "ping"]));
    let opts = Options {
        timeout: Duration::from_millis(700),
        ..Options::default()
    };
    let report = probe_target(target, opts, &probe_options()).await;
    assert_eq!(report.state, RunState::Incomplete);
    assert!(!report.findings.iter().any(|f| f.rule_id == "SEAL006"));
    assert!(!report.ready);
}

#[tokio::test]
async fn a_silent_listen_makes_the_run_incomplete() {
    for report in [
        stdio(&["--list-changed", "--silent-listen"]).await,
        http(&["--list-changed", "--silent-listen"]).await,
    ] {
        assert_eq!(report.state, RunState::Incomplete);
        assert!(report.findings.is_empty(), "{:?}", report.findings);
        let reason = &report.incomplete.as_ref().expect("incomplete").reason;
        assert!(reason.contains("subscriptions/listen"), "{reason}");
    }
}

async fn panics(_ctx: &ProbeContext<'_>) -> RuleResult {
    panic!("deliberate test panic")
}

fn boxed_panics<'a, 'c>(ctx: &'a ProbeContext<'c>) -> mcpseal_probe::rule::RuleFuture<'a> {
    Box::pin(panics(ctx))
}

static PANICS: Rule = Rule {
    id: "TEST001",
    anchor_id: None,
    title: "panics",
    severity: Severity::Error,
    remediation: Remediation::Sdk,
    spec_path: "changelog",
    transports: &[mcpseal_client::TransportKind::Stdio],
    rationale: "",
    run: boxed_panics,
};

#[tokio::test]
async fn a_panicking_rule_is_recorded_as_crashed_and_the_run_goes_on() {
    let target = Target::stdio(stdio_argv(&["--mode", "legacy"]));
    let report = tokio::time::timeout(DEADLINE, async {
        let conn = mcpseal_client::Connection::open(&target, options())
            .await
            .expect("open");
        let mut rules: Vec<&Rule> = vec![&PANICS];
        rules.extend(mcpseal_probe::rules::REGISTRY.iter().copied());
        probe_with(&conn, &common::all_rules(), &rules).await
    })
    .await
    .expect("deadline");
    assert_eq!(report.crashed_rules.len(), 1);
    assert!(
        report.crashed_rules[0]
            .error
            .contains("deliberate test panic")
    );
    assert!(report.findings.iter().any(|f| f.rule_id == "SEAL001"));
    assert_eq!(report.state, RunState::Incomplete);
    assert!(!report.ready);
}

async fn no_evidence(_ctx: &ProbeContext<'_>) -> RuleResult {
    Ok(vec![BARE.finding(
        "claimed without quoting anything".into(),
        "every finding quotes its exchanges",
        "none",
    )])
}

fn boxed_no_evidence<'a, 'c>(ctx: &'a ProbeContext<'c>) -> mcpseal_probe::rule::RuleFuture<'a> {
    Box::pin(no_evidence(ctx))
}

static BARE: Rule = Rule {
    id: "TEST002",
    anchor_id: None,
    title: "a finding without evidence",
    severity: Severity::Error,
    remediation: Remediation::Sdk,
    spec_path: "changelog",
    transports: &[mcpseal_client::TransportKind::Stdio],
    rationale: "",
    run: boxed_no_evidence,
};

#[tokio::test]
async fn a_finding_without_evidence_is_refused_as_a_crashed_rule() {
    let target = Target::stdio(stdio_argv(&["--mode", "legacy"]));
    let report = tokio::time::timeout(DEADLINE, async {
        let conn = mcpseal_client::Connection::open(&target, options())
            .await
            .expect("open");
        let mut rules: Vec<&Rule> = vec![&BARE];
        rules.extend(mcpseal_probe::rules::REGISTRY.iter().copied());
        probe_with(&conn, &common::all_rules(), &rules).await
    })
    .await
    .expect("deadline");
    // The claim is not reported; the rule is a crash, with a message saying why…
    assert!(!report.findings.iter().any(|f| f.rule_id == "TEST002"));
    assert_eq!(report.crashed_rules.len(), 1, "{:?}", report.crashed_rules);
    assert_eq!(report.crashed_rules[0].rule_id, "TEST002");
    assert!(
        report.crashed_rules[0].error.contains("without evidence"),
        "{}",
        report.crashed_rules[0].error
    );
    // …and the run is incomplete, never ready; the other rules still report (with evidence).
    assert_eq!(report.state, RunState::Incomplete);
    assert!(!report.ready);
    assert!(report.findings.iter().any(|f| f.rule_id == "SEAL001"));
    assert!(report.findings.iter().all(|f| !f.evidence.is_empty()));
}
