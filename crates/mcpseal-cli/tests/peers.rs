//! Real MCP servers as test peers: the pinned cohort of `tests/peers/peers.json` (npm reference
//! servers on the 2025 SDK, the PyPI servers and our TS/Python/rmcp servers on 2026-capable SDKs,
//! stdio and Streamable HTTP, dual-era and modern-only), one test per peer so a failure names it.
//!
//! Each test checks its peer against `tests/peers/expectations/<id>.json`: two snapshots with the
//! same fingerprint, the era and counts (and the fingerprint when it is stable across machines);
//! the probe's exact set of rule ids, none crashed; `lock` then `check` passing on the unchanged
//! server. The observed values are written to `target/peers-rows/<id>.json` whatever the outcome.
//! `peers_doc_is_current` keeps `docs/peers.md` equal to what the expectations render to
//! (`cargo xtask generate peers` rewrites it; no test writes a file).
//!
//! Needs `bash tests/peers/install.sh` first (scripts/test runs it); a missing peer fails, it is
//! never skipped.

#[path = "peers/harness.rs"]
mod harness;

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::{Value, json};

use harness::{PeerExt, PeerRun, peer, repo_root};
use mcpseal_peers as expect;
use mcpseal_peers::all_peers;
use mcpseal_peers::{Counts, Expectations};

// No whole-test time assertion: every command has its deadline (`harness::COMMAND_DEADLINE`),
// and nextest's `terminate-after` for this binary (.config/nextest.toml) stops a test that hangs
// as a whole. The times are recorded in target/peers-rows/<id>.json.

macro_rules! peer_tests {
    ($($name:ident => $id:literal,)*) => {
        /// Peers with a test, in peers.json order.
        const TESTED: &[&str] = &[$($id),*];
        $(
            #[test]
            fn $name() {
                check_peer($id);
            }
        )*
    };
}

peer_tests! {
    everything_stdio => "everything-stdio",
    everything_http => "everything-http",
    filesystem_stdio => "filesystem-stdio",
    memory_stdio => "memory-stdio",
    sequential_thinking_stdio => "sequential-thinking-stdio",
    time_stdio => "time-stdio",
    git_stdio => "git-stdio",
    ts_stdio => "ts-stdio",
    ts_stdio_modern => "ts-stdio-modern",
    ts_http => "ts-http",
    ts_http_modern => "ts-http-modern",
    py_stdio => "py-stdio",
    py_http => "py-http",
    rmcp_stdio => "rmcp-stdio",
    rmcp_stdio_modern => "rmcp-stdio-modern",
    rmcp_http => "rmcp-http",
    rmcp_http_modern => "rmcp-http-modern",
}

/// Mismatches collected over one test, reported together.
#[derive(Default)]
struct Problems(Vec<String>);

impl Problems {
    fn check<T: PartialEq + std::fmt::Debug>(&mut self, what: &str, observed: T, expected: T) {
        if observed != expected {
            self.0.push(format!(
                "{what}: observed {observed:?}, expected {expected:?}"
            ));
        }
    }
    fn push(&mut self, s: String) {
        self.0.push(s);
    }
}

fn counts_of(doc: &Value) -> Counts {
    let n = |k: &str| doc["counts"][k].as_u64();
    Counts {
        tools: n("tools"),
        resources: n("resources"),
        resource_templates: n("resourceTemplates"),
        prompts: n("prompts"),
    }
}

fn check_peer(id: &str) {
    let started = Instant::now();
    let peer = peer(id);
    let exp = expect::load(id);
    let run = PeerRun::start(peer);
    let mut problems = Problems::default();
    let mut row = json!({ "id": id, "transport": peer.transport, "servedEra": peer.era });
    let mut timings = BTreeMap::new();

    // A stdio peer is a fresh process per command, so its probe (the longest command: it
    // starts the server several times) runs beside the snapshots and the lock. An HTTP peer is
    // one server: its commands run one after the other, the probe last.
    let concurrent_probe = peer.transport == "stdio";
    let probe_out = std::thread::scope(|scope| {
        let probe = concurrent_probe.then(|| scope.spawn(|| run_probe(&run)));
        check_snapshots(&run, peer, &exp, &mut problems, &mut row, &mut timings);
        match &exp.lock {
            Some(lock) => check_lock(&run, peer, lock, &mut problems, &mut row, &mut timings),
            None => problems.push("the expectations have no `lock` section".to_owned()),
        }
        match probe {
            Some(handle) => handle.join().expect("probe thread"),
            None => run_probe(&run),
        }
    });
    timings.insert("probe".to_owned(), probe_out.elapsed.as_millis());
    match &exp.probe {
        Some(probe) => check_probe(&probe_out, probe, &mut problems, &mut row),
        None => problems.push("the expectations have no `probe` section".to_owned()),
    }

    let elapsed = started.elapsed();
    row["timingsMs"] = json!(timings);
    row["totalMs"] = json!(elapsed.as_millis());
    write_row(id, &row);
    let server_log = run.server_log();
    drop(run);
    assert!(
        problems.0.is_empty(),
        "peer `{id}` does not match tests/peers/expectations/{id}.json (observed: \
         target/peers-rows/{id}.json):\n- {}\nserver output (HTTP peers):\n{server_log}",
        problems.0.join("\n- ")
    );
}

type Timings = BTreeMap<String, u128>;

/// `snapshot --format json` twice: same fingerprint, expected era, server, counts (and the
/// fingerprint itself when pinned).
fn check_snapshots(
    run: &PeerRun,
    peer: &harness::Peer,
    exp: &Expectations,
    problems: &mut Problems,
    row: &mut Value,
    timings: &mut Timings,
) {
    let id = &peer.id;
    let mut fingerprints = Vec::new();
    for i in 0..2 {
        let out = run.mcpseal(&["snapshot", "--format", "json"]);
        timings.insert(format!("snapshot{}", i + 1), out.elapsed.as_millis());
        let doc = match (out.code, out.json()) {
            (Some(0), Ok(doc)) => doc,
            _ => panic!(
                "peer `{id}`: snapshot {} failed\n{}\nserver:\n{}",
                i + 1,
                out.describe(),
                run.server_log()
            ),
        };
        let fp = doc["sha256"].as_str().unwrap_or_default().to_owned();
        if i == 0 {
            row["snapshot"] = json!({
                "era": doc["era"],
                "serverName": doc["server"],
                "counts": serde_json::to_value(counts_of(&doc)).expect("counts serialise"),
                "fingerprint": fp,
            });
            let s = &exp.snapshot;
            problems.check("snapshot era", doc["era"].as_str(), Some(s.era.as_str()));
            // peers.json's served era (observed by check_peers.py) implies the captured one: a
            // server that answers `server/discover` is captured as 2026-07-28.
            let implied = if peer.era == "2025-11-25" {
                "2025-11-25"
            } else {
                "2026-07-28"
            };
            problems.check(
                "snapshot era vs peers.json era",
                doc["era"].as_str(),
                Some(implied),
            );
            problems.check(
                "snapshot server name",
                doc["server"].as_str(),
                Some(s.server_name.as_str()),
            );
            problems.check(
                "snapshot server name vs peers.json server_info",
                doc["server"].as_str(),
                Some(peer.server_info.name.as_str()),
            );
            problems.check("snapshot counts", counts_of(&doc), s.counts.clone());
            if let Some(expected) = &s.fingerprint {
                problems.check("fingerprint", fp.as_str(), expected.as_str());
            }
        }
        fingerprints.push(fp);
    }
    problems.check(
        "second snapshot's fingerprint",
        fingerprints[1].as_str(),
        fingerprints[0].as_str(),
    );
}

/// `lock` into a temp file, then `check` against it: both exit 0 on the unchanged server.
fn check_lock(
    run: &PeerRun,
    peer: &harness::Peer,
    lock: &expect::LockExpect,
    problems: &mut Problems,
    row: &mut Value,
    timings: &mut Timings,
) {
    problems.check(
        "lock serverVersion vs peers.json server_info.version",
        lock.server_version.as_str(),
        peer.server_version(),
    );
    let lock_file = run.work.path().join("surface.lock.json");
    let lock_arg = lock_file.to_string_lossy().into_owned();
    let version = lock.server_version.as_str();
    let out = run.mcpseal(&["lock", "--server-version", version, "--lock", &lock_arg]);
    timings.insert("lock".to_owned(), out.elapsed.as_millis());
    row["lock"] = json!({ "lockExit": out.code });
    if out.code != Some(0) || !lock_file.exists() {
        problems.push(format!("lock failed or wrote no file\n{}", out.describe()));
        return;
    }
    let out = run.mcpseal(&["check", "--server-version", version, "--lock", &lock_arg]);
    timings.insert("check".to_owned(), out.elapsed.as_millis());
    row["lock"]["checkExit"] = json!(out.code);
    if out.code != Some(0) {
        problems.push(format!(
            "check on the unchanged server failed\n{}",
            out.describe()
        ));
    }
}

/// `mcpseal probe --format json` on the peer.
fn run_probe(run: &PeerRun) -> harness::CmdOutput {
    run.mcpseal(&["probe", "--format", "json"])
}

/// `probe --format json`: no crashed rule, the expected state and readiness, exactly the
/// expected rule ids, each with its expected severity.
fn check_probe(
    out: &harness::CmdOutput,
    p: &expect::ProbeExpect,
    problems: &mut Problems,
    row: &mut Value,
) {
    let report = match out.json() {
        Ok(report) => report,
        Err(e) => {
            problems.push(format!("probe: {e}"));
            return;
        }
    };
    let mut observed: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for f in report["findings"].as_array().into_iter().flatten() {
        let rule = f["ruleId"].as_str().unwrap_or("?").to_owned();
        observed.entry(rule).or_default().push(json!({
            "severity": f["severity"],
            "title": f["title"],
            "observed": f["observed"],
        }));
    }
    let crashed = report["crashedRules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    row["probe"] = json!({
        "exit": out.code,
        "state": report["state"],
        "ready": report["ready"],
        "summary": report["summary"],
        "crashedRules": crashed,
        "findings": observed,
    });
    if !crashed.is_empty() {
        problems.push(format!("probe: crashed rules {crashed:?}"));
    }
    problems.check("probe state", report["state"].as_str(), Some(&*p.state));
    problems.check("probe ready", report["ready"].as_bool(), Some(p.ready));
    let got: Vec<&String> = observed.keys().collect();
    let want: Vec<&String> = p.findings.keys().collect();
    if got != want {
        let unexpected: BTreeMap<&str, &Vec<Value>> = observed
            .iter()
            .filter(|(r, _)| !p.findings.contains_key(*r))
            .map(|(r, f)| (r.as_str(), f))
            .collect();
        let missing: Vec<_> = want
            .iter()
            .filter(|r| !observed.contains_key(**r))
            .collect();
        problems.push(format!(
            "probe rule ids: observed {got:?}, expected {want:?}; missing {missing:?}; \
             unexpected findings: {}",
            serde_json::to_string_pretty(&unexpected).unwrap_or_default()
        ));
    }
    for (rule, fs) in &observed {
        if let Some(e) = p.findings.get(rule) {
            for f in fs {
                problems.check(
                    &format!("probe {rule} severity"),
                    f["severity"].as_str(),
                    Some(e.severity.as_str()),
                );
            }
        }
    }
}

#[expect(
    clippy::disallowed_methods,
    reason = "the observed rows are written for people to compare (target/peers-rows)"
)]
fn write_row(id: &str, row: &Value) {
    let dir = repo_root().join("target/peers-rows");
    std::fs::create_dir_all(&dir).expect("target/peers-rows");
    let mut text = serde_json::to_string_pretty(row).expect("row serialises");
    text.push('\n');
    std::fs::write(dir.join(format!("{id}.json")), text).expect("row written");
}

/// Every peer in peers.json has a test and an expectations file, and there is no stray file.
#[test]
fn every_peer_has_a_test_and_expectations() {
    let ids: Vec<&str> = all_peers().iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, TESTED, "peers.json and the tests in peers.rs disagree");
    let mut files: Vec<String> = std::fs::read_dir(expect::expectations_dir())
        .expect("tests/peers/expectations exists")
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    let mut want: Vec<String> = ids.iter().map(|id| format!("{id}.json")).collect();
    want.sort();
    assert_eq!(files, want, "tests/peers/expectations/ vs peers.json");
    for id in ids {
        let e: Expectations = expect::load(id);
        assert_eq!(e.id, id);
        // `probe`, `lock` and `check` have landed: no peer may go without those checks.
        assert!(
            e.probe.is_some(),
            "{id}: the expectations need a `probe` section"
        );
        assert!(
            e.lock.is_some(),
            "{id}: the expectations need a `lock` section"
        );
    }
}

/// `docs/peers.md` is what the expectations render to.
#[test]
fn peers_doc_is_current() {
    let rendered = expect::render_doc().unwrap_or_else(|e| panic!("{e}"));
    let committed = std::fs::read_to_string(expect::doc_path()).unwrap_or_default();
    assert!(
        committed == rendered,
        "docs/peers.md is stale\nhint: run `cargo xtask generate peers` and commit it"
    );
}

/// A peer whose files are missing fails loudly with the install hint; it is never skipped.
#[test]
fn a_missing_peer_fails_with_the_install_hint() {
    let mut entry = serde_json::to_value(peer("everything-stdio").clone()).expect("serialises");
    entry["command"][1] = json!("npm/node_modules/not-installed/dist/index.js");
    let fake: harness::Peer = serde_json::from_value(entry).expect("a peers.json entry");
    let panic = std::panic::catch_unwind(|| fake.assert_installed()).expect_err("must fail");
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        message.contains("not-installed/dist/index.js")
            && message.contains("bash tests/peers/install.sh"),
        "{message}"
    );
}
