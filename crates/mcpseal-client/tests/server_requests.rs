//! Server-to-client requests through the connection: declined by default (and kept as
//! evidence), or delivered to a handler that answers them; over stdio and HTTP; and never a
//! deadlock when the server asks while a large request is still being written to it.

use std::time::Duration;

use mcpseal_client::{Connection, Options, Request, ServerRequests, Target};
use mcpseal_fixtures::{HttpFixture, stdio_argv};
use serde_json::{Value, json};
use tokio::sync::mpsc;

const DEADLINE: Duration = Duration::from_secs(60);

async fn with_deadline<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(DEADLINE, f)
        .await
        .expect("test finished within its deadline (no deadlock)");
}

fn options() -> Options {
    Options {
        timeout: Duration::from_secs(20),
        ..Options::default()
    }
}

fn targets(args: &[&str]) -> (Target, Target, HttpFixture) {
    let fx = HttpFixture::start(args);
    (
        Target::stdio(stdio_argv(args)),
        Target::http(fx.url.clone()),
        fx,
    )
}

fn asked(ex: &mcpseal_client::Exchange) -> Value {
    ex.result()
        .map(|r| r["askedClient"].clone())
        .unwrap_or(Value::Null)
}

#[tokio::test]
async fn server_requests_are_declined_by_default_and_kept_as_evidence() {
    with_deadline(async {
        let (stdio, http, _fx) = targets(&["--mode", "modern", "--ask-client", "tools/list"]);
        for target in [stdio, http] {
            let conn = Connection::open(&target, options()).await.expect("opens");
            let ex = conn.send(Request::modern("tools/list", None)).await;
            assert!(ex.transport_error.is_none(), "{target:?}: {ex:?}");
            assert_eq!(asked(&ex)["error"]["code"], -32601, "{target:?}: {ex:?}");
            assert!(
                ex.notifications
                    .iter()
                    .any(|n| n["method"] == "roots/list" && n.get("id").is_some()),
                "{target:?}: the request is evidence: {:?}",
                ex.notifications
            );
            conn.close().await;
        }
    })
    .await;
}

#[tokio::test]
async fn a_handler_gets_each_server_request_and_its_answer_reaches_the_server() {
    with_deadline(async {
        let (stdio, http, _fx) = targets(&["--mode", "modern", "--ask-client", "tools/list"]);
        for target in [stdio, http] {
            let (tx, mut rx) = mpsc::channel(4);
            let conn = Connection::open_with(&target, options(), ServerRequests::Deliver(tx))
                .await
                .expect("opens");
            let handler = tokio::spawn(async move {
                let mut methods = Vec::new();
                while let Some(request) = rx.recv().await {
                    methods.push(request.method().to_owned());
                    assert!(request.id().is_string());
                    request.respond(json!({"roots": [{"uri": "file:///project"}]}));
                }
                methods
            });
            let ex = conn.send(Request::modern("tools/list", None)).await;
            assert_eq!(
                asked(&ex)["result"]["roots"][0]["uri"],
                "file:///project",
                "{target:?}: {ex:?}"
            );
            conn.close().await;
            drop(conn);
            let methods = handler.await.expect("handler ran");
            assert_eq!(methods, ["roots/list"], "{target:?}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_request_the_handler_drops_is_declined() {
    with_deadline(async {
        let target = Target::stdio(stdio_argv(&[
            "--mode",
            "modern",
            "--ask-client",
            "tools/list",
        ]));
        let (tx, mut rx) = mpsc::channel(4);
        let conn = Connection::open_with(&target, options(), ServerRequests::Deliver(tx))
            .await
            .expect("opens");
        tokio::spawn(async move {
            while let Some(request) = rx.recv().await {
                drop(request);
            }
        });
        let ex = conn.send(Request::modern("tools/list", None)).await;
        assert_eq!(asked(&ex)["error"]["code"], -32601, "{ex:?}");
        // A handler that is gone altogether declines too.
        let (tx, rx) = mpsc::channel(1);
        drop(rx);
        let conn = Connection::open_with(&target, options(), ServerRequests::Deliver(tx))
            .await
            .expect("opens");
        let ex = conn.send(Request::modern("tools/list", None)).await;
        assert_eq!(asked(&ex)["error"]["code"], -32601, "{ex:?}");
    })
    .await;
}

/// The server asks while the client is still writing a 1 MB request, and sends 1 MiB of
/// notifications after its request, reading stdin again only when all of it was read. A client
/// whose stdout reader waits for stdin to answer deadlocks here; ours completes both.
#[tokio::test]
async fn a_server_request_during_a_large_write_does_not_deadlock() {
    with_deadline(async {
        let args = [
            "--mode",
            "modern",
            "--ask-client",
            "tools/list",
            "--ask-padding",
            "1048576",
        ];
        let conn = Connection::open(&Target::stdio(stdio_argv(&args)), options())
            .await
            .expect("opens");
        let big = json!({"pad": "x".repeat(1024 * 1024)});
        let (asking, large) = tokio::join!(
            conn.send(Request::modern("tools/list", None)),
            conn.send(Request::modern("prompts/list", Some(big))),
        );
        assert!(
            large.transport_error.is_none(),
            "{:?}",
            large.transport_error
        );
        assert!(
            large.result().is_some_and(|r| r["prompts"].is_array()),
            "{large:?}"
        );
        assert!(
            asking.transport_error.is_none(),
            "{:?}",
            asking.transport_error
        );
        assert_eq!(asked(&asking)["error"]["code"], -32601);
        assert!(
            asking.notifications.len() > 10,
            "the padding arrived while we waited"
        );
        assert!(
            conn.diagnostics()
                .iter()
                .any(|d| d == "[server request] roots/list"),
            "{:?}",
            conn.diagnostics()
        );
    })
    .await;
}
