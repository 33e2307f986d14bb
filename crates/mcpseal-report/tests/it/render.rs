//! What the renderers promise beyond their snapshots.

use std::collections::HashSet;

use mcpseal_report::{
    FINGERPRINT_KEY, Finding, Format, ProbeReport, RenderOptions, Severity,
    render_findings_markdown, render_findings_text, render_probe, sort_findings,
};
use serde_json::Value;

use crate::support;

const PLAIN: RenderOptions = RenderOptions {
    verbose: false,
    color: false,
    docs_url: None,
};
const VERBOSE: RenderOptions = RenderOptions {
    verbose: true,
    color: false,
    docs_url: None,
};

fn sarif(report: &ProbeReport) -> Value {
    serde_json::from_str(&render_probe(report, Format::Sarif, &PLAIN)).expect("SARIF is JSON")
}

#[test]
fn verbose_text_shows_traffic_and_diagnostics() {
    let out = render_probe(&support::legacy(), Format::Text, &VERBOSE);
    assert!(
        out.contains(r#"→ {"id":1,"jsonrpc":"2.0","method":"server/discover""#),
        "{out}"
    );
    assert!(
        out.contains(r#"← HTTP 400 {"error":{"code":-32601"#),
        "{out}"
    );
    assert!(out.contains("→ GET http://127.0.0.1:7301/mcp"), "{out}");
    assert!(out.contains("[stderr] Server listening on :7301"), "{out}");
    for line in out
        .lines()
        .filter(|l| l.trim_start().starts_with(['→', '←']))
    {
        // arrow, space, at most 200 characters and an ellipsis
        assert!(line.trim_start().chars().count() <= 2 + 200 + 1, "{line}");
    }
}

#[test]
fn plain_text_shows_no_traffic() {
    for (name, report) in support::all() {
        let out = render_probe(&report, Format::Text, &PLAIN);
        assert!(!out.contains('→') && !out.contains('←'), "{name}: {out}");
        assert!(!out.contains("[stderr]"), "{name}: {out}");
    }
    let out = render_probe(&support::legacy(), Format::Text, &PLAIN);
    assert!(
        out.contains("2 diagnostics from the server outside the protocol; --verbose shows them")
    );
}

#[test]
fn redacted_values_stay_redacted() {
    let report = support::legacy();
    let outputs = [
        render_probe(&report, Format::Text, &VERBOSE),
        render_probe(&report, Format::Json, &PLAIN),
        render_probe(&report, Format::Sarif, &PLAIN),
    ];
    for out in &outputs {
        assert!(out.contains("[redacted]"), "{out}");
        assert!(!out.to_lowercase().contains("bearer"), "{out}");
    }
    assert!(outputs[0].contains("Authorization: [redacted]"));
    assert!(outputs[0].contains("mcp-session-id: [redacted]"));
    // The JSON report carries the evidence exactly as given.
    let json: Value = serde_json::from_str(&outputs[1]).expect("JSON");
    let evidence: Vec<&Value> = json["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .flat_map(|f| f["evidence"].as_array().expect("evidence"))
        .collect();
    let original: Vec<Value> = report
        .findings
        .iter()
        .flat_map(|f| f.evidence.clone())
        .collect();
    assert_eq!(evidence.len(), original.len());
    for item in &original {
        assert!(evidence.contains(&item), "evidence changed: {item}");
    }
}

#[test]
fn colour_only_in_text_and_only_when_asked() {
    let colour = RenderOptions {
        verbose: true,
        color: true,
        docs_url: None,
    };
    for (name, report) in support::all() {
        let text = render_probe(&report, Format::Text, &colour);
        assert!(
            text.contains("\u{1b}["),
            "{name}: no colour in coloured text"
        );
        assert!(
            !render_probe(&report, Format::Text, &VERBOSE).contains('\u{1b}'),
            "{name}"
        );
        for format in [Format::Json, Format::Sarif, Format::Markdown] {
            assert!(
                !render_probe(&report, format, &colour).contains('\u{1b}'),
                "{name} {format}"
            );
        }
    }
}

#[test]
fn renderers_do_not_change_the_verdict() {
    let cases = [
        (
            support::legacy(),
            "NOT READY — 3 breaking issues across 6 checks",
        ),
        (
            support::modern(),
            "READY — no breaking issues across 7 checks; 1 advisory",
        ),
        (
            support::unreachable(),
            "UNREACHABLE — no probe was answered",
        ),
        (
            support::incomplete(),
            "INCOMPLETE — 2 of 14 probes went unanswered",
        ),
    ];
    for (report, verdict) in cases {
        let text = render_probe(&report, Format::Text, &PLAIN);
        assert!(text.contains(verdict), "{text}");
        let json: Value =
            serde_json::from_str(&render_probe(&report, Format::Json, &PLAIN)).expect("JSON");
        assert_eq!(json["ready"], report.ready);
        assert_eq!(
            json["state"],
            serde_json::to_value(report.state).expect("state")
        );
        assert_eq!(
            json["summary"],
            serde_json::to_value(report.summary).expect("summary")
        );
    }
}

#[test]
fn json_is_sorted_and_round_trips() {
    let report = support::legacy();
    let before = report.clone();
    let out = render_probe(&report, Format::Json, &PLAIN);
    assert_eq!(report, before, "the renderer mutated its input");
    assert!(out.ends_with("}\n"));
    let back: ProbeReport = serde_json::from_str(&out).expect("parses back");
    let mut expected = report.clone();
    sort_findings(&mut expected.findings);
    expected.rules.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(back, expected);
    let ids: Vec<&str> = back.findings.iter().map(|f| f.rule_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "SEAL001", "SEAL002", "SEAL005", "SEAL005", "SEAL008", "SEAL013"
        ]
    );
}

#[test]
fn sarif_fingerprints_are_unique() {
    let mut report = support::legacy();
    // Two findings identical in every fingerprinted field.
    let twin = report.findings[0].clone();
    report.findings.push(twin);
    let log = sarif(&report);
    let results = log["runs"][0]["results"].as_array().expect("results");
    assert_eq!(results.len(), report.findings.len());
    let prints: HashSet<&str> = results
        .iter()
        .map(|r| {
            r["partialFingerprints"][FINGERPRINT_KEY]
                .as_str()
                .expect("fingerprint")
        })
        .collect();
    assert_eq!(prints.len(), results.len(), "fingerprints collide");
    for print in &prints {
        assert_eq!(print.len(), 64);
        assert!(
            print
                .chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
    }
}

#[test]
fn sarif_fingerprint_matches_an_independent_computation() {
    // Python: sha256(b"".join(f"{len(x.encode())}:".encode() + x.encode() for x in fields))
    let log = sarif(&support::legacy());
    let first = &log["runs"][0]["results"][0];
    assert_eq!(first["ruleId"], "SEAL001");
    assert_eq!(
        first["partialFingerprints"][FINGERPRINT_KEY],
        "994055042f809f4ce6ffcff8207deeedfd3fa991f10a538e918a5b507262697d"
    );
}

#[test]
fn sarif_lists_every_rule_and_indexes_them() {
    let report = support::legacy();
    let log = sarif(&report);
    let run = &log["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), report.rules.len());
    for result in run["results"].as_array().expect("results") {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
        assert!(result["properties"]["remediation"].is_string());
        assert_eq!(
            result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            "http://127.0.0.1:7301/mcp"
        );
    }
    let seal001 = rules
        .iter()
        .find(|r| r["id"] == "SEAL001")
        .expect("SEAL001");
    assert_eq!(seal001["properties"]["anchorId"], "MCP001");
    assert_eq!(seal001["defaultConfiguration"]["level"], "error");
}

#[test]
fn sarif_execution_reflects_the_run_state() {
    let measured = sarif(&support::legacy());
    let invocation = &measured["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    let notes = invocation["toolExecutionNotifications"]
        .as_array()
        .expect("crash noted");
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["level"], "error");
    assert_eq!(notes[0]["associatedRule"]["id"], "SEAL020");

    for report in [support::unreachable(), support::incomplete()] {
        let log = sarif(&report);
        let invocation = &log["runs"][0]["invocations"][0];
        assert_eq!(
            invocation["executionSuccessful"], false,
            "{}",
            report.target
        );
        let notes = invocation["toolExecutionNotifications"]
            .as_array()
            .expect("why");
        assert_eq!(notes[0]["level"], "error");
    }

    let modern = sarif(&support::modern());
    let invocation = &modern["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    assert!(invocation.get("toolExecutionNotifications").is_none());
    // A command line is no URI: only the logical location is given.
    let location = &modern["runs"][0]["results"][0]["locations"][0];
    assert!(location.get("physicalLocation").is_none());
    assert_eq!(
        location["logicalLocations"][0]["name"],
        "node dist/server.js --stdio"
    );
}

#[test]
fn markdown_cells_are_escaped() {
    let out = render_probe(&support::legacy(), Format::Markdown, &PLAIN);
    let row = out
        .lines()
        .find(|l| l.contains("SEAL013"))
        .expect("SEAL013 row");
    // 4 columns: 5 unescaped pipes.
    let unescaped = row
        .match_indices('|')
        .filter(|(i, _)| !row[..*i].ends_with('\\'))
        .count();
    assert_eq!(unescaped, 5, "{row}");
    assert!(
        row.contains("\\|") && row.contains("<br>second line"),
        "{row}"
    );
}

#[test]
fn finding_sections_work_for_other_report_types() {
    let findings = vec![
        Finding {
            rule_id: "drift/breaking".into(),
            severity: Severity::Error,
            remediation: mcpseal_report::Remediation::Application,
            title: "Tool removed".into(),
            observed: "tool `search` is gone".into(),
            expected: "every locked tool is still served".into(),
            fix: "Restore `search`, or bump the major version".into(),
            spec_ref: String::new(),
            evidence: Vec::new(),
        },
        Finding {
            rule_id: "drift/additive".into(),
            severity: Severity::Warning,
            remediation: mcpseal_report::Remediation::Application,
            title: "Tool added".into(),
            observed: "tool `fetch` is new".into(),
            expected: "the lock lists every tool".into(),
            fix: "Re-lock under a new minor version".into(),
            spec_ref: String::new(),
            evidence: Vec::new(),
        },
    ];
    let text = render_findings_text(&findings, &VERBOSE);
    assert!(text.starts_with("Breaking (1)\n"), "{text}");
    assert!(
        text.contains("× drift/breaking  Tool removed  (your code)"),
        "{text}"
    );
    assert!(text.contains("Advisories (1)"), "{text}");
    assert!(text.contains("traffic: none recorded"), "{text}");
    let md = render_findings_markdown(&findings);
    assert!(
        md.contains("| drift/breaking | Tool removed<br>*Fix:* Restore `search`, or"),
        "{md}"
    );
    assert_eq!(render_findings_text(&[], &PLAIN), "No findings.\n");
}

#[test]
fn server_text_cannot_draw_on_the_terminal_or_break_markdown() {
    let mut report = support::legacy();
    report.findings[0].observed = "answer \u{1b}[2J\u{1b}]0;owned\u{7} | <img src=x>\nnext".into();
    report
        .diagnostics
        .push("[stderr] \u{1b}[31mred\u{1b}[0m\r".into());
    report.crashed_rules[0].error = "boom\u{1b}[1A".into();
    let text = render_probe(&report, Format::Text, &VERBOSE);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\r'),
        "{text}"
    );
    assert!(text.contains("answer \\u{1b}[2J"), "{text}");
    let md = render_probe(&report, Format::Markdown, &PLAIN);
    assert!(!md.contains('\u{1b}') && !md.contains("<img"), "{md}");
    assert!(md.contains("&lt;img src=x&gt;<br>next"), "{md}");
}

/// The SARIF log of the drift catalogue with one finding, with and without a docs base URL.
fn drift_sarif(docs_url: Option<&str>) -> Value {
    use mcpseal_report::{SarifRun, ToolInfo, drift_rules, render_findings_sarif};
    let tool = ToolInfo {
        name: "mcpseal".into(),
        version: "0.1.0".into(),
    };
    let rules = drift_rules();
    let finding = Finding {
        rule_id: "drift/breaking".into(),
        severity: Severity::Error,
        remediation: mcpseal_report::Remediation::Application,
        title: "tool removed".into(),
        observed: "search at `/tools/search`".into(),
        expected: "a major bump".into(),
        fix: "bump".into(),
        spec_ref: rules[0].spec_ref.clone(),
        evidence: Vec::new(),
    };
    let out = render_findings_sarif(&SarifRun {
        tool: &tool,
        target: "surface.lock.json",
        rules: &rules,
        findings: std::slice::from_ref(&finding),
        execution_successful: true,
        notifications: Vec::new(),
        start_time_utc: None,
        properties: serde_json::Map::new(),
        docs_url,
    });
    assert!(
        !out.contains("github.com/mcpseal/mcpseal"),
        "links the placeholder repository: {out}"
    );
    serde_json::from_str(&out).expect("SARIF is JSON")
}

#[test]
fn sarif_links_mcpseal_pages_only_against_the_configured_docs_url() {
    let plain = drift_sarif(None);
    let driver = &plain["runs"][0]["tool"]["driver"];
    assert!(driver.get("informationUri").is_none(), "{driver}");
    for rule in driver["rules"].as_array().expect("rules") {
        assert!(rule.get("helpUri").is_none(), "{rule}");
    }
    assert_eq!(
        plain["runs"][0]["results"][0]["properties"]["specRef"],
        "SPEC.md#9-lock-file"
    );

    let linked = drift_sarif(Some("https://example.org/o/mcpseal/blob/main/"));
    let driver = &linked["runs"][0]["tool"]["driver"];
    assert_eq!(
        driver["informationUri"],
        "https://example.org/o/mcpseal/blob/main/"
    );
    for rule in driver["rules"].as_array().expect("rules") {
        assert_eq!(
            rule["helpUri"], "https://example.org/o/mcpseal/blob/main/SPEC.md#9-lock-file",
            "{rule}"
        );
    }
    assert_eq!(
        linked["runs"][0]["results"][0]["properties"]["specRef"],
        "https://example.org/o/mcpseal/blob/main/SPEC.md#9-lock-file"
    );
}

#[test]
fn sarif_keeps_absolute_spec_links_and_takes_the_docs_url_from_the_options() {
    let report = support::legacy();
    let opts = RenderOptions {
        docs_url: Some("https://example.org/docs".into()),
        ..RenderOptions::default()
    };
    let log: Value =
        serde_json::from_str(&render_probe(&report, Format::Sarif, &opts)).expect("SARIF is JSON");
    let driver = &log["runs"][0]["tool"]["driver"];
    assert_eq!(driver["informationUri"], "https://example.org/docs");
    // The probe's rules cite the MCP specification by absolute URL: kept as they are.
    let help = driver["rules"][0]["helpUri"].as_str().expect("helpUri");
    assert!(
        help.starts_with("https://modelcontextprotocol.io/"),
        "{help}"
    );
    assert!(
        sarif(&report)["runs"][0]["tool"]["driver"]
            .get("informationUri")
            .is_none()
    );
}
