//! Added latency of `mcpseal guard` per `tools/call`, stdio and Streamable HTTP, against the Rust
//! fixture on loopback; the baseline is the same client calling the fixture directly, in the
//! same run. Also the process's resident memory while the guarded calls run (flat or not).
//!
//! The guard runs in this process (the library fronts `serve_stdio` / `serve_http`, what the
//! `mcpseal guard` command runs), so its memory is this process's; the host is a minimal
//! client written here, the same one for both sides: one request at a time, a line (stdio) or a
//! POST (HTTP), wait for its answer.
//!
//! Run: `cargo build --release -p mcpseal-fixtures && cargo bench -p mcpseal-core
//! --no-default-features --bench guard_latency` (`GUARD_BENCH_CALLS`, default 20 000 per side).
#![expect(
    clippy::disallowed_methods,
    reason = "the benchmark starts the direct baseline server itself"
)]
#![allow(missing_docs, reason = "bench binary")]
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a bench binary reports on stdout, the guard's notes on stderr"
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcpseal::client::{Options, Target, Transport};
use mcpseal::surface::Form;
use mcpseal::surface::lock::{Declared, LockFile, Version};
use mcpseal::{SnapshotOptions, capture_trusted};
use mcpseal_guard::{Guard, GuardOptions, HttpFront, Policy, ReviewHint, Upstream};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

const TIMEOUT: Duration = Duration::from_secs(30);

fn calls() -> usize {
    std::env::var("GUARD_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000)
}

fn meta() -> Value {
    json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
           "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
           "io.modelcontextprotocol/clientCapabilities": {}})
}

fn call(id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "echo", "arguments": {"message": "hello"}, "_meta": meta()}})
}

fn list(id: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": meta()}})
}

/// The fixture's lock, captured on a connection of its own.
async fn lock_of(target: &Target) -> LockFile {
    let conn = mcpseal::open(target, Options::default())
        .await
        .expect("open the fixture");
    let trusted = capture_trusted(&conn, &SnapshotOptions::default())
        .await
        .expect("capture the fixture");
    conn.close().await;
    let surface = trusted.surface.canonical_value(Form::McpSeal1);
    let version = Version::parse("1.0.0").expect("version");
    LockFile::new(Form::McpSeal1, Declared::new(&version, surface, Vec::new()))
}

fn guard(lock: LockFile) -> Arc<Guard> {
    let options = GuardOptions {
        policy: Policy::default(),
        audit: None,
        hint: ReviewHint::default(),
        notes: Arc::new(|line: &str| eprintln!("{line}")),
        page_size: 100,
    };
    Arc::new(Guard::new(lock, options).expect("a usable lock"))
}

/// Resident memory of this process, KiB.
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

struct Run {
    micros: Vec<f64>,
    rss: Vec<(usize, u64)>,
}

impl Run {
    fn pct(&self, p: f64) -> f64 {
        let mut v = self.micros.clone();
        v.sort_by(f64::total_cmp);
        let i = ((v.len() as f64 - 1.0) * p).round() as usize;
        v[i]
    }
}

/// A line client on a byte stream pair: one request, then lines until its answer.
struct Lines<R, W> {
    reader: BufReader<R>,
    writer: W,
    line: String,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Lines<R, W> {
    async fn ask(&mut self, message: &Value) -> Value {
        let id = message["id"].clone();
        let mut text = message.to_string();
        text.push('\n');
        self.writer.write_all(text.as_bytes()).await.expect("write");
        self.writer.flush().await.expect("flush");
        loop {
            self.line.clear();
            let n = self.reader.read_line(&mut self.line).await.expect("read");
            assert!(n > 0, "the server closed its output");
            let v: Value = serde_json::from_str(self.line.trim()).expect("a JSON line");
            if v.get("id") == Some(&id) && v.get("method").is_none() {
                return v;
            }
        }
    }
}

async fn time_lines<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    lines: &mut Lines<R, W>,
    n: usize,
) -> Run {
    let first = lines.ask(&list(0)).await;
    assert!(first.get("result").is_some(), "{first}");
    for i in 0..n / 10 {
        let r = lines.ask(&call(i + 1)).await;
        assert!(r.get("result").is_some(), "{r}");
    }
    let mut run = Run {
        micros: Vec::with_capacity(n),
        rss: Vec::new(),
    };
    for i in 0..n {
        let t = Instant::now();
        let r = lines.ask(&call(n + i)).await;
        run.micros.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(r.get("result").is_some(), "{r}");
        if i % (n / 5).max(1) == 0 || i + 1 == n {
            run.rss.push((i + 1, rss_kib()));
        }
    }
    run
}

async fn stdio_direct(fixture: &str, n: usize) -> Run {
    let mut child = tokio::process::Command::new(fixture)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the fixture");
    let mut lines = Lines {
        reader: BufReader::new(child.stdout.take().expect("stdout")),
        writer: child.stdin.take().expect("stdin"),
        line: String::new(),
    };
    time_lines(&mut lines, n).await
}

async fn stdio_guarded(fixture: &str, n: usize) -> Run {
    let target = Target::stdio([fixture.to_owned()]);
    let guard = guard(lock_of(&target).await);
    let (transport, inbox) = Transport::open(&target, &Options::default())
        .await
        .expect("open the fixture");
    let upstream = Arc::new(Upstream::new(transport, TIMEOUT));
    let (host_side, guard_side) = tokio::io::duplex(1 << 20);
    let (guard_in, guard_out) = tokio::io::split(guard_side);
    tokio::spawn(mcpseal_guard::serve_stdio(
        guard, upstream, inbox, guard_in, guard_out, TIMEOUT,
    ));
    let (host_in, host_out) = tokio::io::split(host_side);
    let mut lines = Lines {
        reader: BufReader::new(host_in),
        writer: host_out,
        line: String::new(),
    };
    time_lines(&mut lines, n).await
}

async fn time_http(client: &reqwest::Client, url: &str, n: usize) -> Run {
    let post = |body: Value, method: &'static str| {
        let mut r = client
            .post(url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method);
        if method == "tools/call" {
            r = r.header("Mcp-Name", "echo");
        }
        async move {
            let text = r
                .body(body.to_string())
                .send()
                .await
                .expect("POST")
                .text()
                .await
                .expect("body");
            let v: Value = serde_json::from_str(&text).expect("a JSON body");
            assert!(v.get("result").is_some(), "{v}");
        }
    };
    post(list(0), "tools/list").await;
    for i in 0..n / 10 {
        post(call(i + 1), "tools/call").await;
    }
    let mut run = Run {
        micros: Vec::with_capacity(n),
        rss: Vec::new(),
    };
    for i in 0..n {
        let t = Instant::now();
        post(call(n + i), "tools/call").await;
        run.micros.push(t.elapsed().as_secs_f64() * 1e6);
        if i % (n / 5).max(1) == 0 || i + 1 == n {
            run.rss.push((i + 1, rss_kib()));
        }
    }
    run
}

async fn http_guarded(upstream_url: &str, client: &reqwest::Client, n: usize) -> Run {
    let target = Target::http(upstream_url.to_owned());
    let guard = guard(lock_of(&target).await);
    let (transport, _inbox) = Transport::open(&target, &Options::default())
        .await
        .expect("open the fixture");
    let upstream = Arc::new(Upstream::new(transport, TIMEOUT));
    let front = HttpFront::bind("127.0.0.1:0").await.expect("bind");
    let url = front.url();
    tokio::spawn(mcpseal_guard::serve_http(
        front,
        guard,
        upstream,
        mcpseal_server::HttpOptions::default(),
        TIMEOUT,
        std::future::pending(),
    ));
    time_http(client, &url, n).await
}

fn report(name: &str, direct: &Run, guarded: &Run) {
    let (d50, d99) = (direct.pct(0.50), direct.pct(0.99));
    let (g50, g99) = (guarded.pct(0.50), guarded.pct(0.99));
    println!(
        "{name}: direct p50 {d50:.0} µs p99 {d99:.0} µs | guarded p50 {g50:.0} µs p99 {g99:.0} µs | added p50 {:.0} µs p99 {:.0} µs | ratio p50 {:.2}×",
        g50 - d50,
        g99 - d99,
        g50 / d50
    );
    let rss: Vec<String> = guarded
        .rss
        .iter()
        .map(|(i, kib)| format!("{i}: {:.1} MiB", *kib as f64 / 1024.0))
        .collect();
    println!("{name}: RSS during the guarded calls: {}", rss.join(", "));
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else to parse.
    let n = calls();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let fixture = mcpseal_fixtures::binary().to_string_lossy().into_owned();
        println!(
            "{n} timed calls per side (after {} warm-up calls), one at a time",
            n / 10
        );
        let direct = stdio_direct(&fixture, n).await;
        let guarded = stdio_guarded(&fixture, n).await;
        report("stdio", &direct, &guarded);
        let http = mcpseal_fixtures::HttpFixture::start(&[]);
        let client = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("client");
        let direct = time_http(&client, &http.url, n).await;
        let guarded = http_guarded(&http.url, &client, n).await;
        report("http", &direct, &guarded);
    });
}
