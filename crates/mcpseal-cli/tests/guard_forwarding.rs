//! What the guard forwards, with real clients and servers on both sides: `mcpseal call` (a
//! strict client that completes the 2026 MRTR `input_required` round trip and answers the 2025
//! `elicitation/create` sent mid-call) through `mcpseal guard`, stdio and Streamable HTTP, both
//! eras, against the fixture's `confirm` tool — and the same call refused when the lock does not
//! approve the tool; and the real `@modelcontextprotocol/server-everything` through the guard
//! with an unchanged lock (`check` through the guard passes, a call is answered); and a call's
//! request-scoped SSE stream with its `notifications/progress` relayed by the HTTP front as the
//! server sent it; and a host's `subscriptions/listen` stream acknowledged and then carrying the
//! server's `list_changed` after a rug pull, the re-read list hiding the rewritten tool; and a
//! bearer-token-protected upstream guarded with `--header` (refused at start without it), its
//! block decisions audited without the token anywhere in the log, stderr or the answers.

mod guard_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::Value;

use guard_support::{HttpGuard, TIMEOUT, bin, lock};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|_| panic!("not JSON: {}\nstderr: {}", self.stdout, self.stderr))
    }
}

fn mcpseal(dir: &Path, args: &[String]) -> Run {
    let out = Command::cargo_bin("mcpseal")
        .expect("binary")
        .timeout(Duration::from_secs(180))
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn words(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| (*s).to_owned()).collect()
}

/// `mcpseal guard --lock LOCK -- SERVER…`, as a host would start it (the stdio front).
fn guarded(lock: &Path, server: &[String]) -> Vec<String> {
    let mut argv = vec![
        bin().to_string_lossy().into_owned(),
        "guard".into(),
        "--timeout".into(),
        TIMEOUT.into(),
        "--lock".into(),
        lock.to_string_lossy().into_owned(),
        "--".into(),
    ];
    argv.extend(server.iter().cloned());
    argv
}

/// `mcpseal call --format json confirm --answer …` against `target` (`-- COMMAND…` or a URL).
fn call_confirm(dir: &Path, legacy: bool, target: &[String]) -> Run {
    let key = if legacy {
        "elicitation/create"
    } else {
        "confirm"
    };
    let answer = format!(
        r#"{key}={{"action":"accept","content":{{"confirmed":true,"by":"ann@example.com"}}}}"#
    );
    let mut args = words(&[
        "call",
        "--format",
        "json",
        "--timeout",
        TIMEOUT,
        "confirm",
        "--answer",
        &answer,
    ]);
    args.extend(target.iter().cloned());
    mcpseal(dir, &args)
}

/// The answered call completed through the guard as it does directly.
fn assert_completed(run: &Run, legacy: bool, what: &str) {
    assert_eq!(run.code, 0, "{what}: {}\n{}", run.stderr, run.stdout);
    let report = run.json();
    assert_eq!(report["state"], "judged", "{what}: {report:#}");
    assert_eq!(
        report["result"]["structuredContent"],
        serde_json::json!({"confirmed": true, "by": "ann@example.com"}),
        "{what}: {report:#}"
    );
    let rounds = report["rounds"].as_array().cloned().unwrap_or_default();
    if legacy {
        // The server's elicitation request came to the client through the guard mid-call, and
        // the client's answer went back.
        assert_eq!(rounds.len(), 1, "{what}: {report:#}");
        assert_eq!(rounds[0]["inputRequests"][0]["via"], "serverRequest");
        assert_eq!(rounds[0]["inputRequests"][0]["answeredFrom"], "given");
    } else {
        // MRTR: the `input_required` result, then the retry carrying the answer and the
        // server's `requestState`, both through the guard.
        assert_eq!(rounds.len(), 2, "{what}: {report:#}");
        assert_eq!(rounds[0]["resultType"], "input_required");
        let retry = &rounds[1]["exchange"]["request"]["params"];
        assert_eq!(retry["requestState"], "mcpseal-fixture:confirm:round-1");
        assert_eq!(retry["inputResponses"]["confirm"]["action"], "accept");
    }
}

/// The call of a tool the lock does not approve: refused, never forwarded.
fn assert_refused(run: &Run, calls: &Path, what: &str) {
    assert_ne!(run.code, 0, "{what}: {}\n{}", run.stderr, run.stdout);
    let text = format!("{}{}", run.stdout, run.stderr);
    assert!(text.contains("confirm"), "{what}: {text}");
    let called = std::fs::read_to_string(calls).unwrap_or_default();
    assert!(
        !called.lines().any(|l| l == "confirm"),
        "{what}: the server never saw the call: {called:?}"
    );
}

fn fixture_knobs(legacy: bool, calls: &str, contract: bool) -> Vec<&str> {
    let mut knobs = vec!["--call-log", calls];
    if contract {
        knobs.push("--contract-tools");
    }
    if legacy {
        knobs.extend(["--mode", "legacy"]);
    }
    knobs
}

fn dashed(argv: Vec<String>) -> Vec<String> {
    let mut v = vec!["--".to_owned()];
    v.extend(argv);
    v
}

#[test]
fn mrtr_and_mid_call_elicitation_complete_through_the_stdio_guard() {
    for legacy in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let calls = d.join("calls.log");
        let calls_arg = calls.to_string_lossy().into_owned();
        let server = stdio_argv(&fixture_knobs(legacy, &calls_arg, true));
        let approved = d.join("approved.lock.json");
        lock(d, &approved, &dashed(server.clone()));
        let run = call_confirm(d, legacy, &dashed(guarded(&approved, &server)));
        assert_completed(&run, legacy, &format!("stdio legacy={legacy}"));

        // Negative control: a lock written before `confirm` existed does not approve it.
        let _ = std::fs::remove_file(&calls);
        let older = d.join("older.lock.json");
        let without = stdio_argv(&fixture_knobs(legacy, &calls_arg, false));
        lock(d, &older, &dashed(without));
        let _ = std::fs::remove_file(&calls);
        let run = call_confirm(d, legacy, &dashed(guarded(&older, &server)));
        assert_refused(&run, &calls, &format!("stdio legacy={legacy}, unapproved"));
    }
}

#[test]
fn mrtr_and_mid_call_elicitation_complete_through_the_http_guard() {
    for legacy in [false, true] {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        let calls = d.join("calls.log");
        let calls_arg = calls.to_string_lossy().into_owned();
        let upstream = HttpFixture::start(&fixture_knobs(legacy, &calls_arg, true));
        let approved = d.join("approved.lock.json");
        lock(d, &approved, std::slice::from_ref(&upstream.url));
        let guard = HttpGuard::start(d, &approved, &upstream.url, &[]);
        let run = call_confirm(d, legacy, std::slice::from_ref(&guard.url));
        assert_completed(&run, legacy, &format!("http legacy={legacy}"));
        drop(guard);

        // Negative control: the same server behind a lock that does not approve `confirm`.
        let plain = HttpFixture::start(&fixture_knobs(legacy, &calls_arg, false));
        let older = d.join("older.lock.json");
        lock(d, &older, std::slice::from_ref(&plain.url));
        let _ = std::fs::remove_file(&calls);
        let guard = HttpGuard::start(d, &older, &upstream.url, &[]);
        let run = call_confirm(d, legacy, std::slice::from_ref(&guard.url));
        assert_refused(&run, &calls, &format!("http legacy={legacy}, unapproved"));
    }
}

fn peers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers")
}

fn everything() -> Vec<String> {
    let path =
        peers_dir().join("npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `bash tests/peers/install.sh` (scripts/test does) before the tests",
        path.display()
    );
    vec![
        "node".into(),
        path.to_string_lossy().into_owned(),
        "stdio".into(),
    ]
}

#[test]
fn the_real_server_everything_works_through_the_guard_with_an_unchanged_lock() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let server = everything();
    let pin = d.join("everything.lock.json");
    lock(d, &pin, &dashed(server.clone()));
    let before = std::fs::read(&pin).expect("the lock");

    // The surface the host sees through the guard is the locked one.
    let mut check = words(&["check", "--timeout", TIMEOUT, "--lock"]);
    check.push(pin.to_string_lossy().into_owned());
    check.extend(dashed(guarded(&pin, &server)));
    let run = mcpseal(d, &check);
    assert_eq!(
        run.code, 0,
        "check through the guard: {}\n{}",
        run.stderr, run.stdout
    );

    // A call goes through and is answered as the server answers it.
    let mut call = words(&[
        "call",
        "--format",
        "json",
        "--timeout",
        TIMEOUT,
        "echo",
        "--args",
        r#"{"message":"through the guard"}"#,
        // The server asks the client for its roots (a server-to-client request, forwarded to
        // the host); when it lands inside the call's round, `call` needs an answer to give.
        "--answer",
        r#"roots/list={"roots":[]}"#,
    ]);
    call.extend(dashed(guarded(&pin, &server)));
    let run = mcpseal(d, &call);
    assert_eq!(
        run.code, 0,
        "call through the guard: {}\n{}",
        run.stderr, run.stdout
    );
    let report = run.json();
    let text = report["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("through the guard"), "{report:#}");
    assert_eq!(
        std::fs::read(&pin).expect("the lock"),
        before,
        "the lock is unchanged"
    );
}

/// One raw Streamable HTTP POST of a 2026 `tools/call` of `echo` asking for progress (HTTP/1.1,
/// `Connection: close`): the whole response as text (headers and, possibly chunked, body).
fn post_call_with_progress(url: &str) -> String {
    use std::io::{Read as _, Write as _};
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.split_once('/').expect("a path");
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"message": "hi"},
            "_meta": {"progressToken": "tok-1",
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let request = format!(
        "POST /{path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = std::net::TcpStream::connect(authority).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    stream.write_all(request.as_bytes()).expect("send");
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("read the response");
    text
}

/// The JSON-RPC messages of an SSE response: the chunked body decoded, each event's `data:`
/// lines joined (the fixture splits a message over several), comments and keep-alives skipped.
fn sse_messages(text: &str) -> Vec<Value> {
    let (_, mut rest) = text.split_once("\r\n\r\n").expect("headers end");
    let mut body = String::new();
    // Chunked transfer coding: SIZE CRLF DATA CRLF …, until a zero size.
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        body.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    body.replace("\r\n", "\n")
        .split("\n\n")
        .filter_map(|event| {
            let data: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            (!data.is_empty()).then(|| serde_json::from_str(&data.join("\n")).expect("JSON data"))
        })
        .collect()
}

#[test]
fn progress_notifications_reach_the_host_on_the_calls_stream_through_the_http_guard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let upstream = HttpFixture::start(&["--sse"]);
    let pin = d.join("s.lock.json");
    lock(d, &pin, std::slice::from_ref(&upstream.url));
    let guard = HttpGuard::start(d, &pin, &upstream.url, &[]);
    let mut seen = Vec::new();
    for (what, url) in [("direct", &upstream.url), ("guarded", &guard.url)] {
        let text = post_call_with_progress(url);
        assert!(text.starts_with("HTTP/1.1 200"), "{what}: {text}");
        assert!(
            text.to_ascii_lowercase()
                .contains("content-type: text/event-stream"),
            "{what}: {text}"
        );
        let messages = sse_messages(&text);
        assert_eq!(messages.len(), 2, "{what}: {messages:#?}");
        assert_eq!(messages[0]["method"], "notifications/progress", "{what}");
        assert_eq!(messages[0]["params"]["progressToken"], "tok-1", "{what}");
        assert_eq!(messages[1]["id"], 7, "{what}");
        assert_eq!(messages[1]["result"]["content"][0]["text"], "hi", "{what}");
        seen.push(messages);
    }
    assert_eq!(
        seen[0], seen[1],
        "the guard forwards the stream as the server sent it"
    );
}

/// The raw 2026 POST of `method` (with `Mcp-Name: name` when given) on `stream`.
fn send_post(
    stream: &mut std::net::TcpStream,
    url: &str,
    method: &str,
    name: Option<&str>,
    body: &Value,
) {
    use std::io::Write as _;
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, path) = rest.split_once('/').expect("a path");
    let body = body.to_string();
    let name = name
        .map(|n| format!("Mcp-Name: {n}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /{path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: {method}\r\n{name}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("send");
}

fn envelope() -> Value {
    serde_json::json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}})
}

fn connect(url: &str) -> std::net::TcpStream {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (authority, _) = rest.split_once('/').expect("a path");
    let stream = std::net::TcpStream::connect(authority).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("timeout");
    stream
}

/// One whole 2026 request/response over its own connection: the response text.
fn exchange(url: &str, method: &str, name: Option<&str>, mut params: Value) -> String {
    use std::io::Read as _;
    params["_meta"] = envelope();
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut stream = connect(url);
    send_post(&mut stream, url, method, name, &body);
    let mut text = String::new();
    stream.read_to_string(&mut text).expect("read");
    text
}

#[test]
fn a_subscriptions_listen_stream_carries_list_changed_through_the_http_guard() {
    use std::io::Read as _;
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let upstream = HttpFixture::start(&[
        "--list-changed",
        "--rug-pull",
        "description",
        "--rug-pull-after-calls",
        "1",
    ]);
    let pin = d.join("s.lock.json");
    lock(d, &pin, std::slice::from_ref(&upstream.url));
    let guard = HttpGuard::start(d, &pin, &upstream.url, &[]);

    // The host's listen stream, read on a thread as it arrives.
    let mut listen = connect(&guard.url);
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 42, "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": true}, "_meta": envelope()}});
    send_post(&mut listen, &guard.url, "subscriptions/listen", None, &body);
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = listen.read(&mut buf) {
            if n == 0
                || tx
                    .send(String::from_utf8_lossy(&buf[..n]).into_owned())
                    .is_err()
            {
                break;
            }
        }
    });
    let mut seen = String::new();
    let wait_for = |needle: &str, seen: &mut String| {
        while !seen.contains(needle) {
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(chunk) => seen.push_str(&chunk),
                Err(_) => panic!("no {needle} on the listen stream: {seen}"),
            }
        }
    };
    // The acknowledgement names the host's own subscription id.
    wait_for("io.modelcontextprotocol/subscriptionId", &mut seen);
    assert!(seen.starts_with("HTTP/1.1 200"), "{seen}");
    assert!(
        !seen.contains("list_changed"),
        "nothing changed yet: {seen}"
    );

    // The first call pulls the rug; the server announces it on its listen streams.
    let call = exchange(
        &guard.url,
        "tools/call",
        Some("echo"),
        serde_json::json!({"name": "echo", "arguments": {"message": "hi"}}),
    );
    assert!(call.contains(r#""text":"hi""#), "{call}");
    wait_for("notifications/tools/list_changed", &mut seen);
    // The re-read list hides the rewritten tool.
    let list = exchange(&guard.url, "tools/list", None, serde_json::json!({}));
    assert!(list.contains(r#""name":"add""#), "{list}");
    assert!(!list.contains(r#""name":"echo""#), "{list}");
}

#[test]
fn a_token_protected_upstream_is_guarded_and_no_credential_reaches_the_audit_log() {
    const TOKEN: &str = "s3cret-guard-token";
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let header = format!("Authorization: Bearer {TOKEN}");
    let knobs = |after: &'static str| {
        vec![
            "--require-token",
            TOKEN,
            "--rug-pull",
            "description",
            "--rug-pull-after-listings",
            after,
        ]
    };
    // Locked on a twin whose rug is never pulled within the test.
    let twin = HttpFixture::start(&knobs("1000000"));
    let pin = d.join("s.lock.json");
    let mut args = words(&["lock", "--timeout", TIMEOUT, "--header", &header, "--lock"]);
    args.push(pin.to_string_lossy().into_owned());
    args.push(twin.url.clone());
    let run = mcpseal(d, &args);
    assert_eq!(run.code, 0, "lock: {}", run.stderr);

    // Without the token the guard cannot list the upstream: it does not start.
    let upstream = HttpFixture::start(&knobs("2"));
    let mut args = words(&["guard", "--timeout", TIMEOUT, "--lock"]);
    args.push(pin.to_string_lossy().into_owned());
    args.extend(words(&[
        "--upstream",
        &upstream.url,
        "--listen",
        "127.0.0.1:0",
    ]));
    let refused = mcpseal(d, &args);
    assert_eq!(refused.code, 2, "{}", refused.stderr);

    // With it: the start-up listing (1) and the host's first listing (2, which pulls the rug)
    // pass; the next listing hides the rewritten tool and its call is refused, both audited.
    let audit = d.join("audit.jsonl");
    #[expect(
        clippy::disallowed_methods,
        reason = "the test starts the guard it puts between client and server"
    )]
    let mut child = std::process::Command::new(bin())
        .current_dir(d)
        .args([
            "guard",
            "--timeout",
            TIMEOUT,
            "--header",
            &header,
            "--audit",
        ])
        .arg(&audit)
        .arg("--lock")
        .arg(&pin)
        .args(["--upstream", &upstream.url, "--listen", "127.0.0.1:0"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("guard starts");
    let url = {
        use std::io::BufRead as _;
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("the URL");
        line.trim().to_owned()
    };
    let first = exchange(&url, "tools/list", None, serde_json::json!({}));
    assert!(first.contains(r#""name":"echo""#), "{first}");
    let second = exchange(&url, "tools/list", None, serde_json::json!({}));
    assert!(!second.contains(r#""name":"echo""#), "{second}");
    let call = exchange(
        &url,
        "tools/call",
        Some("echo"),
        serde_json::json!({"name": "echo", "arguments": {"message": "hi"}}),
    );
    assert!(
        call.contains("tool:echo") && call.contains("-32602"),
        "{call}"
    );
    drop(child.stdin.take());
    let _ = child.kill();
    let out = child.wait_with_output().expect("the guard's output");
    let stderr = String::from_utf8_lossy(&out.stderr);

    let log = std::fs::read_to_string(&audit).expect("the audit log");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    assert_eq!(lines.len(), 2, "one hide, one refused call: {log}");
    assert!(
        lines
            .iter()
            .all(|l| l["item"] == "tool:echo" && l["decision"] == "block")
    );
    for (what, text) in [
        ("audit log", log.as_str()),
        ("stderr", &stderr),
        ("answers", &call),
    ] {
        assert!(
            !text.contains(TOKEN),
            "the token leaked into the {what}: {text}"
        );
    }
}
