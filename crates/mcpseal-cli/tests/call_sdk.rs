//! A second opinion on `mcpseal call`: the same calls through the official TypeScript SDK v2
//! client (`@modelcontextprotocol/client`, pinned in `tests/peers/npm`), with every negative
//! control replayed between the transport and the SDK by `tests/peers/ts-client/call.mjs` (the
//! JSON Patch of each tampering, taken from mcpseal's own report). The SDK must accept what
//! mcpseal accepts and reject what mcpseal rejects, over stdio and HTTP, in both eras.
//!
//! Where they differ on purpose it is asserted, so a change on either side shows (the list is in
//! `docs/call.md`): the SDK checks `structuredContent` against the `outputSchema` only when
//! `tools/list` was called first on the same client (without it, only the result's shape), and
//! its draft-07 validator applies keywords beside `$ref` that draft 7 ignores.
//!
//! Needs `bash tests/peers/install.sh` first (node and the pinned npm packages); a missing peer
//! fails, it is never skipped.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod call_support;

use std::process::Command;
use std::time::{Duration, Instant};

use call_support::{SETUPS, Setup, Target, call_json, repo_root};
use serde_json::{Value, json};

/// One case as the SDK saw it: `(id, accepted, error)`.
type Verdict = (String, bool, String);

/// Runs the SDK client on `target`, once per case (`(id, patch)`), on one connection.
fn sdk(
    target: &Target,
    setup: Setup,
    tool: &str,
    arguments: &Value,
    list: bool,
    elicitation: Option<Value>,
    cases: &[(String, Value)],
) -> Vec<Verdict> {
    let dir = tempfile::tempdir().expect("temp dir");
    let spec_path = dir.path().join("spec.json");
    let target_spec = match &target.url {
        Some(url) => json!({"url": url}),
        None => json!({"command": target.fixture[0], "args": &target.fixture[1..]}),
    };
    let spec = json!({
        "target": target_spec, "tool": tool, "arguments": arguments, "list": list,
        "modern": !setup.legacy, "elicitation": elicitation,
        "cases": cases.iter().map(|(id, patch)| json!({"id": id, "patch": patch})).collect::<Vec<_>>(),
    });
    std::fs::write(&spec_path, spec.to_string()).expect("write the spec");
    let script = repo_root().join("tests/peers/ts-client/call.mjs");
    let started = Instant::now();
    let out = Command::new("node")
        .arg(&script)
        .arg(&spec_path)
        .output()
        .expect("node runs (bash tests/peers/install.sh installs the peers)");
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "the SDK client took {:?}",
        started.elapsed()
    );
    assert!(
        out.status.success(),
        "ts-client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("ts-client prints JSON");
    let want_era = if setup.legacy { "legacy" } else { "modern" };
    assert_eq!(doc["era"], want_era, "{setup:?}: {doc}");
    doc["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or_default().to_owned(),
                c["accepted"] == true,
                c["error"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Whether mcpseal accepted the real result as a client would (an `isError` result is a valid
/// result: the SDK hands it back too).
fn mcpseal_accepts(report: &Value) -> bool {
    !report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|f| {
            f["severity"] == "error"
                && !["CALL004", "CALL012"].contains(&f["ruleId"].as_str().unwrap_or(""))
        })
}

/// mcpseal's report of `tool`, and the cases to replay: the real result, then each tampering.
fn mcpseal(target: &Target, tool: &str, arguments: &Value) -> (Value, Vec<(String, Value)>) {
    let args = arguments.to_string();
    let (code, report, err) = call_json(&[tool, "--args", &args, "--negative-controls"], target);
    assert!(code == 0 || code == 1, "{tool}: {err}\n{report:#}");
    let mut cases = vec![("real".to_owned(), json!([]))];
    for t in report["negativeControls"]["tamperings"]
        .as_array()
        .into_iter()
        .flatten()
    {
        cases.push((
            t["id"].as_str().unwrap_or_default().to_owned(),
            t["patch"].clone(),
        ));
    }
    (report, cases)
}

fn outcome(report: &Value, id: &str) -> String {
    report["negativeControls"]["tamperings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["id"] == id)
        .and_then(|t| t["outcome"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The checks that rejected tampering `id` in mcpseal's report.
fn rejected_by(report: &Value, id: &str) -> Vec<String> {
    report["negativeControls"]["tamperings"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["id"] == id)
        .and_then(|t| t["rejectedBy"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|r| r["check"].as_str().map(str::to_owned))
        .collect()
}

/// The whole comparison for one setup.
fn agree(setup: Setup) {
    let target = Target::start(setup, &[]);
    let city = json!({"city": "lisbon"});
    let none = json!({});
    for (tool, arguments) in [
        ("forecast", &city),
        ("forecast_broken", &city),
        ("forecast_error", &city),
        ("loose", &none),
        ("legacy_bounds", &none),
    ] {
        let (report, cases) = mcpseal(&target, tool, arguments);
        let verdicts = sdk(&target, setup, tool, arguments, true, None, &cases);
        assert_eq!(verdicts.len(), cases.len());
        for (id, accepted, error) in &verdicts {
            let (ours, theirs) = if id == "real" {
                (mcpseal_accepts(&report), *accepted)
            } else {
                (outcome(&report, id) == "trap", *accepted)
            };
            // The one deliberate difference: draft 7 ignores keywords beside `$ref` (mcpseal
            // follows the draft and finds the trap), the SDK's draft-07 engine applies them.
            if tool == "legacy_bounds" && id == "aboveMaximum:/celsius" {
                assert!(
                    ours && !theirs,
                    "{setup:?} {tool} {id}: mcpseal trap, SDK rejects ({error})"
                );
                continue;
            }
            assert_eq!(
                ours, theirs,
                "{setup:?} {tool} {id}: mcpseal accepts={ours}, SDK accepts={theirs} ({error})"
            );
        }
    }
    // Without `tools/list` first, the SDK checks only the revision's result shape, never the
    // `outputSchema`: every tampering passes except those that break the shape itself (in
    // 2025-11-25, `structuredContent` that is not an object).
    let (report, cases) = mcpseal(&target, "forecast", &city);
    let verdicts = sdk(&target, setup, "forecast", &city, false, None, &cases);
    let mut passed_unchecked = 0;
    for (id, accepted, error) in &verdicts {
        if id == "real" {
            assert!(*accepted, "{setup:?}: {error}");
            continue;
        }
        assert_eq!(outcome(&report, id), "rejected");
        let by_shape = rejected_by(&report, id).contains(&"shape".to_owned());
        assert_eq!(
            *accepted, !by_shape,
            "{setup:?} {id}: without a listing the SDK accepts={accepted} ({error})"
        );
        passed_unchecked += usize::from(*accepted);
    }
    assert!(
        passed_unchecked >= cases.len() - 2,
        "{setup:?}: {verdicts:?}"
    );
    // The input request answered the same way: both complete and accept.
    let key = if setup.legacy {
        "elicitation/create"
    } else {
        "confirm"
    };
    let answer =
        json!({"action": "accept", "content": {"confirmed": true, "by": "ann@example.com"}});
    let (code, report, err) = call_json(
        &["confirm", "--answer", &format!("{key}={answer}")],
        &target,
    );
    assert_eq!(code, 0, "{err}\n{report:#}");
    let verdicts = sdk(
        &target,
        setup,
        "confirm",
        &none,
        true,
        Some(answer),
        &[("real".to_owned(), json!([]))],
    );
    assert!(
        verdicts[0].1,
        "{setup:?}: the SDK refused confirm: {}",
        verdicts[0].2
    );
}

#[test]
fn the_sdk_agrees_2026_stdio() {
    agree(SETUPS[0]);
}

#[test]
fn the_sdk_agrees_2026_http() {
    agree(SETUPS[1]);
}

#[test]
fn the_sdk_agrees_2025_stdio() {
    agree(SETUPS[2]);
}

#[test]
fn the_sdk_agrees_2025_http() {
    agree(SETUPS[3]);
}
