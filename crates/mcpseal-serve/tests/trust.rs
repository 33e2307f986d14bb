//! The trust model against real origins: a directory and a loopback HTTP file server, with a
//! manifest written by the real `sha256sum`.
#![expect(clippy::disallowed_methods, reason = "the test writes its inputs")]

mod common;

use std::sync::{Arc, Mutex};

use mcpseal_serve::manifest::sha256_hex;
use mcpseal_serve::{SiteOptions, VERIFICATION_FAILED};
use serde_json::{Value, json};

use common::{FileServer, SiteDir, call, read, server, server_with};

fn error(v: &Value) -> (i64, Value) {
    (
        v["error"]["code"].as_i64().unwrap_or(0),
        v["error"]["data"].clone(),
    )
}

async fn both_origins(site: &SiteDir, extra: &str) -> (Vec<std::path::PathBuf>, FileServer) {
    let fs = FileServer::start(site.public()).await;
    let dir = site.config("public", extra);
    let dir_cfg = site.dir.path().join("dir.toml");
    std::fs::rename(&dir, &dir_cfg).expect("rename");
    let http_cfg = site.config(&fs.base, extra);
    (vec![dir_cfg, http_cfg], fs)
}

#[tokio::test]
async fn verified_bytes_come_with_their_facts_from_both_origins() {
    let site = SiteDir::new();
    let (configs, _fs) = both_origins(&site, "").await;
    for cfg in &configs {
        let s = server(cfg);
        let r = call(&s, "get_post", json!({"slug": "hello"})).await;
        let result = &r["result"];
        assert_eq!(
            result["content"][0]["text"], r#"{"slug":"hello","body":"hi"}"#,
            "{r}"
        );
        assert_eq!(result["resultType"], "complete");
        let v = &result["_meta"]["verification"];
        assert_eq!(v["path"], "api/v1/posts/hello.json");
        assert_eq!(v["sha256"], sha256_hex(br#"{"slug":"hello","body":"hi"}"#));
        assert_eq!(v["signature"]["status"], "off");
        assert!(
            v["url"]
                .as_str()
                .is_some_and(|u| u.ends_with("api/v1/posts/hello.json"))
        );
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "test-site"
        );
        // A space in the slug: the manifest key has it raw, the URL percent-encoded.
        let r = call(&s, "get_post", json!({"slug": "two words"})).await;
        assert_eq!(
            r["result"]["content"][0]["text"], r#"{"slug":"two words"}"#,
            "{r}"
        );
        let r = call(&s, "get_blob", json!({})).await;
        let blob = &r["result"]["content"][0];
        assert_eq!(
            blob["type"], "resource",
            "binary bytes are an embedded blob"
        );
        assert!(
            blob["resource"]["blob"]
                .as_str()
                .is_some_and(|b| b.len() == 13_656)
        );
        let r = read(&s, "site://profile").await;
        assert_eq!(r["result"]["contents"][0]["text"], r#"{"name":"Ada"}"#);
        assert_eq!(r["result"]["contents"][0]["mimeType"], "application/json");
        assert_eq!(
            r["result"]["_meta"]["verification"]["path"],
            "api/v1/profile.json"
        );
        let r = read(&s, "site://posts/two%20words").await;
        assert_eq!(
            r["result"]["contents"][0]["uri"],
            "site://posts/two%20words"
        );
        assert!(
            r["result"]["ttlMs"].is_number(),
            "reads are cacheable results"
        );
    }
}

#[tokio::test]
async fn one_tampered_byte_is_an_error_with_both_digests() {
    let site = SiteDir::new();
    let (configs, _fs) = both_origins(&site, "").await;
    let expected = sha256_hex(br#"{"slug":"hello","body":"hi"}"#);
    site.write(
        "api/v1/posts/hello.json",
        br#"{"slug":"hello","body":"hI"}"#,
    );
    let actual = sha256_hex(br#"{"slug":"hello","body":"hI"}"#);
    for cfg in &configs {
        let r = call(&server(cfg), "get_post", json!({"slug": "hello"})).await;
        assert!(r.get("result").is_none(), "nothing is returned: {r}");
        let (code, data) = error(&r);
        assert_eq!(code, VERIFICATION_FAILED);
        assert_eq!(data["reason"], "digest-mismatch");
        assert_eq!(
            (
                data["path"].clone(),
                data["expected"].clone(),
                data["actual"].clone()
            ),
            (
                json!("api/v1/posts/hello.json"),
                json!(expected),
                json!(actual)
            )
        );
        let r = read(&server(cfg), "site://posts/hello").await;
        assert_eq!(
            error(&r).0,
            VERIFICATION_FAILED,
            "reads are checked the same way"
        );
    }
}

#[tokio::test]
async fn paths_outside_the_manifest_or_the_schema_are_refused() {
    let site = SiteDir::new();
    let (configs, _fs) = both_origins(&site, "").await;
    for cfg in &configs {
        let s = server(cfg);
        let r = call(&s, "get_unlisted", json!({})).await;
        assert_eq!(
            error(&r),
            (
                VERIFICATION_FAILED,
                json!({"reason": "not-signed", "path": "api/v1/unlisted.json"})
            )
        );
        let r = read(&s, "site://posts/unlisted").await;
        assert_eq!(
            error(&r).0,
            -32602,
            "an unsigned resource does not exist: {r}"
        );
        assert_eq!(error(&r).1["reason"], "not-signed");
        for bad in [
            json!({"slug": ".."}),
            json!({"slug": "a/b"}),
            json!({}),
            json!({"slug": 3}),
        ] {
            let r = call(&s, "get_post", bad.clone()).await;
            assert_eq!(r["result"]["isError"], true, "{bad} → {r}");
            assert!(
                r["result"]
                    .get("_meta")
                    .and_then(|m| m.get("verification"))
                    .is_none()
            );
        }
        let r = read(&s, "site://posts/..").await;
        assert_eq!(error(&r).0, -32602);
        let r = read(&s, "site://posts/a%2F..%2F..%2Fprofile").await;
        assert_eq!(error(&r).0, -32602);
    }
}

#[tokio::test]
async fn a_deploy_between_two_reads_refetches_the_manifest_once() {
    let site = SiteDir::new();
    let (configs, _fs) = both_origins(&site, "").await;
    for cfg in &configs {
        site.write(
            "api/v1/posts/hello.json",
            br#"{"slug":"hello","body":"hi"}"#,
        );
        site.manifest_except(&["api/v1/unlisted.json"]);
        let notes = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = Arc::clone(&notes);
        let s = server_with(
            cfg,
            SiteOptions {
                manifest_ttl: None,
                notes: Arc::new(move |l: &str| sink.lock().expect("notes").push(l.to_owned())),
            },
        );
        assert!(
            call(&s, "get_post", json!({"slug": "hello"}))
                .await
                .get("result")
                .is_some(),
            "manifest cached"
        );
        // A deploy: new bytes and a new manifest. The cached manifest no longer matches.
        site.write(
            "api/v1/posts/hello.json",
            br#"{"slug":"hello","body":"v2"}"#,
        );
        site.manifest_except(&["api/v1/unlisted.json"]);
        let r = call(&s, "get_post", json!({"slug": "hello"})).await;
        assert_eq!(
            r["result"]["content"][0]["text"], r#"{"slug":"hello","body":"v2"}"#,
            "{r}"
        );
        assert!(
            notes
                .lock()
                .expect("notes")
                .iter()
                .any(|n| n.contains("fetching the manifest again"))
        );
        // The file changes again, the manifest does not: the refetch cannot help.
        site.write(
            "api/v1/posts/hello.json",
            br#"{"slug":"hello","body":"v3"}"#,
        );
        let r = call(&s, "get_post", json!({"slug": "hello"})).await;
        assert_eq!(error(&r).1["reason"], "digest-mismatch");
        assert_eq!(
            error(&r).1["actual"],
            sha256_hex(br#"{"slug":"hello","body":"v3"}"#)
        );
    }
}

#[tokio::test]
async fn a_manifest_ttl_picks_up_a_new_manifest() {
    let site = SiteDir::new();
    let cfg = site.config("public", "manifest_ttl = \"200ms\"");
    let s = server(&cfg);
    assert_eq!(
        error(&call(&s, "get_unlisted", json!({})).await).1["reason"],
        "not-signed"
    );
    site.manifest_except(&[]);
    // Wait out the TTL by polling (no fixed sleep as synchronisation).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let r = call(&s, "get_unlisted", json!({})).await;
        if r.get("result").is_some() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the new manifest was never fetched"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_slow_origin_is_a_timeout_error() {
    let site = SiteDir::new();
    site.write("api/v1/posts/slow.json", b"{}");
    site.manifest_except(&[]);
    let fs = FileServer::start(site.public()).await;
    let cfg = site.config(&fs.base, "");
    let started = std::time::Instant::now();
    let r = call(&server(&cfg), "get_post", json!({"slug": "slow"})).await;
    assert_eq!(error(&r).0, VERIFICATION_FAILED);
    assert_eq!(error(&r).1["reason"], "timeout", "{r}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(9),
        "the 2 s fetch timeout, not the origin's 10 s"
    );
}

#[tokio::test]
async fn an_oversize_file_is_refused() {
    let site = SiteDir::new();
    let (configs, _fs) = both_origins(&site, "max_bytes = 4096").await;
    for cfg in &configs {
        let r = call(&server(cfg), "get_blob", json!({})).await;
        assert_eq!(error(&r).0, VERIFICATION_FAILED);
        assert_eq!(error(&r).1["reason"], "oversize", "{r}");
    }
}

#[tokio::test]
async fn redirects_stay_inside_the_origin() {
    let site = SiteDir::new();
    let fs = FileServer::start(site.public()).await;
    let r = call(
        &server(&site.config(&format!("{}elsewhere/", fs.base), "")),
        "get_profile",
        json!({}),
    )
    .await;
    assert_eq!(
        error(&r).1["reason"],
        "manifest",
        "a redirect to another origin is not followed: {r}"
    );
    assert!(
        error(&r).1["detail"]
            .as_str()
            .is_some_and(|d| d.contains("another origin")),
        "{r}"
    );
    let r = call(
        &server(&site.config(&format!("{}moved/", fs.base), "")),
        "get_profile",
        json!({}),
    )
    .await;
    assert_eq!(
        r["result"]["content"][0]["text"], r#"{"name":"Ada"}"#,
        "a same-origin redirect is: {r}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlink_out_of_the_site_directory_is_refused() {
    let site = SiteDir::new();
    std::fs::write(site.dir.path().join("secret.json"), b"{}").expect("write");
    std::os::unix::fs::symlink(
        site.dir.path().join("secret.json"),
        site.public().join("api/v1/posts/link.json"),
    )
    .expect("symlink");
    site.manifest_except(&[]);
    let r = call(
        &server(&site.config("public", "")),
        "get_post",
        json!({"slug": "link"}),
    )
    .await;
    assert_eq!(error(&r).1["reason"], "outside-origin", "{r}");
}

/// The posts directory moved to `to` (under the temporary directory) and `api/v1/posts`
/// made a symlink `link` to it; the manifest rewritten through the link.
#[cfg(unix)]
fn posts_behind_a_directory_link(site: &common::SiteDir, to: &str, link: &str) {
    let posts = site.public().join("api/v1/posts");
    let moved = site.dir.path().join(to);
    std::fs::create_dir_all(moved.parent().expect("parent")).expect("mkdir");
    std::fs::rename(&posts, &moved).expect("move the posts");
    std::os::unix::fs::symlink(link, &posts).expect("symlink");
    site.manifest_except(&[]);
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlinked_directory_that_leaves_the_site_is_refused() {
    let site = SiteDir::new();
    let outside = site.dir.path().join("elsewhere/posts");
    posts_behind_a_directory_link(&site, "elsewhere/posts", &outside.display().to_string());
    let s = server(&site.config("public", ""));
    for _ in 0..2 {
        let r = call(&s, "get_post", json!({"slug": "hello"})).await;
        assert_eq!(error(&r).1["reason"], "outside-origin", "{r}");
        let r = read(&s, "site://posts/hello").await;
        assert_eq!(error(&r).1["reason"], "outside-origin", "{r}");
    }
}

#[cfg(unix)]
#[tokio::test]
async fn a_symlinked_directory_that_stays_inside_the_site_is_served() {
    let site = SiteDir::new();
    // A relative link (`../../real-posts` from `api/v1/`), resolved against its directory.
    posts_behind_a_directory_link(&site, "public/real-posts", "../../real-posts");
    let s = server(&site.config("public", ""));
    for _ in 0..2 {
        let r = call(&s, "get_post", json!({"slug": "hello"})).await;
        assert_eq!(
            r["result"]["content"][0]["text"], r#"{"slug":"hello","body":"hi"}"#,
            "{r}"
        );
        assert_eq!(
            r["result"]["_meta"]["verification"]["path"],
            "api/v1/posts/hello.json"
        );
    }
}

#[tokio::test]
async fn the_deploy_check_lists_every_failing_path() {
    let site = SiteDir::new();
    site.write("api/v1/posts/hello.json", b"changed");
    std::fs::remove_file(site.public().join("api/v1/profile.json")).expect("rm");
    let cfg = site.config("public", "");
    let loaded = mcpseal_serve::config::load(&cfg).expect("load");
    let s = mcpseal_serve::Site::new(&loaded, SiteOptions::default()).expect("site");
    let report = s.trust().check_all().await.expect("manifest readable");
    assert!(!report.passed());
    assert_eq!(report.entries, 4);
    let failed: Vec<(&str, &str)> = report
        .failures
        .iter()
        .map(|f| (f.path.as_str(), f.reason.as_str()))
        .collect();
    assert_eq!(
        failed,
        [
            ("api/v1/posts/hello.json", "digest-mismatch"),
            ("api/v1/profile.json", "fetch-failed")
        ]
    );
    std::fs::remove_file(site.public().join("site.sha256")).expect("rm");
    assert!(
        s.trust().check_all().await.is_err(),
        "no manifest: no verdict"
    );
}
