//! `mcpseal guard` end to end, against real processes: the rug-pull fixture changing a tool
//! after it was locked (stdio both eras, Streamable HTTP), a prose-only change passing with a
//! warning, the audit log, server-to-client requests forwarded, an unchanged server passing
//! through byte for byte, and fail-closed start-up errors.
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the programs it checks"
)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// Generous: the machine running the tests may be loaded.
const WAIT: Duration = Duration::from_secs(60);

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("mcpseal")
}

fn fixture() -> String {
    mcpseal_fixtures::binary().to_string_lossy().into_owned()
}

/// Runs `mcpseal ARGS` to completion: (exit code, stdout, stderr).
fn run(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("mcpseal runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Locks the stdio fixture started with `fixture_args` into `dir/s.lock.json` (a fresh
/// connection: the honest first surface).
fn lock_stdio(dir: &Path, fixture_args: &[&str]) {
    let fx = fixture();
    let mut args = vec!["lock", "--lock", "s.lock.json", "--", &fx];
    args.extend_from_slice(fixture_args);
    let (code, _, err) = run(&args, dir);
    assert_eq!(code, 0, "lock failed: {err}");
}

/// A JSON-RPC peer on a child's stdin/stdout (the guard, or the fixture itself).
struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    /// Every line read so far, in order.
    seen: Vec<String>,
    stderr: PathBuf,
}

impl Peer {
    fn start(program: &Path, args: &[String], dir: &Path) -> Peer {
        let stderr = dir.join(format!("stderr-{}.txt", std::process::id() ^ rand_tag()));
        let mut child = Command::new(program)
            .args(args)
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).expect("stderr file"))
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Peer {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
            stderr,
        }
    }

    /// `mcpseal guard --lock s.lock.json EXTRA… -- fixture FIXTURE_ARGS…` in `dir`.
    fn guard(dir: &Path, extra: &[&str], fixture_args: &[&str]) -> Peer {
        let mut args: Vec<String> = ["guard", "--lock", "s.lock.json"]
            .iter()
            .chain(extra)
            .map(|s| (*s).to_owned())
            .collect();
        args.push("--".into());
        args.push(fixture());
        args.extend(fixture_args.iter().map(|s| (*s).to_owned()));
        Peer::start(&bin(), &args, dir)
    }

    fn direct(dir: &Path, fixture_args: &[&str]) -> Peer {
        let args: Vec<String> = fixture_args.iter().map(|s| (*s).to_owned()).collect();
        Peer::start(Path::new(&fixture()), &args, dir)
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write");
        stdin.flush().expect("flush");
    }

    /// The first line (from the start) matching `pred`; waits for it.
    fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let matches = |line: &str| serde_json::from_str::<Value>(line).ok().filter(|v| pred(v));
        if let Some(v) = self.seen.iter().find_map(|l| matches(l)) {
            return v;
        }
        loop {
            match self.lines.recv_timeout(WAIT) {
                Ok(line) => {
                    let hit = matches(&line);
                    self.seen.push(line);
                    if let Some(v) = hit {
                        return v;
                    }
                }
                Err(_) => panic!(
                    "no {what} within {WAIT:?}; read so far: {:#?}\nstderr: {}",
                    self.seen,
                    self.stderr_text()
                ),
            }
        }
    }

    fn response(&mut self, id: &Value) -> Value {
        let id = id.clone();
        self.wait_for(&format!("response to {id}"), move |v| {
            v.get("id") == Some(&id) && v.get("method").is_none()
        })
    }

    /// Sends a request and waits for its response.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        let mut m = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            m["params"] = params;
        }
        self.send(&m);
        self.response(&json!(id))
    }

    fn stderr_text(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// Closes stdin and waits for the process to end; returns its exit code.
    fn close(mut self) -> i32 {
        drop(self.stdin.take());
        for _ in 0..600 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.code().unwrap_or(-1);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("the process did not end after stdin closed");
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn rand_tag() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(1);
    N.fetch_add(1, Ordering::Relaxed) << 16
}

/// The 2026 per-request envelope.
fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
           "io.modelcontextprotocol/clientCapabilities": {}})
}

fn modern(mut params: Value) -> Value {
    if params.is_null() {
        params = json!({});
    }
    params["_meta"] = meta();
    params
}

fn initialize(peer: &mut Peer) {
    let r = peer.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {"sampling": {}, "elicitation": {}},
               "clientInfo": {"name": "host", "version": "1"}}),
    );
    assert!(r.get("result").is_some(), "initialize failed: {r}");
    peer.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
}

fn tool_names(list: &Value) -> Vec<String> {
    let mut names: Vec<String> = list
        .pointer("/result/tools")
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("not a tools/list result: {list}"))
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    names.sort();
    names
}

fn audit_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("an audit line is JSON"))
        .collect()
}

fn list_changed(v: &Value) -> bool {
    v.get("method").and_then(Value::as_str) == Some("notifications/tools/list_changed")
}

#[test]
fn a_2025_stdio_rug_pull_is_hidden_refused_and_audited() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fx = [
        "--mode",
        "legacy",
        "--rug-pull",
        "description",
        "--list-changed",
    ];
    lock_stdio(dir.path(), &fx);
    let mut g = Peer::guard(dir.path(), &["--audit", "audit.jsonl"], &fx);
    initialize(&mut g);
    let first = g.request(2, "tools/list", Value::Null);
    assert_eq!(tool_names(&first), ["add", "archive", "clock", "echo"]);
    // The fixture pulled the rug after that answer and says so; the guard passes it on.
    g.wait_for("list_changed", list_changed);
    let second = g.request(3, "tools/list", Value::Null);
    assert_eq!(
        tool_names(&second),
        ["add", "archive", "clock"],
        "echo is hidden"
    );
    let refused = g.request(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hi"}}),
    );
    let error = &refused["error"];
    assert_eq!(error["code"], -32602, "{refused}");
    let message = error["message"].as_str().unwrap_or_default();
    for part in [
        "tool `echo`",
        "description",
        "changed since it was locked",
        "mcpseal guard review --lock s.lock.json",
        "mcpseal guard approve tool:echo --lock s.lock.json",
    ] {
        assert!(message.contains(part), "{part:?} missing from {message}");
    }
    assert_eq!(error["data"]["mcpsealGuard"]["item"], "tool:echo");
    // An unchanged tool still works.
    let sum = g.request(
        5,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    );
    assert_eq!(
        sum.pointer("/result/structuredContent/sum"),
        Some(&json!(5))
    );
    assert_eq!(g.close(), 0);

    let audit = audit_lines(&dir.path().join("audit.jsonl"));
    assert_eq!(audit.len(), 2, "one hide, one refused call: {audit:#?}");
    assert_eq!(audit[0]["event"], "listing");
    assert_eq!(audit[1]["event"], "call");
    for line in &audit {
        assert_eq!(line["item"], "tool:echo");
        assert_eq!(line["decision"], "block");
        assert_eq!(line["classes"], json!(["description"]));
        assert_eq!(line["server"], "mcpseal-fixture");
        assert!(line["lockedSha256"].is_string() && line["time"].is_string());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("audit.jsonl"))
            .expect("audit log")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[test]
fn a_prose_only_change_passes_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fx = ["--mode", "legacy", "--rug-pull", "prose", "--list-changed"];
    lock_stdio(dir.path(), &fx);
    let mut g = Peer::guard(dir.path(), &["--audit", "audit.jsonl"], &fx);
    initialize(&mut g);
    g.request(2, "tools/list", Value::Null);
    g.wait_for("list_changed", list_changed);
    let second = g.request(3, "tools/list", Value::Null);
    assert_eq!(tool_names(&second), ["add", "archive", "clock", "echo"]);
    let echoed = g.request(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hi"}}),
    );
    assert!(echoed.get("result").is_some(), "forwarded: {echoed}");
    let stderr = g.stderr_text();
    assert!(stderr.contains("warns about tool:echo"), "{stderr}");
    assert_eq!(g.close(), 0);
    let audit = audit_lines(&dir.path().join("audit.jsonl"));
    assert_eq!(audit.len(), 1, "{audit:#?}");
    assert_eq!(audit[0]["decision"], "warn");
    assert_eq!(audit[0]["classes"], json!(["prose"]));
}

#[test]
fn warn_mode_forwards_the_rug_pull_and_logs_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fx = [
        "--mode",
        "legacy",
        "--rug-pull",
        "description",
        "--list-changed",
    ];
    lock_stdio(dir.path(), &fx);
    let mut g = Peer::guard(dir.path(), &["--mode", "warn", "--audit", "a.jsonl"], &fx);
    initialize(&mut g);
    g.request(2, "tools/list", Value::Null);
    g.wait_for("list_changed", list_changed);
    let second = g.request(3, "tools/list", Value::Null);
    assert!(tool_names(&second).contains(&"echo".to_owned()));
    let echoed = g.request(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hi"}}),
    );
    assert!(echoed.get("result").is_some(), "{echoed}");
    assert_eq!(g.close(), 0);
    let audit = audit_lines(&dir.path().join("a.jsonl"));
    assert_eq!(audit.len(), 1, "{audit:#?}");
    assert_eq!(audit[0]["decision"], "warn");
    assert_eq!(audit[0]["mode"], "warn");
}

/// Every rug-pull variant on 2026 stdio: what the host sees after the change, and which call is
/// refused. The guard re-reads the list on each host list request.
#[test]
fn every_2026_stdio_rug_pull_variant_is_caught() {
    // (how, tools the host sees after the pull, a refused call, the drift class named)
    let cases: [(&str, &[&str], &str, &str); 8] = [
        (
            "description",
            &["add", "archive", "clock"],
            "echo",
            "description",
        ),
        (
            "read-only",
            &["add", "archive", "echo"],
            "clock",
            "annotations",
        ),
        (
            "destructive",
            &["add", "clock", "echo"],
            "archive",
            "annotations",
        ),
        (
            "widen-schema",
            &["add", "archive", "clock"],
            "echo",
            "input-schema",
        ),
        (
            "add-tool",
            &["add", "archive", "clock", "echo"],
            "exfiltrate",
            "added",
        ),
        ("rename", &["add", "archive", "clock"], "echo_v2", "renamed"),
        ("meta", &["add", "archive", "clock"], "echo", "meta"),
        // A prose-only change is only a warning: nothing hidden, the call forwarded.
        ("prose", &["add", "archive", "clock", "echo"], "", "prose"),
    ];
    for (how, visible, refused, class) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let fx = ["--rug-pull", how];
        lock_stdio(dir.path(), &fx);
        let mut g = Peer::guard(dir.path(), &[], &fx);
        let first = g.request(1, "tools/list", modern(Value::Null));
        assert_eq!(
            tool_names(&first),
            ["add", "archive", "clock", "echo"],
            "{how}"
        );
        let second = g.request(2, "tools/list", modern(Value::Null));
        assert_eq!(tool_names(&second), visible, "{how}");
        if refused.is_empty() {
            let r = g.request(
                3,
                "tools/call",
                modern(json!({"name": "echo", "arguments": {"message": "x"}})),
            );
            assert!(r.get("result").is_some(), "{how}: {r}");
        } else {
            let r = g.request(
                3,
                "tools/call",
                modern(json!({"name": refused, "arguments": {}})),
            );
            assert_eq!(r.pointer("/error/code"), Some(&json!(-32602)), "{how}: {r}");
            let message = r.pointer("/error/message").and_then(Value::as_str);
            let message = message.unwrap_or_default();
            assert!(
                message.contains(&format!("`{refused}`")),
                "{how}: {message}"
            );
            let classes = r
                .pointer("/error/data/mcpsealGuard/classes")
                .cloned()
                .unwrap_or_default();
            assert!(
                classes.to_string().contains(class),
                "{how}: {class} not in {classes}"
            );
        }
        assert_eq!(g.close(), 0, "{how}");
    }
}

/// Runs `requests` through `peer` (waiting for each answer, answering the fixture's
/// server-to-client request) and returns every line it wrote, sorted.
fn transcript(mut peer: Peer, requests: &[Value]) -> Vec<String> {
    for r in requests {
        peer.send(r);
        if let Some(id) = r.get("id") {
            if r["method"] == "tools/call" {
                // The fixture asks the client first; the host answers.
                let ask = peer.wait_for("server request", |v| {
                    v.get("method").is_some() && v.get("id").is_some()
                });
                peer.send(&json!({"jsonrpc": "2.0", "id": ask["id"],
                    "result": {"role": "assistant", "model": "host", "content": {"type": "text", "text": "ok"}}}));
            }
            peer.response(id);
        }
    }
    let mut lines = peer.seen.clone();
    assert_eq!(peer.close(), 0);
    lines.sort();
    lines
}

#[test]
fn an_unchanged_server_passes_through_byte_for_byte_both_eras() {
    let legacy = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}}, "clientInfo": {"name": "host", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/list"}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/list"}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
    ];
    let modern_requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": modern(Value::Null)}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": modern(Value::Null)}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": modern(json!({"name": "echo", "arguments": {"message": "hi"}}))}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/list", "params": modern(Value::Null)}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "resources/templates/list", "params": modern(Value::Null)}),
    ];
    let ask = [
        "--ask-client",
        "tools/call",
        "--ask-with",
        "sampling/createMessage",
    ];
    for (mode, requests) in [("legacy", &legacy[..]), ("modern", &modern_requests[..])] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut fx = vec!["--mode", mode];
        fx.extend_from_slice(&ask);
        lock_stdio(dir.path(), &fx);
        let direct = transcript(Peer::direct(dir.path(), &fx), requests);
        let guarded = transcript(Peer::guard(dir.path(), &[], &fx), requests);
        assert_eq!(
            guarded, direct,
            "{mode}: the guard changed what the host sees"
        );
        assert!(
            direct.iter().any(|l| l.contains("sampling/createMessage")),
            "{mode}: the server-to-client request went through"
        );
        assert!(
            direct.iter().any(|l| l.contains("askedClient")),
            "{mode}: the host's answer reached the server"
        );
    }
}

#[test]
fn a_lock_for_another_server_refuses_everything() {
    let dir = tempfile::tempdir().expect("tempdir");
    let other = json!({"serverInfo": {"name": "other", "version": "1.0.0"},
        "tools": [{"name": "add", "inputSchema": {"type": "object"}}]});
    std::fs::write(dir.path().join("other.json"), other.to_string()).expect("write");
    lock_stdio(dir.path(), &["--mode", "legacy", "--surface", "other.json"]);
    let mut g = Peer::guard(dir.path(), &[], &["--mode", "legacy"]);
    let init = g.request(
        1,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "host", "version": "1"}}),
    );
    assert_eq!(init.pointer("/error/code"), Some(&json!(-32603)), "{init}");
    let message = init.pointer("/error/message").and_then(Value::as_str);
    assert!(
        message.is_some_and(|m| m.contains("`other`") && m.contains("mcpseal-fixture")),
        "{init}"
    );
    let list = g.request(2, "tools/list", Value::Null);
    assert_eq!(list.pointer("/error/code"), Some(&json!(-32603)), "{list}");
    let call = g.request(
        3,
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
    );
    assert_eq!(call.pointer("/error/code"), Some(&json!(-32603)), "{call}");
    drop(g);
}

#[test]
fn start_up_errors_fail_closed_with_a_hint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fx = fixture();
    let (code, out, err) = run(&["guard", "--lock", "missing.json", "--", &fx], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("no lock file at `missing.json`") && err.contains("hint:"),
        "{err}"
    );
    lock_stdio(dir.path(), &[]);
    std::fs::write(
        dir.path().join("bad.toml"),
        "[classes]\nnosuch = \"block\"\n",
    )
    .expect("write");
    let (code, _, err) = run(
        &[
            "guard",
            "--lock",
            "s.lock.json",
            "--policy",
            "bad.toml",
            "--",
            &fx,
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.toml") && err.contains("nosuch"), "{err}");
    let (code, _, err) = run(
        &[
            "guard",
            "--lock",
            "s.lock.json",
            "--listen",
            "127.0.0.1:0",
            "--",
            &fx,
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run(&["guard", "--lock", "s.lock.json"], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("no server given"), "{err}");
}

/// `mcpseal guard --lock s.lock.json --upstream URL --listen 127.0.0.1:0` in `dir`; its
/// endpoint URL.
fn http_guard(dir: &Path, upstream: &str) -> (Peer, String) {
    let args: Vec<String> = [
        "guard",
        "--lock",
        "s.lock.json",
        "--upstream",
        upstream,
        "--listen",
        "127.0.0.1:0",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let peer = Peer::start(&bin(), &args, dir);
    let url = match peer.lines.recv_timeout(WAIT) {
        Ok(line) => line.trim().to_owned(),
        Err(_) => panic!("the guard printed no URL: {}", peer.stderr_text()),
    };
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    (peer, url)
}

/// `mcpseal rpc METHOD URL` (2025 with the handshake, else 2026): the response.
fn rpc(dir: &Path, era: &str, method: &str, params: &Value, url: &str) -> Value {
    let params = params.to_string();
    let mut args = vec!["rpc", "--era", era, method, "--params", &params, url];
    if era == "2025-11-25" {
        args.insert(1, "--handshake");
    }
    let (_, out, err) = run(&args, dir);
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|_| panic!("rpc: {out}\n{err}"));
    doc["exchange"]["response"].clone()
}

#[test]
fn the_http_front_blocks_a_rug_pull_and_passes_the_rest_untouched_both_eras() {
    for (mode, era) in [("modern", "2026-07-28"), ("legacy", "2025-11-25")] {
        let dir = tempfile::tempdir().expect("tempdir");
        let d = dir.path();
        // Locked on a twin that never pulls its rug (one HTTP process serves every connection).
        let twin = mcpseal_fixtures::HttpFixture::start(&[
            "--mode",
            mode,
            "--rug-pull",
            "description",
            "--rug-pull-after-calls",
            "1000000",
            "--list-changed",
            "--ask-client",
            "tools/call",
            "--ask-with",
            "elicitation/create",
        ]);
        let (code, _, err) = run(&["lock", "--lock", "s.lock.json", &twin.url], d);
        assert_eq!(code, 0, "{mode}: {err}");
        // The guard's start-up listing (fail closed) is the first this process answers.
        let upstream = mcpseal_fixtures::HttpFixture::start(&[
            "--mode",
            mode,
            "--rug-pull",
            "description",
            "--rug-pull-after-listings",
            "2",
            "--list-changed",
            "--ask-client",
            "tools/call",
            "--ask-with",
            "elicitation/create",
        ]);
        let (guard, url) = http_guard(d, &upstream.url);
        let list = rpc(d, era, "tools/list", &json!({}), &url);
        assert_eq!(
            tool_names(&list),
            ["add", "archive", "clock", "echo"],
            "{mode}"
        );
        // That listing pulled the rug; the next one is read again and judged.
        let list = rpc(d, era, "tools/list", &json!({}), &url);
        assert_eq!(tool_names(&list), ["add", "archive", "clock"], "{mode}");
        let echo = json!({"name": "echo", "arguments": {"message": "hi"}});
        let refused = rpc(d, era, "tools/call", &echo, &url);
        assert_eq!(
            refused.pointer("/error/code"),
            Some(&json!(-32602)),
            "{mode}: {refused}"
        );
        assert_eq!(
            refused["error"]["data"]["mcpsealGuard"]["item"],
            "tool:echo"
        );
        // What is not blocked is what the server says, byte for byte once parsed.
        let add = json!({"name": "add", "arguments": {"a": 2, "b": 3}});
        // The fixture numbers its requests to the client: the one number that may differ.
        let unnumbered = |mut v: Value| {
            if let Some(asked) = v
                .pointer_mut("/result/askedClient")
                .and_then(Value::as_object_mut)
            {
                asked.remove("id");
            }
            v
        };
        let through = unnumbered(rpc(d, era, "tools/call", &add, &url));
        let direct = unnumbered(rpc(d, era, "tools/call", &add, &upstream.url));
        // The server asked the client (elicitation) mid-call, on the call's event stream; the
        // client's answer went back through the guard.
        assert_eq!(
            through.pointer("/result/askedClient/error/message"),
            Some(&json!("mcpseal does not serve client methods")),
            "{mode}: the client's own answer: {through}"
        );
        assert_eq!(through, direct, "{mode}");
        let prompts = rpc(d, era, "prompts/list", &json!({}), &url);
        let direct = rpc(d, era, "prompts/list", &json!({}), &upstream.url);
        assert_eq!(prompts, direct, "{mode}");
        drop(guard);
    }
}

#[test]
fn the_stdio_front_guards_an_http_upstream() {
    let dir = tempfile::tempdir().expect("tempdir");
    let twin = mcpseal_fixtures::HttpFixture::start(&[
        "--rug-pull",
        "widen-schema",
        "--rug-pull-after-calls",
        "1000000",
    ]);
    let (code, _, err) = run(&["lock", "--lock", "s.lock.json", &twin.url], dir.path());
    assert_eq!(code, 0, "{err}");
    // The guard's start-up listing (fail closed) is the first this process answers.
    let upstream = mcpseal_fixtures::HttpFixture::start(&[
        "--rug-pull",
        "widen-schema",
        "--rug-pull-after-listings",
        "2",
    ]);
    let args: Vec<String> = [
        "guard",
        "--lock",
        "s.lock.json",
        "--upstream",
        &upstream.url,
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let mut g = Peer::start(&bin(), &args, dir.path());
    let first = g.request(1, "tools/list", modern(Value::Null));
    assert_eq!(tool_names(&first), ["add", "archive", "clock", "echo"]);
    let second = g.request(2, "tools/list", modern(Value::Null));
    assert_eq!(tool_names(&second), ["add", "archive", "clock"]);
    let r = g.request(
        3,
        "tools/call",
        modern(json!({"name": "echo", "arguments": {"path": "/etc/passwd"}})),
    );
    assert_eq!(r.pointer("/error/code"), Some(&json!(-32602)), "{r}");
    let r = g.request(
        4,
        "tools/call",
        modern(json!({"name": "add", "arguments": {"a": 1, "b": 1}})),
    );
    assert_eq!(
        r.pointer("/result/structuredContent/sum"),
        Some(&json!(2)),
        "{r}"
    );
    assert_eq!(g.close(), 0);
}

/// The rule ids `mcpseal probe --format json TARGET…` reports.
fn probe_rules(dir: &Path, target: &[&str]) -> Vec<String> {
    let mut args = vec!["probe", "--format", "json"];
    args.extend_from_slice(target);
    let (_, out, err) = run(&args, dir);
    let report: Value =
        serde_json::from_str(&out).unwrap_or_else(|_| panic!("probe: {out}\n{err}"));
    assert_eq!(report["summary"]["crashed"], 0, "{out}");
    let mut rules: Vec<String> = report["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["ruleId"].as_str().map(str::to_owned))
        .collect();
    rules.sort();
    rules
}

#[test]
fn the_probe_finds_nothing_through_the_guard_that_the_fixture_alone_does_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let fx = fixture();
    let guard = bin().to_string_lossy().into_owned();
    lock_stdio(d, &[]);
    let direct = probe_rules(d, &["--", &fx]);
    let through = probe_rules(
        d,
        &["--", &guard, "guard", "--lock", "s.lock.json", "--", &fx],
    );
    assert_eq!(through, direct, "stdio");

    let upstream = mcpseal_fixtures::HttpFixture::start(&[]);
    let (code, _, err) = run(&["lock", "--lock", "s.lock.json", &upstream.url], d);
    assert_eq!(code, 0, "{err}");
    let (g, url) = http_guard(d, &upstream.url);
    let direct = probe_rules(d, &[&upstream.url]);
    let through = probe_rules(d, &[&url]);
    assert_eq!(through, direct, "Streamable HTTP");
    drop(g);
}

#[test]
fn the_policy_decides_per_class_and_per_item() {
    let fx = [
        "--mode",
        "legacy",
        "--rug-pull",
        "description",
        "--list-changed",
    ];
    // (policy, echo visible after the pull, audit decisions)
    let cases: [(&str, bool, &[&str]); 3] = [
        (
            "[items.\"tool:echo\"]\ndescription = \"warn\"\n",
            true,
            &["warn"],
        ),
        ("[classes]\ndescription = \"allow\"\n", true, &[]),
        // An item rule for another tool leaves echo under the global default (block).
        (
            "[items.\"tool:add\"]\ndescription = \"allow\"\n",
            false,
            &["block"],
        ),
    ];
    for (policy, visible, decisions) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        lock_stdio(dir.path(), &fx);
        std::fs::write(dir.path().join("guard.toml"), policy).expect("write");
        let mut g = Peer::guard(
            dir.path(),
            &["--policy", "guard.toml", "--audit", "a.jsonl"],
            &fx,
        );
        initialize(&mut g);
        g.request(2, "tools/list", Value::Null);
        g.wait_for("list_changed", list_changed);
        let second = g.request(3, "tools/list", Value::Null);
        assert_eq!(
            tool_names(&second).contains(&"echo".to_owned()),
            visible,
            "{policy}"
        );
        assert_eq!(g.close(), 0);
        let audit = audit_lines(&dir.path().join("a.jsonl"));
        let got: Vec<&str> = audit
            .iter()
            .filter_map(|l| l["decision"].as_str())
            .collect();
        assert_eq!(got, decisions, "{policy}");
    }
}

#[test]
fn wrap_and_unwrap_round_trip_host_configs_and_the_wrapped_entry_runs_behind_the_guard() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let fx = fixture();
    // Claude Desktop / Cursor: `mcpServers`, stdio and URL entries; hand-written spacing.
    let claude = format!(
        "{{\n    \"mcpServers\": {{\n        \"fx\": {{ \"command\": {fx:?}, \"args\": [\"--mode\", \"legacy\"] }},\n        \"remote\": {{ \"url\": \"https://example.com/mcp\", \"headers\": {{ \"Authorization\": \"Bearer s3cret\" }} }}\n    }},\n    \"theme\": \"dark\"\n}}\n"
    );
    // VS Code: `servers`, with `type`.
    let vscode = "{\"servers\":{\"api\":{\"type\":\"http\",\"url\":\"http://127.0.0.1:9/mcp\"},\"cli\":{\"type\":\"stdio\",\"command\":\"node\",\"args\":[\"s.js\"]}},\"inputs\":[]}";
    for (name, text) in [("claude.json", claude.as_str()), ("mcp.json", vscode)] {
        let config = d.join(name);
        std::fs::write(&config, text).expect("write");
        let (code, out, err) = run(&["guard", "wrap", name, "--locks", "locks"], d);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains("wrapped"), "{out}");
        let wrapped = std::fs::read_to_string(&config).expect("read");
        assert_ne!(wrapped, text);
        assert!(
            !wrapped.contains("s3cret\"]"),
            "no credential in args: {wrapped}"
        );
        let doc: Value = serde_json::from_str(&wrapped).expect("JSON");
        let servers = doc
            .get("mcpServers")
            .or_else(|| doc.get("servers"))
            .and_then(Value::as_object)
            .expect("servers");
        for (server, entry) in servers {
            assert_eq!(entry["args"][0], "guard", "{server}");
            let lock = entry["args"][2].as_str().unwrap_or_default();
            assert!(Path::new(lock).is_absolute(), "{server}: {lock}");
        }
        // Twice: nothing changes.
        let (code, out, _) = run(&["guard", "wrap", name, "--locks", "locks"], d);
        assert_eq!(code, 0);
        assert!(out.contains("already") && !out.contains("wrapped"), "{out}");
        assert_eq!(std::fs::read_to_string(&config).expect("read"), wrapped);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let backup = d.join(format!("{name}.mcpseal-guard.bak"));
            let mode = std::fs::metadata(&backup)
                .expect("backup")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        if name == "claude.json" {
            // The wrapped stdio entry, started as the host would, is the guard in front of the
            // fixture, enforcing the lock written where the entry says.
            let fx_entry = &servers["fx"];
            let lock = fx_entry["args"][2].as_str().expect("lock path");
            let (code, _, err) = run(&["lock", "--lock", lock, "--", &fx, "--mode", "legacy"], d);
            assert_eq!(code, 0, "{err}");
            let args: Vec<String> = fx_entry["args"]
                .as_array()
                .expect("args")
                .iter()
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect();
            let program = fx_entry["command"].as_str().expect("command");
            let other = tempfile::tempdir().expect("another cwd");
            let mut g = Peer::start(Path::new(program), &args, other.path());
            initialize(&mut g);
            let list = g.request(2, "tools/list", Value::Null);
            assert_eq!(tool_names(&list), ["add", "clock", "echo"]);
            assert_eq!(g.close(), 0);
        }
        let (code, _, err) = run(&["guard", "unwrap", name], d);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            std::fs::read_to_string(&config).expect("read"),
            text,
            "byte-identical after unwrap"
        );
        let (code, _, err) = run(&["guard", "unwrap", name], d);
        assert_eq!(code, 2, "no backup left: {err}");
        assert!(err.contains("hint:"), "{err}");
    }
}

/// Fail closed at start: an upstream whose listing fails (it crashes mid-listing, or never
/// answers `tools/list`) ends the guard with exit 2 and a hint before it serves anything; the
/// same lock in front of the healthy server starts and answers.
#[test]
fn an_upstream_whose_listing_fails_stops_the_guard_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fx = fixture();
    lock_stdio(dir.path(), &[]);
    let (code, out, err) = run(
        &[
            "guard",
            "--lock",
            "s.lock.json",
            "--",
            &fx,
            "--crash-after",
            "1",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("so the guard does not start") && err.contains("hint:"),
        "{err}"
    );
    let (code, out, err) = run(
        &[
            "guard",
            "--lock",
            "s.lock.json",
            "--timeout",
            "2s",
            "--",
            &fx,
            "--hang-on",
            "tools/list",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(err.contains("so the guard does not start"), "{err}");
    // The good side: the healthy server behind the same lock is served.
    let mut peer = Peer::guard(dir.path(), &[], &[]);
    let list = peer.request(2, "tools/list", modern(Value::Null));
    assert!(!tool_names(&list).is_empty(), "{list}");
}
