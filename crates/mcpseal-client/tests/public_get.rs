//! Header-free public GETs against real sockets on 127.0.0.1: what is sent, which redirects
//! are followed, and the byte and time bounds.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mcpseal_client::{PublicClient, user_agent};

const DEADLINE: Duration = Duration::from_secs(30);

async fn with_deadline<F: std::future::Future<Output = ()>>(f: F) {
    tokio::time::timeout(DEADLINE, f)
        .await
        .expect("test finished within its deadline");
}

/// A server on its own port answering one connection per scripted reply (in order) and
/// returning the requests it got. `{base}` in a reply is replaced by its own base URL.
fn serve(replies: Vec<String>) -> (String, JoinHandle<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let own = base.clone();
    let handle = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for reply in replies {
            let Ok((mut sock, _)) = listener.accept() else {
                break;
            };
            sock.set_read_timeout(Some(Duration::from_secs(5))).ok();
            let mut buf = vec![0u8; 16 * 1024];
            let n = sock.read(&mut buf).unwrap_or(0);
            seen.push(String::from_utf8_lossy(&buf[..n]).into_owned());
            let _ = sock.write_all(reply.replace("{base}", &own).as_bytes());
        }
        seen
    });
    (base, handle)
}

fn reply(status: &str, headers: &[&str], body: &str) -> String {
    let mut r = format!("HTTP/1.1 {status}\r\n");
    for h in headers {
        r.push_str(h);
        r.push_str("\r\n");
    }
    r.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ));
    r
}

fn client() -> PublicClient {
    PublicClient::new(Duration::from_secs(10), 64 * 1024).expect("client")
}

#[tokio::test]
async fn a_public_get_sends_only_accept_and_a_user_agent_and_keeps_cache_headers() {
    with_deadline(async {
        let (base, seen) = serve(vec![reply(
            "200 OK",
            &[
                "content-type: application/json",
                "etag: \"v1\"",
                "cache-control: max-age=60",
            ],
            r#"{"name":"card"}"#,
        )]);
        let url = format!("{base}/.well-known/mcp/server-card.json");
        let got = client().get(&url, "application/json").await;
        assert_eq!(got.status, Some(200), "{got:?}");
        assert_eq!(got.etag(), Some("\"v1\""));
        assert_eq!(got.cache_control(), Some("max-age=60"));
        assert_eq!(got.content_type(), Some("application/json"));
        assert_eq!(got.json().expect("json")["name"], "card");
        assert!(got.redirect.is_none() && got.error.is_none());
        let request = seen.join().expect("server").remove(0).to_ascii_lowercase();
        assert!(
            request.starts_with("get /.well-known/mcp/server-card.json "),
            "{request}"
        );
        assert!(
            request.contains(&format!("user-agent: {}", user_agent()).to_ascii_lowercase()),
            "{request}"
        );
        assert!(user_agent().starts_with("mcpseal/"));
        assert!(!request.contains("authorization"), "{request}");
        assert!(!request.contains("cookie"), "{request}");
    })
    .await;
}

#[tokio::test]
async fn a_revalidation_sends_if_none_match_and_reads_a_304() {
    with_deadline(async {
        let (base, seen) = serve(vec![
            reply(
                "200 OK",
                &["etag: \"v7\"", "content-type: application/json"],
                "{}",
            ),
            reply("304 Not Modified", &["etag: \"v7\""], ""),
        ]);
        let url = format!("{base}/.well-known/mcp/server-card");
        let first = client().get(&url, "application/json").await;
        let tag = first.etag().expect("an etag").to_owned();
        let again = client().revalidate(&url, "application/json", &tag).await;
        assert_eq!(again.status, Some(304), "{again:?}");
        assert!(again.body.is_empty() && again.error.is_none(), "{again:?}");
        assert_eq!(again.failure(), "HTTP 304");
        let seen = seen.join().expect("server");
        let plain = seen[0].to_ascii_lowercase();
        let conditional = seen[1].to_ascii_lowercase();
        assert!(!plain.contains("if-none-match"), "{plain}");
        assert!(
            conditional.contains("if-none-match: \"v7\""),
            "{conditional}"
        );
        assert!(!conditional.contains("authorization"), "{conditional}");
    })
    .await;
}

#[tokio::test]
async fn same_origin_redirects_are_followed_and_other_origins_are_reported() {
    with_deadline(async {
        let (base, seen) = serve(vec![
            reply("302 Found", &["location: {base}/moved"], ""),
            reply("200 OK", &["content-type: application/json"], "{}"),
        ]);
        let got = client()
            .get(&format!("{base}/doc"), "application/json")
            .await;
        assert_eq!(got.status, Some(200), "{got:?}");
        assert!(got.final_url.ends_with("/moved"), "{}", got.final_url);
        assert!(got.redirect.is_none());
        assert_eq!(seen.join().expect("server").len(), 2);

        // Another origin (another port) is never asked.
        let elsewhere = TcpListener::bind("127.0.0.1:0").expect("bind");
        elsewhere.set_nonblocking(true).expect("nonblocking");
        let target = format!("http://{}/doc", elsewhere.local_addr().expect("addr"));
        let location = format!("location: {target}");
        let (base, seen) = serve(vec![reply("301 Moved Permanently", &[&location], "")]);
        let got = client()
            .get(&format!("{base}/doc"), "application/json")
            .await;
        assert_eq!(got.status, Some(301), "{got:?}");
        assert_eq!(got.redirect.as_deref(), Some(target.as_str()));
        let why = got.json().expect_err("no document");
        assert!(why.contains("not followed"), "{why}");
        assert_eq!(seen.join().expect("server").len(), 1);
        assert!(
            elsewhere.accept().is_err(),
            "the other origin got a connection"
        );
        let meta = client().get_json(&format!("{base}/doc")).await;
        assert!(meta.body.is_none());
    })
    .await;
}

#[tokio::test]
async fn public_gets_are_bounded_in_bytes_and_time() {
    with_deadline(async {
        let big = "x".repeat(100 * 1024);
        let (base, _seen) = serve(vec![reply("200 OK", &[], &big)]);
        let got = client().get(&format!("{base}/big"), "*/*").await;
        assert!(
            got.error.as_deref().is_some_and(|e| e.contains("65536")),
            "{:?}",
            got.error
        );
        assert!(got.body.is_empty());

        // A server that accepts and never answers.
        let silent = TcpListener::bind("127.0.0.1:0").expect("bind");
        let url = format!("http://{}/slow", silent.local_addr().expect("addr"));
        let quick = PublicClient::new(Duration::from_millis(400), 1024).expect("client");
        let started = Instant::now();
        let got = quick.get_json(&url).await;
        assert_eq!(got.error.as_deref(), Some("no response within the timeout"));
        assert!(started.elapsed() < Duration::from_secs(10));
        drop(silent);
    })
    .await;
}
