//! The fixture over real HTTP/1.1: status codes, headers, sessions and SSE framing.

mod common;

use common::{HttpFixture, bare, initialize, modern, within};
use serde_json::{Value, json};

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

#[tokio::test]
async fn modern_status_codes() {
    within(async {
        let f = HttpFixture::spawn(&[]).await;
        let d = f.post(&modern(1, "server/discover", json!({})), &[]).await;
        assert_eq!(d.status, 200);
        assert_eq!(d.header("content-type"), Some("application/json"));
        assert!(d.header("mcp-session-id").is_none(), "never issues a session");
        assert_eq!(d.json()["result"]["supportedVersions"], json!(["2026-07-28"]));

        let e = f.post(&modern(2, "ping", json!({})), &[]).await;
        assert_eq!((e.status, code(&e.json()), e.json()["id"].clone()), (404, -32601, json!(2)));
        let e = f.post(&bare(3, "tools/list", json!({})), &[]).await;
        assert_eq!((e.status, code(&e.json())), (400, -32602), "missing _meta");
        let e = f.post(&modern(4, "tools/list", json!({})), &[("Mcp-Method", "prompts/list")]).await;
        assert_eq!((e.status, code(&e.json())), (400, -32020));
        let e = f.post(&modern(5, "tools/list", json!({})), &[("MCP-Protocol-Version", "2025-11-25")]).await;
        assert_eq!((e.status, code(&e.json())), (400, -32020));
        let wrong_name = &[("Mcp-Name", "add")];
        let e = f.post(&modern(6, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"}})), wrong_name).await;
        assert_eq!((e.status, code(&e.json())), (400, -32020));
        let ok = f.post(&modern(7, "tools/call", json!({"name": "echo", "arguments": {"message": "hi"}})), &[]).await;
        assert_eq!(ok.json()["result"]["content"][0]["text"], "hi");
        let b64 = f.post(&modern(8, "tools/call", json!({"name": "echo", "arguments": {"message": "x"}})), &[("Mcp-Name", "=?base64?ZWNobw==?=")]).await;
        assert_eq!(b64.status, 200, "base64 header form is decoded");

        let legacy_init = f.post_raw(&initialize(9), &[("Content-Type", "application/json")]).await;
        assert_eq!((legacy_init.status, code(&legacy_init.json())), (400, -32020));

        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
        let n = f.post_raw(&note, &[("Content-Type", "application/json")]).await;
        assert_eq!((n.status, n.body.as_str()), (202, ""));
        assert_eq!(f.request("GET", &[("Accept", "text/event-stream")], "").await.status, 405);
        assert_eq!(f.request("DELETE", &[], "").await.status, 405);
        let evil = f.post(&modern(10, "tools/list", json!({})), &[("Origin", "http://evil.example")]).await;
        assert_eq!(evil.status, 403);
        let local = f.post(&modern(11, "tools/list", json!({})), &[("Origin", "http://localhost:3000")]).await;
        assert_eq!(local.status, 200);
    })
    .await;
}

#[tokio::test]
async fn legacy_sessions_are_keyed_by_id() {
    within(async {
        let f = HttpFixture::spawn(&["--mode", "legacy"]).await;
        let json = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        let before = f.post_raw(&bare(1, "tools/list", json!({})), &json).await;
        assert_eq!((before.status, code(&before.json())), (400, -32600));

        let init = f.post_raw(&initialize(2), &json).await;
        assert_eq!(init.status, 200);
        let sid = init
            .header("mcp-session-id")
            .expect("session id issued")
            .to_owned();
        let init2 = f.post_raw(&initialize(3), &json).await;
        let sid2 = init2
            .header("mcp-session-id")
            .expect("second session")
            .to_owned();
        assert_ne!(sid, sid2);

        let listed = f
            .post_session(&bare(4, "tools/list", json!({})), &sid)
            .await;
        assert_eq!(listed.status, 200);
        assert!(listed.json()["result"]["tools"].is_array());
        assert!(listed.json()["result"].get("resultType").is_none());
        let no_session = f.post_raw(&bare(5, "tools/list", json!({})), &json).await;
        assert_eq!(
            no_session.status, 400,
            "initialized state is per session, not global"
        );
        let unknown = f
            .post_session(&bare(6, "tools/list", json!({})), "feedface")
            .await;
        assert_eq!((unknown.status, code(&unknown.json())), (404, -32600));

        let mismatch = f
            .post_raw(
                &bare(7, "tools/list", json!({})),
                &[
                    json[0],
                    ("Mcp-Session-Id", &sid),
                    ("Mcp-Method", "tools/call"),
                ],
            )
            .await;
        assert_eq!(code(&mismatch.json()), -32001, "RC-era HeaderMismatch");

        let stream = f
            .request_until(
                "GET",
                &[("Accept", "text/event-stream"), ("Mcp-Session-Id", &sid)],
                "",
                ": keep-alive",
            )
            .await;
        assert!(stream.starts_with("HTTP/1.1 200"), "{stream}");
        assert!(
            stream.contains(&format!("event: endpoint\ndata: /mcp?sessionId={sid}")),
            "{stream}"
        );

        let del = f.request("DELETE", &[("Mcp-Session-Id", &sid)], "").await;
        assert_eq!(del.status, 200);
        assert_eq!(
            f.post_session(&bare(8, "tools/list", json!({})), &sid)
                .await
                .status,
            404,
            "ended session"
        );
        assert_eq!(
            f.post_session(&bare(9, "tools/list", json!({})), &sid2)
                .await
                .status,
            200,
            "other session unaffected"
        );
    })
    .await;
}

#[tokio::test]
async fn sse_splits_the_response_over_two_data_lines() {
    within(async {
        let f = HttpFixture::spawn(&["--sse"]).await;
        let r = f.post(&modern(1, "tools/list", json!({})), &[]).await;
        assert_eq!(
            (r.status, r.header("content-type")),
            (200, Some("text/event-stream"))
        );
        assert!(r.body.starts_with(": keep-alive\n\n"), "{}", r.body);
        let events: Vec<&str> = r
            .body
            .split("\n\n")
            .filter(|e| e.contains("data:"))
            .collect();
        assert_eq!(events.len(), 2, "{}", r.body);
        assert!(events[0].contains("notifications/message"));
        let data: Vec<&str> = events[1]
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .collect();
        assert_eq!(data.len(), 2, "response split across two data lines");
        let joined: Value = serde_json::from_str(&data.join("\n")).expect("joined lines are JSON");
        assert_eq!(joined["id"], 1);
        assert_eq!(joined["result"]["tools"].as_array().map(Vec::len), Some(3));
    })
    .await;
}

#[tokio::test]
async fn listen_holds_an_sse_stream_open() {
    within(async {
        let f = HttpFixture::spawn(&["--list-changed"]).await;
        let msg = modern(
            5,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true}}),
        );
        let h = [
            ("Content-Type", "application/json"),
            ("Mcp-Method", "subscriptions/listen"),
            ("MCP-Protocol-Version", "2026-07-28"),
        ];
        let raw = f
            .request_until("POST", &h, &msg.to_string(), ": keep-alive")
            .await;
        assert!(raw.contains("text/event-stream"), "{raw}");
        assert!(
            raw.contains(r#""io.modelcontextprotocol/subscriptionId":5"#),
            "{raw}"
        );
        assert!(
            !raw.contains("\"result\""),
            "no response on a listen stream"
        );
    })
    .await;
}

#[tokio::test]
async fn strict_headers_dual_and_liar() {
    within(async {
        let sh = HttpFixture::spawn(&["--mode", "strict-headers"]).await;
        let e = sh.post(&modern(1, "tools/list", json!({})), &[]).await;
        assert_eq!((e.status, code(&e.json())), (400, -32600));
        let ok = sh
            .post_raw(
                &modern(2, "tools/list", json!({})),
                &[("Content-Type", "application/json")],
            )
            .await;
        assert_eq!(ok.json()["result"]["resultType"], "complete");

        let dual = HttpFixture::spawn(&["--mode", "dual"]).await;
        let init = dual
            .post_raw(&initialize(1), &[("Content-Type", "application/json")])
            .await;
        assert_eq!(init.json()["result"]["protocolVersion"], "2025-11-25");
        assert!(init.header("mcp-session-id").is_none());
        assert_eq!(
            dual.post(&modern(2, "tools/list", json!({})), &[])
                .await
                .status,
            200,
            "stateless after init"
        );

        let liar = HttpFixture::spawn(&["--mode", "liar"]).await;
        let r = liar.post(&modern(1, "made/up", json!({})), &[]).await;
        assert_eq!(r.status, 200);
        assert!(r.json().get("result").is_some());

        let sid = HttpFixture::spawn(&["--session-id"]).await;
        let r = sid
            .post(&modern(1, "server/discover", json!({})), &[])
            .await;
        assert!(
            r.header("mcp-session-id").is_some(),
            "--session-id mints one (MCP003)"
        );
    })
    .await;
}

#[tokio::test]
async fn dropping_stdin_stops_the_server() {
    within(async {
        let mut f = HttpFixture::spawn(&[]).await;
        drop(f.stdin.take());
        let status = f.child.wait().await.expect("wait");
        assert_eq!(status.code(), Some(0));
    })
    .await;
}
