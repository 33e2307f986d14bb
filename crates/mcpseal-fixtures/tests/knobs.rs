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
            "--noise-json",
            "--require-token",
            "--open-method",
            "--insufficient-scope",
            "--capability-gate",
            "--unknown-tool-is-error",
            "--startup-delay",
            "--stateless-legacy",
            "--localhost-only",
            "--serve-without-version-header",
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

/// `--mode dual` serves a 2025 client past `initialize`: over HTTP without `Mcp-Method` (a 2025
/// client never sends it), over stdio after the handshake; 2026 requests keep their rules.
#[tokio::test]
async fn dual_serves_2025_requests_after_initialize() {
    within(async {
        let f = HttpFixture::spawn(&["--mode", "dual"]).await;
        let json = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        let init = f.post_raw(&common::initialize(1), &json).await;
        assert_eq!(init.json()["result"]["protocolVersion"], "2025-11-25");
        let v2025 = [json[0], json[1], ("MCP-Protocol-Version", "2025-11-25")];
        let listed = f.post_raw(&bare(2, "tools/list", json!({})), &v2025).await;
        assert_eq!(listed.status, 200, "{}", listed.body);
        assert_eq!(names(&listed.json(), "tools").len(), 3);
        assert!(
            listed.json()["result"].get("resultType").is_none(),
            "2025 shape"
        );
        // A 2026 request still needs its headers.
        let e = f
            .post_raw(
                &modern(3, "tools/list", json!({})),
                &[json[0], json[1], ("Mcp-Method", "tools/list")],
            )
            .await;
        assert_eq!((e.status, code(&e.json())), (400, -32020));

        let mut s = StdioFixture::spawn(&["--mode", "dual"]);
        assert_eq!(
            code(&s.call(&bare(1, "tools/list", json!({}))).await),
            -32602,
            "before initialize"
        );
        s.call(&common::initialize(2)).await;
        let listed = s.call(&bare(3, "tools/list", json!({}))).await;
        assert_eq!(names(&listed, "tools").len(), 3);
        assert!(listed["result"].get("resultType").is_none());
        let modern_list = s.call(&modern(4, "tools/list", json!({}))).await;
        assert_eq!(modern_list["result"]["resultType"], "complete");
    })
    .await;
}

/// `--require-token`: 401 + challenge + OAuth body without the token, except open methods;
/// `--insufficient-scope` refuses with 403 even with it; the metadata the challenge names is
/// served.
#[tokio::test]
async fn bearer_authorization_with_open_methods() {
    within(async {
        let f = HttpFixture::spawn(&[
            "--require-token",
            "t0ken",
            "--open-method",
            "server/discover",
            "--insufficient-scope",
            "prompts/list",
        ])
        .await;
        let refused = f.post(&modern(1, "tools/list", json!({})), &[]).await;
        assert_eq!(refused.status, 401);
        let challenge = refused
            .header("www-authenticate")
            .expect("challenge")
            .to_owned();
        assert!(
            challenge.starts_with("Bearer resource_metadata=\""),
            "{challenge}"
        );
        assert_eq!(
            refused.json()["error"],
            "invalid_token",
            "an OAuth body, not JSON-RPC"
        );
        assert!(refused.json().get("jsonrpc").is_none());
        let open = f.post(&modern(2, "server/discover", json!({})), &[]).await;
        assert_eq!(open.status, 200);
        let token = [("Authorization", "Bearer t0ken")];
        assert_eq!(
            f.post(&modern(3, "tools/list", json!({})), &token)
                .await
                .status,
            200
        );
        let wrong = [("Authorization", "Bearer nope")];
        assert_eq!(
            f.post(&modern(4, "tools/list", json!({})), &wrong)
                .await
                .status,
            401
        );
        let scoped = f.post(&modern(5, "prompts/list", json!({})), &token).await;
        assert_eq!(scoped.status, 403);
        assert!(
            scoped
                .header("www-authenticate")
                .is_some_and(|c| c.contains("insufficient_scope"))
        );
        assert_eq!(f.request("GET", &[], "").await.status, 401);
        assert!(
            challenge.ends_with("/.well-known/oauth-protected-resource/mcp\""),
            "the RFC 9728 path form: {challenge}"
        );
    })
    .await;
}

/// The smaller knobs of the accuracy rules.
#[tokio::test]
async fn accuracy_knobs() {
    within(async {
        let mut s = StdioFixture::spawn(&["--noise-json", "--unknown-tool-is-error"]);
        s.send(&modern(
            1,
            "tools/call",
            json!({"name": "nope", "arguments": {}}),
        ))
        .await;
        let noise: Value = serde_json::from_str(&s.line().await).expect("a JSON line");
        assert!(
            noise.get("jsonrpc").is_none(),
            "JSON, but no JSON-RPC message: {noise}"
        );
        let r: Value = serde_json::from_str(&s.line().await).expect("the answer");
        assert_eq!(r["result"]["isError"], true);

        let mut g = StdioFixture::spawn(&["--capability-gate", "refuse"]);
        let e = g
            .call(&modern(1, "prompts/get", json!({"name": "approve"})))
            .await;
        assert_eq!(code(&e), -32021);
        assert_eq!(
            e["error"]["data"]["requiredCapabilities"],
            json!({"elicitation": {}})
        );
        let mut caps = modern(2, "prompts/get", json!({"name": "approve"}));
        caps["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] =
            json!({"elicitation": {}});
        assert_eq!(
            g.call(&caps).await["result"]["resultType"],
            "input_required"
        );
        let e = g
            .call(&modern(
                3,
                "tools/call",
                json!({"name": "long_job", "arguments": {}}),
            ))
            .await;
        assert_eq!(
            e["error"]["data"]["requiredCapabilities"]["extensions"],
            json!({"io.modelcontextprotocol/tasks": {}})
        );
        let mut a = StdioFixture::spawn(&["--capability-gate", "ask"]);
        let r = a
            .call(&modern(
                1,
                "resources/read",
                json!({"uri": "fixture://approval"}),
            ))
            .await;
        assert_eq!(
            r["result"]["inputRequests"]["confirm"]["method"],
            "elicitation/create"
        );
        assert!(
            r["result"].get("ttlMs").is_none(),
            "interim results carry no cache hints"
        );
        let mut t = StdioFixture::spawn(&["--capability-gate", "task"]);
        let r = t
            .call(&modern(
                1,
                "tools/call",
                json!({"name": "long_job", "arguments": {}}),
            ))
            .await;
        assert_eq!(r["result"]["resultType"], "task");

        let h = HttpFixture::spawn(&["--localhost-only"]).await;
        let r = h.post(&modern(1, "server/discover", json!({})), &[]).await;
        assert_eq!(r.status, 403);
        assert!(r.body.starts_with("Invalid Host header"), "{}", r.body);
        let h = HttpFixture::spawn(&["--capability-gate", "status-200"]).await;
        let r = h
            .post(
                &modern(1, "prompts/get", json!({"name": "approve"})),
                &[("Mcp-Name", "approve")],
            )
            .await;
        assert_eq!((r.status, code(&r.json())), (200, -32021));
        let h = HttpFixture::spawn(&["--mode", "dual", "--serve-without-version-header"]).await;
        let r = h
            .post_raw(
                &modern(1, "tools/list", json!({})),
                &[
                    ("Content-Type", "application/json"),
                    ("Accept", "application/json, text/event-stream"),
                    ("Mcp-Method", "tools/list"),
                ],
            )
            .await;
        assert_eq!(
            r.json()["result"]["resultType"],
            "complete",
            "2026-shaped without the header"
        );
        let h = HttpFixture::spawn(&["--mode", "legacy", "--stateless-legacy"]).await;
        let json = [
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ];
        let r = h.post_raw(&bare(1, "tools/list", json!({})), &json).await;
        assert_eq!(
            names(&r.json(), "tools").len(),
            3,
            "served without a handshake"
        );
        let r = h.post(&modern(2, "tools/list", json!({})), &[]).await;
        assert_eq!(
            (r.status, code(&r.json())),
            (400, -32000),
            "a 2026 version header is refused"
        );
        let init = h.post_raw(&common::initialize(3), &json).await;
        assert!(
            init.header("mcp-session-id").is_none(),
            "stateless: no session"
        );

        let started = Instant::now();
        let mut slow = StdioFixture::spawn(&["--startup-delay", "600"]);
        slow.call(&modern(1, "server/discover", json!({}))).await;
        assert!(
            started.elapsed() >= Duration::from_millis(600),
            "the first answer waits"
        );
    })
    .await;
}
