//! The stdio transport against real child processes (the fixture server), including servers
//! that crash, hang, flood, or write garbage.

use std::time::{Duration, Instant};

use mcpseal_client::{ConnectError, Connection, Options, Request, Target, TransportErrorKind};
use mcpseal_fixtures::stdio_argv;

/// Generous deadline for a whole test: a hang fails the test instead of stalling the suite.
const DEADLINE: Duration = Duration::from_secs(30);

async fn open(args: &[&str], options: Options) -> Connection {
    Connection::open(&Target::stdio(stdio_argv(args)), options)
        .await
        .expect("fixture starts")
}

fn quick(timeout_ms: u64) -> Options {
    Options {
        timeout: Duration::from_millis(timeout_ms),
        ..Options::default()
    }
}

async fn with_deadline<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(DEADLINE, f)
        .await
        .expect("test finished within its deadline");
}

#[tokio::test]
async fn modern_listing_and_notifications() {
    with_deadline(async {
        let conn = open(&["--mode", "modern"], Options::default()).await;
        let ex = conn.send(Request::modern("tools/list", None)).await;
        let tools = ex
            .result()
            .and_then(|r| r.get("tools"))
            .and_then(|t| t.as_array());
        assert_eq!(tools.map(Vec::len), Some(3), "{ex:?}");
        assert_eq!(ex.request["id"], 1);
        // Ids count up and responses are matched by id.
        let second = conn.send(Request::modern("prompts/list", None)).await;
        assert_eq!(
            second.response.as_ref().map(|r| r["id"].clone()),
            Some(2.into())
        );
        // A JSON-RPC error is an answer, not a transport error.
        let unknown = conn.send(Request::modern("nope/nothing", None)).await;
        assert_eq!(unknown.error_code(), Some(-32601));
        assert!(unknown.transport_error.is_none());
        conn.close().await;
    })
    .await;
}

#[tokio::test]
async fn non_json_stdout_lines_are_kept_as_diagnostics() {
    with_deadline(async {
        let conn = open(&["--mode", "modern", "--noise"], Options::default()).await;
        let ex = conn.send(Request::modern("server/discover", None)).await;
        assert!(ex.result().is_some(), "{ex:?}");
        let diags = conn.diagnostics();
        assert!(
            diags.iter().any(|d| d.starts_with("[non-JSON stdout]")),
            "{diags:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_crash_mid_request_fails_fast_with_the_exit_code() {
    with_deadline(async {
        let conn = open(&["--mode", "modern", "--crash-after", "1"], quick(20_000)).await;
        let first = conn.send(Request::modern("server/discover", None)).await;
        assert!(first.result().is_some(), "{first:?}");
        let started = Instant::now();
        let second = conn.send(Request::modern("tools/list", None)).await;
        let err = second.transport_error.expect("a transport error");
        assert_eq!(err.kind, TransportErrorKind::Closed, "{err:?}");
        assert!(err.message.contains("exit code 3"), "{}", err.message);
        // Resolved by the child's exit, not by the 20 s timeout.
        assert!(started.elapsed() < Duration::from_secs(5));
        // Later requests fail at once.
        let third = conn.send(Request::modern("tools/list", None)).await;
        assert!(third.transport_error.is_some());
    })
    .await;
}

#[tokio::test]
async fn a_server_that_never_answers_times_out() {
    with_deadline(async {
        let conn = open(&["--mode", "modern", "--hang-on", "tools/list"], quick(400)).await;
        let started = Instant::now();
        let ex = conn.send(Request::modern("tools/list", None)).await;
        let err = ex.transport_error.expect("timeout");
        assert_eq!(err.kind, TransportErrorKind::Timeout);
        assert!(started.elapsed() < Duration::from_secs(3));
        // The connection is still usable for other methods.
        let ok = conn.send(Request::modern("prompts/list", None)).await;
        assert!(ok.result().is_some(), "{ok:?}");
    })
    .await;
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[tokio::test]
async fn a_100_mb_line_is_refused_with_bounded_memory() {
    with_deadline(async {
        let before = peak_rss_kib();
        let mut options = quick(20_000);
        options.limits.max_message_bytes = 1024 * 1024;
        let conn = open(&["--mode", "modern", "--flood"], options).await;
        let started = Instant::now();
        let ex = conn.send(Request::modern("server/discover", None)).await;
        let err = ex.transport_error.expect("oversize");
        assert_eq!(err.kind, TransportErrorKind::Oversize, "{err:?}");
        assert!(err.message.contains("1048576"), "{}", err.message);
        assert!(started.elapsed() < Duration::from_secs(15));
        if let (Some(before), Some(after)) = (before, peak_rss_kib()) {
            // 100 MB went through the pipe; the peak grew by far less.
            assert!(
                after.saturating_sub(before) < 48 * 1024,
                "{before} → {after} KiB"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn invalid_utf8_is_a_clear_transport_error() {
    with_deadline(async {
        let conn = open(&["--mode", "modern", "--invalid-utf8"], quick(5_000)).await;
        let ex = conn.send(Request::modern("server/discover", None)).await;
        let err = ex.transport_error.expect("error");
        assert_eq!(err.kind, TransportErrorKind::InvalidUtf8, "{err:?}");
    })
    .await;
}

#[tokio::test]
async fn half_a_message_then_exit_is_a_clear_transport_error() {
    with_deadline(async {
        let conn = open(&["--mode", "modern", "--half-message"], quick(5_000)).await;
        let ex = conn.send(Request::modern("server/discover", None)).await;
        let err = ex.transport_error.expect("error");
        assert_eq!(err.kind, TransportErrorKind::Closed, "{err:?}");
        assert!(
            err.message.contains("incomplete message"),
            "{}",
            err.message
        );
    })
    .await;
}

#[tokio::test]
async fn a_program_that_does_not_exist_cannot_be_spawned() {
    let err = Connection::open(
        &Target::stdio(["/nonexistent/mcp-server-binary"]),
        Options::default(),
    )
    .await
    .err()
    .expect("spawn fails");
    assert!(matches!(err, ConnectError::Spawn { .. }), "{err}");
}

#[tokio::test]
async fn the_legacy_handshake_opens_a_session_over_stdio() {
    with_deadline(async {
        let conn = open(&["--mode", "legacy"], Options::default()).await;
        let before = conn.send(Request::legacy("tools/list", None)).await;
        assert!(
            before.error().is_some(),
            "a stateful server refuses before initialize"
        );
        let (init, initialized) = conn.handshake().await;
        assert_eq!(
            init.result().map(|r| r["protocolVersion"].clone()),
            Some("2025-11-25".into())
        );
        assert!(initialized.is_some_and(|n| n.transport_error.is_none()));
        let after = conn.send(Request::legacy("tools/list", None)).await;
        assert!(after.result().is_some(), "{after:?}");
    })
    .await;
}

fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/status")) {
        Ok(status) => !status
            .lines()
            .any(|l| l.starts_with("State:") && l.contains('Z')),
        Err(_) => false,
    }
}

#[tokio::test]
async fn dropping_the_connection_kills_the_child() {
    with_deadline(async {
        let conn = open(&["--mode", "modern"], quick(2_000)).await;
        let ex = conn.send(Request::modern("server/discover", None)).await;
        assert!(ex.result().is_some());
        let pid = conn.process_id().expect("a stdio child has a pid");
        assert!(process_alive(pid));
        drop(conn);
        let started = Instant::now();
        while process_alive(pid) {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "child {pid} still alive"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
}
