//! SEAL046 in both directions against the real fixture, over stdio and HTTP: a server that
//! changes an item's definition after its first listing (`--rug-pull`) is caught on one
//! connection — a warning when it advertises `listChanged`, an error when it does not — naming
//! the item and the changed JSON paths; honest servers stay quiet.

mod common;

use mcpseal_probe::{ProbeOptions, parse_call};
use mcpseal_report::Severity::{Error as E, Warning as W};
use mcpseal_report::{Finding, ProbeReport, Severity};

use common::{all_rules, http_with, measured, stdio_with};

async fn probe(over_http: bool, args: &[&str], popts: &ProbeOptions) -> ProbeReport {
    if over_http {
        http_with(args, popts).await
    } else {
        stdio_with(args, popts).await
    }
}

fn seal046(report: &ProbeReport) -> Vec<&Finding> {
    report
        .findings
        .iter()
        .filter(|f| f.rule_id == "SEAL046")
        .collect()
}

/// Asserts exactly one SEAL046 finding, of `severity`, naming `item` and every path in `paths`,
/// with two listings as evidence and no request id in its text.
fn one(report: &ProbeReport, what: &str, severity: Severity, item: &str, paths: &[&str]) {
    let found = seal046(report);
    assert_eq!(found.len(), 1, "{what}: {found:#?}");
    let f = found[0];
    assert_eq!(f.severity, severity, "{what}");
    assert!(
        f.observed.contains(&format!("`{item}`")),
        "{what}: {}",
        f.observed
    );
    for p in paths {
        assert!(
            f.observed.contains(&format!("`{p}`")),
            "{what}: {}",
            f.observed
        );
    }
    assert_eq!(f.evidence.len(), 2, "{what}");
    for e in &f.evidence {
        assert_eq!(e["request"]["method"], "tools/list", "{what}");
    }
    assert_ne!(
        f.evidence[0]["response"], f.evidence[1]["response"],
        "{what}: both listings"
    );
    assert!(!f.observed.contains("\"id\""), "{what}: {}", f.observed);
}

/// `(fixture arguments, severity, item, paths)`.
const FIRES: &[(&[&str], Severity, &str, &[&str])] = &[
    (
        &["--rug-pull", "description", "--list-changed"],
        W,
        "echo",
        &["/description"],
    ),
    (&["--rug-pull", "description"], E, "echo", &["/description"]),
    (
        &["--rug-pull", "read-only"],
        E,
        "clock",
        &["/annotations/readOnlyHint"],
    ),
    (
        &["--rug-pull", "destructive", "--list-changed"],
        W,
        "archive",
        &["/annotations/destructiveHint"],
    ),
    (
        &["--rug-pull", "widen-schema"],
        E,
        "echo",
        &["/inputSchema/properties/path", "/inputSchema/required"],
    ),
    (&["--rug-pull", "meta"], E, "echo", &["/_meta"]),
    // A 2025 server is judged the same way (the legacy fixture advertises `listChanged`).
    (
        &["--mode", "legacy", "--rug-pull", "prose"],
        W,
        "echo",
        &["/description"],
    ),
];

#[tokio::test]
async fn a_definition_changed_on_one_connection_is_named_with_its_paths() {
    for over_http in [false, true] {
        for (args, severity, item, paths) in FIRES {
            let what = format!("{args:?} http={over_http}");
            let report = probe(over_http, args, &all_rules()).await;
            measured(&report, &what);
            one(&report, &what, *severity, item, paths);
        }
    }
}

#[tokio::test]
async fn honest_servers_and_added_items_stay_quiet() {
    for over_http in [false, true] {
        for args in [
            &["--mode", "modern"][..],
            &["--mode", "legacy"],
            // Advertises `listChanged`, and its lists stay as they were.
            &["--list-changed"],
            // A list that may change grows: no definition changed.
            &["--rug-pull", "add-tool", "--list-changed"],
            // The rug waits for a call the probe never makes.
            &["--rug-pull", "description", "--rug-pull-after-calls", "1"],
        ] {
            let what = format!("{args:?} http={over_http}");
            let report = probe(over_http, args, &all_rules()).await;
            measured(&report, &what);
            assert!(
                seal046(&report).is_empty(),
                "{what}: {:#?}",
                seal046(&report)
            );
        }
    }
}

#[tokio::test]
async fn a_change_after_a_tool_call_is_seen_by_the_second_listing() {
    let popts = ProbeOptions {
        calls: vec![parse_call(r#"echo={"message":"hi"}"#).expect("valid call")],
        ..all_rules()
    };
    for over_http in [false, true] {
        let what = format!("after a call, http={over_http}");
        let args = ["--rug-pull", "description", "--rug-pull-after-calls", "1"];
        let report = probe(over_http, &args, &popts).await;
        measured(&report, &what);
        one(&report, &what, E, "echo", &["/description"]);
    }
}
