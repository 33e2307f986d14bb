//! Probe accuracy (issue 12), both directions against the real fixture over stdio and HTTP:
//! stdout noise (SEAL040), a served unsupported version (SEAL041, split from SEAL023), -32021
//! (SEAL042), unknown tools answered with a result (SEAL043), dual-era servers answering a
//! header-less request as a 2026 one (SEAL030), authorization-limited runs (no verdict on a
//! 401/403), a stateless 2025 server (SEAL002's words), a slow start (timeout, then a late
//! answer). Only the rules named here are compared, so rules added elsewhere cannot drift them.

mod common;

use std::collections::BTreeSet;
use std::time::Duration;

use mcpseal_client::{Options, Target};
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use mcpseal_probe::{ProbeContext, ProbeOptions, Rule, RuleResult, parse_call, probe_with};
use mcpseal_report::Severity::{Error as E, Warning as W};
use mcpseal_report::{ProbeReport, Remediation, RunState, Severity};

use common::{
    Case, DEADLINE, all_rules, among, http_with, measured, options, probe_target, set, stdio_with,
};

const MINE: &[&str] = &[
    "SEAL011", "SEAL045", "SEAL012", "SEAL023", "SEAL024", "SEAL030", "SEAL031", "SEAL035",
    "SEAL039", "SEAL040", "SEAL041", "SEAL042", "SEAL043", "SEAL044",
];

fn mine(report: &ProbeReport) -> BTreeSet<(String, Severity)> {
    among(report, |id| MINE.contains(&id))
}

async fn stdio(args: &[&str]) -> ProbeReport {
    stdio_with(args, &all_rules()).await
}

async fn http(args: &[&str]) -> ProbeReport {
    http_with(args, &all_rules()).await
}

/// The same verdict over stdio and HTTP.
const BOTH: &[Case] = &[
    (&["--mode", "modern"], &[]),
    (&["--mode", "dual"], &[]),
    // Its retired not-found code and release-candidate codes (SEAL011, SEAL012); nothing new.
    (&["--mode", "legacy"], &[("SEAL011", E), ("SEAL012", E)]),
    // A missing resource: -32602, never an empty result or another code (SEAL045); the
    // retired -32002 is SEAL011's alone.
    (&["--missing-resource", "empty"], &[("SEAL045", E)]),
    (&["--missing-resource", "internal"], &[("SEAL045", E)]),
    (&["--old-not-found"], &[("SEAL011", E)]),
    // Another code than -32022 for an unsupported version (not the RC numbering): SEAL012's
    // own finding, apart from the release-candidate one.
    (&["--version-error-code", "-32602"], &[("SEAL012", E)]),
    // The TypeScript SDK v2 stdio bug: the version of the first requests is kept.
    (&["--pin-version"], &[("SEAL041", E)]),
    // Two faults, two findings: missing `_meta` keys served, and an unsupported version served.
    (&["--lenient-meta"], &[("SEAL023", E), ("SEAL041", E)]),
    (&["--require-client-info"], &[("SEAL023", E)]),
    (&["--unknown-tool-is-error"], &[("SEAL043", W)]),
    (
        &["--mode", "dual", "--unknown-tool-is-error"],
        &[("SEAL043", W)],
    ),
    (&["--capability-gate", "refuse"], &[]),
    (&["--capability-gate", "ask"], &[("SEAL042", E)]),
    (&["--capability-gate", "bare"], &[("SEAL042", E)]),
    // The task-only tool is never called unasked.
    (&["--capability-gate", "task"], &[]),
];

#[tokio::test]
async fn accuracy_knobs_over_stdio() {
    for (args, want) in BOTH {
        let report = stdio(args).await;
        measured(&report, &format!("stdio {args:?}"));
        assert_eq!(
            mine(&report),
            set(want),
            "stdio {args:?}: {:#?}",
            report.findings
        );
    }
}

#[tokio::test]
async fn accuracy_knobs_over_http() {
    for (args, want) in BOTH {
        let report = http(args).await;
        measured(&report, &format!("http {args:?}"));
        assert_eq!(
            mine(&report),
            set(want),
            "http {args:?}: {:#?}",
            report.findings
        );
    }
}

#[tokio::test]
async fn stdout_noise_is_one_finding_and_changes_no_other_verdict() {
    let clean = stdio(&[]).await;
    for knob in ["--noise", "--noise-json"] {
        let noisy = stdio(&[knob]).await;
        measured(&noisy, knob);
        assert_eq!(
            mine(&noisy),
            set(&[("SEAL040", E)]),
            "{knob}: {:#?}",
            noisy.findings
        );
        let f = noisy
            .findings
            .iter()
            .find(|f| f.rule_id == "SEAL040")
            .expect("SEAL040");
        let quoted = if knob == "--noise" {
            "`server starting...`"
        } else {
            "\"level\":\"info\""
        };
        assert!(f.observed.contains(quoted), "{knob}: {}", f.observed);
        assert!(f.fix.contains("stderr"), "{}", f.fix);
        // Every JSON-RPC answer was still read: the other rules say what they say without it.
        let others = |r: &ProbeReport| among(r, |id| id != "SEAL040");
        assert_eq!(others(&noisy), others(&clean), "{knob}");
    }
    // stdout noise is a stdio rule; the HTTP fixture's one stdout line is its URL.
    let report = http(&["--noise"]).await;
    assert!(!report.findings.iter().any(|f| f.rule_id == "SEAL040"));
}

#[tokio::test]
async fn http_only_accuracy_knobs() {
    let cases: &[Case] = &[
        (&["--capability-gate", "status-200"], &[("SEAL042", E)]),
        // Every error at 200 is one root cause with one fix: one finding, and no rule that
        // judges one error's status repeats it.
        (&["--errors-200"], &[("SEAL044", E)]),
        (
            &["--errors-200", "--capability-gate", "refuse"],
            &[("SEAL044", E)],
        ),
        (&["--status-200-code", "-32022"], &[("SEAL024", E)]),
        (&["--status-200-code", "-32602"], &[("SEAL023", E)]),
        // Another code than -32020 for a header mismatch: SEAL030's alone (not SEAL012 too).
        (&["--header-mismatch-code", "-32600"], &[("SEAL030", E)]),
        (
            &["--status-200-code", "-32021", "--capability-gate", "refuse"],
            &[("SEAL042", E)],
        ),
        // A dual-era server that answers a 2026 request without `MCP-Protocol-Version` as a
        // 2026 one (found on a real server); the clean dual fixture refuses it with -32020.
        (
            &["--mode", "dual", "--serve-without-version-header"],
            &[("SEAL030", E)],
        ),
        (&["--mode", "dual"], &[]),
    ];
    for (args, want) in cases {
        let report = http(args).await;
        measured(&report, &format!("{args:?}"));
        assert_eq!(mine(&report), set(want), "{args:?}: {:#?}", report.findings);
    }
    let report = http(&["--mode", "dual", "--serve-without-version-header"]).await;
    let f = report
        .findings
        .iter()
        .find(|f| f.rule_id == "SEAL030")
        .expect("SEAL030");
    assert!(
        f.observed.contains("answered as a 2026 request"),
        "{}",
        f.observed
    );
    // Over stdio there is no status: a -32021 with HTTP 200 cannot exist.
    let report = stdio(&["--capability-gate", "status-200"]).await;
    assert_eq!(mine(&report), set(&[]));
}

async fn with_calls(args: &[&str], calls: &[&str], over_http: bool) -> ProbeReport {
    let popts = ProbeOptions {
        calls: calls
            .iter()
            .map(|c| parse_call(c).expect("valid call"))
            .collect(),
        ..all_rules()
    };
    if over_http {
        http_with(args, &popts).await
    } else {
        stdio_with(args, &popts).await
    }
}

#[tokio::test]
async fn a_task_for_a_client_without_the_extension_is_found_only_with_call() {
    for over_http in [false, true] {
        let bad = with_calls(&["--capability-gate", "task"], &["long_job={}"], over_http).await;
        measured(&bad, "task");
        // SEAL042 only: a task result is not judged as a malformed `CallToolResult` (SEAL039).
        assert_eq!(mine(&bad), set(&[("SEAL042", E)]), "{:#?}", bad.findings);
        let f = bad
            .findings
            .iter()
            .find(|f| f.rule_id == "SEAL042")
            .expect("SEAL042");
        assert!(f.observed.contains("returned a task"), "{}", f.observed);
        let good = with_calls(
            &["--capability-gate", "refuse"],
            &["long_job={}", "approve={}"],
            over_http,
        )
        .await;
        measured(&good, "refuse");
        assert_eq!(mine(&good), set(&[]), "{:#?}", good.findings);
        // Each named tool was called once, shared by SEAL039 and SEAL042.
        let ask = with_calls(&["--capability-gate", "ask"], &["approve={}"], over_http).await;
        let f = ask
            .findings
            .iter()
            .find(|f| f.rule_id == "SEAL042")
            .expect("SEAL042");
        assert!(
            f.observed.contains("`tools/call` of `approve`"),
            "{}",
            f.observed
        );
        assert!(
            f.observed.contains("`prompts/get` of `approve`"),
            "{}",
            f.observed
        );
        assert!(
            f.observed
                .contains("`resources/read` of `fixture://approval`"),
            "{}",
            f.observed
        );
    }
}

/// One root cause, one finding: each split rule names its fault in the title.
#[tokio::test]
async fn split_rules_name_each_fault() {
    let title = |r: &ProbeReport, id: &str| -> Vec<String> {
        r.findings
            .iter()
            .filter(|f| f.rule_id == id)
            .map(|f| f.title.clone())
            .collect()
    };
    let r = stdio(&["--version-error-code", "-32602"]).await;
    assert_eq!(
        title(&r, "SEAL012"),
        ["An unsupported protocol version is refused with another code than -32022"]
    );
    let r = stdio(&["--mode", "legacy"]).await;
    assert_eq!(
        title(&r, "SEAL012"),
        ["Protocol error codes were not renumbered into the reserved range"]
    );
    let r = http(&["--header-mismatch-code", "-32600"]).await;
    assert_eq!(
        title(&r, "SEAL030"),
        ["Routing-header mismatches are refused with another code than -32020"]
    );
    let r = http(&["--lenient-headers"]).await;
    assert_eq!(
        title(&r, "SEAL030"),
        ["Requests whose routing headers are missing or disagree with the body are served"]
    );
    let r = http(&["--capability-gate", "bare"]).await;
    assert_eq!(
        title(&r, "SEAL042"),
        ["MissingRequiredClientCapability errors do not name the missing capabilities"]
    );
    // A -32022 without its data, and an advertised version that is refused: two findings.
    let r = stdio(&["--bare-version-error", "--advertise-version", "2026-12-01"]).await;
    let mut got = title(&r, "SEAL024");
    got.sort();
    assert_eq!(
        got,
        [
            "UnsupportedProtocolVersion errors lack or contradict the supported versions",
            "UnsupportedProtocolVersion errors lack or misstate data.supported and data.requested",
        ],
        "{:#?}",
        r.findings
    );
}

#[tokio::test]
async fn a_pinned_version_is_found_on_the_listing_not_on_discover() {
    for report in [
        stdio(&["--pin-version"]).await,
        http(&["--pin-version"]).await,
    ] {
        let f = report
            .findings
            .iter()
            .find(|f| f.rule_id == "SEAL041")
            .expect("SEAL041");
        assert!(
            f.observed.contains("`tools/list` (with `_meta`) → result"),
            "{}",
            f.observed
        );
        assert!(!f.observed.contains("`server/discover`"), "{}", f.observed);
        // The envelope rule says nothing about it: another fault.
        assert!(!report.findings.iter().any(|f| f.rule_id == "SEAL023"));
    }
}

#[tokio::test]
async fn a_stateless_2025_server_is_not_said_to_require_the_handshake() {
    for report in [
        stdio(&["--mode", "legacy", "--stateless-legacy"]).await,
        http(&["--mode", "legacy", "--stateless-legacy"]).await,
    ] {
        let f = report
            .findings
            .iter()
            .find(|f| f.rule_id == "SEAL002")
            .expect("SEAL002");
        assert_eq!(f.severity, E);
        assert_eq!(
            f.title, "Server still speaks the 2025 initialize handshake instead of server/discover",
            "{}",
            f.observed
        );
        assert!(
            !f.observed.contains("Before the handshake"),
            "{}",
            f.observed
        );
        // A stateless 2025 server mints no session.
        assert!(!report.findings.iter().any(|f| f.rule_id == "SEAL003"));
    }
    // Over HTTP the 2026 request is refused for its version header: say what was observed.
    let report = http(&["--mode", "legacy", "--stateless-legacy"]).await;
    let f = report
        .findings
        .iter()
        .find(|f| f.rule_id == "SEAL002")
        .expect("SEAL002");
    assert!(
        f.observed.contains("is not needed: without a handshake"),
        "{}",
        f.observed
    );
    // The stateful 2025 server does require it.
    for report in [
        stdio(&["--mode", "legacy"]).await,
        http(&["--mode", "legacy"]).await,
    ] {
        let f = report
            .findings
            .iter()
            .find(|f| f.rule_id == "SEAL002")
            .expect("SEAL002");
        assert_eq!(f.title, "Server still requires the initialize handshake");
    }
}

fn bearer(token: &str) -> Options {
    Options {
        headers: vec![("Authorization".into(), format!("Bearer {token}"))],
        ..options()
    }
}

#[tokio::test]
async fn an_authorization_limited_run_is_incomplete_with_the_challenge_never_findings() {
    let fx = HttpFixture::start(&[
        "--require-token",
        "t0ken",
        "--open-method",
        "server/discover",
    ]);
    let target = || Target::http(fx.url.clone());
    let report = probe_target(target(), options(), &all_rules()).await;
    assert_eq!(report.state, RunState::Incomplete, "{report:#?}");
    assert!(!report.ready);
    // No verdict on a refusal: no "ping still implemented", no "unknown method not 404", no
    // schema errors about the OAuth body.
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert!(
        report.crashed_rules.is_empty(),
        "{:?}",
        report.crashed_rules
    );
    let inc = report.incomplete.as_ref().expect("incomplete");
    assert!(
        inc.reason
            .contains("this server needs a credential (WWW-Authenticate: Bearer"),
        "{}",
        inc.reason
    );
    assert!(inc.reason.contains("pass --header"), "{}", inc.reason);
    let access = report.access.as_ref().expect("access");
    assert_eq!(access.status, 401);
    assert!(
        access.refused > 10 && access.refused <= inc.failed,
        "{access:?} {inc:?}"
    );
    assert_eq!(
        access.resource_metadata.as_deref(),
        Some(
            fx.url
                .replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
                .as_str()
        )
    );
    assert_eq!(access.anonymous, ["server/discover"], "{access:?}");
    assert!(!access.credential_sent);

    // With the token, the same server is judged like the clean fixture.
    let judged = probe_target(target(), bearer("t0ken"), &all_rules()).await;
    measured(&judged, "with the token");
    assert!(judged.findings.is_empty(), "{:#?}", judged.findings);
    assert!(judged.access.is_none());
    // The token never appears in the report.
    let text = serde_json::to_string(&judged).expect("serialises");
    assert!(!text.contains("t0ken"));

    // A wrong token: refused, and said so.
    let wrong = probe_target(target(), bearer("nope"), &all_rules()).await;
    assert_eq!(wrong.state, RunState::Incomplete);
    assert!(wrong.findings.is_empty(), "{:#?}", wrong.findings);
    let access = wrong.access.as_ref().expect("access");
    assert!(
        access.credential_sent && access.anonymous.is_empty(),
        "{access:?}"
    );
    assert!(
        wrong
            .incomplete
            .as_ref()
            .is_some_and(|i| i.reason.contains("was refused"))
    );
}

#[tokio::test]
async fn a_server_closed_to_everything_is_incomplete_not_unreachable() {
    let fx = HttpFixture::start(&["--require-token", "t0ken"]);
    let report = probe_target(Target::http(fx.url.clone()), options(), &all_rules()).await;
    assert_eq!(report.state, RunState::Incomplete, "{report:#?}");
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let access = report.access.as_ref().expect("access");
    assert!(access.anonymous.is_empty());

    // 403 insufficient_scope on one method, with the token: that probe is unanswered too.
    let fx = HttpFixture::start(&[
        "--require-token",
        "t0ken",
        "--insufficient-scope",
        "prompts/list",
    ]);
    let report = probe_target(Target::http(fx.url.clone()), bearer("t0ken"), &all_rules()).await;
    assert_eq!(report.state, RunState::Incomplete);
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    let access = report.access.as_ref().expect("access");
    assert_eq!(access.status, 403);
    assert!(
        access
            .challenge
            .as_deref()
            .is_some_and(|c| c.contains("insufficient_scope"))
    );
}

#[tokio::test]
async fn a_host_check_that_refuses_127_0_0_1_is_unreachable_with_the_http_answer() {
    let fx = HttpFixture::start(&["--localhost-only"]);
    let report = probe_target(Target::http(fx.url.clone()), options(), &all_rules()).await;
    assert_eq!(report.state, RunState::Unreachable, "{report:#?}");
    let reason = report.unreachable.as_deref().unwrap_or("");
    assert!(
        reason.contains("HTTP 403") && reason.contains("Invalid Host header"),
        "{reason}"
    );
    // The same server reached as `localhost` is judged normally.
    let localhost = fx.url.replace("127.0.0.1", "localhost");
    let report = probe_target(Target::http(localhost), options(), &all_rules()).await;
    measured(&report, "localhost");
}

async fn quotes_a_refusal(ctx: &ProbeContext<'_>) -> RuleResult {
    let ex = ctx.call("tools/list", serde_json::json!({})).await;
    use mcpseal_probe::FindingExt;
    Ok(vec![
        QUOTES
            .finding("judged a 401".into(), "never", "none")
            .evidence([&ex]),
    ])
}

fn boxed_quotes<'a, 'c>(ctx: &'a ProbeContext<'c>) -> mcpseal_probe::rule::RuleFuture<'a> {
    Box::pin(quotes_a_refusal(ctx))
}

static QUOTES: Rule = Rule {
    id: "TEST003",
    anchor_id: None,
    title: "a finding that quotes a refused probe",
    severity: Severity::Error,
    remediation: Remediation::Sdk,
    spec_path: "changelog",
    transports: &[mcpseal_client::TransportKind::Http],
    rationale: "",
    run: boxed_quotes,
};

#[tokio::test]
async fn the_engine_refuses_a_finding_based_on_a_refusal() {
    let fx = HttpFixture::start(&[
        "--require-token",
        "t0ken",
        "--open-method",
        "server/discover",
    ]);
    let report = tokio::time::timeout(DEADLINE, async {
        let conn = mcpseal_client::Connection::open(&Target::http(fx.url.clone()), options())
            .await
            .expect("open");
        probe_with(&conn, &all_rules(), &[&QUOTES]).await
    })
    .await
    .expect("deadline");
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert_eq!(report.crashed_rules.len(), 1, "{:?}", report.crashed_rules);
    assert!(
        report.crashed_rules[0]
            .error
            .contains("authorization refusal")
    );
}

/// A stdio server whose first answer comes after the timeout: the run says "timed out, then
/// answered late", and the start-up allowance (the CLI's `--startup-timeout`) lets it through.
#[tokio::test]
async fn a_slow_start_is_a_timeout_then_a_late_answer_unless_allowed_for() {
    let only = ProbeOptions {
        only: vec!["SEAL001".into()],
        ..all_rules()
    };
    let target = || Target::stdio(stdio_argv(&["--startup-delay", "4500"]));
    // 3 s per request, no allowance: discover times out at 3 s, is answered at 4.5 s, and the
    // listing sent at 3 s is answered in time.
    let strict = Options {
        timeout: Duration::from_secs(3),
        ..Options::default()
    };
    let report = probe_target(target(), strict, &only).await;
    assert_eq!(report.state, RunState::Incomplete, "{report:#?}");
    let reason = &report.incomplete.as_ref().expect("incomplete").reason;
    assert!(
        reason.starts_with("`server/discover`: no answer"),
        "{reason}"
    );
    assert!(reason.contains("its answer came later"), "{reason}");
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.starts_with("[late answer] `server/discover`")),
        "{:?}",
        report.diagnostics
    );
    // A run of its own: fresh options, so the first run's timeout memo (shared by clones of
    // one Options, one run's memory of dead methods) does not answer for this one.
    let allowed = Options {
        timeout: Duration::from_secs(3),
        startup_timeout: Some(Duration::from_secs(20)),
        ..Options::default()
    };
    let report = probe_target(target(), allowed, &only).await;
    measured(&report, "with a start-up allowance");
}
