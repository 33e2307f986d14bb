//! The verified-bytes cache of a directory origin never answers for a file that changed: with
//! the file's bytes cached (it has settled, and one call read and verified it), an in-place edit
//! of the same length, the same edit with its modification time put back, a deploy that renames
//! a new file (and a new manifest) over it, and a symlink retargeted out of the site are each
//! seen on the very next call of the same server — an error with both digests, the manifest
//! refetch, the escape refusal — and the original bytes restored are served again.
#![expect(clippy::disallowed_methods, reason = "the test writes its inputs")]

mod common;

use mcpseal_serve::VERIFICATION_FAILED;
use mcpseal_serve::manifest::sha256_hex;
use mcpseal_serve::recheck::SETTLE;
use serde_json::{Value, json};

use common::{SiteDir, call, server};

const ORIGINAL: &[u8] = br#"{"slug":"hello","body":"hi"}"#;
const TAMPERED: &[u8] = br#"{"slug":"hello","body":"hI"}"#;

/// A site whose files have settled (changed longer than [`SETTLE`] ago), so a verified read is
/// cached. This waits for file times to age — a property of the files, not a synchronisation
/// with another process.
fn settled_site() -> SiteDir {
    let site = SiteDir::new();
    std::thread::sleep(SETTLE + std::time::Duration::from_millis(1100));
    site
}

fn text(r: &Value) -> Option<&str> {
    r["result"]["content"][0]["text"].as_str()
}

fn mismatch(r: &Value) -> (i64, Value, Value) {
    let data = &r["error"]["data"];
    (
        r["error"]["code"].as_i64().unwrap_or(0),
        data["expected"].clone(),
        data["actual"].clone(),
    )
}

#[tokio::test]
async fn a_cached_file_edited_in_place_is_an_error_on_the_next_call() {
    let site = settled_site();
    let file = site.public().join("api/v1/posts/hello.json");
    let s = server(&site.config("public", ""));
    let hello = json!({"slug": "hello"});
    for _ in 0..2 {
        let r = call(&s, "get_post", hello.clone()).await;
        assert_eq!(text(&r), std::str::from_utf8(ORIGINAL).ok(), "{r}");
    }
    let before = std::fs::metadata(&file).expect("stat");
    let mtime = before.modified().expect("mtime");

    // Same length, one byte changed, written in place (same inode).
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .expect("open");
    std::io::Write::write_all(&mut &f, TAMPERED).expect("write");
    let expected = (
        VERIFICATION_FAILED,
        json!(sha256_hex(ORIGINAL)),
        json!(sha256_hex(TAMPERED)),
    );
    let r = call(&s, "get_post", hello.clone()).await;
    assert_eq!(mismatch(&r), expected, "{r}");

    // The modification time put back does not hide the write (the status-change time moved).
    f.set_modified(mtime).expect("set mtime");
    drop(f);
    assert_eq!(
        std::fs::metadata(&file).expect("stat").modified().ok(),
        Some(mtime)
    );
    let r = call(&s, "get_post", hello.clone()).await;
    assert_eq!(mismatch(&r), expected, "{r}");

    // The signed bytes back: verified (read and hashed again) and served.
    std::fs::write(&file, ORIGINAL).expect("restore");
    let r = call(&s, "get_post", hello).await;
    assert_eq!(text(&r), std::str::from_utf8(ORIGINAL).ok(), "{r}");
}

#[tokio::test]
async fn a_deploy_over_a_cached_file_is_read_and_refetches_the_manifest() {
    let site = settled_site();
    let s = server(&site.config("public", ""));
    let hello = json!({"slug": "hello"});
    let r = call(&s, "get_post", hello.clone()).await;
    assert_eq!(text(&r), std::str::from_utf8(ORIGINAL).ok(), "{r}");

    // A deploy: new bytes renamed over the file, a new manifest vouching for them.
    let file = site.public().join("api/v1/posts/hello.json");
    let next = site.public().join("api/v1/posts/.hello.json.new");
    let new: &[u8] = br#"{"slug":"hello","body":"deployed"}"#;
    std::fs::write(&next, new).expect("write");
    std::fs::rename(&next, &file).expect("rename");
    site.manifest_except(&[]);
    let r = call(&s, "get_post", hello).await;
    assert_eq!(text(&r), std::str::from_utf8(new).ok(), "{r}");
    assert_eq!(
        r["result"]["_meta"]["verification"]["sha256"],
        json!(sha256_hex(new))
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_cached_path_whose_symlink_now_leaves_the_site_is_refused() {
    let site = settled_site();
    let inside = site.public().join("api/v1/posts/hello.json");
    let link = site.public().join("api/v1/posts/link.json");
    std::os::unix::fs::symlink(&inside, &link).expect("symlink");
    std::fs::write(site.dir.path().join("secret.json"), ORIGINAL).expect("write");
    // `link.json` is signed with hello's digest (the manifest covers the link's target bytes).
    site.manifest_except(&[]);
    let s = server(&site.config("public", ""));
    let link_args = json!({"slug": "link"});
    let r = call(&s, "get_post", link_args.clone()).await;
    assert_eq!(text(&r), std::str::from_utf8(ORIGINAL).ok(), "{r}");

    // The same bytes outside the site: refused although the digest would match.
    std::fs::remove_file(&link).expect("rm");
    std::os::unix::fs::symlink(site.dir.path().join("secret.json"), &link).expect("symlink");
    let r = call(&s, "get_post", link_args).await;
    assert_eq!(r["error"]["data"]["reason"], "outside-origin", "{r}");
}

/// One 2026 request over HTTP: the response body's bytes.
async fn post(url: &str, method: &str, name: &str, params: Value) -> Vec<u8> {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let mut params = params;
    params["_meta"] = meta;
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let r = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .header("Mcp-Name", name)
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .expect("an HTTP answer");
    assert_eq!(r.status(), 200);
    r.bytes().await.expect("a body").to_vec()
}

/// Answers are written from the cached escaped text without a `Value` tree: their bytes must be
/// exactly what serialising the parsed response writes (compact, sorted members, `serde_json`'s
/// escapes), on the first (uncached) call and on the cached ones, for a text that needs escaping
/// and is long enough (past 4 KiB) that the HTTP body sends its cached text as it is.
#[tokio::test]
async fn cached_answers_are_the_bytes_a_value_would_write() {
    let site = SiteDir::new();
    let tricky = format!(
        "{{\"q\":\"a \\\"b\\\"\",\"nl\":\"x\ny\",\"tab\":\"\t\",\"ctl\":\"\u{1}\",\"u\":\"é ✓ 𝄞\",\"s\":\"</script>\",\"pad\":\"{}\"}}",
        "p".repeat(5000)
    );
    let tricky = tricky.as_str();
    site.write("api/v1/posts/tricky.json", tricky.as_bytes());
    site.manifest_except(&[]);
    std::thread::sleep(SETTLE + std::time::Duration::from_millis(1100));
    let s = server(&site.config("public", ""));
    let http = s
        .bind_http("127.0.0.1:0", mcpseal_server::HttpOptions::default())
        .await
        .expect("bind");
    let url = http.url();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let run = tokio::spawn(http.run(async {
        let _ = stopped.await;
    }));
    let mut seen: Vec<Vec<u8>> = Vec::new();
    for _ in 0..3 {
        let tool = post(
            &url,
            "tools/call",
            "get_post",
            json!({"name": "get_post", "arguments": {"slug": "tricky"}}),
        )
        .await;
        let read = post(
            &url,
            "resources/read",
            "site://posts/tricky",
            json!({"uri": "site://posts/tricky"}),
        )
        .await;
        for body in [&tool, &read] {
            let v: Value = serde_json::from_slice(body).expect("JSON");
            assert_eq!(
                String::from_utf8_lossy(body),
                String::from_utf8_lossy(&serde_json::to_vec(&v).unwrap_or_default())
            );
        }
        let v: Value = serde_json::from_slice(&tool).expect("JSON");
        assert_eq!(text(&v), Some(tricky), "{v}");
        let v: Value = serde_json::from_slice(&read).expect("JSON");
        assert_eq!(v["result"]["contents"][0]["text"], tricky, "{v}");
        assert_eq!(v["result"]["contents"][0]["uri"], "site://posts/tricky");
        seen.push(tool);
        seen.push(read);
    }
    assert!(
        seen[0] == seen[2] && seen[2] == seen[4],
        "tools/call answers differ"
    );
    assert!(
        seen[1] == seen[3] && seen[3] == seen[5],
        "resources/read answers differ"
    );
    let _ = stop.send(());
    let _ = run.await;
}
