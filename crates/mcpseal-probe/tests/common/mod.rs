//! Probing the real fixture binary over real stdio and real HTTP on 127.0.0.1, with deadlines.

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::collections::BTreeSet;
use std::time::Duration;

use mcpseal_client::{Connection, Options, Target};
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use mcpseal_probe::{ProbeOptions, probe};
use mcpseal_report::{ProbeReport, Severity};

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
    probe_target(Target::stdio(stdio_argv(args)), options(), &probe_options()).await
}

/// Probes the fixture over HTTP with `args`.
pub async fn http(args: &[&str]) -> ProbeReport {
    let fx = HttpFixture::start(args);
    probe_target(Target::http(fx.url.clone()), options(), &probe_options()).await
}

/// `(rule id, severity)` of every finding.
pub fn ids(report: &ProbeReport) -> BTreeSet<(String, Severity)> {
    report
        .findings
        .iter()
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
