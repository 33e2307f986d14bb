//! `mcpseal call` end to end against the fixture's contract tools, over stdio and HTTP, in both
//! eras: every negative control rejected on the strict tool and the trap found on the loose one,
//! a broken result and an error result failing, `input_required` completing after an answer
//! (and 2025 elicitation mid-call), exit codes 0/1/2, every JSON report valid against its
//! committed schema, and the fixture's call log proving no tool but the named one is called.

mod call_support;

use call_support::{SETUPS, Setup, Target, call, call_json, controls, rule_ids};
use serde_json::Value;

const CITY: &str = r#"{"city":"lisbon"}"#;

#[test]
fn every_negative_control_is_rejected_on_the_strict_tool() {
    for setup in SETUPS {
        let target = Target::start(setup, &[]);
        let (code, report, err) = call_json(
            &["forecast", "--args", CITY, "--negative-controls"],
            &target,
        );
        assert_eq!(code, 0, "{setup:?}: {err}\n{report:#}");
        assert_eq!(report["state"], "judged");
        assert_eq!(report["passed"], true);
        assert_eq!(report["revision"], setup.revision(), "{setup:?}");
        assert_eq!(
            report["transport"],
            if setup.http { "http" } else { "stdio" }
        );
        let got = controls(&report);
        // Each required field removed, each typed required field given a wrong type.
        for field in ["/city", "/celsius", "/humidity", "/conditions", "/alert"] {
            for kind in ["requiredRemoved", "wrongType"] {
                assert!(
                    got.iter().any(|(k, f, _)| k == kind && f == field),
                    "{setup:?}: no {kind} on `{field}` in {got:?}"
                );
            }
        }
        for (kind, field) in [
            ("noStructuredContent", ""),
            ("extraProperty", "/mcpsealUnexpected"),
            ("outOfEnum", "/conditions"),
            ("belowMinimum", "/celsius"),
            ("aboveMaximum", "/celsius"),
            ("atExclusiveMinimum", "/humidity"),
            ("atExclusiveMaximum", "/humidity"),
            ("notMultipleOf", "/humidity"),
            ("tooShort", "/city"),
            ("tooLong", "/city"),
            ("patternMismatch", "/city"),
        ] {
            assert!(
                got.iter().any(|(k, f, _)| k == kind && f == field),
                "{setup:?}: no {kind} on `{field}` in {got:?}"
            );
        }
        assert!(
            got.iter().all(|(_, _, o)| o == "rejected"),
            "{setup:?}: {got:?}"
        );
        let tamperings = report["negativeControls"]["tamperings"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        // A nullable type is given a non-null wrong type; each rejection says why.
        let alert = tamperings
            .iter()
            .find(|t| t["id"] == "wrongType:/alert")
            .cloned()
            .unwrap_or(Value::Null);
        assert_eq!(alert["patch"][0]["value"], 0, "{alert:#}");
        assert!(
            tamperings
                .iter()
                .all(|t| !t["rejectedBy"].as_array().is_none_or(Vec::is_empty)),
            "{tamperings:#?}"
        );
        // Each is rejected by the keyword it targets (a wrong type is outside the enum too;
        // every other one breaks nothing else), so each rejection proves that keyword says no.
        for t in tamperings
            .iter()
            .filter(|t| t["kind"] != "noStructuredContent")
        {
            let paths: Vec<&str> = t["rejectedBy"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|r| r["violations"].as_array().into_iter().flatten())
                .filter_map(|v| v["schemaPath"].as_str())
                .collect();
            let target = t["schemaPath"].as_str().unwrap_or("?");
            assert!(paths.contains(&target), "{setup:?}: {t:#}");
            if t["kind"] != "wrongType" {
                assert_eq!(paths, [target], "{setup:?}: {t:#}");
            }
        }
        assert_eq!(report["summary"]["traps"], 0);
        assert_eq!(report["summary"]["rejected"], tamperings.len());
        // One call, whatever the number of tamperings.
        assert_eq!(target.calls(), ["forecast"], "{setup:?}");
    }
}

#[test]
fn the_trap_of_the_loose_schema_is_found() {
    for setup in SETUPS {
        let target = Target::start(setup, &[]);
        let (code, report, err) = call_json(&["loose", "--negative-controls"], &target);
        assert_eq!(code, 1, "{setup:?}: {err}");
        assert_eq!(report["passed"], false);
        let traps: Vec<&Value> = report["negativeControls"]["tamperings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["outcome"] == "trap")
            .collect();
        let named = traps.iter().any(|t| {
            t["field"] == "/status" && t["schemaPath"] == "/$defs/Report/properties/status/enum"
        });
        assert!(named, "{setup:?}: {traps:#?}");
        assert_eq!(report["summary"]["traps"], traps.len());
        // Each trap is a finding quoting the field and the schema path.
        let findings: Vec<&Value> = report["findings"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["ruleId"] == "CALL012")
            .collect();
        assert_eq!(findings.len(), traps.len());
        assert!(findings.iter().any(|f| {
            let o = f["observed"].as_str().unwrap_or_default();
            o.contains("`/status`") && o.contains("/$defs/Report/properties/status/enum")
        }));
        assert!(
            findings
                .iter()
                .all(|f| !f["evidence"].as_array().is_none_or(Vec::is_empty))
        );
        // Removing structuredContent is still rejected: the schema is declared.
        let none = report["negativeControls"]["tamperings"]
            .as_array()
            .and_then(|a| a.iter().find(|t| t["kind"] == "noStructuredContent"))
            .map(|t| t["outcome"].clone());
        assert_eq!(none, Some(Value::from("rejected")));
    }
}

#[test]
fn a_result_that_breaks_its_contract_or_reports_an_error_fails() {
    for setup in SETUPS {
        let target = Target::start(setup, &[]);
        let (code, report, _) = call_json(&["forecast_broken", "--args", CITY], &target);
        assert_eq!(code, 1);
        assert_eq!(rule_ids(&report), ["CALL007"], "{report:#}");
        let f = &report["findings"][0];
        assert!(
            f["observed"]
                .as_str()
                .is_some_and(|o| o.contains("/celsius"))
        );
        assert_eq!(
            f["evidence"][0]["request"]["params"]["name"],
            "forecast_broken"
        );
        // The listed schema is evidence too.
        assert_eq!(f["evidence"][1]["request"]["method"], "tools/list");

        let (code, report, _) = call_json(&["forecast_error", "--args", CITY], &target);
        assert_eq!(code, 1);
        assert_eq!(rule_ids(&report), ["CALL004"]);
        let (code, report, _) = call_json(
            &["forecast_error", "--args", CITY, "--expect-error"],
            &target,
        );
        assert_eq!(code, 0, "{report:#}");
        assert_eq!(report["passed"], true);
        let (code, report, _) = call_json(&["forecast", "--args", CITY, "--expect-error"], &target);
        assert_eq!(code, 1);
        assert_eq!(rule_ids(&report), ["CALL011"]);
        // Negative controls on a broken result prove nothing: skipped, said why.
        let (code, report, _) = call_json(
            &["forecast_broken", "--args", CITY, "--negative-controls"],
            &target,
        );
        assert_eq!(code, 1);
        assert!(report["negativeControls"]["skipped"].is_string());
        assert_eq!(report["summary"]["tamperings"], 0);
    }
}

/// `(code, rule ids)` of `mcpseal call ARGS…` on `target`.
fn verdict(args: &[&str], target: &Target) -> (i32, Vec<String>) {
    let (code, report, err) = call_json(args, target);
    assert_eq!(report["state"], "judged", "{args:?}: {err}\n{report:#}");
    (code, rule_ids(&report))
}

#[test]
fn each_verdict_fires_on_its_case_and_only_there() {
    for setup in SETUPS {
        let target = Target::start(setup, &["--call-tools", "--tool-defs", "remote-ref"]);
        let modern = !setup.legacy;
        // The good result, for contrast: no finding at all.
        assert_eq!(verdict(&["forecast", "--args", CITY], &target), (0, vec![]));
        assert_eq!(
            verdict(&["forecast_bare", "--args", CITY], &target),
            (1, vec!["CALL006".to_owned()]),
            "{setup:?}"
        );
        // A missing mirror is a warning: the call still passes, and its contract still holds.
        let (code, report, _) = call_json(
            &["forecast_unmirrored", "--args", CITY, "--negative-controls"],
            &target,
        );
        assert_eq!((code, rule_ids(&report)), (0, vec!["CALL008".to_owned()]));
        assert_eq!(report["findings"][0]["severity"], "warning");
        assert_eq!(report["summary"]["traps"], 0);
        assert!(report["summary"]["tamperings"].as_u64() >= Some(15));
        // A bare string as structuredContent: valid in 2026-07-28, not in 2025-11-25.
        let want: Vec<String> = if modern {
            vec![]
        } else {
            vec!["CALL001".into()]
        };
        assert_eq!(
            verdict(&["scalar"], &target),
            (i32::from(!modern), want),
            "{setup:?}"
        );
        assert_eq!(
            verdict(&["bad_error"], &target),
            (1, vec!["CALL003".to_owned(), "CALL004".to_owned()]),
            "{setup:?}"
        );
        // A malformed input_required result; a 2025 client knows no input_required at all.
        let want = if modern { "CALL009" } else { "CALL003" };
        let (code, ids) = verdict(&["ask_badly", "--no-ask"], &target);
        assert_eq!(code, 1);
        assert!(
            !ids.is_empty() && ids.iter().all(|i| i == want),
            "{setup:?}: {ids:?}"
        );
        // An inputSchema that needs a remote document: sent unchecked, with a warning.
        assert_eq!(
            verdict(&["remote_ref", "--args", r#"{"args":1}"#], &target),
            (0, vec!["CALL013".to_owned()]),
            "{setup:?}"
        );
        // resultType is required in 2026-07-28 only.
        let target = Target::start(setup, &["--no-result-type"]);
        let want: Vec<String> = if modern {
            vec!["CALL002".into()]
        } else {
            vec![]
        };
        assert_eq!(
            verdict(&["forecast", "--args", CITY], &target),
            (i32::from(modern), want),
            "{setup:?}"
        );
    }
}

#[test]
fn a_definition_the_revision_refuses_is_a_finding() {
    // `broken_output` declares `outputSchema: {"type": "objekt"}`: not a 2025 Tool (root type
    // must be `object`), and no schema compiles from it.
    let target = Target::start(SETUPS[2], &["--tool-defs", "invalid"]);
    let (code, report, _) = call_json(&["broken_output"], &target);
    assert_eq!(code, 1, "{report:#}");
    let ids = rule_ids(&report);
    assert!(ids.contains(&"CALL014".to_owned()), "{ids:?}");
    assert!(ids.contains(&"CALL005".to_owned()), "{ids:?}");
    let f = report["findings"]
        .as_array()
        .and_then(|a| a.iter().find(|f| f["ruleId"] == "CALL014"))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(f["evidence"][0]["request"]["method"], "tools/list", "{f:#}");
}

#[test]
fn the_servers_own_validation_is_reached_with_no_input_check() {
    let target = Target::start(SETUPS[0], &["--call-tools"]);
    // `bad_output` mirrors nothing wrong but breaks the schema; `echo` has no contract.
    let (code, report, _) = call_json(&["echo", "--args", r#"{"message":"hi"}"#], &target);
    assert_eq!(code, 0, "{report:#}");
    // The server's own validation, reached with --no-input-check: the fixture reports
    // arguments that do not fit as a tool execution error (`isError`, as tools.mdx files it).
    let (code, report, _) = call_json(
        &["echo", "--args", r#"{"message":7}"#, "--no-input-check"],
        &target,
    );
    assert_eq!(code, 1);
    assert_eq!(rule_ids(&report), ["CALL004"]);
    assert_eq!(
        report["rounds"][0]["exchange"]["request"]["params"]["arguments"]["message"], 7,
        "sent unchecked"
    );
    let (code, _, _) = call_json(
        &[
            "echo",
            "--args",
            r#"{"message":7}"#,
            "--no-input-check",
            "--expect-error",
        ],
        &target,
    );
    assert_eq!(code, 0);
}

fn mrtr(setup: Setup) {
    let target = Target::start(setup, &[]);
    let key = if setup.legacy {
        "elicitation/create"
    } else {
        "confirm"
    };
    // Without an answer: what was asked, and exit 2.
    let (code, report, err) = call_json(&["confirm"], &target);
    assert_eq!(code, 2, "{setup:?}: {report:#}");
    assert_eq!(report["state"], "needsInput");
    assert_eq!(report["error"]["kind"], "needsInput");
    let asked = &report["rounds"][0]["inputRequests"][0];
    assert_eq!(asked["key"], key, "{report:#}");
    assert_eq!(asked["method"], "elicitation/create");
    assert_eq!(asked["params"]["message"], "Run the forecast for real?");
    assert!(asked.get("answer").is_none());
    assert!(err.contains("--answer"), "{err}");
    // With the answer: completed and judged.
    let answer = format!(
        r#"{key}={{"action":"accept","content":{{"confirmed":true,"by":"ann@example.com"}}}}"#
    );
    let (code, report, err) = call_json(
        &["confirm", "--answer", &answer, "--negative-controls"],
        &target,
    );
    assert_eq!(code, 0, "{setup:?}: {err}\n{report:#}");
    assert_eq!(
        report["result"]["structuredContent"]["by"],
        "ann@example.com"
    );
    let rounds = report["rounds"].as_array().cloned().unwrap_or_default();
    if setup.legacy {
        assert_eq!(rounds.len(), 1);
        assert_eq!(rounds[0]["inputRequests"][0]["via"], "serverRequest");
        assert_eq!(rounds[0]["inputRequests"][0]["answeredFrom"], "given");
    } else {
        assert_eq!(rounds.len(), 2);
        assert_eq!(rounds[0]["resultType"], "input_required");
        let retry = &rounds[1]["exchange"]["request"]["params"];
        assert_eq!(retry["requestState"], "mcpseal-fixture:confirm:round-1");
        assert_eq!(retry["inputResponses"]["confirm"]["action"], "accept");
        assert_ne!(
            rounds[0]["exchange"]["request"]["id"], rounds[1]["exchange"]["request"]["id"],
            "a retry has a new id"
        );
    }
    // The confirmed result keeps its contract too: every control on it is rejected.
    let got = controls(&report);
    assert!(got.len() >= 6, "{setup:?}: {got:?}");
    assert!(got.iter().all(|(_, _, o)| o == "rejected"), "{got:?}");
    // An answer that does not fill in the form is refused before it is sent.
    let bad = format!(r#"{key}={{"action":"accept","content":{{"confirmed":"yes"}}}}"#);
    let run = call(&["confirm", "--answer", &bad], &target);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("does not fill in the form"),
        "{}",
        run.stderr
    );
}

#[test]
fn input_required_completes_after_an_answer_2026_stdio() {
    mrtr(SETUPS[0]);
}

#[test]
fn input_required_completes_after_an_answer_2026_http() {
    mrtr(SETUPS[1]);
}

#[test]
fn elicitation_mid_call_is_answered_2025_stdio() {
    mrtr(SETUPS[2]);
}

#[test]
fn elicitation_mid_call_is_answered_2025_http() {
    mrtr(SETUPS[3]);
}

#[test]
fn usage_errors_exit_2_before_any_tool_is_called() {
    for setup in [SETUPS[0], SETUPS[1]] {
        let target = Target::start(setup, &[]);
        let run = call(&["forcast", "--args", CITY], &target);
        assert_eq!(run.code, 2);
        assert!(
            run.stderr.contains("did you mean `forecast`"),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("hint:"), "{}", run.stderr);
        let run = call(&["forecast", "--args", r#"{"town":"x"}"#], &target);
        assert_eq!(run.code, 2);
        assert!(run.stderr.contains("inputSchema"), "{}", run.stderr);
        assert!(run.stderr.contains("--no-input-check"), "{}", run.stderr);
        let run = call(
            &[
                "echo",
                "--args",
                r#"{"message":"x"}"#,
                "--negative-controls",
            ],
            &target,
        );
        assert_eq!(run.code, 2);
        assert!(run.stderr.contains("no contract"), "{}", run.stderr);
        let run = call(&["forecast", "--args", "[1]"], &target);
        assert_eq!(run.code, 2);
        let run = call(&["forecast", "--args", "@/nonexistent/args.json"], &target);
        assert_eq!(run.code, 2);
        assert!(run.stderr.contains("cannot read"), "{}", run.stderr);
        let run = call(
            &["confirm", "--answer", "roots/list={\"roots\":7}"],
            &target,
        );
        assert_eq!(run.code, 2);
        assert!(run.stderr.contains("ListRootsResult"), "{}", run.stderr);
        // Not one of these reached a tool.
        assert!(target.calls().is_empty(), "{setup:?}: {:?}", target.calls());
    }
}

#[test]
fn no_tool_but_the_named_one_is_ever_called() {
    for setup in SETUPS {
        let target = Target::start(setup, &["--call-tools"]);
        for tool in ["forecast", "loose", "legacy_bounds"] {
            let (code, _, err) = call_json(
                &[
                    tool,
                    "--args",
                    "{}",
                    "--negative-controls",
                    "--no-input-check",
                ],
                &target,
            );
            assert!(code == 0 || code == 1, "{err}");
        }
        let answer = r#"elicitation/create={"action":"decline"}"#;
        let (code, _, err) = call_json(&["confirm", "--answer", answer], &target);
        assert_eq!(code, 1, "{err}");
        let rounds_of_confirm = if setup.legacy { 1 } else { 2 };
        let mut want = vec!["forecast", "loose", "legacy_bounds"];
        want.extend(std::iter::repeat_n("confirm", rounds_of_confirm));
        assert_eq!(target.calls(), want, "{setup:?}");
    }
}

#[test]
fn unreachable_servers_have_no_verdict() {
    let out = assert_cmd::Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(std::time::Duration::from_secs(30))
        .args([
            "call",
            "forecast",
            "--format",
            "json",
            "--",
            "/nonexistent/server",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    call_support::assert_schema(&report);
    assert_eq!(report["state"], "unreachable");
    assert_eq!(report["error"]["kind"], "unreachable");
}

#[test]
fn prompts_and_resources_are_read_and_judged() {
    for setup in [SETUPS[0], SETUPS[3]] {
        let target = Target::start(setup, &[]);
        let (code, report, err) = call_json(
            &["--prompt", "greet", "--args", r#"{"name":"Ann"}"#],
            &target,
        );
        assert_eq!(code, 0, "{err}\n{report:#}");
        assert_eq!(report["subject"]["kind"], "prompt");
        assert_eq!(
            report["result"]["messages"][0]["content"]["text"],
            "Hello, Ann!"
        );
        let run = call(&["--prompt", "greet"], &target);
        assert_eq!(run.code, 2, "a required argument is missing");
        let run = call(&["--prompt", "gret", "--args", "{}"], &target);
        assert_eq!(run.code, 2);
        assert!(run.stderr.contains("`greet`"), "{}", run.stderr);
        let (code, report, err) = call_json(&["--resource", "fixture://readme"], &target);
        assert_eq!(code, 0, "{err}\n{report:#}");
        assert_eq!(report["subject"]["kind"], "resource");
        assert!(target.calls().is_empty(), "reads call no tool");
    }
}

#[test]
fn every_format_renders_the_same_verdict() {
    let target = Target::start(SETUPS[0], &[]);
    let text = call(&["loose", "--negative-controls"], &target);
    assert_eq!(text.code, 1);
    assert!(text.stdout.starts_with("FAIL — "), "{}", text.stdout);
    assert!(text.stdout.contains("TRAP"), "{}", text.stdout);
    let md = call(
        &["loose", "--negative-controls", "--format", "markdown"],
        &target,
    );
    assert_eq!(md.code, 1);
    assert!(
        md.stdout.starts_with("## mcpseal call: FAIL"),
        "{}",
        md.stdout
    );
    assert!(md.stdout.contains("### Negative controls"), "{}", md.stdout);
    let sarif = call(
        &["loose", "--negative-controls", "--format", "sarif"],
        &target,
    );
    assert_eq!(sarif.code, 1);
    let log: Value = serde_json::from_str(&sarif.stdout).expect("sarif json");
    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!results.is_empty());
    assert!(results.iter().all(|r| r["ruleId"] == "CALL012"));
    assert_eq!(
        log["runs"][0]["properties"]["report"]["subject"]["name"],
        "loose"
    );
    let ok = call(&["forecast", "--args", CITY], &target);
    assert_eq!(ok.code, 0);
    assert!(ok.stdout.starts_with("PASS — "), "{}", ok.stdout);
}
