//! The message-level transport on its own, as a forwarding proxy uses it: any message out,
//! every server message in (the stdio inbox, HTTP request-scoped streams read incrementally),
//! against the fixture and real child processes.

use std::time::{Duration, Instant};

use mcpseal_client::{
    Inbound, Inbox, Message, Options, ReplyBody, StreamItem, Target, Transport, TransportErrorKind,
    TransportKind,
};
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use mcpseal_protocol::jsonrpc::MessageKind;
use serde_json::{Value, json};

const DEADLINE: Duration = Duration::from_secs(30);
const TIMEOUT: Duration = Duration::from_secs(20);

async fn with_deadline<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(DEADLINE, f)
        .await
        .expect("test finished within its deadline");
}

async fn stdio(args: &[&str], options: &Options) -> (Transport, Inbox) {
    Transport::open(&Target::stdio(stdio_argv(args)), options)
        .await
        .expect("fixture starts")
}

fn request(id: i64, method: &str) -> Message {
    Message::from_value(json!({"jsonrpc": "2.0", "id": id, "method": method,
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}}))
}

/// The POST headers of a 2026 request for `method`.
fn modern_headers(t: &Transport, method: &str) -> Vec<(String, String)> {
    let mut headers = t.base_headers();
    headers.push(("Mcp-Method".into(), method.into()));
    headers.push(("MCP-Protocol-Version".into(), "2026-07-28".into()));
    headers
}

/// The next message of the inbox (skipping nothing: a fault or close fails the test).
async fn next_message(inbox: &mut Inbox) -> Message {
    match inbox.recv().await {
        Some(Inbound::Message(m)) => m,
        other => panic!("expected a message, got {other:?}"),
    }
}

#[tokio::test]
async fn stdio_messages_go_out_and_every_server_line_comes_in() {
    with_deadline(async {
        let (t, mut inbox) = stdio(&["--mode", "modern", "--noise"], &Options::default()).await;
        assert_eq!(t.kind(), TransportKind::Stdio);
        assert!(t.base_headers().is_empty());
        let reply = t
            .send(&request(7, "tools/list"), &[], TIMEOUT)
            .await
            .expect("written");
        assert!(matches!(reply.body, ReplyBody::Inbox));
        assert_eq!(reply.status, None);
        let answer = next_message(&mut inbox).await;
        assert_eq!(answer.kind(), MessageKind::Response);
        assert_eq!(answer.id(), Some(&json!(7)));
        assert!(answer.value()["result"]["tools"].is_array());
        // The banner the fixture prints before every answer is a diagnostic, not a message.
        assert!(
            t.diagnostics()
                .iter()
                .any(|d| d.starts_with("[non-JSON stdout] server starting")),
            "{:?}",
            t.diagnostics()
        );
        // A notification goes out too (nothing comes back for it).
        let note = Message::from_value(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
        );
        t.send(&note, &[], TIMEOUT).await.expect("written");
        t.close().await;
        match inbox.recv().await {
            Some(Inbound::Closed(err)) => {
                assert_eq!(err.kind, TransportErrorKind::Closed);
                assert!(err.message.contains("exit code 0"), "{}", err.message);
            }
            other => panic!("expected the close, got {other:?}"),
        }
        assert!(inbox.recv().await.is_none(), "the inbox ends after Closed");
    })
    .await;
}

#[tokio::test]
async fn a_server_request_arrives_on_the_inbox_and_our_answer_reaches_the_server() {
    with_deadline(async {
        let (t, mut inbox) = stdio(
            &["--mode", "modern", "--ask-client", "tools/list"],
            &Options::default(),
        )
        .await;
        t.send(&request(1, "tools/list"), &[], TIMEOUT)
            .await
            .expect("written");
        let asked = next_message(&mut inbox).await;
        assert_eq!(asked.kind(), MessageKind::Request);
        assert_eq!(asked.method(), Some("roots/list"));
        let id = asked.id().cloned().expect("an id");
        // Forwarded as a proxy would: the text we send is kept byte for byte.
        let ours = format!(
            r#"{{"result":{{"roots":[{{"uri":"file:///w"}}]}},"id":{id},"jsonrpc":"2.0"}}"#
        );
        let answer = Message::parse(ours).expect("json");
        t.send(&answer, &[], TIMEOUT).await.expect("written");
        let done = next_message(&mut inbox).await;
        assert_eq!(done.id(), Some(&json!(1)));
        let echoed = &done.value()["result"]["askedClient"];
        assert_eq!(echoed["result"]["roots"][0]["uri"], "file:///w", "{done:?}");
    })
    .await;
}

#[tokio::test]
async fn stdio_faults_and_crashes_reach_the_inbox() {
    with_deadline(async {
        let (t, mut inbox) =
            stdio(&["--mode", "modern", "--invalid-utf8"], &Options::default()).await;
        t.send(&request(1, "server/discover"), &[], TIMEOUT)
            .await
            .expect("written");
        match inbox.recv().await {
            Some(Inbound::Fault(e)) => assert_eq!(e.kind, TransportErrorKind::InvalidUtf8),
            other => panic!("{other:?}"),
        }

        let mut small = Options::default();
        small.limits.max_message_bytes = 64 * 1024;
        let (t, mut inbox) = stdio(&["--mode", "modern", "--flood"], &small).await;
        t.send(&request(1, "server/discover"), &[], TIMEOUT)
            .await
            .expect("written");
        match inbox.recv().await {
            Some(Inbound::Fault(e)) => {
                assert_eq!(e.kind, TransportErrorKind::Oversize);
                assert!(e.message.contains("65536"), "{}", e.message);
            }
            other => panic!("{other:?}"),
        }
        drop(t);

        let (t, mut inbox) = stdio(
            &["--mode", "modern", "--crash-after", "0"],
            &Options::default(),
        )
        .await;
        t.send(&request(1, "server/discover"), &[], TIMEOUT)
            .await
            .expect("written");
        match inbox.recv().await {
            Some(Inbound::Closed(e)) => {
                assert_eq!(e.kind, TransportErrorKind::Closed);
                assert!(e.message.contains("exit code 3"), "{}", e.message);
            }
            other => panic!("{other:?}"),
        }
        // Writing to a process that is gone is a clear error, with its exit status.
        let err = t
            .send(&request(2, "tools/list"), &[], TIMEOUT)
            .await
            .expect_err("the server is gone");
        assert_eq!(err.kind, TransportErrorKind::Closed, "{err:?}");
    })
    .await;
}

#[expect(
    clippy::print_stdout,
    reason = "the measured time goes into the test log"
)]
#[tokio::test]
async fn a_write_to_a_server_that_does_not_read_is_bounded_by_its_timeout() {
    with_deadline(async {
        let (t, _inbox) = Transport::open(&Target::stdio(["sleep", "30"]), &Options::default())
            .await
            .expect("sleep starts");
        let big = Message::from_value(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"pad": "x".repeat(1024 * 1024)}}));
        let started = Instant::now();
        let err = t
            .send(&big, &[], Duration::from_millis(500))
            .await
            .expect_err("cannot be written");
        println!("write timed out after {:?}", started.elapsed());
        assert_eq!(err.kind, TransportErrorKind::Timeout);
        assert!(err.message.contains("`tools/call`"), "{}", err.message);
        assert!(err.message.contains("500ms"), "{}", err.message);
        // A later message queues behind the stuck one and is bounded the same way.
        let err = t
            .send(&request(2, "tools/list"), &[], Duration::from_millis(300))
            .await
            .expect_err("still stuck");
        assert_eq!(err.kind, TransportErrorKind::Timeout);
        // Closing does not wait politely for a server that cannot see the end of its input.
        let closing = Instant::now();
        t.close().await;
        println!("close took {:?}", closing.elapsed());
        assert!(closing.elapsed() < Duration::from_secs(10));
        assert!(started.elapsed() < Duration::from_secs(20));
    })
    .await;
}

#[tokio::test]
async fn an_http_event_stream_yields_each_message_as_it_arrives() {
    with_deadline(async {
        // The stream never ends and never carries the response: every item we get is proof
        // that it was delivered before the stream ended.
        let fx = HttpFixture::start(&["--mode", "modern", "--sse-endless"]);
        let (t, _inbox) = Transport::open(&Target::http(&fx.url), &Options::default())
            .await
            .expect("client");
        let headers = modern_headers(&t, "tools/list");
        let reply = t
            .send(&request(1, "tools/list"), &headers, TIMEOUT)
            .await
            .expect("status");
        assert_eq!(reply.status, Some(200));
        assert!(
            reply
                .header("content-type")
                .is_some_and(|c| c.starts_with("text/event-stream"))
        );
        let ReplyBody::Stream(mut stream) = reply.body else {
            panic!("an event stream")
        };
        for _ in 0..2 {
            match stream.next().await {
                Some(Ok(StreamItem::Message(m))) => {
                    assert_eq!(m.kind(), MessageKind::Notification);
                    assert_eq!(m.method(), Some("notifications/message"));
                }
                other => panic!("{other:?}"),
            }
        }
    })
    .await;
}

#[tokio::test]
async fn an_http_server_request_is_answered_by_a_post_while_its_stream_waits() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "modern", "--ask-client", "tools/list"]);
        let (t, _inbox) = Transport::open(&Target::http(&fx.url), &Options::default())
            .await
            .expect("client");
        let reply = t
            .send(&request(5, "tools/list"), &t.base_headers(), TIMEOUT)
            .await
            .expect("status");
        let ReplyBody::Stream(mut stream) = reply.body else {
            panic!("an event stream")
        };
        // The fixture sends its request and holds the stream until we answered it: the
        // request must be delivered before the stream has anything else to give.
        let asked = match stream.next().await {
            Some(Ok(StreamItem::Message(m))) => m,
            other => panic!("{other:?}"),
        };
        assert_eq!(asked.method(), Some("roots/list"));
        let id = asked.id().cloned().unwrap_or(Value::Null);
        let answer =
            Message::from_value(json!({"jsonrpc": "2.0", "id": id, "result": {"roots": []}}));
        let posted = t
            .send(&answer, &t.base_headers(), TIMEOUT)
            .await
            .expect("posted");
        assert_eq!(posted.status, Some(202));
        match stream.next().await {
            Some(Ok(StreamItem::Message(m))) => {
                assert_eq!(m.id(), Some(&json!(5)));
                assert_eq!(
                    m.value()["result"]["askedClient"]["result"]["roots"],
                    json!([])
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(stream.next().await.is_none(), "the stream ended");
    })
    .await;
}

#[tokio::test]
async fn a_whole_http_body_is_read_on_demand_within_its_limit() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "modern", "--flood"]);
        let mut options = Options::default();
        options.limits.max_message_bytes = 1024 * 1024;
        let (t, _inbox) = Transport::open(&Target::http(&fx.url), &options)
            .await
            .expect("client");
        let reply = t
            .send(
                &request(1, "server/discover"),
                &modern_headers(&t, "server/discover"),
                TIMEOUT,
            )
            .await
            .expect("status");
        assert_eq!(reply.status, Some(200));
        let ReplyBody::Whole(body) = reply.body else {
            panic!("a whole body")
        };
        assert_eq!(body.content_type(), "application/json");
        let err = body.read().await.expect_err("oversize");
        assert_eq!(err.kind, TransportErrorKind::Oversize);
        assert!(t.raw_request("GET", &[]).await.is_some());
    })
    .await;
}

#[test]
fn transports_and_connections_can_be_shared_across_tasks() {
    fn shared<T: Send + Sync>() {}
    fn sent<T: Send>() {}
    shared::<Transport>();
    shared::<mcpseal_client::Connection>();
    sent::<Inbox>();
    sent::<mcpseal_client::ReplyStream>();
    sent::<mcpseal_client::ServerRequest>();
}

#[tokio::test]
async fn a_2025_standalone_stream_is_read_like_a_posts() {
    with_deadline(async {
        let fx = HttpFixture::start(&["--mode", "legacy"]);
        let (t, _inbox) = Transport::open(&Target::http(&fx.url), &Options::default())
            .await
            .expect("client");
        let init = Message::from_value(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}));
        let reply = t
            .send(&init, &t.base_headers(), TIMEOUT)
            .await
            .expect("status");
        let session = reply
            .header("mcp-session-id")
            .expect("a session")
            .to_owned();
        let mut headers = t.base_headers();
        headers.retain(|(n, _)| !n.eq_ignore_ascii_case("accept"));
        headers.push(("Accept".into(), "text/event-stream".into()));
        headers.push(("Mcp-Session-Id".into(), session.clone()));
        let reply = t
            .get_stream(&headers, TIMEOUT)
            .await
            .expect("http")
            .expect("status");
        assert_eq!(reply.status, Some(200));
        let ReplyBody::Stream(mut stream) = reply.body else {
            panic!("an event stream")
        };
        // The legacy `endpoint` event is not JSON: it comes as unparsed data, the stream open.
        match stream.next().await {
            Some(Ok(StreamItem::Unparsed(data))) => {
                assert_eq!(data, format!("/mcp?sessionId={session}"));
            }
            other => panic!("{other:?}"),
        }
        let (stdio, _inbox) = stdio(&["--mode", "legacy"], &Options::default()).await;
        assert!(stdio.get_stream(&[], TIMEOUT).await.is_none());
    })
    .await;
}
