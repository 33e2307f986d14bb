//! Shared test helpers: spawn the real fixture binary, speak newline JSON-RPC over its
//! stdio, or raw HTTP/1.1 over a `TcpStream` (no HTTP client crate on purpose: the tests
//! must see status codes, headers and SSE bytes exactly as sent).

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// Deadline for any single test: a hang guard, sized for a loaded 2-core machine.
/// `stdio::pagination_and_big_surfaces` (10 000 tools through a debug fixture and client) went
/// past the former 20 s at load 21 while other builds ran.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// Path of the built fixture.
pub const BIN: &str = env!("CARGO_BIN_EXE_mcpseal-fixture");

/// The 2026 `_meta` envelope.
pub fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "fixture-tests", "version": "0"}
    })
}

/// A request with the 2026 envelope merged into `params`.
pub fn modern(id: u64, method: &str, mut params: Value) -> Value {
    params["_meta"] = meta();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A request without `_meta`.
pub fn bare(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A legacy `initialize`.
pub fn initialize(id: u64) -> Value {
    bare(
        id,
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "fixture-tests", "version": "0"}}),
    )
}

/// A fixture child over stdio.
pub struct StdioFixture {
    pub child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl StdioFixture {
    pub fn spawn(args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn fixture");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Self {
            child,
            stdin,
            stdout,
        }
    }

    pub async fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .expect("write");
        stdin.flush().await.expect("flush");
    }

    /// Next stdout line, raw.
    pub async fn line(&mut self) -> String {
        let mut s = String::new();
        let n = self.stdout.read_line(&mut s).await.expect("read stdout");
        assert!(n > 0, "fixture closed stdout");
        s
    }

    pub async fn recv(&mut self) -> Value {
        let l = self.line().await;
        serde_json::from_str(&l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))
    }

    pub async fn call(&mut self, msg: &Value) -> Value {
        self.send(msg).await;
        self.recv().await
    }

    /// Close stdin and wait for the exit code.
    pub async fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().await.expect("wait").code()
    }

    pub async fn wait(&mut self) -> Option<i32> {
        self.child.wait().await.expect("wait").code()
    }
}

/// A fixture child serving HTTP; dropping it kills the child.
pub struct HttpFixture {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub port: u16,
}

/// A raw HTTP response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

impl HttpFixture {
    pub async fn spawn(args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .arg("--http")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn fixture");
        let stdin = child.stdin.take();
        let mut out = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        out.read_line(&mut line).await.expect("url line");
        let port = line
            .trim()
            .strip_prefix("http://127.0.0.1:")
            .and_then(|r| r.strip_suffix("/mcp"))
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line: {line:?}"));
        Self { child, stdin, port }
    }

    /// Send a raw request and read the whole response (the server must end it).
    pub async fn request(&self, method: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        let raw = self.raw(method, headers, body, None).await;
        parse(&raw)
    }

    /// Send a raw request and read until `marker` shows up in the (still open) body.
    pub async fn request_until(
        &self,
        method: &str,
        headers: &[(&str, &str)],
        body: &str,
        marker: &str,
    ) -> String {
        String::from_utf8_lossy(&self.raw(method, headers, body, Some(marker)).await).into_owned()
    }

    async fn raw(
        &self,
        method: &str,
        headers: &[(&str, &str)],
        body: &str,
        marker: Option<&str>,
    ) -> Vec<u8> {
        let mut s = TcpStream::connect(("127.0.0.1", self.port))
            .await
            .expect("connect");
        let mut req = format!(
            "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.port,
            body.len()
        );
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str("\r\n");
        req.push_str(body);
        s.write_all(req.as_bytes()).await.expect("write request");
        let mut buf = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            // A reset (the fixture exited) ends the response like EOF does.
            let n = s.read(&mut chunk).await.unwrap_or(0);
            if n == 0 {
                return buf;
            }
            buf.extend_from_slice(&chunk[..n]);
            if marker.is_some_and(|m| String::from_utf8_lossy(&buf).contains(m)) {
                return buf;
            }
        }
    }

    /// POST a JSON-RPC message with the headers a 2026 client sends (unless `extra` overrides).
    pub async fn post(&self, msg: &Value, extra: &[(&str, &str)]) -> Resp {
        let method = msg["method"].as_str().unwrap_or_default().to_owned();
        let mut h: Vec<(&str, &str)> = vec![
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        if !extra
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("mcp-method"))
        {
            h.push(("Mcp-Method", &method));
        }
        if msg.pointer("/params/_meta").is_some()
            && !extra
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("mcp-protocol-version"))
        {
            h.push(("MCP-Protocol-Version", "2026-07-28"));
        }
        let name = msg
            .pointer("/params/name")
            .or_else(|| msg.pointer("/params/uri"));
        let name = name.and_then(Value::as_str).unwrap_or_default().to_owned();
        if !name.is_empty()
            && !extra
                .iter()
                .any(|(k, _)| k.eq_ignore_ascii_case("mcp-name"))
        {
            h.push(("Mcp-Name", &name));
        }
        h.extend_from_slice(extra);
        self.request("POST", &h, &msg.to_string()).await
    }

    /// POST a legacy (header-less) message within session `sid`.
    pub async fn post_session(&self, msg: &Value, sid: &str) -> Resp {
        let h = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("Mcp-Session-Id", sid),
        ];
        self.post_raw(msg, &h).await
    }

    /// POST with only the given headers.
    pub async fn post_raw(&self, msg: &Value, headers: &[(&str, &str)]) -> Resp {
        self.request("POST", headers, &msg.to_string()).await
    }
}

/// Parse a whole HTTP/1.1 response, de-chunking the body.
pub fn parse(raw: &[u8]) -> Resp {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text.split_once("\r\n\r\n").expect("header/body separator");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Resp {
        status,
        headers,
        body,
    }
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).expect("chunk size");
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// A blocking raw `GET target` (path and query exactly as given) on 127.0.0.1:`port`.
pub fn get_raw(port: u16, target: &str, headers: &[(&str, &str)]) -> Resp {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(DEADLINE)).expect("read timeout");
    let mut req =
        format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).expect("write request");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read response");
    parse(&raw)
}

/// Run `f` under the test deadline.
pub async fn within<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(DEADLINE, f)
        .await
        .expect("test deadline exceeded");
}
