//! SEAL022–SEAL027 (wire schema, request envelope, version errors, discover details,
//! subscription acknowledgements, serverInfo beyond the cacheable results) in both directions
//! against the real fixture over stdio and HTTP: each knob provokes exactly its rule among
//! SEAL022–027, and the clean `modern`, `dual` and `legacy` fixtures none of them. Only this
//! range is compared, so rules added elsewhere cannot make these tests drift.

mod common;

use std::collections::BTreeSet;

use mcpseal_probe::ProbeOptions;
use mcpseal_report::Severity::{Error as E, Warning as W};
use mcpseal_report::{Finding, ProbeReport, RunState, Severity};

use common::{Case, all_rules, among, http_with, measured, set, stdio_with};

/// SEAL001–SEAL027: the rules that run before (and whose exchanges SEAL022 validates) and
/// these; later rules run after them and cannot change their verdicts.
fn through_027() -> ProbeOptions {
    ProbeOptions {
        only: (1..=27).map(|n| format!("SEAL{n:03}")).collect(),
        ..all_rules()
    }
}

async fn stdio(args: &[&str]) -> ProbeReport {
    stdio_with(args, &through_027()).await
}

async fn http(args: &[&str]) -> ProbeReport {
    http_with(args, &through_027()).await
}

/// The same verdict over stdio and HTTP (expected findings among SEAL022–027).
const CASES: &[Case] = &[
    (&["--mode", "modern"], &[]),
    (&["--mode", "dual"], &[]),
    (&["--mode", "legacy"], &[]),
    (&["--list-changed"], &[]),
    (&["--no-result-type"], &[]),
    (&["--no-cache-hints"], &[]),
    (&["--invalid-wire"], &[("SEAL022", E)]),
    (&["--lenient-meta"], &[("SEAL023", E)]),
    (&["--require-client-info"], &[("SEAL023", E)]),
    (&["--bare-version-error"], &[("SEAL024", E)]),
    (&["--advertise-version", "2026-12-01"], &[("SEAL024", E)]),
    (&["--body-server-info"], &[("SEAL025", W)]),
    // TypeScript SDK v2 over stdio: the first request's version is kept for the process and
    // later requests are served whatever version they claim. That is SEAL041's finding (split
    // from SEAL023: a served unsupported version is not a missing `_meta` key;
    // tests/rules_accuracy.rs), so nothing here.
    (&["--pin-version"], &[]),
    // TypeScript SDK v2 over HTTP: neither header nor `_meta` naming a version is refused as an
    // unsupported version (-32022). The probe names the version in the header, so the missing
    // `_meta` key alone is judged (-32602): no finding (it was a false positive).
    (&["--versionless-unsupported"], &[]),
    (&["--partial-server-info"], &[("SEAL027", W)]),
    // Missing everywhere is SEAL018's one finding.
    (&["--no-server-info-meta"], &[]),
    (
        &["--list-changed", "--listen-ack", "superset"],
        &[("SEAL026", E)],
    ),
    (
        &["--list-changed", "--listen-ack", "late"],
        &[("SEAL026", E)],
    ),
];

const MINE: &[&str] = &[
    "SEAL022", "SEAL023", "SEAL024", "SEAL025", "SEAL026", "SEAL027",
];

/// `(rule id, severity)` of the findings among SEAL022–027.
fn mine(report: &ProbeReport) -> BTreeSet<(String, Severity)> {
    among(report, |id| MINE.contains(&id))
}

fn finding<'r>(report: &'r ProbeReport, id: &str) -> &'r Finding {
    report
        .findings
        .iter()
        .find(|f| f.rule_id == id)
        .unwrap_or_else(|| panic!("{id} in {:#?}", report.findings))
}

#[tokio::test]
async fn every_wire_knob_provokes_exactly_its_rule_over_stdio() {
    for (args, expected) in CASES {
        let report = stdio(args).await;
        measured(&report, &format!("stdio {args:?}"));
        assert_eq!(mine(&report), set(expected), "stdio {args:?}");
    }
}

#[tokio::test]
async fn every_wire_knob_provokes_exactly_its_rule_over_http() {
    for (args, expected) in CASES {
        let report = http(args).await;
        measured(&report, &format!("http {args:?}"));
        assert_eq!(mine(&report), set(expected), "http {args:?}");
    }
}

#[tokio::test]
async fn schema_findings_name_message_path_and_keyword_once_per_group() {
    for report in [
        stdio(&["--invalid-wire"]).await,
        http(&["--invalid-wire"]).await,
    ] {
        let found: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.rule_id == "SEAL022")
            .collect();
        let caps: Vec<_> = found
            .iter()
            .filter(|f| {
                f.observed
                    .contains("/result/capabilities/tools/listChanged")
            })
            .collect();
        assert_eq!(caps.len(), 1, "{found:#?}");
        let o = &caps[0].observed;
        assert!(o.contains("`server/discover`"), "{o}");
        assert!(o.contains("keyword `type`"), "{o}");
        assert!(o.contains("DiscoverResult"), "{o}");
        // The prelude lists tools three times: one (method, path, keyword) group, one finding.
        let listing: Vec<_> = found
            .iter()
            .filter(|f| f.observed.contains("response to `tools/list`"))
            .collect();
        assert_eq!(listing.len(), 1, "{found:#?}");
        let o = &listing[0].observed;
        assert!(o.contains("serverInfo/version"), "{o}");
        assert!(o.contains("occurrences in this group"), "{o}");
        assert!(listing[0].evidence.len() >= 2, "{:#?}", listing[0]);
        // Every finding names its message once: no two share (method, path, keyword).
        let mut keys: Vec<_> = found.iter().map(|f| f.observed.clone()).collect();
        keys.dedup();
        assert_eq!(keys.len(), found.len());
    }
}

#[tokio::test]
async fn envelope_findings_quote_what_was_served_or_refused() {
    let lenient = stdio(&["--lenient-meta"]).await;
    let f = finding(&lenient, "SEAL023");
    assert!(f.observed.contains("no `_meta` at all"), "{}", f.observed);
    // The unsupported version it also serves is another fault, SEAL041's (not run here).
    assert!(!f.observed.contains("1999-01-01"), "{}", f.observed);
    let strict = http(&["--require-client-info"]).await;
    let f = finding(&strict, "SEAL023");
    assert!(f.title.contains("clientInfo"), "{}", f.title);
    assert!(f.observed.contains("-32602"), "{}", f.observed);
}

#[tokio::test]
async fn http_status_of_envelope_errors_is_found_and_lost_ids_left_to_seal034() {
    // One status fault at a time (every error at 200 is SEAL044's one finding).
    let report = http(&["--status-200-code", "-32602", "--status-200-code", "-32022"]).await;
    measured(&report, "http --status-200-code");
    let titles: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.rule_id == "SEAL023")
        .map(|f| f.title.as_str())
        .collect();
    assert_eq!(titles, ["Envelope errors are not sent with HTTP 400"]);
    let f = finding(&report, "SEAL024");
    assert_eq!(
        f.title,
        "UnsupportedProtocolVersion errors are not sent with HTTP 400"
    );
    assert!(f.observed.contains("HTTP 200"), "{}", f.observed);
    // Every error at 200: neither says it again.
    let report = http(&["--errors-200"]).await;
    assert_eq!(mine(&report), set(&[]), "{:#?}", report.findings);

    // Lost ids are SEAL034's (HTTP); neither the envelope rule nor the schema rule repeats it.
    let report = http(&["--error-id-null"]).await;
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.rule_id == "SEAL022" || f.rule_id == "SEAL023"),
        "{:#?}",
        report.findings
    );
}

#[tokio::test]
async fn version_error_findings_name_the_contradiction() {
    let report = stdio(&["--advertise-version", "2026-12-01"]).await;
    let f = finding(&report, "SEAL024");
    assert!(
        f.observed
            .contains("`2026-12-01` is in `supportedVersions` yet was refused"),
        "{}",
        f.observed
    );
    let report = http(&["--bare-version-error"]).await;
    let f = finding(&report, "SEAL024");
    assert!(f.observed.contains("`error.data.supported` is missing"));
    assert!(f.observed.contains("`error.data.requested` is absent"));
}

#[tokio::test]
async fn an_acknowledgement_without_the_subscription_id_is_found_but_never_a_pass() {
    for report in [
        stdio(&["--list-changed", "--listen-ack", "no-id"]).await,
        http(&["--list-changed", "--listen-ack", "no-id"]).await,
    ] {
        // A client cannot match it: the listen went unanswered, so the run is incomplete…
        assert_eq!(report.state, RunState::Incomplete);
        assert!(!report.ready);
        // …and the malformed acknowledgement is still reported, by this rule alone.
        let f = finding(&report, "SEAL026");
        assert!(
            f.observed.contains("absent instead of the request id"),
            "{}",
            f.observed
        );
        assert!(!report.findings.iter().any(|f| f.rule_id == "SEAL009"));
    }
}

#[tokio::test]
async fn silence_on_listen_is_incomplete_not_a_finding_of_the_acknowledgement_rule() {
    for report in [
        stdio(&["--silent-listen"]).await,
        http(&["--silent-listen"]).await,
    ] {
        assert_eq!(report.state, RunState::Incomplete);
        assert!(!report.findings.iter().any(|f| f.rule_id == "SEAL026"));
    }
}

#[tokio::test]
async fn superset_and_late_acknowledgements_say_what_is_wrong() {
    let report = http(&["--list-changed", "--listen-ack", "superset"]).await;
    let o = &finding(&report, "SEAL026").observed;
    assert!(o.contains("which was not requested"), "{o}");
    let report = stdio(&["--list-changed", "--listen-ack", "late"]).await;
    let o = &finding(&report, "SEAL026").observed;
    assert!(o.contains("preceded the acknowledgement"), "{o}");
}
