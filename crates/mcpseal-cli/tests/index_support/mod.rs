//! Shared helpers of the `mcpseal index` end-to-end tests (`index*.rs`): running the binary,
//! checking its exit code, finding a row of a run document; and the two halves of the loopback
//! HTTP recorders that stand between `mcpseal` and a fixture server (read one request, forward
//! it upstream).

#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::time::Duration;

use assert_cmd::Command;
use serde_json::Value;

/// The bound on one `mcpseal` run (a 200-target cohort in a debug build on a loaded 2-core
/// machine stays well inside it); a run past it is killed and the test fails.
pub const TIMEOUT: Duration = Duration::from_secs(900);

/// Runs `mcpseal ARGS…` in `dir` (else the test's directory) with `env` added.
pub fn mcpseal_in(dir: Option<&Path>, env: &[(String, String)], args: &[&str]) -> Output {
    let mut cmd = Command::cargo_bin("mcpseal").expect("binary");
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .timeout(TIMEOUT);
    cmd.output().expect("runs")
}

/// Runs `mcpseal ARGS…` and asserts it exited 0.
pub fn mcpseal_ok(args: &[&str]) -> Output {
    let out = mcpseal_in(None, &[], args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "mcpseal {args:?}\nstdout {}\nstderr {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Asserts `out` exited 0 (stdout and stderr in the message when not).
pub fn ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout {}\nstderr {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The row of `id` in a run document.
pub fn row<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no row {id} in {doc:#}"))
}

/// A request as read: its request line, its headers (names lower-cased), its body.
pub type Request = (String, Vec<(String, String)>, Vec<u8>);

pub fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end().to_owned();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
    }
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some((line.trim_end().to_owned(), headers, body))
}

/// Serves `listener` on a thread of its own, each connection on its own thread (so a held
/// request does not hold the others): reads its request ([`read_request`]; a connection whose
/// request cannot be read is dropped) and hands it, with the stream to answer on, to `answer`.
pub fn serve(listener: TcpListener, answer: impl Fn(TcpStream, Request) + Send + Sync + 'static) {
    let answer = Arc::new(answer);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let answer = Arc::clone(&answer);
            std::thread::spawn(move || {
                if let Some(request) = read_request(&mut stream) {
                    answer(stream, request);
                }
            });
        }
    });
}

/// The target a recorder's request is for: the first segment of its path
/// (`POST /slow/mcp HTTP/1.1` → `slow`), empty when there is none.
pub fn target_of(line: &str) -> String {
    line.split(' ')
        .nth(1)
        .unwrap_or("")
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or("")
        .to_owned()
}

/// The upstream's answer to the request, as bytes to write back (empty when it could not be
/// reached).
pub fn forward(upstream: &str, line: &str, headers: &[(String, String)], body: &[u8]) -> Vec<u8> {
    let rest = upstream.trim_start_matches("http://");
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let Ok(mut up) = TcpStream::connect(host) else {
        return Vec::new();
    };
    let _ = up.set_read_timeout(Some(Duration::from_secs(20)));
    let method = line.split(' ').next().unwrap_or("POST");
    let mut head = format!("{method} /{path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (k, v) in headers {
        if !matches!(k.as_str(), "host" | "connection") {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str("\r\n");
    if up.write_all(head.as_bytes()).is_err() || up.write_all(body).is_err() {
        return Vec::new();
    }
    let mut answer = Vec::new();
    let _ = up.read_to_end(&mut answer);
    answer
}
