//! `mcpseal index run` toward other people's servers, observed by a loopback HTTP server that
//! records every request it receives and forwards it to a real fixture MCP server: one target
//! per host at a time, a `User-Agent` naming mcpseal and its version on every request,
//! `Retry-After` honoured (and a wait longer than the bound not waited), and never a
//! `tools/call` — while `mcpseal probe` through the same recorder does send one, so the
//! recorder sees what it is asked to watch for.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

mod index_support;

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcpseal_fixtures::HttpFixture;
use serde_json::Value;

use index_support::{forward, mcpseal_in, serve, target_of};

/// One request as received.
#[derive(Debug, Clone)]
struct Seen {
    /// The first path segment (`plain`, `limited`, `slow`).
    target: String,
    user_agent: Option<String>,
    /// The JSON-RPC method of the body, when it has one.
    method: Option<String>,
    /// Answered 429.
    refused: bool,
}

#[derive(Default)]
struct Log {
    seen: Vec<Seen>,
    /// When `limited` first answered 429.
    first_refusal: Option<Instant>,
}

/// The recorder: `/TARGET/...` requests are forwarded to `upstream` (`http://127.0.0.1:P/mcp`)
/// with `Connection: close`. `limited` answers 429 `Retry-After: 1` until a request arrives at
/// least a second after its first 429 (so only a client that waits gets through); `slow`
/// always answers 429 `Retry-After: 3600`.
struct Recorder {
    url: String,
    log: Arc<Mutex<Log>>,
}

fn refuse(stream: &mut TcpStream, retry_after: u64) {
    let body = "{\"error\":\"slow down\"}";
    let _ = write!(
        stream,
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: {retry_after}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

impl Recorder {
    fn start(upstream: String) -> Recorder {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let log = Arc::new(Mutex::new(Log::default()));
        let shared = Arc::clone(&log);
        serve(listener, move |mut stream, (line, headers, body)| {
            let target = target_of(&line);
            let method = serde_json::from_slice::<Value>(&body)
                .ok()
                .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_owned));
            let user_agent = headers
                .iter()
                .find(|(k, _)| k == "user-agent")
                .map(|(_, v)| v.clone());
            let refused = {
                let mut l = shared.lock().expect("log");
                let refused = match target.as_str() {
                    "slow" => true,
                    "limited" => match l.first_refusal {
                        None => {
                            l.first_refusal = Some(Instant::now());
                            true
                        }
                        Some(t) => t.elapsed() < Duration::from_secs(1),
                    },
                    _ => false,
                };
                l.seen.push(Seen {
                    target: target.clone(),
                    user_agent,
                    method,
                    refused,
                });
                refused
            };
            if refused {
                refuse(&mut stream, if target == "slow" { 3600 } else { 1 });
            } else {
                let answer = forward(&upstream, &line, &headers, &body);
                let _ = stream.write_all(&answer);
            }
        });
        Recorder { url, log }
    }

    fn seen(&self) -> Vec<Seen> {
        self.log.lock().expect("log").seen.clone()
    }
}

#[test]
fn remotes_are_treated_with_manners() {
    let work = tempfile::tempdir().expect("work");
    let w = work.path();
    let upstream = HttpFixture::start(&[]);
    let recorder = Recorder::start(upstream.url.clone());
    let fixture = mcpseal_fixtures::binary();
    std::fs::write(
        w.join("cohort.toml"),
        format!(
            "[defaults]\nbudget-seconds = 120\nrequest-timeout-seconds = 10\n\n[[target]]\nid = \"plain\"\ninstall = \"url:{r}/plain/mcp\"\n\n[[target]]\nid = \"limited\"\ninstall = \"url:{r}/limited/mcp\"\n\n[[target]]\nid = \"slow\"\ninstall = \"url:{r}/slow/mcp\"\n\n[[target]]\nid = \"local\"\ninstall = \"cmd:{f}\"\n",
            r = recorder.url,
            f = fixture.display()
        ),
    )
    .expect("cohort");
    let out = mcpseal_in(
        Some(w),
        &[],
        &[
            "index",
            "run",
            "cohort.toml",
            "--out",
            "run",
            "--jobs",
            "4",
            "--format",
            "json",
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let row = |id: &str| index_support::row(&doc, id).clone();
    let seen = recorder.seen();
    assert!(!seen.is_empty());

    // A User-Agent naming mcpseal and its version, on every request.
    let ua = format!("mcpseal/{}", env!("CARGO_PKG_VERSION"));
    for s in &seen {
        assert_eq!(s.user_agent.as_deref(), Some(ua.as_str()), "{s:?}");
    }

    // Never a tool call toward a remote; the rules that would send one are named as skipped,
    // and only on the remotes.
    assert!(
        seen.iter()
            .all(|s| s.method.as_deref() != Some("tools/call")),
        "{seen:?}"
    );
    assert_eq!(
        row("plain")["skippedRules"],
        serde_json::json!(["SEAL030", "SEAL034", "SEAL043"])
    );
    assert!(row("local").get("skippedRules").is_none());

    // One target per host at a time: each target's requests form one unbroken stretch (the
    // probe's OAuth metadata fetches go to the host's `/.well-known/`, inside the stretch of
    // the target that made them).
    let order: Vec<&str> = seen
        .iter()
        .map(|s| s.target.as_str())
        .filter(|t| *t != ".well-known")
        .collect();
    let mut stretches: Vec<&str> = order.clone();
    stretches.dedup();
    let mut distinct = stretches.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(stretches.len(), distinct.len(), "interleaved: {order:?}");

    // Retry-After honoured: `limited` let nothing through before a second had passed, and its
    // row is measured.
    assert_eq!(row("plain")["state"], "ready", "{:#}", row("plain"));
    let limited = row("limited");
    assert_eq!(limited["state"], "ready", "{limited:#}");
    assert!(seen.iter().any(|s| s.target == "limited" && s.refused));
    // Bounded: an hour's Retry-After is not waited (the run is over), the row says why, and the
    // server was not hammered.
    let slow = row("slow");
    assert_eq!(slow["state"], "unreachable", "{slow:#}");
    assert!(
        slow["reason"]
            .as_str()
            .is_some_and(|r| r.contains("Retry-After") && r.contains("3600")),
        "{slow:#}"
    );
    let asked = seen.iter().filter(|s| s.target == "slow").count();
    assert!(asked <= 12, "{asked} requests to a server that said wait");

    // The recorder would see a tool call: `mcpseal probe` (not the index) sends one.
    let before = recorder.seen().len();
    let _ = mcpseal_in(
        Some(w),
        &[],
        &["probe", &format!("{}/plain/mcp", recorder.url)],
    );
    let probed = &recorder.seen()[before..];
    assert!(
        probed
            .iter()
            .any(|s| s.method.as_deref() == Some("tools/call")),
        "{probed:?}"
    );
}
