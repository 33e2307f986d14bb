//! The stdio transport over in-memory pipes: framing, bounds, concurrency, cancellation, listen.

mod common;

use std::time::Duration;

use mcpseal_protocol::{MODERN_REVISION, keys};
use mcpseal_server::{Options, Server};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};

use common::Demo;

const DEADLINE: Duration = Duration::from_secs(20);

struct Pipe {
    to_server: DuplexStream,
    from_server: tokio::io::Lines<BufReader<DuplexStream>>,
    done: tokio::task::JoinHandle<Result<(), mcpseal_server::ServeError>>,
}

fn start(options: Options) -> Pipe {
    let server = Server::new(Demo::new(), options);
    let (to_server, server_in) = tokio::io::duplex(1 << 20);
    let (server_out, from_server) = tokio::io::duplex(1 << 20);
    let done = tokio::spawn(async move { server.serve_io(server_in, server_out).await });
    Pipe {
        to_server,
        from_server: BufReader::new(from_server).lines(),
        done,
    }
}

impl Pipe {
    async fn send(&mut self, msg: &Value) {
        let line = format!("{msg}\n");
        self.to_server
            .write_all(line.as_bytes())
            .await
            .expect("write");
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(DEADLINE, self.from_server.next_line())
            .await
            .expect("a line within the deadline")
            .expect("read")
            .expect("not EOF");
        serde_json::from_str(&line).expect("every stdout line is JSON")
    }
}

fn modern(id: i64, method: &str, mut params: Value) -> Value {
    params[keys::META] =
        json!({keys::META_PROTOCOL_VERSION: MODERN_REVISION, keys::META_CLIENT_CAPABILITIES: {}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

#[tokio::test]
async fn both_eras_and_removed_methods_on_one_process() {
    let mut p = start(Options::default());
    p.send(&modern(1, "server/discover", json!({}))).await;
    let d = p.recv().await;
    assert_eq!(d["result"]["supportedVersions"], json!([MODERN_REVISION]));
    assert_eq!(d["result"]["resultType"], "complete");
    assert_eq!(d["result"]["_meta"][keys::META_SERVER_INFO]["name"], "demo");
    assert_eq!(d["result"]["instructions"], "A demo server");
    // `ping` with the 2026 envelope is gone, with the 2025 dress it answers.
    p.send(&modern(2, "ping", json!({}))).await;
    assert_eq!(p.recv().await["error"]["code"], -32601);
    p.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await;
    assert_eq!(p.recv().await["result"], json!({}));
    p.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})).await;
    let i = p.recv().await;
    assert_eq!(i["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(i["result"]["serverInfo"]["version"], "1.2.3");
    // After `initialize`, a 2026 request is still judged on its own.
    p.send(&modern(5, "tools/list", json!({}))).await;
    let l = p.recv().await;
    assert_eq!(l["result"]["tools"].as_array().map(Vec::len), Some(4));
    assert_eq!(l["result"]["ttlMs"], 0);
    p.send(&json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}))
        .await;
    let legacy = p.recv().await;
    assert!(
        legacy["result"].get("resultType").is_none() && legacy["result"].get("ttlMs").is_none()
    );
    // Resource not found: -32602 for 2026, -32002 for 2025.
    p.send(&modern(7, "resources/read", json!({"uri": "demo://nope"})))
        .await;
    assert_eq!(p.recv().await["error"]["code"], -32602);
    p.send(&json!({"jsonrpc": "2.0", "id": 8, "method": "resources/read", "params": {"uri": "demo://nope"}})).await;
    let nf = p.recv().await;
    assert_eq!(nf["error"]["code"], -32002);
    assert_eq!(nf["error"]["data"]["uri"], "demo://nope");
    drop(p.to_server);
    p.done.await.expect("join").expect("clean end at EOF");
}

#[tokio::test]
async fn modern_only_refuses_2025_dress() {
    let mut p = start(Options {
        legacy: false,
        ..Options::default()
    });
    p.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}))
        .await;
    let e = p.recv().await;
    assert_eq!(e["error"]["code"], -32022);
    assert_eq!(
        e["error"]["data"],
        json!({"supported": [MODERN_REVISION], "requested": "2025-11-25"})
    );
    p.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        .await;
    assert_eq!(p.recv().await["error"]["code"], -32602);
}

#[tokio::test]
async fn bad_input_is_answered_and_bounded() {
    let mut p = start(Options {
        max_message_bytes: 256,
        ..Options::default()
    });
    p.to_server
        .write_all(b"{not json\n\n   \n")
        .await
        .expect("write");
    let e = p.recv().await;
    assert_eq!(
        (e["error"]["code"].clone(), e["id"].clone()),
        (json!(-32700), Value::Null)
    );
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{{\"pad\":\"{}\"}}}}\n",
        "x".repeat(10_000)
    );
    p.to_server.write_all(big.as_bytes()).await.expect("write");
    let e = p.recv().await;
    assert_eq!(e["error"]["code"], -32600);
    assert!(
        e["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("256"))
    );
    for (msg, code) in [
        (json!([1, 2]), -32600),
        (json!({"jsonrpc": "1.0", "id": 1, "method": "x"}), -32600),
        (
            json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "x"}),
            -32600,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": [1]}),
            -32602,
        ),
    ] {
        p.send(&msg).await;
        assert_eq!(p.recv().await["error"]["code"], code, "{msg}");
    }
    // The server still serves after all that.
    p.send(&modern(9, "tools/list", json!({}))).await;
    assert_eq!(p.recv().await["id"], 9);
}

#[tokio::test]
async fn requests_run_concurrently_and_cancellation_drops_the_answer() {
    let mut p = start(Options::default());
    p.send(&modern(
        1,
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 60_000}}),
    ))
    .await;
    p.send(&modern(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"message": "hi"}}),
    ))
    .await;
    let r = p.recv().await;
    assert_eq!(r["id"], 2, "the fast call is not stuck behind the slow one");
    assert_eq!(r["result"]["content"][0]["text"], "hi");
    p.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    )
    .await;
    p.send(&modern(3, "tools/list", json!({}))).await;
    assert_eq!(p.recv().await["id"], 3);
    drop(p.to_server);
    // EOF: the cancelled call never answers, and the server ends without waiting a minute.
    assert!(
        tokio::time::timeout(DEADLINE, p.from_server.next_line())
            .await
            .expect("deadline")
            .expect("read")
            .is_none()
    );
    p.done.await.expect("join").expect("clean end");
}

#[tokio::test]
async fn progress_notifications_come_before_the_answer() {
    let mut p = start(Options::default());
    let mut call = modern(1, "tools/call", json!({"name": "count"}));
    call["params"][keys::META][keys::META_PROGRESS_TOKEN] = json!("tok");
    p.send(&call).await;
    for i in 1..=3 {
        let n = p.recv().await;
        assert_eq!(n["method"], "notifications/progress");
        assert_eq!(
            (
                n["params"]["progressToken"].clone(),
                n["params"]["progress"].clone()
            ),
            (json!("tok"), json!(f64::from(i)))
        );
    }
    assert_eq!(p.recv().await["result"]["content"][0]["text"], "3");
    // Without a token, no notifications.
    p.send(&modern(2, "tools/call", json!({"name": "count"})))
        .await;
    assert_eq!(p.recv().await["id"], 2);
}

#[tokio::test]
async fn listen_is_acknowledged_first_and_ends_gracefully() {
    let server = Server::new(
        Demo::new(),
        Options {
            list_changed: true,
            ..Options::default()
        },
    );
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let s = server.clone();
    let done = tokio::spawn(async move { s.serve_io(server_in, server_out).await });
    let mut lines = BufReader::new(from_server).lines();
    let mut recv = async || -> Value {
        let l = tokio::time::timeout(DEADLINE, lines.next_line())
            .await
            .expect("deadline")
            .expect("read")
            .expect("line");
        serde_json::from_str(&l).expect("json")
    };
    let listen = modern(
        7,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["demo://readme"]}}),
    );
    to_server
        .write_all(format!("{listen}\n").as_bytes())
        .await
        .expect("write");
    let ack = recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(ack["params"]["_meta"][keys::META_SUBSCRIPTION_ID], 7);
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true}),
        "only what is advertised"
    );
    server.notify_list_changed(mcpseal_protocol::ListKind::Prompts);
    server.notify_list_changed(mcpseal_protocol::ListKind::Tools);
    let n = recv().await;
    assert_eq!(
        n["method"], "notifications/tools/list_changed",
        "prompts were not asked for"
    );
    assert_eq!(n["params"]["_meta"][keys::META_SUBSCRIPTION_ID], 7);
    drop(to_server);
    let end = recv().await;
    assert_eq!(end["id"], 7);
    assert_eq!(end["result"]["resultType"], "complete");
    assert_eq!(end["result"]["_meta"][keys::META_SUBSCRIPTION_ID], 7);
    done.await.expect("join").expect("clean end");
}
