//! Real origins for the trust-model tests: a site directory with a manifest written by the real
//! `sha256sum`, and a loopback HTTP file server serving it (with a slow path and redirects).

#![allow(dead_code, reason = "each test binary uses a different subset")]
#![expect(
    clippy::disallowed_methods,
    reason = "test support: writes site files and starts signing tools"
)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use axum::Router;
use axum::extract::{Path as UrlPath, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcpseal_protocol::{MODERN_REVISION, keys};
use mcpseal_serve::{Site, SiteOptions};
use mcpseal_server::Server;
use serde_json::{Value, json};

/// A site on disk: `public/` holds the files and `site.sha256`.
pub struct SiteDir {
    pub dir: tempfile::TempDir,
}

impl SiteDir {
    /// Files: profile, two posts, a 10 KB blob of binary data.
    pub fn new() -> SiteDir {
        let s = SiteDir {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        s.write("api/v1/profile.json", br#"{"name":"Ada"}"#);
        s.write(
            "api/v1/posts/hello.json",
            br#"{"slug":"hello","body":"hi"}"#,
        );
        s.write("api/v1/posts/two words.json", br#"{"slug":"two words"}"#);
        s.write(
            "api/v1/blob.bin",
            &(0..10_240u32).map(|i| (i % 251) as u8).collect::<Vec<_>>(),
        );
        s.write("api/v1/unlisted.json", b"{}");
        s.manifest_except(&["api/v1/unlisted.json"]);
        s
    }

    pub fn public(&self) -> PathBuf {
        self.dir.path().join("public")
    }

    pub fn write(&self, rel: &str, bytes: &[u8]) {
        let p = self.public().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, bytes).expect("write");
    }

    /// Writes `public/site.sha256` with the real `sha256sum`, over every file but the manifest,
    /// the bundle and `except`.
    pub fn manifest_except(&self, except: &[&str]) {
        let mut files = Vec::new();
        collect(&self.public(), &self.public(), &mut files);
        files.retain(|f| {
            f != "site.sha256" && f != "site.sha256.sigstore.json" && !except.contains(&f.as_str())
        });
        files.sort();
        let out = Command::new("sha256sum")
            .args(&files)
            .current_dir(self.public())
            .output()
            .expect("run sha256sum");
        assert!(out.status.success(), "sha256sum failed");
        std::fs::write(self.public().join("site.sha256"), out.stdout).expect("write manifest");
    }

    /// Writes `site.toml` in the site directory with this `[origin]` body (after `base_url`).
    pub fn config(&self, base_url: &str, origin_extra: &str) -> PathBuf {
        let text = format!(
            r#"[server]
name = "test-site"
version = "1.0.0"

[origin]
base_url = "{base_url}"
fetch_timeout = "2s"
{origin_extra}

[[verbs]]
id = "get_post"
description = "A post"
path = "posts/{{slug}}.json"
input_schema = {{ type = "object", required = ["slug"], properties = {{ slug = {{ type = "string" }} }} }}

[[verbs]]
id = "get_profile"
description = "The profile"
path = "profile.json"

[[verbs]]
id = "get_blob"
description = "Binary"
path = "blob.bin"

[[verbs]]
id = "get_unlisted"
description = "Not in the manifest"
path = "unlisted.json"

[[resources]]
uri = "site://profile"
name = "profile"
path = "profile.json"
mime_type = "application/json"

[[resource_templates]]
uri_template = "site://posts/{{slug}}"
name = "post"
path = "posts/{{slug}}.json"
"#
        );
        let p = self.dir.path().join("site.toml");
        std::fs::write(&p, text).expect("write config");
        p
    }
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(root, &p, out);
        } else if let Ok(rel) = p.strip_prefix(root) {
            out.push(rel.to_string_lossy().into_owned());
        }
    }
}

/// A site server for `config`, with notes collected.
pub fn server(config: &Path) -> Server<Site> {
    server_with(config, SiteOptions::default())
}

pub fn server_with(config: &Path, options: SiteOptions) -> Server<Site> {
    let loaded = mcpseal_serve::config::load(config).expect("config loads");
    mcpseal_serve::server(Site::new(&loaded, options).expect("site builds"))
}

fn meta() -> Value {
    json!({keys::META_PROTOCOL_VERSION: MODERN_REVISION, keys::META_CLIENT_CAPABILITIES: {}})
}

/// `tools/call` in the 2026 era; returns the whole response.
pub async fn call(server: &Server<Site>, tool: &str, args: Value) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": tool, "arguments": args, keys::META: meta()}});
    tokio::time::timeout(Duration::from_secs(20), server.request(msg))
        .await
        .expect("answered in time")
        .expect("a response")
}

/// `resources/read` in the 2026 era.
pub async fn read(server: &Server<Site>, uri: &str) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": uri, keys::META: meta()}});
    tokio::time::timeout(Duration::from_secs(20), server.request(msg))
        .await
        .expect("answered in time")
        .expect("a response")
}

/// A loopback static file server over a directory. Paths containing `slow` answer after 10 s,
/// `/elsewhere/…` redirects to another origin (`localhost` instead of `127.0.0.1`),
/// `/moved/…` redirects within the origin.
pub struct FileServer {
    pub base: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FileServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve_file(State(root): State<PathBuf>, UrlPath(path): UrlPath<String>) -> Response {
    if path.contains("slow") {
        tokio::time::sleep(Duration::from_secs(10)).await;
    }
    if let Some(rest) = path.strip_prefix("moved/") {
        return (StatusCode::FOUND, [(header::LOCATION, format!("/{rest}"))]).into_response();
    }
    serve_path(&root, &path).await
}

async fn serve_path(root: &Path, path: &str) -> Response {
    match tokio::fs::read(root.join(path)).await {
        Ok(bytes) => bytes.into_response(),
        Err(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

impl FileServer {
    pub async fn start(root: PathBuf) -> FileServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let app = Router::new()
            .route(
                "/elsewhere/{*path}",
                axum::routing::get(move |UrlPath(p): UrlPath<String>| async move {
                    (
                        StatusCode::FOUND,
                        [(header::LOCATION, format!("http://localhost:{port}/{p}"))],
                    )
                        .into_response()
                }),
            )
            .route("/{*path}", axum::routing::get(serve_file))
            .with_state(root);
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FileServer {
            base: format!("http://127.0.0.1:{port}/"),
            task,
        }
    }
}
