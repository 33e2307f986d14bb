//! The official MCP conformance suite side by side with `mcpseal probe`, live: each test starts
//! one server (the `modern` and `legacy` fixtures, the 2026-capable peers over Streamable
//! HTTP), runs the pinned suite on it (`server --url … --requirements 2026-07-28 -o DIR`, its
//! `checks.json` read, never its stdout), then `mcpseal probe` and `mcpseal snapshot` on the
//! same endpoint, and holds the result to `tests/conformance/servers/<id>.json`. The observed
//! record is written to `target/conformance-rows/<id>.json` whatever the outcome (and the
//! suite's run time to `<id>.suite-ms`);
//! `MCPSEAL_UPDATE_CONFORMANCE=1` writes it into `tests/conformance/servers/` instead, keeping
//! the hand-written explanations (the `mcpseal-conformance` crate's test then refuses a
//! disagreement without one, and `docs/conformance.md` is rendered from those files).
//!
//! Needs `bash tests/peers/install.sh` first (the suite, its Node 22 and the peers); a missing
//! piece fails with the install hint, it is never skipped.

#![expect(
    clippy::disallowed_methods,
    reason = "the test starts the official suite and writes the observed records"
)]

#[path = "peers/harness.rs"]
#[expect(
    dead_code,
    reason = "the peer tests use more of the harness than these"
)]
mod harness;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcpseal_conformance::{ProbeRecord, ServerRecord, Surface, read_suite_output};
use mcpseal_fixtures::HttpFixture;
use serde_json::Value;

/// Longest one suite run may take (it bounds each scenario at 30 s itself; the whole requirement
/// set takes 4–13 s here, more on a loaded machine).
const SUITE_DEADLINE: Duration = Duration::from_secs(300);

/// Longest `mcpseal probe` / `snapshot` may take.
const MCPSEAL_DEADLINE: Duration = Duration::from_secs(90);

const INSTALL_HINT: &str = "run `bash tests/peers/install.sh` (scripts/test and .ci/run do) first";

fn conformance_dir() -> PathBuf {
    harness::peers_dir().join("conformance/node_modules")
}

/// `(node, suite entry point)`, both by absolute path (the suite's `node` is never put on PATH).
fn suite_paths() -> (PathBuf, PathBuf) {
    let dir = conformance_dir();
    let node = dir.join(".bin/node");
    let suite = dir.join("@modelcontextprotocol/conformance/dist/index.js");
    assert!(
        node.exists() && suite.exists(),
        "the conformance suite is not installed (missing `{}` or `{}`)\nhint: {INSTALL_HINT}",
        node.display(),
        suite.display()
    );
    (node, suite)
}

/// A running server.
enum Running {
    Fixture(HttpFixture),
    Peer(harness::PeerRun),
    /// `mcpseal serve --http` and the URL it printed.
    Serve(Serve),
}

/// `mcpseal serve --config examples/site/site.toml --http 127.0.0.1:0`, killed when dropped.
struct Serve {
    child: std::process::Child,
    url: String,
}

impl Serve {
    fn start() -> Serve {
        use std::io::BufRead;
        let config = harness::repo_root().join("examples/site/site.toml");
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpseal"))
            .args(["serve", "--http", "127.0.0.1:0", "--config"])
            .arg(&config)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn mcpseal serve");
        // Its first stdout line is the endpoint, printed once it listens (it exits on failure,
        // which ends the read with an empty line).
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut url)
            .expect("the URL line");
        let url = url.trim().to_owned();
        if !url.starts_with("http://127.0.0.1:") {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`mcpseal serve --http` printed {url:?}, not its URL");
        }
        Serve { child, url }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    fn url(&self) -> String {
        match self {
            Running::Fixture(f) => f.url.clone(),
            Running::Serve(s) => s.url.clone(),
            Running::Peer(p) => match &p.target {
                harness::Target::Http(server) => server.url.clone(),
                harness::Target::Stdio { .. } => panic!("conformance targets are HTTP peers"),
            },
        }
    }
}

/// `(id, what it is, how to start it)`.
fn start(id: &str) -> (&'static str, Running) {
    match id {
        "fixture-modern" => (
            "`mcpseal-fixture --http` (clean 2026-07-28)",
            Running::Fixture(HttpFixture::start(&[])),
        ),
        "fixture-legacy" => (
            "`mcpseal-fixture --http --mode legacy` (stateful 2025-11-25)",
            Running::Fixture(HttpFixture::start(&["--mode", "legacy"])),
        ),
        "serve-site" => (
            "`mcpseal serve --http` of `examples/site/site.toml` (dual-era, on mcpseal-server)",
            Running::Serve(Serve::start()),
        ),
        peer => {
            let what = match peer {
                "ts-http" => "TypeScript SDK v2 2.4.0, dual-era",
                "ts-http-modern" => "TypeScript SDK v2 2.4.0, modern-only",
                "py-http" => "Python `mcp` 2.3.0, dual-era",
                "rmcp-http" => "rmcp 3.11.0, dual-era",
                "rmcp-http-modern" => "rmcp 3.11.0, modern-only",
                other => panic!("no conformance target `{other}`"),
            };
            (
                what,
                Running::Peer(harness::PeerRun::start(harness::peer(peer))),
            )
        }
    }
}

fn mcpseal(args: &[&str], url: &str) -> Value {
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mcpseal"))
        .timeout(MCPSEAL_DEADLINE)
        .args(args)
        .args(["--timeout", harness::REQUEST_TIMEOUT])
        .arg(url)
        .output()
        .unwrap_or_else(|e| panic!("`mcpseal {}` did not finish: {e}", args.join(" ")));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "`mcpseal {}` exited {:?} without JSON ({e}):\n{}",
            args.join(" "),
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn run_suite(url: &str) -> (mcpseal_conformance::SuiteRun, Duration) {
    let (node, suite) = suite_paths();
    let out = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let result = assert_cmd::Command::new(&node)
        .timeout(SUITE_DEADLINE)
        .arg(&suite)
        .args(["server", "--url", url, "--requirements", "2026-07-28", "-o"])
        .arg(out.path())
        .args(["--timeout", "30000"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap_or_else(|e| panic!("the suite did not finish within {SUITE_DEADLINE:?}: {e}"));
    let elapsed = started.elapsed();
    // 0: every scored scenario passed; 1: some failed. Anything else is the suite's own trouble.
    assert!(
        matches!(result.status.code(), Some(0 | 1)),
        "the suite exited {:?}\nstderr:\n{}",
        result.status.code(),
        String::from_utf8_lossy(&result.stderr)
    );
    let run = read_suite_output(out.path()).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        !run.is_empty(),
        "the suite wrote no scenario results\nstdout:\n{}",
        String::from_utf8_lossy(&result.stdout)
    );
    (run, elapsed)
}

fn check_server(id: &str) {
    let (what, running) = start(id);
    let url = running.url();
    let (run, suite_time) = run_suite(&url);
    let probe = ProbeRecord::of_report(&mcpseal(&["probe", "--format", "json"], &url));
    let surface = Surface::of_snapshot(&mcpseal(&["snapshot", "--format", "json"], &url));
    drop(running);
    let committed = ServerRecord::load(id).unwrap_or_else(|e| panic!("{e}"));
    let observed = ServerRecord::observed(id, what, surface, &run, probe)
        .keep_explanations(committed.as_ref());
    let rows = harness::repo_root().join("target/conformance-rows");
    std::fs::create_dir_all(&rows).expect("target/conformance-rows");
    std::fs::write(rows.join(format!("{id}.json")), observed.to_file_text()).expect("row");
    // The suite's run time, for the CI-cost figure (not asserted: a loaded machine is slower).
    std::fs::write(
        rows.join(format!("{id}.suite-ms")),
        format!("{}\n", suite_time.as_millis()),
    )
    .expect("timing");
    if std::env::var_os("MCPSEAL_UPDATE_CONFORMANCE").is_some() {
        std::fs::write(ServerRecord::path(id), observed.to_file_text()).expect("record written");
        return;
    }
    let Some(committed) = committed else {
        panic!(
            "no tests/conformance/servers/{id}.json\nhint: run `MCPSEAL_UPDATE_CONFORMANCE=1 cargo nextest run -p mcpseal --test conformance` and explain the disagreements"
        );
    };
    let differences = observed.differences(&committed);
    assert!(
        differences.is_empty(),
        "`{id}` drifted from tests/conformance/servers/{id}.json (observed: target/conformance-rows/{id}.json):\n- {}\nhint: if the change is right, run `MCPSEAL_UPDATE_CONFORMANCE=1 cargo nextest run -p mcpseal --test conformance`, then explain every new disagreement",
        differences.join("\n- ")
    );
}

macro_rules! servers {
    ($($name:ident => $id:literal,)*) => {
        /// Every server compared, in the page's order.
        const SERVERS: &[&str] = &[$($id),*];
        $(
            #[test]
            fn $name() {
                check_server($id);
            }
        )*
    };
}

servers! {
    fixture_modern => "fixture-modern",
    fixture_legacy => "fixture-legacy",
    ts_http => "ts-http",
    ts_http_modern => "ts-http-modern",
    py_http => "py-http",
    rmcp_http => "rmcp-http",
    rmcp_http_modern => "rmcp-http-modern",
    serve_site => "serve-site",
}

/// Every server has a record, and every record a server.
#[test]
fn every_server_has_a_record() {
    let records = mcpseal_conformance::read_records().unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    let mut want = SERVERS.to_vec();
    want.sort_unstable();
    assert_eq!(
        ids, want,
        "tests/conformance/servers/ vs the servers tested here"
    );
}

/// The map's scored scenarios are the pinned suite's own `requirements/2026-07-28.yaml` list.
#[test]
fn the_scored_scenarios_are_the_requirement_set() {
    let yaml =
        conformance_dir().join("@modelcontextprotocol/conformance/requirements/2026-07-28.yaml");
    let text = std::fs::read_to_string(&yaml)
        .unwrap_or_else(|e| panic!("reading `{}`: {e}\nhint: {INSTALL_HINT}", yaml.display()));
    // The `server:` list: `  - name` lines until the next top-level key.
    let mut scored = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if !line.starts_with(' ') && !line.starts_with('#') && !line.is_empty() {
            inside = line.trim_end() == "server:";
            continue;
        }
        if inside && let Some(name) = line.strip_prefix("  - ") {
            scored.push(name.trim().to_owned());
        }
    }
    scored.sort();
    let map = mcpseal_conformance::ScenarioMap::load().unwrap_or_else(|e| panic!("{e}"));
    let mine: Vec<String> = map
        .scenarios
        .iter()
        .filter(|(_, e)| e.scored)
        .map(|(n, _)| n.clone())
        .collect();
    assert_eq!(
        mine, scored,
        "scenarios.json `scored` vs the suite's requirement set"
    );
}
