//! What the guard passes through untouched, asserted on what the upstream fixture actually
//! received: a host's `notifications/cancelled` for a request in flight (stdio and Streamable
//! HTTP, 2025 and 2026), and the headers a host sends over the HTTP front — which reach the
//! upstream, and only the upstream: an upstream that redirects a call to another origin does not
//! get its credentials (nor the guard's own `--header`) sent there.
//!
//! Synchronisation is the fixture's `--message-log` (the request is in flight once the upstream
//! logged it), polled against a generous deadline, never a fixed sleep.

mod guard_support;

use std::io::{BufRead as _, Read as _, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::time::{Duration, Instant};

use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::{Value, json};

use guard_support::{HttpGuard, TIMEOUT, command, lock};

const DEADLINE: Duration = Duration::from_secs(90);

/// The messages of a `--message-log`.
fn logged(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Waits until the upstream logged a message with `method`; returns it.
fn wait_for(log: &Path, method: &str) -> Value {
    let start = Instant::now();
    loop {
        if let Some(m) = logged(log).into_iter().find(|m| m["method"] == method) {
            return m;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "the upstream never received `{method}`: {:#?}",
            logged(log)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The 2026 per-request envelope.
fn envelope() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}})
}

fn call(id: u64, legacy: bool) -> Value {
    let mut params = json!({"name": "echo", "arguments": {"message": "never answered"}});
    if !legacy {
        params["_meta"] = envelope();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
}

fn cancelled(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": id, "reason": "the host gave up"}})
}

/// The stdio guard in front of the fixture, the host's side piped.
struct StdioGuard {
    child: Child,
    stdin: ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl StdioGuard {
    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write to the guard");
        self.stdin.flush().expect("flush");
    }

    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout
            .read_line(&mut line)
            .expect("read from the guard");
        serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line:?}"))
    }
}

impl Drop for StdioGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_hosts_cancellation_reaches_the_upstream_through_the_stdio_guard() {
    for legacy in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let mode: &[&str] = if legacy { &["--mode", "legacy"] } else { &[] };
        let pin = d.join("s.lock.json");
        let mut plain = vec!["--".to_owned()];
        plain.extend(stdio_argv(mode));
        lock(d, &pin, &plain);

        let log = d.join("messages.jsonl");
        let log_arg = log.to_string_lossy().into_owned();
        let mut knobs = vec!["--hang-on", "tools/call", "--message-log", &log_arg];
        knobs.extend(mode);
        let mut child = command(d)
            .args(["guard", "--timeout", TIMEOUT, "--lock"])
            .arg(&pin)
            .arg("--")
            .args(stdio_argv(&knobs))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the guard starts");
        let mut g = StdioGuard {
            stdin: child.stdin.take().expect("stdin"),
            stdout: std::io::BufReader::new(child.stdout.take().expect("stdout")),
            child,
        };
        if legacy {
            g.send(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "host", "version": "1"}}}),
            );
            let init = g.read();
            assert!(init["result"]["protocolVersion"].is_string(), "{init}");
            g.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
        g.send(&call(5, legacy));
        // In flight: the upstream has it (and never answers it).
        let seen = wait_for(&log, "tools/call");
        assert_eq!(seen["id"], 5, "legacy={legacy}: {seen}");
        let cancel = cancelled(5);
        g.send(&cancel);
        let got = wait_for(&log, "notifications/cancelled");
        assert_eq!(got, cancel, "legacy={legacy}: forwarded untouched");
    }
}

/// One raw HTTP/1.1 POST on its own connection, with the given extra header lines; the open
/// connection (the response not read yet).
fn post(url: &str, body: &Value, extra: &[(&str, &str)]) -> std::net::TcpStream {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.split_once('/').expect("a path");
    let body = body.to_string();
    let mut head = format!(
        "POST /{path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (n, v) in extra {
        head.push_str(&format!("{n}: {v}\r\n"));
    }
    let mut stream = std::net::TcpStream::connect(authority).expect("connect");
    stream
        .set_read_timeout(Some(DEADLINE))
        .expect("read timeout");
    stream
        .write_all(format!("{head}\r\n{body}").as_bytes())
        .expect("send");
    stream
}

fn response(mut stream: std::net::TcpStream) -> String {
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("read the response");
    text
}

/// The routing headers of a 2026 POST of `message` (none for 2025).
fn routing(message: &Value, legacy: bool) -> Vec<(&'static str, String)> {
    if legacy {
        return Vec::new();
    }
    let method = message["method"].as_str().unwrap_or_default().to_owned();
    let mut h = vec![
        ("MCP-Protocol-Version", "2026-07-28".to_owned()),
        ("Mcp-Method", method),
    ];
    if let Some(name) = message["params"]["name"].as_str() {
        h.push(("Mcp-Name", name.to_owned()));
    }
    h
}

/// The value of header `name` in a raw response.
fn header_value(text: &str, name: &str) -> Option<String> {
    let head = text.split("\r\n\r\n").next()?;
    head.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_owned())
    })
}

#[test]
fn a_hosts_cancellation_reaches_the_upstream_through_the_http_guard() {
    for legacy in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let log = d.join("messages.jsonl");
        let log_arg = log.to_string_lossy().into_owned();
        let mut knobs = vec!["--hang-on", "tools/call", "--message-log", &log_arg];
        if legacy {
            knobs.extend(["--mode", "legacy"]);
        }
        let upstream = HttpFixture::start(&knobs);
        // Locked on a twin that answers calls (`lock` measures an anonymous call).
        let twin = HttpFixture::start(if legacy { &["--mode", "legacy"] } else { &[] });
        let pin = d.join("s.lock.json");
        lock(d, &pin, std::slice::from_ref(&twin.url));
        let guard = HttpGuard::start(d, &pin, &upstream.url, &[]);

        let mut session: Vec<(&str, String)> = Vec::new();
        if legacy {
            let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "host", "version": "1"}}});
            let text = response(post(&guard.url, &init, &[]));
            assert!(text.starts_with("HTTP/1.1 200"), "{text}");
            if let Some(id) = header_value(&text, "mcp-session-id") {
                session.push(("Mcp-Session-Id", id));
            }
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            let s: Vec<(&str, &str)> = session.iter().map(|(n, v)| (*n, v.as_str())).collect();
            let text = response(post(&guard.url, &initialized, &s));
            assert!(text.starts_with("HTTP/1.1 202"), "{text}");
        }
        let headers = |m: &Value| {
            let mut h = routing(m, legacy);
            h.extend(session.iter().cloned());
            h
        };
        let request = call(5, legacy);
        let h = headers(&request);
        let pairs: Vec<(&str, &str)> = h.iter().map(|(n, v)| (*n, v.as_str())).collect();
        // Held open: the call is in flight while the host cancels it on another POST.
        let in_flight = post(&guard.url, &request, &pairs);
        let seen = wait_for(&log, "tools/call");
        assert_eq!(seen["id"], 5, "legacy={legacy}: {seen}");
        let cancel = cancelled(5);
        let h = headers(&cancel);
        let pairs: Vec<(&str, &str)> = h.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let text = response(post(&guard.url, &cancel, &pairs));
        assert!(
            text.starts_with("HTTP/1.1 202"),
            "legacy={legacy}: the upstream accepted it: {text}"
        );
        let got = wait_for(&log, "notifications/cancelled");
        assert_eq!(got, cancel, "legacy={legacy}: forwarded untouched");
        drop(in_flight);
    }
}

/// The `--header-log` lines of `method`, as `name → value` maps.
fn header_lines(log: &Path, method: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (m, rest) = l.split_once('\t').unwrap_or((l, ""));
            (m == method).then(|| {
                rest.split('\t')
                    .filter_map(|kv| kv.split_once('='))
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .collect()
            })
        })
        .collect()
}

const HOST_TOKEN: &str = "host-s3cret";
const GUARD_TOKEN: &str = "guard-s3cret";

fn host_headers(call: &Value) -> Vec<(&'static str, String)> {
    let mut h = routing(call, false);
    h.extend([
        ("Authorization", format!("Bearer {HOST_TOKEN}")),
        ("Cookie", "sid=host-cookie".to_owned()),
        ("X-Host-Trace", "trace-17".to_owned()),
        ("Origin", "http://localhost".to_owned()),
    ]);
    h
}

#[test]
fn the_hosts_headers_reach_the_upstream_over_the_http_guard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let log = d.join("headers.log");
    let log_arg = log.to_string_lossy().into_owned();
    let upstream = HttpFixture::start(&["--header-log", &log_arg]);
    let pin = d.join("s.lock.json");
    lock(d, &pin, std::slice::from_ref(&upstream.url));
    let guard = HttpGuard::start(d, &pin, &upstream.url, &[]);
    let _ = std::fs::remove_file(&log);

    let request = call(9, false);
    let request = {
        let mut r = request;
        r["params"]["arguments"]["message"] = json!("hi");
        r
    };
    let h = host_headers(&request);
    let pairs: Vec<(&str, &str)> = h.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let text = response(post(&guard.url, &request, &pairs));
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.contains(r#""text":"hi""#), "{text}");

    let lines = header_lines(&log, "tools/call");
    assert_eq!(lines.len(), 1, "one forwarded call: {lines:#?}");
    let got = &lines[0];
    assert_eq!(
        got.get("x-host-trace").map(String::as_str),
        Some("trace-17")
    );
    assert_eq!(got.get("authorization").map(String::as_str), Some("<set>"));
    assert_eq!(got.get("cookie").map(String::as_str), Some("<set>"));
    assert_eq!(got.get("mcp-name").map(String::as_str), Some("echo"));
    // The guard's business, not forwarded: the host's `Origin` (checked by the guard) and a
    // `Host` naming the guard instead of the upstream.
    assert!(!got.contains_key("origin"), "{got:?}");
    let upstream_authority = upstream
        .url
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .unwrap_or_default();
    assert_eq!(
        got.get("host").map(String::as_str),
        Some(upstream_authority)
    );
}

#[test]
fn an_upstream_redirect_to_another_origin_gets_no_credential() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    // The other origin (another port), recording anything it is sent.
    let elsewhere_log = d.join("elsewhere.log");
    let elsewhere_arg = elsewhere_log.to_string_lossy().into_owned();
    let elsewhere = HttpFixture::start(&["--header-log", &elsewhere_arg]);
    let log = d.join("headers.log");
    let log_arg = log.to_string_lossy().into_owned();
    let upstream =
        HttpFixture::start(&["--header-log", &log_arg, "--redirect-calls", &elsewhere.url]);
    let pin = d.join("s.lock.json");
    lock(d, &pin, std::slice::from_ref(&upstream.url));
    let guard_header = format!("X-Api-Key: {GUARD_TOKEN}");
    let guard = HttpGuard::start(d, &pin, &upstream.url, &["--header", &guard_header]);
    // What `lock` and the guard's start-up listing sent is not the host's.
    let _ = std::fs::remove_file(&log);

    let request = call(11, false);
    let h = host_headers(&request);
    let pairs: Vec<(&str, &str)> = h.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let text = response(post(&guard.url, &request, &pairs));
    // The upstream's answer reaches the host as it was (the host decides about the redirect).
    assert!(text.starts_with("HTTP/1.1 307"), "{text}");
    assert_eq!(
        header_value(&text, "location").as_deref(),
        Some(elsewhere.url.as_str())
    );
    assert!(
        !text.contains(HOST_TOKEN) && !text.contains(GUARD_TOKEN),
        "{text}"
    );

    // The upstream origin got the call with both credentials …
    let lines = header_lines(&log, "tools/call");
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert_eq!(
        lines[0].get("authorization").map(String::as_str),
        Some("<set>")
    );
    assert_eq!(lines[0].get("x-api-key").map(String::as_str), Some("<set>"));
    // … and the other origin nothing at all: the guard did not follow the redirect.
    let other = std::fs::read_to_string(&elsewhere_log).unwrap_or_default();
    assert!(other.is_empty(), "the other origin was sent: {other}");
}
