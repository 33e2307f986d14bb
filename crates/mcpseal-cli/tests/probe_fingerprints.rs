//! A finding does not depend on which other rules ran: the same probe of the same server, with
//! and without `--skip` of unrelated rules (and with `--only`), gives every shared finding the
//! same SARIF `partialFingerprints` value, so a code-scanning dashboard never shows one alert
//! fixed and an identical one new.
//!
//! The fixtures are set to produce many findings at once, among them the rules that used to
//! quote JSON-RPC request ids (SEAL022, SEAL026, SEAL034: ids depend on how many requests went
//! before) or judge "the transcript so far" (SEAL003, SEAL022, SEAL027, SEAL034), and the
//! skipped rules are the ones that send probes before them.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use assert_cmd::Command;
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::Value;

/// Fixture knobs over stdio: SEAL005, 006, 015, 022 (seven groups), 025, 026.
const STDIO_KNOBS: &[&str] = &[
    "--invalid-wire",
    "--list-changed",
    "--listen-ack",
    "superset",
    "--ping",
    "--no-cache-hints",
    "--deprecated-caps",
    "--body-server-info",
];

/// Fixture knobs over HTTP: SEAL006, 022, 026, 027, 033, 034.
const HTTP_KNOBS: &[&str] = &[
    "--invalid-wire",
    "--list-changed",
    "--listen-ack",
    "superset",
    "--error-id-null",
    "--ping",
    "--no-405",
    "--partial-server-info",
];

/// Rules that send probes (or open the shared listen stream) before the judged ones; none of
/// them is what the judged rules are about.
const SKIPPED: &str = "SEAL005,SEAL006,SEAL007,SEAL008,SEAL009,SEAL011,SEAL012,SEAL021,SEAL023,SEAL024,SEAL030,SEAL031";

/// One probe run's SARIF: rule id → the multiset (sorted) of its findings' fingerprints.
type Prints = BTreeMap<String, Vec<String>>;

/// How the fixture is reached. Every run gets a fresh fixture: the server's own state (the
/// legacy fixture flips its tool order on every second listing) must not carry over. Over HTTP
/// each fresh fixture listens on the same port as the first, because the target URL is part of
/// the fingerprint.
#[derive(Clone, Copy)]
enum Transport {
    Stdio,
    /// On this port (0: pick one; the run's URL then says which).
    Http(u16),
}

/// The SARIF of one run, and the target it probed.
fn sarif(transport: Transport, knobs: &[&str], selection: &[&str]) -> (Prints, String) {
    let fixture = match transport {
        Transport::Http(port) => {
            let port = port.to_string();
            let mut args = vec!["--port", port.as_str()];
            args.extend(knobs);
            Some(HttpFixture::start(&args))
        }
        Transport::Stdio => None,
    };
    let target = match &fixture {
        Some(fx) => vec![fx.url.clone()],
        None => {
            let mut t = vec!["--".to_owned()];
            t.extend(stdio_argv(knobs));
            t
        }
    };
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(Duration::from_secs(90))
        .args(["probe", "--timeout", "5s", "--format", "sarif"])
        .args(selection)
        .args(&target)
        .output()
        .expect("runs");
    drop(fixture);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{selection:?}: findings expected\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_str(&stdout).expect("SARIF is JSON");
    let mut prints = Prints::new();
    for result in doc["runs"][0]["results"].as_array().expect("results") {
        let rule = result["ruleId"].as_str().expect("ruleId").to_owned();
        let print = result["partialFingerprints"]["mcpsealFinding/v1"]
            .as_str()
            .expect("fingerprint")
            .to_owned();
        prints.entry(rule).or_default().push(print);
    }
    for list in prints.values_mut() {
        list.sort();
    }
    (prints, target.join(" "))
}

/// Runs the full probe, the probe without [`SKIPPED`], and the probe of only the rules the
/// other two share, and asserts the shared rules found exactly the same fingerprints.
fn same_prints_whatever_ran(transport: Transport, knobs: &[&str], expect_at_least: &[&str]) {
    let (all, target) = sarif(transport, knobs, &[]);
    // Later fixtures take the first one's port (it has exited: the port is free again).
    let transport = match transport {
        Transport::Http(_) => Transport::Http(port_of(&target)),
        Transport::Stdio => Transport::Stdio,
    };
    for id in expect_at_least {
        assert!(all.contains_key(*id), "{id} did not fire: {all:#?}");
    }
    let skipped: BTreeSet<&str> = SKIPPED.split(',').collect();
    let (without, again) = sarif(transport, knobs, &["--skip", SKIPPED]);
    assert_eq!(target, again, "the same target");
    let shared: Vec<&String> = all
        .keys()
        .filter(|id| !skipped.contains(id.as_str()))
        .collect();
    assert!(shared.len() >= 3, "{all:#?}");
    for id in &shared {
        assert_eq!(
            all.get(*id),
            without.get(*id),
            "{id} with and without --skip"
        );
    }
    assert!(
        without.keys().all(|id| all.contains_key(id)),
        "--skip made new findings: {without:#?}"
    );
    let only: Vec<&str> = shared.iter().map(|s| s.as_str()).collect();
    let (alone, _) = sarif(transport, knobs, &["--only", &only.join(",")]);
    for id in &shared {
        assert_eq!(all.get(*id), alone.get(*id), "{id} alone (--only)");
    }
}

/// The port of `http://127.0.0.1:PORT/mcp`.
fn port_of(url: &str) -> u16 {
    url.trim_start_matches("http://127.0.0.1:")
        .split('/')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url}"))
}

#[test]
fn fingerprints_do_not_depend_on_the_other_rules_over_stdio() {
    same_prints_whatever_ran(
        Transport::Stdio,
        STDIO_KNOBS,
        &["SEAL015", "SEAL022", "SEAL025", "SEAL026"],
    );
}

#[test]
fn fingerprints_do_not_depend_on_the_other_rules_over_http() {
    same_prints_whatever_ran(
        Transport::Http(0),
        HTTP_KNOBS,
        &["SEAL022", "SEAL026", "SEAL027", "SEAL033", "SEAL034"],
    );
}

#[test]
fn fingerprints_do_not_depend_on_the_other_rules_on_a_legacy_http_server() {
    // Sessions (SEAL003 counts the prelude's responses), removed methods, the GET stream.
    same_prints_whatever_ran(
        Transport::Http(0),
        &["--mode", "legacy"],
        &["SEAL002", "SEAL003", "SEAL016", "SEAL017", "SEAL018"],
    );
}
