//! The fixture over real stdio: one behaviour per mode and the byte-level knobs.

mod common;

use common::{StdioFixture, bare, initialize, modern, within};
use serde_json::{Value, json};

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

#[tokio::test]
async fn modern_discover_lists_and_envelope() {
    within(async {
        let mut f = StdioFixture::spawn(&[]);
        let d = f.call(&modern(1, "server/discover", json!({}))).await;
        let r = &d["result"];
        assert_eq!(r["resultType"], "complete");
        assert_eq!(r["supportedVersions"], json!(["2026-07-28"]));
        assert_eq!(r["cacheScope"], "public");
        assert!(r["ttlMs"].is_u64());
        assert_eq!(
            r["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "mcpseal-fixture"
        );
        assert!(
            r.get("serverInfo").is_none(),
            "body serverInfo is pre-final"
        );

        let t = f.call(&modern(2, "tools/list", json!({}))).await;
        let names: Vec<&str> = t["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(names, ["add", "clock", "echo"]);

        assert_eq!(
            code(&f.call(&bare(3, "tools/list", json!({}))).await),
            -32602
        );
        let mut old = modern(4, "tools/list", json!({}));
        old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1999-01-01");
        let e = f.call(&old).await;
        assert_eq!((code(&e), e["id"].clone()), (-32022, json!(4)));
        assert_eq!(
            e["error"]["data"],
            json!({"supported": ["2026-07-28"], "requested": "1999-01-01"})
        );
        for (id, m) in [
            (5, "ping"),
            (6, "initialize"),
            (7, "logging/setLevel"),
            (8, "tasks/list"),
        ] {
            assert_eq!(
                code(&f.call(&modern(id, m, json!({}))).await),
                -32601,
                "{m}"
            );
        }
        let call = f
            .call(&modern(
                9,
                "tools/call",
                json!({"name": "add", "arguments": {"a": 1, "b": 2}}),
            ))
            .await;
        assert_eq!(call["result"]["structuredContent"], json!({"sum": 3}));
        let nf = f
            .call(&modern(
                10,
                "resources/read",
                json!({"uri": "fixture://nope"}),
            ))
            .await;
        assert_eq!(
            (code(&nf), nf["error"]["data"]["uri"].clone()),
            (-32602, json!("fixture://nope"))
        );
        assert_eq!(f.finish().await, Some(0), "exit 0 on stdin EOF");
    })
    .await;
}

#[tokio::test]
async fn legacy_requires_initialize_and_flips_order() {
    within(async {
        let mut f = StdioFixture::spawn(&["--mode", "legacy"]);
        assert_eq!(
            code(&f.call(&bare(1, "tools/list", json!({}))).await),
            -32600
        );
        assert_eq!(
            code(&f.call(&modern(2, "server/discover", json!({}))).await),
            -32600
        );
        let init = f.call(&initialize(3)).await;
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
        assert!(init["result"]["capabilities"]["tasks"].is_object());
        let a = f.call(&bare(4, "tools/list", json!({}))).await;
        let b = f.call(&bare(5, "tools/list", json!({}))).await;
        assert!(a["result"].get("resultType").is_none() && a["result"].get("ttlMs").is_none());
        assert_ne!(
            a["result"]["tools"], b["result"]["tools"],
            "order flips every other call"
        );
        assert!(f.call(&bare(6, "ping", json!({}))).await["result"].is_object());
        assert_eq!(
            code(&f.call(&bare(7, "server/discover", json!({}))).await),
            -32601
        );
        assert_eq!(
            code(
                &f.call(&bare(8, "resources/read", json!({"uri": "x:/y"})))
                    .await
            ),
            -32002
        );
        let mut old = modern(9, "tools/list", json!({}));
        old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1999-01-01");
        assert_eq!(code(&f.call(&old).await), -32004);
    })
    .await;
}

#[tokio::test]
async fn liar_dual_and_strict_params() {
    within(async {
        let mut liar = StdioFixture::spawn(&["--mode", "liar"]);
        let r = liar.call(&bare(1, "no/such/method", json!({}))).await;
        assert!(r.get("result").is_some() && r.get("error").is_none(), "{r}");

        let mut dual = StdioFixture::spawn(&["--mode", "dual"]);
        assert_eq!(
            dual.call(&initialize(1)).await["result"]["protocolVersion"],
            "2025-11-25"
        );
        assert_eq!(
            dual.call(&modern(2, "server/discover", json!({}))).await["result"]["resultType"],
            "complete"
        );

        let mut sp = StdioFixture::spawn(&["--mode", "strict-params"]);
        let e = sp.call(&modern(1, "tools/list", json!({}))).await;
        assert_eq!(
            (code(&e), e["error"]["message"].clone()),
            (-32602, json!("unexpected property _meta"))
        );
        let ok = sp.call(&bare(2, "tools/list", json!({}))).await;
        assert_eq!(ok["result"]["tools"].as_array().map(Vec::len), Some(3));
        assert!(
            ok["result"].get("resultType").is_none(),
            "served as the 2025 shape"
        );

        let mut sh = StdioFixture::spawn(&["--mode", "strict-headers"]);
        assert_eq!(sh.wait().await, Some(2), "strict-headers is HTTP only");
    })
    .await;
}

#[tokio::test]
async fn listen_acknowledges_then_stays_silent_until_cancelled() {
    within(async {
        let mut f = StdioFixture::spawn(&["--list-changed"]);
        f.send(&modern(7, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["fixture://readme"]}}))).await;
        let ack = f.recv().await;
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 7);
        assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}), "only the honoured subset");
        f.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}})).await;
        // The next line on stdout is the answer to the next request: nothing was sent for the stream.
        assert_eq!(f.call(&modern(8, "prompts/list", json!({}))).await["id"], 8);
    })
    .await;
}

#[tokio::test]
async fn byte_level_knobs() {
    within(async {
        let mut noisy = StdioFixture::spawn(&["--noise"]);
        noisy.send(&modern(1, "server/discover", json!({}))).await;
        assert_eq!(noisy.line().await.trim(), "server starting...");
        assert_eq!(noisy.recv().await["id"], 1);

        let mut crash = StdioFixture::spawn(&["--crash-after", "1"]);
        assert_eq!(
            crash.call(&modern(1, "server/discover", json!({}))).await["id"],
            1
        );
        crash.send(&modern(2, "tools/list", json!({}))).await;
        assert_eq!(crash.wait().await, Some(3));

        let mut half = StdioFixture::spawn(&["--half-message"]);
        half.send(&modern(1, "server/discover", json!({}))).await;
        assert_eq!(half.wait().await, Some(1));

        let mut bye = StdioFixture::spawn(&["--exit-after-discover"]);
        assert_eq!(
            bye.call(&modern(1, "server/discover", json!({}))).await["id"],
            1
        );
        assert_eq!(bye.wait().await, Some(0));

        let mut hang = StdioFixture::spawn(&["--hang-on", "tools/list"]);
        hang.send(&modern(1, "tools/list", json!({}))).await;
        assert_eq!(
            hang.call(&modern(2, "prompts/list", json!({}))).await["id"],
            2,
            "others still served"
        );
    })
    .await;
}

#[tokio::test]
async fn pagination_and_big_surfaces() {
    within(async {
        let mut f = StdioFixture::spawn(&["--tools", "10000", "--page-size", "4000"]);
        let (mut cursor, mut total, mut pages) = (None::<String>, 0, 0);
        loop {
            let params = cursor.as_ref().map_or(json!({}), |c| json!({"cursor": c}));
            let r = f.call(&modern(pages + 1, "tools/list", params)).await;
            total += r["result"]["tools"].as_array().map_or(0, Vec::len);
            pages += 1;
            match r["result"]["nextCursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => break,
            }
        }
        assert_eq!((total, pages), (10_003, 3));
        // No time bound here: speed on big surfaces is measured in BENCHMARKS.md (the fixture
        // serving 5,000 tools), and this test's bound is the DEADLINE it runs under.
        assert_eq!(
            code(
                &f.call(&modern(9, "tools/list", json!({"cursor": "garbage"})))
                    .await
            ),
            -32602
        );

        let mut e = StdioFixture::spawn(&["--empty-cursor", "prompts"]);
        let p1 = e.call(&modern(1, "prompts/list", json!({}))).await;
        assert_eq!(p1["result"]["nextCursor"], "");
        let p2 = e
            .call(&modern(2, "prompts/list", json!({"cursor": ""})))
            .await;
        assert!(p2["result"].get("nextCursor").is_none());

        let mut d = StdioFixture::spawn(&["--duplicate", "tools"]);
        let t = d.call(&modern(1, "tools/list", json!({}))).await;
        assert_eq!(t["result"]["tools"][0], t["result"]["tools"][1]);
    })
    .await;
}
