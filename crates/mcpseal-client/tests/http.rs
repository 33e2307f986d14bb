//! The Streamable HTTP transport against real sockets on 127.0.0.1: JSON and SSE answers,
//! legacy sessions, endless streams, raw GETs and metadata fetches.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::{Duration, Instant};

use mcpseal_client::{Connection, Options, Request, Target, TransportErrorKind};
use mcpseal_fixtures::HttpFixture;

const DEADLINE: Duration = Duration::from_secs(30);

async fn with_deadline<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(DEADLINE, f)
        .await
        .expect("test finished within its deadline");
}

async fn open(url: &str, options: Options) -> Connection {
    Connection::open(&Target::http(url), options)
        .await
        .expect("client builds")
}

#[tokio::test]
async fn json_answers_and_the_2026_headers() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "modern"]);
        let conn = open(&fx.url, Options::default()).await;
        let ex = conn.send(Request::modern("server/discover", None)).await;
        assert_eq!(ex.http_status, Some(200));
        assert!(ex.result().is_some(), "{ex:?}");
        assert_eq!(ex.request_header("mcp-method"), Some("server/discover"));
        assert_eq!(
            ex.request_header("MCP-Protocol-Version"),
            Some("2026-07-28")
        );
        assert_eq!(
            ex.request_header("accept"),
            Some("application/json, text/event-stream")
        );
        // An unknown method is a JSON-RPC error (an answer) with the 2026 status.
        let unknown = conn.send(Request::modern("nope/nothing", None)).await;
        assert_eq!(unknown.error_code(), Some(-32601));
        assert_eq!(unknown.http_status, Some(404));
        assert!(unknown.transport_error.is_none());
    })
    .await;
}

#[tokio::test]
async fn sse_answers_with_split_data_lines_and_notifications() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "modern", "--sse"]);
        let conn = open(&fx.url, Options::default()).await;
        let ex = conn.send(Request::modern("tools/list", None)).await;
        assert!(
            ex.response_header("content-type")
                .is_some_and(|c| c.starts_with("text/event-stream")),
            "{ex:?}"
        );
        let tools = ex.result().and_then(|r| r["tools"].as_array().cloned());
        assert_eq!(tools.map(|t| t.len()), Some(3), "{ex:?}");
        assert!(
            !ex.notifications.is_empty(),
            "the notification before the answer is kept"
        );
    })
    .await;
}

#[tokio::test]
async fn an_endless_event_stream_is_bounded_by_the_timeout() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "modern", "--sse-endless"]);
        let options = Options {
            timeout: Duration::from_millis(800),
            ..Options::default()
        };
        let conn = open(&fx.url, options).await;
        let started = Instant::now();
        let ex = conn.send(Request::modern("tools/list", None)).await;
        let err = ex.transport_error.expect("timeout");
        assert_eq!(err.kind, TransportErrorKind::Timeout);
        assert!(started.elapsed() < Duration::from_secs(4));
        assert_eq!(ex.http_status, Some(200), "status and headers kept");
    })
    .await;
}

#[tokio::test]
async fn an_oversized_body_is_refused() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "modern", "--flood"]);
        let mut options = Options {
            timeout: Duration::from_secs(20),
            ..Options::default()
        };
        options.limits.max_message_bytes = 1024 * 1024;
        let conn = open(&fx.url, options).await;
        let ex = conn.send(Request::modern("server/discover", None)).await;
        let err = ex.transport_error.expect("oversize");
        assert_eq!(err.kind, TransportErrorKind::Oversize, "{err:?}");
    })
    .await;
}

#[tokio::test]
async fn a_legacy_session_is_followed() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "legacy"]);
        let conn = open(&fx.url, Options::default()).await;
        let before = conn.send(Request::legacy("tools/list", None)).await;
        assert!(before.result().is_none(), "no session yet: {before:?}");
        let (init, initialized) = conn.handshake().await;
        let sid = init.response_header("mcp-session-id").map(str::to_owned);
        assert!(sid.is_some(), "{init:?}");
        assert!(initialized.is_some());
        let after = conn.send(Request::legacy("tools/list", None)).await;
        assert!(after.result().is_some(), "{after:?}");
        assert_eq!(after.request_header("mcp-session-id"), sid.as_deref());
        assert_eq!(
            after.request_header("MCP-Protocol-Version"),
            Some("2025-11-25")
        );
        // Modern requests never carry the legacy session.
        let modern = conn.send(Request::modern("tools/list", None)).await;
        assert_eq!(modern.request_header("mcp-session-id"), None);
    })
    .await;
}

#[tokio::test]
async fn a_raw_get_reads_a_bounded_preview_of_an_endless_stream() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "legacy"]);
        let conn = open(&fx.url, Options::default()).await;
        conn.handshake().await;
        let started = Instant::now();
        let raw = conn
            .raw_request(
                "GET",
                &[("Accept".to_owned(), "text/event-stream".to_owned())],
                true,
            )
            .await
            .expect("http");
        assert_eq!(raw.status, Some(200), "{raw:?}");
        assert!(raw.body_preview.contains("event: endpoint"), "{raw:?}");
        assert!(raw.truncated);
        assert!(raw.body_preview.len() <= 2048);
        assert!(started.elapsed() < Duration::from_secs(4));
        // A modern server answers 405.
        let fx = HttpFixture::start(&["--mode", "modern"]);
        let conn = open(&fx.url, Options::default()).await;
        let raw = conn.raw_request("GET", &[], false).await.expect("http");
        assert_eq!(raw.status, Some(405));
    })
    .await;
}

/// A one-shot HTTP server that records the request it got and answers with `body`.
fn record_one_request(body: &'static str) -> (String, std::thread::JoinHandle<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!(
        "http://{}/.well-known/oauth-protected-resource",
        listener.local_addr().expect("addr")
    );
    let handle = std::thread::spawn(move || {
        let (mut sock, _) = listener.accept().expect("accept");
        sock.set_read_timeout(Some(Duration::from_secs(5))).ok();
        let mut buf = vec![0u8; 16 * 1024];
        let n = sock.read(&mut buf).unwrap_or(0);
        let request = String::from_utf8_lossy(&buf[..n]).into_owned();
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        let _ = sock.write_all(reply.as_bytes());
        request
    });
    (url, handle)
}

#[tokio::test]
async fn metadata_fetches_never_carry_the_users_headers() {
    with_deadline(async {
        let (meta_url, recorded) = record_one_request(r#"{"authorization_servers":["x"]}"#);
        let options = Options {
            headers: vec![
                ("Authorization".into(), "Bearer very-secret-token".into()),
                ("X-Custom".into(), "visible".into()),
            ],
            ..Options::default()
        };
        let conn = open("http://127.0.0.1:9/mcp", options).await;
        let doc = conn.fetch_metadata(&meta_url).await.expect("http");
        assert_eq!(doc.status, Some(200));
        assert_eq!(
            doc.body
                .as_ref()
                .map(|b| b["authorization_servers"][0].clone()),
            Some("x".into())
        );
        let request = recorded.join().expect("server thread").to_ascii_lowercase();
        assert!(request.starts_with("get "), "{request}");
        assert!(!request.contains("authorization"), "{request}");
        assert!(!request.contains("very-secret-token"), "{request}");
        assert!(!request.contains("x-custom"), "{request}");
    })
    .await;
}

#[tokio::test]
async fn credentials_are_redacted_in_exchanges() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "modern"]);
        let options = Options {
            headers: vec![
                ("Authorization".into(), "Bearer abc-secret-123".into()),
                ("X-Api-Key".into(), "key-value-456".into()),
                ("X-Trace".into(), "trace-1".into()),
            ],
            ..Options::default()
        };
        let conn = open(&fx.url, options).await;
        let ex = conn.send(Request::modern("tools/list", None)).await;
        assert!(ex.result().is_some());
        let text = serde_json::to_string(&ex).expect("json");
        assert!(!text.contains("abc-secret-123"), "{text}");
        assert!(!text.contains("key-value-456"), "{text}");
        assert!(text.contains("trace-1"));
        assert_eq!(ex.request_header("authorization"), Some("[redacted]"));
    })
    .await;
}

#[tokio::test]
async fn connection_refused_is_a_network_error() {
    with_deadline(async {
        // Port 9 (discard) is closed on loopback here.
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        drop(listener);
        let conn = open(&format!("http://127.0.0.1:{port}/mcp"), Options::default()).await;
        let ex = conn.send(Request::modern("server/discover", None)).await;
        let err = ex.transport_error.expect("error");
        assert_eq!(err.kind, TransportErrorKind::Network, "{err:?}");
        assert_eq!(ex.http_status, None);
    })
    .await;
}
