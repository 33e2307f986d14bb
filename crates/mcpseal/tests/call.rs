//! The library API of `call`, as a server author's test would use it: `Call::new(target, tool,
//! args).negative_controls(true).run()` against the fixture, the typed report, the blocking
//! runner, answers given through the builder or an `Asker`, and the bound on rounds.

use std::sync::{Arc, Mutex};

use mcpseal::call::{Asker, Call, CallError, CallState};
use mcpseal::client::Target;
use mcpseal::report::call::InputRequest;
use mcpseal_fixtures::stdio_argv;
use serde_json::{Value, json};

fn fixture(extra: &[&str]) -> Target {
    let mut args = vec!["--contract-tools"];
    args.extend(extra);
    Target::stdio(stdio_argv(&args))
}

#[tokio::test]
async fn a_server_authors_test_pins_the_contract() {
    let report = Call::new(fixture(&[]), "forecast", json!({"city": "Lisbon"}))
        .negative_controls(true)
        .run()
        .await
        .expect("the call runs");
    assert!(report.passed, "{report:#?}");
    assert_eq!(report.state, CallState::Judged);
    assert_eq!(report.exit_code(), 0);
    assert_eq!(report.summary.traps, 0);
    assert!(report.summary.tamperings >= 15, "{:?}", report.summary);
    assert_eq!(report.summary.rejected, report.summary.tamperings);
    assert_eq!(report.rounds.len(), 1);
    assert_eq!(
        report.definition.as_ref().and_then(|d| d.get("name")),
        Some(&json!("forecast"))
    );
}

#[test]
fn the_blocking_runner_finds_the_trap() {
    let report = Call::new(fixture(&[]), "loose", json!({}))
        .negative_controls(true)
        .run_blocking()
        .expect("the call runs");
    assert!(!report.passed);
    assert_eq!(report.exit_code(), 1);
    assert!(report.summary.traps > 0);
    assert!(report.findings.iter().all(|f| f.rule_id == "CALL012"));
}

#[tokio::test]
async fn refusals_are_typed_errors_with_hints() {
    let err = Call::new(fixture(&[]), "forcast", json!({}))
        .run()
        .await
        .expect_err("unknown");
    assert!(
        matches!(&err, CallError::UnknownTool { near, .. } if near == &["forecast".to_owned()]),
        "{err}"
    );
    assert!(err.hint().contains("tools/list"));
    let err = Call::new(fixture(&[]), "echo", json!({"message": "x"}))
        .negative_controls(true)
        .run()
        .await
        .expect_err("no contract");
    assert!(matches!(err, CallError::NoContract { .. }), "{err}");
    let err = Call::new(fixture(&[]), "forecast", json!({"city": 3}))
        .run()
        .await
        .expect_err("invalid arguments");
    assert!(
        matches!(err, CallError::InvalidArguments { tool: true, .. }),
        "{err}"
    );
    // --no-input-check sends them: the fixture coerces nothing, the contract still holds.
    let report = Call::new(fixture(&[]), "forecast", json!({"city": 3}))
        .input_check(false)
        .run()
        .await
        .expect("sent anyway");
    assert_eq!(report.state, CallState::Judged);
}

/// An asker that answers every form with `confirmed: true` and records what it was asked.
struct Yes(Mutex<Vec<String>>);

impl Asker for Yes {
    fn ask(&self, request: &InputRequest) -> Option<Value> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(request.key.clone());
        Some(json!({"action": "accept", "content": {"confirmed": true, "by": "asker@example.com"}}))
    }
}

#[tokio::test]
async fn input_is_answered_by_the_builder_or_an_asker_in_both_eras() {
    for legacy in [false, true] {
        let extra: &[&str] = if legacy { &["--mode", "legacy"] } else { &[] };
        let key = if legacy {
            "elicitation/create"
        } else {
            "confirm"
        };
        let report = Call::new(fixture(extra), "confirm", json!({}))
            .answer(
                key,
                json!({"action": "accept", "content": {"confirmed": true}}),
            )
            .run()
            .await
            .expect("runs");
        assert!(report.passed, "{report:#?}");
        let asker = Arc::new(Yes(Mutex::new(Vec::new())));
        let report = Call::new(fixture(extra), "confirm", json!({}))
            .asker(asker.clone())
            .run()
            .await
            .expect("runs");
        assert!(report.passed, "{report:#?}");
        assert_eq!(
            report
                .result
                .as_ref()
                .map(|r| r["structuredContent"]["by"].clone()),
            Some(json!("asker@example.com"))
        );
        assert_eq!(
            *asker
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
            [key]
        );
    }
}

#[tokio::test]
async fn the_rounds_are_bounded() {
    let report = Call::new(fixture(&[]), "confirm", json!({}))
        .answer(
            "confirm",
            json!({"action": "accept", "content": {"confirmed": true}}),
        )
        .max_rounds(1)
        .run()
        .await
        .expect("runs");
    assert_eq!(report.state, CallState::Incomplete);
    assert_eq!(report.exit_code(), 2);
    assert_eq!(report.rounds.len(), 1);
    assert_eq!(
        report.error.as_ref().map(|e| e.kind.as_str()),
        Some("incomplete")
    );
}
