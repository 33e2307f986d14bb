//! Probing the real fixture binary over real stdio and real HTTP on 127.0.0.1, with deadlines.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::collections::BTreeSet;
use std::time::Duration;

use mcpseal_client::{Connection, Options, Target};
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use mcpseal_probe::{ProbeOptions, probe};
use mcpseal_report::{ProbeReport, RunState, Severity};

/// Deadline for one probe run.
pub const DEADLINE: Duration = Duration::from_secs(20);

/// Options for tests: a short per-request timeout.
pub fn options() -> Options {
    Options {
        timeout: Duration::from_secs(3),
        ..Options::default()
    }
}

/// Probe options with a short listen wait, limited to the rules of mcp-stateless
/// (SEAL001–SEAL021, the ones these tests pin); later rules test themselves.
pub fn probe_options() -> ProbeOptions {
    ProbeOptions {
        listen_timeout: Duration::from_millis(800),
        only: (1..=21).map(|n| format!("SEAL{n:03}")).collect(),
        ..ProbeOptions::default()
    }
}

/// Probe options running every registered rule.
pub fn all_rules() -> ProbeOptions {
    ProbeOptions {
        listen_timeout: Duration::from_millis(800),
        ..ProbeOptions::default()
    }
}

/// Probes `target` with all rules, under the deadline.
pub async fn probe_target(target: Target, options: Options, popts: &ProbeOptions) -> ProbeReport {
    tokio::time::timeout(DEADLINE, async {
        let conn = Connection::open(&target, options).await.expect("open");
        let report = probe(&conn, popts).await;
        conn.close().await;
        report
    })
    .await
    .expect("probe finished within the deadline")
}

/// Probes the fixture over stdio with `args`.
pub async fn stdio(args: &[&str]) -> ProbeReport {
    stdio_with(args, &probe_options()).await
}

/// Probes the fixture over HTTP with `args`.
pub async fn http(args: &[&str]) -> ProbeReport {
    http_with(args, &probe_options()).await
}

/// Probes the fixture over stdio with `args` and the rule selection of `popts`.
pub async fn stdio_with(args: &[&str], popts: &ProbeOptions) -> ProbeReport {
    probe_target(Target::stdio(stdio_argv(args)), options(), popts).await
}

/// Probes the fixture over HTTP with `args` and the rule selection of `popts`; the fixture
/// lives until the probe is over.
pub async fn http_with(args: &[&str], popts: &ProbeOptions) -> ProbeReport {
    let fx = HttpFixture::start(args);
    probe_target(Target::http(fx.url.clone()), options(), popts).await
}

/// `(fixture arguments, expected (rule id, severity) findings)`: one row of a knob table.
pub type Case = (&'static [&'static str], &'static [(&'static str, Severity)]);

/// `(rule id, severity)` of every finding.
pub fn ids(report: &ProbeReport) -> BTreeSet<(String, Severity)> {
    among(report, |_| true)
}

/// `(rule id, severity)` of the findings whose rule id `mine` keeps: a test file compares only
/// its own range, so rules added elsewhere cannot make it drift.
pub fn among(report: &ProbeReport, mine: impl Fn(&str) -> bool) -> BTreeSet<(String, Severity)> {
    report
        .findings
        .iter()
        .filter(|f| mine(&f.rule_id))
        .map(|f| (f.rule_id.clone(), f.severity))
        .collect()
}

/// Builds the expected set from `("SEAL001", Severity::Error)` pairs.
pub fn set(pairs: &[(&str, Severity)]) -> BTreeSet<(String, Severity)> {
    pairs.iter().map(|(i, s)| ((*i).to_owned(), *s)).collect()
}

/// Asserts the invariants every finding keeps: evidence, observed, expected, fix, spec.
pub fn assert_well_formed(report: &ProbeReport) {
    for f in &report.findings {
        assert!(!f.evidence.is_empty(), "{} has no evidence", f.rule_id);
        assert!(!f.observed.is_empty() && !f.expected.is_empty() && !f.fix.is_empty());
        assert!(
            f.spec_ref
                .starts_with("https://modelcontextprotocol.io/specification/2026-07-28/")
        );
    }
    assert!(
        report.crashed_rules.is_empty(),
        "{:?}",
        report.crashed_rules
    );
}

/// Asserts the run was measured (saying `what` and why not otherwise) and its findings are
/// well formed.
pub fn measured(report: &ProbeReport, what: &str) {
    assert_eq!(
        report.state,
        RunState::Measured,
        "{what}: {:?}",
        report.incomplete
    );
    assert_well_formed(report);
}
