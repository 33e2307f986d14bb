//! Knobs the probe and client engineers rely on, each checked on the spawned binary.

mod common;

use std::time::{Duration, Instant};

use common::{HttpFixture, StdioFixture, bare, modern, within};
use serde_json::{Value, json};

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list["result"][key]
        .as_array()
        .expect("list")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn surface_file_replaces_the_surface() {
    within(async {
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixture-surface-v2.json");
        let surface = json!({
            "instructions": "v2",
            "serverInfo": {"name": "sim", "version": "2.0.0"},
            "tools": [{"name": "zeta", "inputSchema": {"type": "object"}}, {"name": "alpha", "inputSchema": {"type": "object"}}],
            "prompts": null
        });
        std::fs::write(&path, surface.to_string()).expect("write surface");
        let p = path.to_str().expect("utf-8 path");
        let mut f = StdioFixture::spawn(&["--surface", p, "--server-version", "2.1.0"]);
        let d = f.call(&modern(1, "server/discover", json!({}))).await;
        assert_eq!(d["result"]["instructions"], "v2");
        assert!(d["result"]["capabilities"].get("prompts").is_none());
        assert_eq!(d["result"]["_meta"]["io.modelcontextprotocol/serverInfo"], json!({"name": "sim", "version": "2.1.0"}));
        assert_eq!(names(&f.call(&modern(2, "tools/list", json!({}))).await, "tools"), ["alpha", "zeta"]);
        assert_eq!(code(&f.call(&modern(3, "prompts/list", json!({}))).await), -32601, "null = not served");
        let r = f.call(&modern(4, "resources/list", json!({}))).await;
        assert_eq!(r["result"]["resources"], json!([]), "missing key = empty list");
    })
    .await;
}

#[tokio::test]
async fn list_order_and_cursor_misbehaviours() {
    within(async {
        let mut s = StdioFixture::spawn(&["--shuffle"]);
        let a = names(&s.call(&modern(1, "tools/list", json!({}))).await, "tools");
        let b = names(&s.call(&modern(2, "tools/list", json!({}))).await, "tools");
        assert_ne!(a, b, "--shuffle changes order on every call");

        let mut l = StdioFixture::spawn(&["--cursor-loop", "resources", "--page-size", "1"]);
        let p1 = l.call(&modern(1, "resources/list", json!({}))).await;
        let c = p1["result"]["nextCursor"].clone();
        let p2 = l
            .call(&modern(2, "resources/list", json!({"cursor": c})))
            .await;
        assert_eq!(p2["result"]["nextCursor"], c, "cursor repeats");

        let mut e = StdioFixture::spawn(&["--endless-pages", "resourceTemplates"]);
        let mut cursor = json!(null);
        let mut seen = std::collections::HashSet::new();
        for id in 1..=5 {
            let params = if cursor.is_null() {
                json!({})
            } else {
                json!({"cursor": cursor})
            };
            let r = e
                .call(&modern(id, "resources/templates/list", params))
                .await;
            cursor = r["result"]["nextCursor"].clone();
            assert!(seen.insert(cursor.to_string()), "always a fresh cursor");
        }
    })
    .await;
}

#[tokio::test]
async fn rule_knobs_change_one_thing_each() {
    within(async {
        let mut f = StdioFixture::spawn(&[
            "--no-result-type",
            "--no-server-info-meta",
            "--partial-cache",
            "--old-error-codes",
            "--old-not-found",
            "--ping",
            "--tasks",
            "core",
            "--body-server-info",
        ]);
        let d = f.call(&modern(1, "server/discover", json!({}))).await["result"].clone();
        assert!(d.get("resultType").is_none() && d.get("_meta").is_none());
        assert_eq!(d["serverInfo"]["name"], "mcpseal-fixture");
        assert!(d["capabilities"]["tasks"]["list"].is_object());
        let t = f.call(&modern(2, "tools/list", json!({}))).await["result"].clone();
        assert_eq!(t["cacheScope"], "public");
        let p = f.call(&modern(3, "prompts/list", json!({}))).await["result"].clone();
        assert!(
            p.get("cacheScope").is_none(),
            "--partial-cache strips prompts/list"
        );
        let mut old = modern(4, "tools/list", json!({}));
        old["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2025-06-18");
        assert_eq!(code(&f.call(&old).await), -32004);
        let nf = f
            .call(&modern(
                5,
                "resources/read",
                json!({"uri": "fixture://gone"}),
            ))
            .await;
        assert_eq!(code(&nf), -32002);
        assert!(f.call(&modern(6, "ping", json!({}))).await["result"].is_object());
        assert_eq!(
            f.call(&modern(7, "tasks/list", json!({}))).await["result"]["tasks"],
            json!([])
        );

        let mut lenient = StdioFixture::spawn(&["--lenient-meta", "--error-id-null"]);
        assert!(lenient.call(&bare(1, "tools/list", json!({}))).await["result"].is_object());
        assert_eq!(
            lenient.call(&bare(2, "nope", json!({}))).await["id"],
            json!(null)
        );

        let mut silent = StdioFixture::spawn(&["--silent-listen"]);
        let caps = silent.call(&modern(1, "server/discover", json!({}))).await;
        assert_eq!(caps["result"]["capabilities"]["tools"]["listChanged"], true);
        silent
            .send(&modern(
                2,
                "subscriptions/listen",
                json!({"notifications": {"toolsListChanged": true}}),
            ))
            .await;
        assert_eq!(
            silent.call(&modern(3, "tools/list", json!({}))).await["id"],
            3,
            "listen got no answer at all"
        );
    })
    .await;
}

#[tokio::test]
async fn http_byte_knobs() {
    within(async {
        let slow = HttpFixture::spawn(&["--delay", "300"]).await;
        let started = Instant::now();
        assert_eq!(
            slow.post(&modern(1, "server/discover", json!({})), &[])
                .await
                .status,
            200
        );
        assert!(started.elapsed() >= Duration::from_millis(300));

        let flood = HttpFixture::spawn(&["--flood"]).await;
        let h = [
            ("Mcp-Method", "server/discover"),
            ("MCP-Protocol-Version", "2026-07-28"),
        ];
        let body = modern(1, "server/discover", json!({})).to_string();
        let got = flood
            .request_until("POST", &h, &body, "aaaaaaaaaaaaaaaa")
            .await;
        assert!(got.contains(r#"{"jsonrpc":"2.0","id":1,"result":{"pad":""#));

        let mut crash = HttpFixture::spawn(&["--crash-after", "1"]).await;
        assert_eq!(
            crash
                .post(&modern(1, "server/discover", json!({})), &[])
                .await
                .status,
            200
        );
        let h2 = [
            ("Mcp-Method", "tools/list"),
            ("MCP-Protocol-Version", "2026-07-28"),
        ];
        let _ = crash
            .request_until(
                "POST",
                &h2,
                &modern(2, "tools/list", json!({})).to_string(),
                "never",
            )
            .await;
        assert_eq!(crash.child.wait().await.expect("wait").code(), Some(3));

        let endless = HttpFixture::spawn(&["--sse-endless"]).await;
        let h3 = [
            ("Mcp-Method", "tools/list"),
            ("MCP-Protocol-Version", "2026-07-28"),
        ];
        let body3 = modern(1, "tools/list", json!({})).to_string();
        let got = endless
            .request_until("POST", &h3, &body3, "still working")
            .await;
        assert!(
            got.contains("text/event-stream") && !got.contains("\"result\""),
            "{got}"
        );

        let mut bye = HttpFixture::spawn(&["--exit-after-discover"]).await;
        assert_eq!(
            bye.post(&modern(1, "server/discover", json!({})), &[])
                .await
                .status,
            200
        );
        assert_eq!(bye.child.wait().await.expect("wait").code(), Some(0));

        let stream = HttpFixture::spawn(&["--get-stream"]).await;
        let got = stream
            .request_until(
                "GET",
                &[("Accept", "text/event-stream")],
                "",
                "event: endpoint",
            )
            .await;
        assert!(got.starts_with("HTTP/1.1 200"), "{got}");
    })
    .await;
}

/// The probe and client engineers script these names: renaming one must fail a test.
#[tokio::test]
async fn help_lists_every_knob() {
    within(async {
        let out = tokio::process::Command::new(common::BIN)
            .arg("--help")
            .output()
            .await
            .expect("run --help");
        assert!(out.status.success());
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in [
            "--mode",
            "--http",
            "--port",
            "--ignore-stdin",
            "--sse",
            "--tools",
            "--page-size",
            "--shuffle",
            "--crash-after",
            "--noise",
            "--delay",
            "--duplicate",
            "--surface",
            "--server-version",
            "--volatile-description",
            "--hang-on",
            "--flood",
            "--sse-endless",
            "--exit-after-discover",
            "--cursor-loop",
            "--endless-pages",
            "--empty-cursor",
            "--list-changed",
            "--silent-listen",
            "--invalid-utf8",
            "--half-message",
            "--no-result-type",
            "--no-cache-hints",
            "--partial-cache",
            "--no-server-info-meta",
            "--body-server-info",
            "--old-error-codes",
            "--old-not-found",
            "--session-id",
            "--ping",
            "--removed-methods",
            "--get-stream",
            "--tasks",
            "--messages-listen",
            "--deprecated-caps",
            "--lenient-meta",
            "--lenient-headers",
            "--advertise-version",
            "--error-id-null",
            "--errors-200",
            "--no-origin-check",
        ] {
            assert!(
                help.contains(&format!("{flag} ")) || help.contains(&format!("{flag}\n")),
                "{flag} missing from --help"
            );
        }
        for mode in [
            "modern",
            "legacy",
            "dual",
            "liar",
            "strict-params",
            "strict-headers",
        ] {
            assert!(help.contains(&format!("- {mode}:")), "mode {mode} missing");
        }
    })
    .await;
}
