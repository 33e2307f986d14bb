//! `mcpseal index run --jobs 2` and the per-host limit, the passing side, against real loopback
//! HTTP: two `url:` targets of one host (the same `scheme://host:port`, two paths) are never
//! measured at once, while two targets on different hosts (127.0.0.1 and 127.0.0.2, distinct
//! loopback addresses, each its own listening socket) are.
//!
//! A recorder between `mcpseal` and a real fixture MCP server notes, per request, the instant its
//! request line was read and the instant just before its answer is written back (so the client
//! cannot have seen the answer before that instant). A target's interval runs from its first
//! request's start to its last request's end; the assertions are on those intervals.
//!
//! Neither assertion rests on timing luck. The first request of each target is held until a
//! request of the other target has arrived (bounded): with different hosts measured at once, both
//! arrive and both go on at once, so the intervals overlap whatever the load; measured one after
//! the other, the hold runs out first and the intervals come out disjoint — the test fails. On
//! one host the hold gives a broken limit its chance to show: the other target would arrive
//! during it and overlap.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod index_support;

use std::collections::BTreeMap;
use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use index_support::{forward, mcpseal_in, ok, row, serve, target_of};
use mcpseal_fixtures::HttpFixture;
use serde_json::Value;

/// One request as timed by the recorder.
#[derive(Debug, Clone)]
struct Timed {
    /// The first path segment (`a`, `b`; `.well-known` for the probe's OAuth metadata fetches,
    /// which name no target).
    target: String,
    /// The request line.
    line: String,
    start: Instant,
    /// `None` while it is being answered.
    end: Option<Instant>,
}

#[derive(Default)]
struct State {
    requests: Vec<Timed>,
}

impl State {
    fn targets_seen(&self) -> usize {
        let mut t: Vec<&str> = self
            .requests
            .iter()
            .map(|r| r.target.as_str())
            .filter(|t| *t != ".well-known")
            .collect();
        t.sort_unstable();
        t.dedup();
        t.len()
    }
}

/// Listeners on each of `ips` (port 0), one shared log, every request forwarded to `upstream`.
struct Recorder {
    /// `http://IP:PORT`, one per listener, in the order of `ips`.
    urls: Vec<String>,
    state: Arc<(Mutex<State>, Condvar)>,
}

impl Recorder {
    /// `hold`: how long the first request of a target waits for a request of another target.
    fn start(ips: &[&str], upstream: &str, hold: Duration) -> Recorder {
        let state = Arc::new((Mutex::new(State::default()), Condvar::new()));
        let mut urls = Vec::new();
        for ip in ips {
            let listener = TcpListener::bind((*ip, 0)).expect("bind a loopback address");
            urls.push(format!("http://{}", listener.local_addr().expect("addr")));
            let state = Arc::clone(&state);
            let upstream = upstream.to_owned();
            serve(listener, move |mut stream, (line, headers, body)| {
                let start = Instant::now();
                let target = target_of(&line);
                let (lock, seen) = &*state;
                let index = {
                    let mut st = lock.lock().expect("log");
                    let first = !st.requests.iter().any(|r| r.target == target);
                    st.requests.push(Timed {
                        target: target.clone(),
                        line: line.clone(),
                        start,
                        end: None,
                    });
                    let index = st.requests.len() - 1;
                    seen.notify_all();
                    if first && target != ".well-known" {
                        st = seen
                            .wait_timeout_while(st, hold, |st| st.targets_seen() < 2)
                            .expect("log")
                            .0;
                    }
                    drop(st);
                    index
                };
                let answer = forward(&upstream, &line, &headers, &body);
                lock.lock().expect("log").requests[index].end = Some(Instant::now());
                let _ = stream.write_all(&answer);
            });
        }
        Recorder { urls, state }
    }

    fn requests(&self) -> Vec<Timed> {
        self.state.0.lock().expect("log").requests.clone()
    }
}

/// Per target: (first request's start, last request's end).
fn intervals(requests: &[Timed]) -> BTreeMap<String, (Instant, Instant)> {
    let mut out: BTreeMap<String, (Instant, Instant)> = BTreeMap::new();
    for r in requests.iter().filter(|r| r.target != ".well-known") {
        let end = r
            .end
            .unwrap_or_else(|| panic!("a request still unanswered after the run: {r:?}"));
        let e = out.entry(r.target.clone()).or_insert((r.start, end));
        e.0 = e.0.min(r.start);
        e.1 = e.1.max(end);
    }
    out
}

fn overlap(a: (Instant, Instant), b: (Instant, Instant)) -> bool {
    a.0 < b.1 && b.0 < a.1
}

/// Runs the cohort of `a` and `b` with `--jobs 2` in `dir`; both rows must be measured.
fn run_two(dir: &Path, a: &str, b: &str) {
    std::fs::write(
        dir.join("cohort.toml"),
        format!(
            "[defaults]\nbudget-seconds = 240\nrequest-timeout-seconds = 60\n\n[[target]]\nid = \"a\"\ninstall = \"url:{a}\"\n\n[[target]]\nid = \"b\"\ninstall = \"url:{b}\"\n"
        ),
    )
    .expect("cohort");
    let out = mcpseal_in(
        Some(dir),
        &[],
        &[
            "index",
            "run",
            "cohort.toml",
            "--out",
            "run",
            "--jobs",
            "2",
            "--format",
            "json",
        ],
    );
    ok(&out);
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    for id in ["a", "b"] {
        assert_eq!(row(&doc, id)["state"], "ready", "{:#}", row(&doc, id));
    }
}

/// A timeline of the requests for failure messages: `+MS..MS target request-line`.
fn timeline(requests: &[Timed]) -> String {
    let Some(t0) = requests.iter().map(|r| r.start).min() else {
        return String::new();
    };
    requests
        .iter()
        .map(|r| {
            format!(
                "+{}..{} {} {}",
                (r.start - t0).as_millis(),
                r.end
                    .map_or("?".to_owned(), |e| (e - t0).as_millis().to_string()),
                r.target,
                r.line
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn targets_of_one_host_never_overlap() {
    let work = tempfile::tempdir().expect("work");
    let upstream = HttpFixture::start(&[]);
    // A broken limit would start `b` at once; 5 s is a long time for that on any machine.
    let recorder = Recorder::start(&["127.0.0.1"], &upstream.url, Duration::from_secs(5));
    let host = &recorder.urls[0];
    run_two(
        work.path(),
        &format!("{host}/a/mcp"),
        &format!("{host}/b/mcp"),
    );
    let requests = recorder.requests();
    let spans = intervals(&requests);
    assert_eq!(spans.len(), 2, "{}", timeline(&requests));
    assert!(
        !overlap(spans["a"], spans["b"]),
        "one host, two targets measured at once:\n{}",
        timeline(&requests)
    );
    // Stronger than the spans: no request of one target is in flight during one of the other's.
    for x in requests.iter().filter(|r| r.target == "a") {
        for y in requests.iter().filter(|r| r.target == "b") {
            let span = |r: &Timed| (r.start, r.end.unwrap_or(r.start));
            assert!(!overlap(span(x), span(y)), "{}", timeline(&requests));
        }
    }
}

#[test]
fn targets_of_different_hosts_are_measured_at_once() {
    let work = tempfile::tempdir().expect("work");
    let upstream = HttpFixture::start(&[]);
    // Held until the other target arrives; measured one after the other, `a` would wait all of
    // this, finish, and only then would `b` start: disjoint intervals, a failed test.
    let recorder = Recorder::start(
        &["127.0.0.1", "127.0.0.2"],
        &upstream.url,
        Duration::from_secs(30),
    );
    let (one, two) = (&recorder.urls[0], &recorder.urls[1]);
    assert!(one.starts_with("http://127.0.0.1:") && two.starts_with("http://127.0.0.2:"));
    run_two(
        work.path(),
        &format!("{one}/a/mcp"),
        &format!("{two}/b/mcp"),
    );
    let requests = recorder.requests();
    let spans = intervals(&requests);
    assert_eq!(spans.len(), 2, "{}", timeline(&requests));
    assert!(
        overlap(spans["a"], spans["b"]),
        "two hosts, --jobs 2, measured one after the other:\n{}",
        timeline(&requests)
    );
}
