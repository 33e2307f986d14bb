//! Every rule in both directions, against the real fixture over stdio and HTTP: the bad
//! behaviour provokes exactly the expected findings (one root cause, one finding) and the
//! clean `modern` fixture provokes none.

mod common;

use mcpseal_report::Severity::{Error as E, Warning as W};

use common::{Case, all_rules, http, ids, measured, options, probe_target, set, stdio};

/// Rules that only apply to HTTP.
const HTTP_ONLY: &[&str] = &[
    "SEAL003", "SEAL010", "SEAL014", "SEAL016", "SEAL019", "SEAL020",
];

const LEGACY: &[(&str, mcpseal_report::Severity)] = &[
    ("SEAL001", E),
    ("SEAL002", E),
    ("SEAL004", E),
    ("SEAL005", E),
    ("SEAL006", E),
    ("SEAL007", E),
    ("SEAL008", E),
    ("SEAL009", E),
    ("SEAL011", E),
    ("SEAL012", E),
    ("SEAL015", W),
    ("SEAL017", W),
    ("SEAL018", W),
    ("SEAL021", E),
];

/// Fixture arguments → expected findings, on both transports.
const CASES: &[Case] = &[
    (&["--mode", "modern"], &[]),
    (&["--mode", "dual"], &[("SEAL002", W)]),
    (&["--mode", "strict-params"], &[("SEAL013", E)]),
    (&["--no-result-type"], &[("SEAL004", E)]),
    (&["--no-cache-hints"], &[("SEAL005", E)]),
    (&["--partial-cache"], &[("SEAL005", E)]),
    (&["--ping"], &[("SEAL006", E)]),
    (
        &["--removed-methods"],
        &[("SEAL006", E), ("SEAL007", E), ("SEAL008", E)],
    ),
    (&["--list-changed"], &[]),
    (&["--old-not-found"], &[("SEAL011", E)]),
    (&["--old-error-codes"], &[("SEAL012", E)]),
    (&["--deprecated-caps"], &[("SEAL015", W)]),
    (&["--shuffle", "--tools", "20"], &[("SEAL017", W)]),
    (&["--no-server-info-meta"], &[("SEAL018", W)]),
    (&["--tasks", "core"], &[("SEAL021", E)]),
    // Both advertised is an advisory, but `tasks/list` is still served: error.
    (&["--tasks", "both"], &[("SEAL021", E)]),
    (&["--tasks", "hidden"], &[("SEAL021", W)]),
    (&["--tasks", "ext"], &[]),
    (&["--messages-listen"], &[]),
];

#[tokio::test]
async fn every_knob_provokes_exactly_its_rule_over_stdio() {
    for (args, expected) in CASES {
        let report = stdio(args).await;
        measured(&report, &format!("stdio {args:?}"));
        assert_eq!(ids(&report), set(expected), "stdio {args:?}");
        assert_eq!(report.ready, !expected.iter().any(|(_, s)| *s == E));
    }
}

#[tokio::test]
async fn every_knob_provokes_exactly_its_rule_over_http() {
    for (args, expected) in CASES {
        let report = http(args).await;
        measured(&report, &format!("http {args:?}"));
        assert_eq!(ids(&report), set(expected), "http {args:?}");
    }
}

#[tokio::test]
async fn http_only_knobs_provoke_exactly_their_rule() {
    let cases: &[Case] = &[
        (&["--mode", "strict-headers"], &[("SEAL014", E)]),
        (&["--session-id"], &[("SEAL003", E)]),
        (&["--get-events"], &[("SEAL010", E)]),
        (&["--get-stream"], &[("SEAL016", W)]),
        (&["--oauth", "legacy"], &[("SEAL019", W), ("SEAL020", W)]),
        (&["--oauth", "modern"], &[]),
    ];
    for (args, expected) in cases {
        let report = http(args).await;
        measured(&report, &format!("http {args:?}"));
        assert_eq!(ids(&report), set(expected), "http {args:?}");
    }
}

#[tokio::test]
async fn stdio_history_dependent_behaviour_is_asked_of_a_fresh_process() {
    // `ping` answered only as the first request of a process: gone in the probed process
    // (after discover and the listings), alive in a fresh one.
    let report = stdio(&["--ping-when-first"]).await;
    measured(&report, "stdio --ping-when-first");
    assert_eq!(ids(&report), set(&[("SEAL006", E)]));
    let f = &report.findings[0];
    assert!(
        f.observed.contains("first message of a fresh process"),
        "{}",
        f.observed
    );
    assert_eq!(f.evidence.len(), 2);
}

#[tokio::test]
async fn dual_era_is_recognised_on_stdio_although_discover_came_first() {
    // `initialize` goes to a fresh process: the probed one never sees a handshake.
    let report = stdio(&["--mode", "dual"]).await;
    assert_eq!(ids(&report), set(&[("SEAL002", W)]));
    let transcript_methods: Vec<String> = report.findings[0]
        .evidence
        .iter()
        .filter_map(|e| e["request"]["method"].as_str().map(str::to_owned))
        .collect();
    assert!(transcript_methods.contains(&"initialize".to_owned()));
}

#[tokio::test]
async fn legacy_is_measured_as_fully_over_http_as_over_stdio() {
    let over_stdio = stdio(&["--mode", "legacy"]).await;
    let over_http = http(&["--mode", "legacy"]).await;
    measured(&over_stdio, "legacy stdio");
    measured(&over_http, "legacy http");
    assert_eq!(ids(&over_stdio), set(LEGACY));
    let http_minus_http_only: std::collections::BTreeSet<_> = ids(&over_http)
        .into_iter()
        .filter(|(id, _)| !HTTP_ONLY.contains(&id.as_str()))
        .collect();
    assert_eq!(http_minus_http_only, ids(&over_stdio));
    let http_only: Vec<_> = ids(&over_http)
        .into_iter()
        .filter(|(id, _)| HTTP_ONLY.contains(&id.as_str()))
        .collect();
    assert_eq!(
        http_only,
        vec![("SEAL003".to_owned(), E), ("SEAL016".to_owned(), W)]
    );
    // Same titles too: the same verdicts, not just the same ids.
    let titles = |r: &mcpseal_report::ProbeReport| {
        r.findings
            .iter()
            .filter(|f| !HTTP_ONLY.contains(&f.rule_id.as_str()))
            .map(|f| f.title.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(titles(&over_http), titles(&over_stdio));
    // The session the server issued was echoed on the legacy path.
    let echoed = over_http.findings.iter().any(|f| {
        f.rule_id == "SEAL006"
            && f.evidence.iter().any(|e| {
                e["requestHeaders"]
                    .as_array()
                    .is_some_and(|h| h.iter().any(|h| h["name"] == "Mcp-Session-Id"))
            })
    });
    assert!(echoed, "the legacy path must echo Mcp-Session-Id");
}

#[tokio::test]
async fn removed_methods_behind_the_handshake_gate_are_found() {
    // The 2026 path gets -32600 "not initialized"; accepting that as "gone" would pass a live
    // `ping`. The 2025 path after the handshake proves the handler is alive.
    let report = http(&["--mode", "legacy"]).await;
    let ping = report
        .findings
        .iter()
        .find(|f| f.rule_id == "SEAL006")
        .expect("SEAL006");
    assert_eq!(ping.severity, E);
    assert_eq!(ping.evidence.len(), 2);
    assert_eq!(ping.evidence[0]["response"]["error"]["code"], -32600);
    assert!(ping.evidence[1]["response"]["result"].is_object());
}

#[tokio::test]
async fn the_clean_fixture_is_ready_under_every_registered_rule() {
    let fx = mcpseal_fixtures::HttpFixture::start(&["--mode", "modern"]);
    for target in [
        mcpseal_client::Target::stdio(mcpseal_fixtures::stdio_argv(&["--mode", "modern"])),
        mcpseal_client::Target::http(fx.url.clone()),
    ] {
        let report = probe_target(target, options(), &all_rules()).await;
        measured(&report, "modern, all rules");
        assert!(report.findings.is_empty(), "{:?}", report.findings);
        assert!(report.ready);
    }
}
