//! `--card PATH=FILE`: server cards and AI Catalogs served next to the MCP endpoint, for
//! `card check`.
//!
//! Each document is read once at start-up (`{origin}` replaced by `http://127.0.0.1:PORT`)
//! and served on `GET PATH` the way the server-card extension asks: `Content-Type` by place
//! (`…/server-card` → `application/mcp-server-card+json`, `ai-catalog.json` →
//! `application/ai-catalog+json`, anything else `application/json`),
//! `Access-Control-Allow-Origin: *` (+ methods, headers, exposed `ETag`),
//! `Cache-Control: public, max-age=3600`, a strong `ETag` (a hash of the bytes) and
//! `304 Not Modified` when `If-None-Match` carries it. `--card-bare` drops every one of those
//! (`text/plain`, no CORS, no caching headers, never 304), so the checks can be seen to fire.
//! `--card-log FILE` records whether each card request carried an `Authorization` header.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::handler::Handler;
use crate::knobs::Knobs;

struct Card {
    path: String,
    body: String,
    etag: String,
    media_type: &'static str,
}

fn media_type(path: &str) -> &'static str {
    if path.ends_with("/server-card") {
        "application/mcp-server-card+json"
    } else if path.ends_with("ai-catalog.json") {
        "application/ai-catalog+json"
    } else {
        "application/json"
    }
}

/// Adds a route per `--card`.
///
/// # Errors
/// A `--card` value that is not `PATH=FILE`, or a file that cannot be read.
pub fn routes(
    mut app: Router<Arc<Handler>>,
    port: u16,
    knobs: &Knobs,
) -> anyhow::Result<Router<Arc<Handler>>> {
    let origin = format!("http://127.0.0.1:{port}");
    for spec in &knobs.cards {
        let (path, file) = spec
            .split_once('=')
            .filter(|(p, _)| p.starts_with('/'))
            .ok_or_else(|| {
                anyhow::anyhow!("--card `{spec}`: expected PATH=FILE, PATH starting with /")
            })?;
        let body = std::fs::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("--card {file}: {e}"))?
            .replace("{origin}", &origin);
        let mut h = DefaultHasher::new();
        body.hash(&mut h);
        let card = Arc::new(Card {
            path: path.to_owned(),
            etag: format!("\"{:016x}\"", h.finish()),
            media_type: media_type(path),
            body,
        });
        let (bare, log) = (knobs.card_bare, knobs.card_log.clone());
        app = app.route(
            path,
            get(move |headers: HeaderMap| {
                let card = card.clone();
                let log = log.clone();
                async move { serve(&card, &headers, bare, log.as_deref()) }
            }),
        );
    }
    Ok(app)
}

fn serve(card: &Card, headers: &HeaderMap, bare: bool, log: Option<&std::path::Path>) -> Response {
    if let Some(path) = log
        && let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
    {
        let auth = if headers.contains_key(header::AUTHORIZATION) {
            "yes"
        } else {
            "no"
        };
        // One `write` per line: concurrent requests append to the same log.
        let _ = f.write_all(format!("GET {} authorization={auth}\n", card.path).as_bytes());
    }
    if bare {
        return (
            [(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"))],
            card.body.clone(),
        )
            .into_response();
    }
    let fresh = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == card.etag));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        let mut r = card.body.clone().into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static(card.media_type),
        );
        r
    };
    let h = response.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static("Content-Type, If-None-Match"),
    );
    h.insert(
        header::ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static("ETag"),
    );
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    if let Ok(v) = HeaderValue::from_str(&card.etag) {
        h.insert(header::ETAG, v);
    }
    response
}
