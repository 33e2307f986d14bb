//! The committed side-by-side data is consistent: every disagreement explained, no stale
//! explanation, every mapped rule real, every mapped scenario run, and `docs/conformance.md`
//! what the files render to (`MCPSEAL_UPDATE_CONFORMANCE_DOC=1` rewrites it). No suite run
//! needed: the live comparison is `crates/mcpseal-cli/tests/conformance.rs`.

use mcpseal_conformance::{
    ScenarioMap, ServerRecord, compare, doc_path, read_records, render_doc, repo_root,
    unrun_scenarios,
};

#[test]
fn every_disagreement_is_explained_and_no_explanation_is_stale() {
    let map = ScenarioMap::load().unwrap_or_else(|e| panic!("{e}"));
    let records = read_records().unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !records.is_empty(),
        "no records in tests/conformance/servers/"
    );
    let mut problems = Vec::new();
    for r in &records {
        match compare(&map, r) {
            Ok(c) => problems.extend(c.problems()),
            Err(e) => problems.push(e),
        }
    }
    assert!(
        problems.is_empty(),
        "tests/conformance/ is inconsistent:\n- {}\nhint: explain each disagreement in `explanations` of scenarios.json and refer to it from the server's `disagreements`",
        problems.join("\n- ")
    );
}

#[test]
fn every_explanation_is_used_and_every_rule_exists() {
    let map = ScenarioMap::load().unwrap_or_else(|e| panic!("{e}"));
    let records = read_records().unwrap_or_else(|e| panic!("{e}"));
    let used: std::collections::BTreeSet<&str> = records
        .iter()
        .flat_map(|r| r.disagreements.values().map(String::as_str))
        .collect();
    let unused: Vec<&String> = map
        .explanations
        .keys()
        .filter(|k| !used.contains(k.as_str()))
        .collect();
    assert!(unused.is_empty(), "explanations no record uses: {unused:?}");
    let rules = repo_root().join("docs/rules");
    for entry in map.scenarios.values() {
        for c in entry.checks.values().chain(map.every_scenario.values()) {
            for rule in c.rules.iter().chain(&map.modern_only_rules) {
                assert!(
                    rules.join(format!("{rule}.md")).exists(),
                    "`{rule}` is not a probe rule (no docs/rules/{rule}.md)"
                );
            }
        }
    }
    let unrun = unrun_scenarios(&map, &records);
    assert!(unrun.is_empty(), "scenarios no record ran: {unrun:?}");
}

#[test]
#[expect(
    clippy::disallowed_methods,
    reason = "MCPSEAL_UPDATE_CONFORMANCE_DOC rewrites the doc (not yet an xtask artefact)"
)]
fn conformance_doc_is_current() {
    let map = ScenarioMap::load().unwrap_or_else(|e| panic!("{e}"));
    let records = read_records().unwrap_or_else(|e| panic!("{e}"));
    let rendered = render_doc(&map, &records).unwrap_or_else(|e| panic!("{e}"));
    let path = doc_path();
    if std::env::var_os("MCPSEAL_UPDATE_CONFORMANCE_DOC").is_some() {
        std::fs::write(&path, &rendered).expect("docs/conformance.md written");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == rendered,
        "docs/conformance.md is stale\nhint: run `MCPSEAL_UPDATE_CONFORMANCE_DOC=1 cargo nextest run -p mcpseal-conformance` and commit it"
    );
}

/// A check the suite's read window cut short is neither a drift nor a new verdict: the
/// committed outcome stands, and an update keeps it. Any other change of outcome is a drift.
#[test]
fn a_check_cut_short_by_the_suites_read_window_keeps_its_verdict() {
    use mcpseal_conformance::CheckOutcome;
    let committed = ServerRecord::load("py-http")
        .unwrap_or_else(|e| panic!("{e}"))
        .expect("tests/conformance/servers/py-http.json");
    let key = (
        "server-stateless",
        "sep-2575-server-no-log-without-loglevel",
    );
    let with = |outcome: CheckOutcome| {
        let mut r = committed.clone();
        let check = r
            .suite
            .get_mut(key.0)
            .and_then(Option::as_mut)
            .and_then(|c| c.get_mut(key.1))
            .expect("the check is recorded");
        check.outcome = outcome;
        r
    };
    assert!(
        with(CheckOutcome::TooSlow)
            .differences(&committed)
            .is_empty()
    );
    assert_eq!(with(CheckOutcome::Fail).differences(&committed).len(), 1);
    let updated = with(CheckOutcome::TooSlow).keep_explanations(Some(&committed));
    assert!(updated.differences(&committed).is_empty());
    assert_eq!(updated.suite, committed.suite);
}
