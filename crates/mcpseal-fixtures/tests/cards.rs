//! `--card PATH=FILE`: cards served with the headers the server-card extension asks for, an
//! ETag honoured with 304, and `--card-bare` serving none of them.

mod common;

use common::{HttpFixture, get_raw, within};

fn card_file(dir: &std::path::Path) -> String {
    let path = dir.join("card.json");
    std::fs::write(
        &path,
        r#"{"name":"example-org/x","remotes":[{"type":"streamable-http","url":"{origin}/mcp"}]}"#,
    )
    .expect("write card");
    path.to_string_lossy().into_owned()
}

#[tokio::test]
async fn cards_carry_cors_caching_and_revalidate() {
    within(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = card_file(dir.path());
        let log = dir.path().join("cards.log");
        let log_arg = log.to_string_lossy().into_owned();
        let f = HttpFixture::spawn(&[
            "--card",
            &format!("/mcp/server-card={file}"),
            "--card",
            &format!("/.well-known/mcp.json={file}"),
            "--card-log",
            &log_arg,
        ])
        .await;
        let port = f.port;
        let (first, reserved) = tokio::task::spawn_blocking(move || {
            (
                get_raw(port, "/mcp/server-card", &[("Authorization", "Bearer t")]),
                get_raw(port, "/.well-known/mcp.json", &[]),
            )
        })
        .await
        .expect("join");
        assert_eq!(first.status, 200);
        assert_eq!(
            first.header("content-type"),
            Some("application/mcp-server-card+json")
        );
        assert_eq!(reserved.header("content-type"), Some("application/json"));
        assert_eq!(first.header("access-control-allow-origin"), Some("*"));
        assert_eq!(first.header("cache-control"), Some("public, max-age=3600"));
        assert!(
            first.body.contains(&format!("http://127.0.0.1:{port}/mcp")),
            "{{origin}} replaced"
        );
        let etag = first.header("etag").expect("etag").to_owned();
        let again = tokio::task::spawn_blocking(move || {
            get_raw(port, "/mcp/server-card", &[("If-None-Match", &etag)])
        })
        .await
        .expect("join");
        assert_eq!(again.status, 304);
        assert!(again.body.is_empty());
        let logged = std::fs::read_to_string(&log).expect("log");
        assert!(
            logged.starts_with("GET /mcp/server-card authorization=yes\n"),
            "{logged}"
        );
    })
    .await;
}

#[tokio::test]
async fn bare_cards_have_none_of_it() {
    within(async {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = card_file(dir.path());
        let f = HttpFixture::spawn(&["--card", &format!("/mcp/server-card={file}"), "--card-bare"])
            .await;
        let port = f.port;
        let r = tokio::task::spawn_blocking(move || {
            get_raw(port, "/mcp/server-card", &[("If-None-Match", "\"x\"")])
        })
        .await
        .expect("join");
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("text/plain"));
        for h in ["access-control-allow-origin", "cache-control", "etag"] {
            assert!(r.header(h).is_none(), "{h}");
        }
    })
    .await;
}
