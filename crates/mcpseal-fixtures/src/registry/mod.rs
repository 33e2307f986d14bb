//! A local MCP Registry for tests: the v0.1 read paths of the registry's `openapi.yaml` over a
//! directory of `server.json` files ([`store`]), on 127.0.0.1.
//!
//! * `GET /v0.1/servers?cursor&limit&search&version&updated_since` → `ServerList`
//!   (`metadata.nextCursor` while more pages remain; `limit` default 30, at most 100; `search`
//!   a case-insensitive substring of the name; `version` `latest` or exact; deleted entries
//!   left out, as the official registry does unless asked);
//! * `GET /v0.1/servers/{serverName}/versions` → `ServerList` of that name, newest first;
//! * `GET /v0.1/servers/{serverName}/versions/{version}` → `ServerResponse` (`latest`
//!   allowed); 404 `{"error": "Server not found"}` otherwise.
//!
//! Path parameters are decoded exactly once, so `io.github.me%2Fweather` names
//! `io.github.me/weather` and a doubly encoded name is not found. Knobs for the client's
//! resilience: `--fail N` answers the first N requests with `--fail-status` (503 unless told)
//! and `Retry-After: --retry-after`; `--request-log FILE` appends `GET <raw path and query>`
//! per request, so a test can see exactly what was asked.

pub mod store;

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};

use store::Stored;

/// How the registry behaves.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Requests answered with `fail_status` before the registry starts answering.
    pub fail: usize,
    /// The status of those answers.
    pub fail_status: u16,
    /// `Retry-After` seconds sent with them.
    pub retry_after: Option<u64>,
    /// Where to log each request's raw target.
    pub request_log: Option<PathBuf>,
}

struct Registry {
    entries: Vec<Stored>,
    settings: Settings,
    seen: AtomicUsize,
}

type Shared = Arc<Registry>;

/// Binds 127.0.0.1 on `port` (0: any), prints `http://127.0.0.1:PORT`, serves until the
/// process ends.
pub async fn serve(entries: Vec<Stored>, settings: Settings, port: u16) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    let port = listener.local_addr()?.port();
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "http://127.0.0.1:{port}")?;
        out.flush()?;
    }
    let state = Arc::new(Registry {
        entries,
        settings,
        seen: AtomicUsize::new(0),
    });
    let app = Router::new()
        .route("/v0.1/servers", get(list))
        .route("/v0.1/servers/{name}/versions", get(versions))
        .route("/v0.1/servers/{name}/versions/{version}", get(one))
        .fallback(|| async { not_found("Not found") })
        .layer(middleware::from_fn_with_state(state.clone(), gate))
        .with_state(state);
    axum::serve(listener, app).await?;
    Ok(())
}

/// Logs the request, then answers the first `--fail` ones with the failure status.
async fn gate(State(r): State<Shared>, request: Request, next: Next) -> Response {
    if let Some(path) = &r.settings.request_log {
        let target = request
            .uri()
            .path_and_query()
            .map(|p| p.as_str().to_owned())
            .unwrap_or_default();
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            // One `write` per line: concurrent requests append to the same log.
            let _ = f.write_all(format!("{} {target}\n", request.method()).as_bytes());
        }
    }
    if r.seen.fetch_add(1, Ordering::SeqCst) < r.settings.fail {
        let status =
            StatusCode::from_u16(r.settings.fail_status).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
        let mut response =
            (status, axum::Json(json!({"error": "Try again later"}))).into_response();
        if let Some(s) = r.settings.retry_after
            && let Ok(v) = HeaderValue::from_str(&s.to_string())
        {
            response.headers_mut().insert(header::RETRY_AFTER, v);
        }
        return response;
    }
    next.run(request).await
}

fn not_found(message: &str) -> Response {
    (StatusCode::NOT_FOUND, axum::Json(json!({"error": message}))).into_response()
}

fn server_list(items: &[&Stored], next_cursor: Option<String>) -> Response {
    let mut metadata = serde_json::Map::new();
    if let Some(c) = next_cursor {
        metadata.insert("nextCursor".into(), Value::from(c));
    }
    metadata.insert("count".into(), Value::from(items.len()));
    let servers: Vec<Value> = items.iter().map(|s| s.response()).collect();
    axum::Json(json!({"servers": servers, "metadata": metadata})).into_response()
}

/// The decoded query parameters of a request.
fn query(uri: &Uri) -> Vec<(String, String)> {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    uri.query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(p), String::new()),
        })
        .collect()
}

async fn list(State(r): State<Shared>, uri: Uri) -> Response {
    let q = query(&uri);
    let get = |k: &str| q.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
    let limit = get("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    let start = match get("cursor") {
        None => 0,
        Some(c) => match c.strip_prefix("o").and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => n,
            None => {
                return (
                    StatusCode::BAD_REQUEST,
                    axum::Json(json!({"error": "Invalid cursor"})),
                )
                    .into_response();
            }
        },
    };
    let search = get("search").map(str::to_lowercase);
    let matching: Vec<&Stored> = r
        .entries
        .iter()
        .filter(|s| s.status != "deleted")
        .filter(|s| {
            search
                .as_ref()
                .is_none_or(|t| s.name.to_lowercase().contains(t))
        })
        .filter(|s| match get("version") {
            None => true,
            Some("latest") => s.is_latest,
            Some(v) => s.version == v,
        })
        .filter(|s| get("updated_since").is_none_or(|t| s.updated_at.as_str() >= t))
        .collect();
    let page: Vec<&Stored> = matching.iter().skip(start).take(limit).copied().collect();
    let next = (start + limit < matching.len()).then(|| format!("o{}", start + limit));
    server_list(&page, next)
}

async fn versions(State(r): State<Shared>, Path(name): Path<String>) -> Response {
    let items: Vec<&Stored> = r.entries.iter().filter(|s| s.name == name).collect();
    if items.is_empty() {
        return not_found("Server not found");
    }
    server_list(&items, None)
}

async fn one(State(r): State<Shared>, Path((name, version)): Path<(String, String)>) -> Response {
    let found = r.entries.iter().find(|s| {
        s.name == name
            && if version == "latest" {
                s.is_latest
            } else {
                s.version == version
            }
    });
    match found {
        Some(s) => axum::Json(s.response()).into_response(),
        None => not_found("Server not found"),
    }
}
