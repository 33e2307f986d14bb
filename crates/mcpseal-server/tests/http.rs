//! The Streamable HTTP transport, with raw requests on 127.0.0.1: statuses, limits, streams.

mod common;

use std::time::Duration;

use mcpseal_protocol::{MODERN_REVISION, keys};
use mcpseal_server::{HttpOptions, Options, Server};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use common::Demo;

struct Running {
    url: String,
    addr: std::net::SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<Result<(), mcpseal_server::ServeError>>,
}

impl Running {
    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        tokio::time::timeout(Duration::from_secs(20), self.task)
            .await
            .expect("stops within the deadline")
            .expect("join")
            .expect("ran");
    }
}

async fn start(options: Options, http: HttpOptions) -> (Running, Server<Demo>) {
    let server = Server::new(Demo::new(), options);
    let bound = server.bind_http("127.0.0.1:0", http).await.expect("bind");
    let (url, addr) = (bound.url(), bound.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(bound.run(async {
        let _ = stopped.await;
    }));
    (
        Running {
            url,
            addr,
            stop: Some(stop),
            task,
        },
        server,
    )
}

/// The same server mounted as an embedder mounts it: [`Server::http_router`] on this crate's
/// accept loop (`serve_router`), which checks no `Host` (the embedder knows its own names).
async fn start_router(options: Options, http: HttpOptions) -> Running {
    let server = Server::new(Demo::new(), options);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let app = server.http_router(http.clone());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        mcpseal_server::serve_router(listener, app, &http, shutdown, || {}).await
    });
    Running {
        url: format!("http://{addr}{}", mcpseal_server::MCP_PATH),
        addr,
        stop: Some(stop),
        task,
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("client")
}

fn modern(method: &str, mut params: Value) -> Value {
    params[keys::META] =
        json!({keys::META_PROTOCOL_VERSION: MODERN_REVISION, keys::META_CLIENT_CAPABILITIES: {}});
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

fn post(c: &reqwest::Client, url: &str, body: &Value) -> reqwest::RequestBuilder {
    let mut r = c
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(m) = body.get("method").and_then(Value::as_str) {
        r = r.header(keys::HEADER_MCP_METHOD, m);
    }
    if body.pointer("/params/_meta").is_some() {
        r = r.header(keys::HEADER_PROTOCOL_VERSION, MODERN_REVISION);
    }
    if let Some(n) = body
        .pointer("/params/name")
        .or_else(|| body.pointer("/params/uri"))
        .and_then(Value::as_str)
    {
        r = r.header(
            keys::HEADER_MCP_NAME,
            mcpseal_protocol::encode_header_value(n),
        );
    }
    r
}

/// The options of the tests run both ways: connections on the caller's runtime, and on two
/// connection threads of their own.
fn on_threads(connection_threads: usize) -> HttpOptions {
    HttpOptions {
        connection_threads,
        ..HttpOptions::default()
    }
}

#[tokio::test]
async fn statuses_of_the_endpoint() {
    statuses(start(Options::default(), on_threads(0)).await.0).await;
}

#[tokio::test]
async fn statuses_of_the_endpoint_on_connection_threads() {
    statuses(start(Options::default(), on_threads(2)).await.0).await;
}

#[tokio::test]
async fn statuses_of_the_endpoint_mounted_as_a_router() {
    statuses(start_router(Options::default(), on_threads(0)).await).await;
}

async fn statuses(srv: Running) {
    let c = client();
    let r = post(&c, &srv.url, &modern("tools/list", json!({})))
        .send()
        .await
        .expect("send");
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/json");
    assert!(r.headers().get(keys::HEADER_SESSION_ID).is_none());
    for m in [
        reqwest::Method::GET,
        reqwest::Method::DELETE,
        reqwest::Method::PUT,
    ] {
        let r = c.request(m.clone(), &srv.url).send().await.expect("send");
        assert_eq!(r.status(), 405, "{m}");
        assert_eq!(r.headers()["allow"], "POST");
    }
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = post(&c, &srv.url, &note).send().await.expect("send");
    assert_eq!(r.status(), 202);
    assert!(r.bytes().await.expect("body").is_empty());
    let r = post(&c, &srv.url, &modern("mcpseal/no-such", json!({})))
        .send()
        .await
        .expect("send");
    assert_eq!(r.status(), 404);
    assert_eq!(
        r.json::<Value>().await.expect("json")["error"]["code"],
        -32601
    );
    let r = c.post(&srv.url).body("{nope").send().await.expect("send");
    assert_eq!(r.status(), 400);
    assert_eq!(
        r.json::<Value>().await.expect("json")["error"]["code"],
        -32700
    );
    let r = c
        .post(format!("http://{}/other", srv.addr))
        .send()
        .await
        .expect("send");
    assert_eq!(r.status(), 404);
    // Legacy client: no routing headers, `initialize`, then a versioned 2025 request.
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let r = c
        .post(&srv.url)
        .body(init.to_string())
        .send()
        .await
        .expect("send");
    assert_eq!(r.status(), 200);
    assert!(
        r.headers().get(keys::HEADER_SESSION_ID).is_none(),
        "stateless: no session id"
    );
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let r = c
        .post(&srv.url)
        .header(keys::HEADER_PROTOCOL_VERSION, "2025-11-25")
        .body(list.to_string())
        .send()
        .await
        .expect("send");
    let v: Value = r.json().await.expect("json");
    assert!(v["result"]["tools"].is_array() && v["result"].get("resultType").is_none());
    srv.stop().await;
}

#[tokio::test]
async fn routing_headers_are_checked() {
    let (srv, _) = start(Options::default(), HttpOptions::default()).await;
    let c = client();
    let call = modern(
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "héllo"}}),
    );
    let r = post(&c, &srv.url, &call).send().await.expect("send");
    assert_eq!(r.status(), 200);
    let r = post(&c, &srv.url, &call)
        .header(keys::HEADER_MCP_NAME, "other")
        .send()
        .await
        .expect("send");
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.expect("json");
    assert_eq!(
        (v["error"]["code"].clone(), v["id"].clone()),
        (json!(-32020), json!(1))
    );
    let r = post(&c, &srv.url, &call)
        .header(keys::HEADER_MCP_METHOD, "tools/list")
        .send()
        .await
        .expect("send");
    assert_eq!(r.status(), 400);
    let r = post(&c, &srv.url, &call)
        .header(keys::HEADER_PROTOCOL_VERSION, "2025-11-25")
        .send()
        .await
        .expect("send");
    assert_eq!(r.status(), 400);
    srv.stop().await;
}

fn limited() -> (Options, HttpOptions) {
    let options = Options {
        max_message_bytes: 1024,
        ..Options::default()
    };
    let http = HttpOptions {
        allowed_origins: vec!["https://app.example".into()],
        body_read_timeout: Duration::from_millis(300),
        ..HttpOptions::default()
    };
    (options, http)
}

#[tokio::test]
async fn origin_host_and_body_limits() {
    let (options, http) = limited();
    origin_host_and_body(start(options, http).await.0, true).await;
}

#[tokio::test]
async fn origin_and_body_limits_of_the_router_and_no_host_check() {
    let (options, http) = limited();
    origin_host_and_body(start_router(options, http).await, false).await;
}

/// `host_checked`: the server refuses a foreign `Host` (a bound loopback server does; the
/// router an embedder mounts does not).
async fn origin_host_and_body(srv: Running, host_checked: bool) {
    let c = client();
    let list = modern("tools/list", json!({}));
    for (origin, status) in [
        ("http://evil.example", 403),
        ("http://localhost:3000", 200),
        ("https://app.example", 200),
    ] {
        let r = post(&c, &srv.url, &list)
            .header("origin", origin)
            .send()
            .await
            .expect("send");
        assert_eq!(r.status(), status, "{origin}");
    }
    let r = post(&c, &srv.url, &list)
        .header("host", "evil.example")
        .send()
        .await
        .expect("send");
    assert_eq!(
        r.status(),
        if host_checked { 403 } else { 200 },
        "a loopback server refuses foreign Host names; an embedded router leaves them to its host"
    );
    let big = modern("tools/list", json!({"pad": "x".repeat(5000)}));
    let r = post(&c, &srv.url, &big).send().await.expect("send");
    assert_eq!(r.status(), 413);
    // A body in several chunks is joined whole; past the limit it is refused as it arrives,
    // with no Content-Length to refuse it by.
    let text = list.to_string().into_bytes();
    let (a, rest) = text.split_at(text.len() / 3);
    let (b, rest) = rest.split_at(rest.len() / 2);
    let answer = chunked(srv.addr, &[a, b, rest]).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer.contains(r#""tools":[{"#),
        "the joined body was the request: {answer}"
    );
    let pad = vec![b' '; 400];
    let answer = chunked(srv.addr, &[&text, &pad, &pad, &pad]).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    // A body that never finishes arriving: 408 after the body timeout.
    let mut s = tokio::net::TcpStream::connect(srv.addr)
        .await
        .expect("connect");
    s.write_all(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 100\r\n\r\n{")
        .await
        .expect("write");
    let mut head = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(10), s.read_exact(&mut head))
        .await
        .expect("answered")
        .expect("read");
    assert_eq!(&head, b"HTTP/1.1 408");
    srv.stop().await;
}

/// POSTs a 2026 `tools/list` body sent as these chunks (`Transfer-Encoding: chunked`, a pause
/// after each so they arrive apart) on a raw connection: the whole response, as text.
async fn chunked(addr: std::net::SocketAddr, chunks: &[&[u8]]) -> String {
    let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\
         accept: application/json, text/event-stream\r\ncontent-type: application/json\r\n\
         {}: {MODERN_REVISION}\r\n{}: tools/list\r\ntransfer-encoding: chunked\r\n\r\n",
        keys::HEADER_PROTOCOL_VERSION,
        keys::HEADER_MCP_METHOD,
    );
    s.write_all(head.as_bytes()).await.expect("write");
    for chunk in chunks {
        let mut frame = format!("{:x}\r\n", chunk.len()).into_bytes();
        frame.extend_from_slice(chunk);
        frame.extend_from_slice(b"\r\n");
        // The server may answer 413 and close before the last chunks: later writes may fail.
        if s.write_all(&frame).await.is_err() {
            break;
        }
        s.flush().await.expect("flush");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = s.write_all(b"0\r\n\r\n").await;
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut answer))
        .await
        .expect("answered")
        .expect("read");
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn a_silent_connection_is_dropped_after_the_header_timeout() {
    silent_connection(on_threads(0)).await;
}

#[tokio::test]
async fn a_silent_connection_is_dropped_on_a_connection_thread_too() {
    silent_connection(on_threads(2)).await;
}

async fn silent_connection(http: HttpOptions) {
    let (srv, _) = start(
        Options::default(),
        HttpOptions {
            header_read_timeout: Duration::from_millis(300),
            ..http
        },
    )
    .await;
    let mut s = tokio::net::TcpStream::connect(srv.addr)
        .await
        .expect("connect");
    let mut buf = Vec::new();
    let n = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf))
        .await
        .expect("closed by the server");
    assert!(n.is_ok());
    srv.stop().await;
}

#[tokio::test]
async fn notifications_first_make_an_event_stream() {
    event_streams(on_threads(0)).await;
}

#[tokio::test]
async fn event_streams_run_and_end_gracefully_on_connection_threads() {
    event_streams(on_threads(2)).await;
}

async fn event_streams(http: HttpOptions) {
    let (srv, server) = start(
        Options {
            list_changed: true,
            ..Options::default()
        },
        http,
    )
    .await;
    let c = client();
    let mut call = modern("tools/call", json!({"name": "count"}));
    call["params"][keys::META][keys::META_PROGRESS_TOKEN] = json!(5);
    let r = post(&c, &srv.url, &call).send().await.expect("send");
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let text = r.text().await.expect("body");
    let events: Vec<Value> = text
        .split("\n\n")
        .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
        .map(|d| serde_json::from_str(d).expect("json event"))
        .collect();
    assert_eq!(events.len(), 4, "{text}");
    assert!(
        events[..3]
            .iter()
            .all(|e| e["method"] == "notifications/progress")
    );
    assert_eq!(events[3]["result"]["content"][0]["text"], "3");

    // A listen stream: acknowledgement, a change, then the graceful end when the server stops.
    let listen = modern(
        "subscriptions/listen",
        json!({"notifications": {"resourcesListChanged": true}}),
    );
    let mut r = post(&c, &srv.url, &listen).send().await.expect("send");
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let mut seen = String::new();
    while !seen.contains("acknowledged") {
        seen.push_str(&String::from_utf8_lossy(
            &r.chunk().await.expect("chunk").expect("more"),
        ));
    }
    server.notify_list_changed(mcpseal_protocol::ListKind::ResourceTemplates);
    while !seen.contains("resources/list_changed") {
        seen.push_str(&String::from_utf8_lossy(
            &r.chunk().await.expect("chunk").expect("more"),
        ));
    }
    let stop = tokio::spawn(srv.stop());
    while let Some(chunk) = r.chunk().await.expect("chunk") {
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(seen.contains(r#""resultType":"complete""#), "{seen}");
    stop.await.expect("join");
}

/// The name of the thread that ran a `where` call made on `c`'s connection.
async fn thread_of_a_call(c: &reqwest::Client, url: &str) -> String {
    let call = modern("tools/call", json!({"name": "where"}));
    let v: Value = post(c, url, &call)
        .send()
        .await
        .expect("send")
        .json()
        .await
        .expect("json");
    v["result"]["content"][0]["text"]
        .as_str()
        .expect("a thread name")
        .to_owned()
}

#[tokio::test]
async fn connections_go_to_the_least_busy_connection_thread_and_stay_there() {
    let (srv, _) = start(Options::default(), on_threads(2)).await;
    // Two clients, two keep-alive connections: the second goes to the thread without one.
    let (a, b) = (client(), client());
    let first = thread_of_a_call(&a, &srv.url).await;
    let second = thread_of_a_call(&b, &srv.url).await;
    assert_eq!(
        (first.as_str(), second.as_str()),
        ("mcpseal-http-0", "mcpseal-http-1")
    );
    // Each connection's later requests run on its own thread.
    for _ in 0..3 {
        assert_eq!(thread_of_a_call(&a, &srv.url).await, first);
        assert_eq!(thread_of_a_call(&b, &srv.url).await, second);
    }
    srv.stop().await;

    // Without connection threads, calls run on the caller's runtime.
    let (srv, _) = start(Options::default(), on_threads(0)).await;
    let here = std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_owned();
    assert_eq!(thread_of_a_call(&client(), &srv.url).await, here);
    srv.stop().await;
}
