//! The Streamable HTTP transport: one endpoint, `/mcp`, on 127.0.0.1.
//!
//! Prints exactly one line, `http://127.0.0.1:PORT/mcp`, then serves until killed or until
//! stdin reaches EOF (so a test that drops the child's stdin stops it; `--ignore-stdin`
//! turns that off). The status codes are the point of this module:
//! 202 accepted notification, 400 envelope/header errors, 401 without the token
//! (`--require-token`), 403 foreign `Origin` (or `Host`, with `--localhost-only`), 404 unknown
//! method (modern) or ended session (legacy), 405 `GET`/`DELETE` on a modern server.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use futures_util::stream::{self, StreamExt};
use serde_json::Value;

use crate::handler::{Handler, Incoming, SessionState, Transport};
use crate::headers;
use crate::jsonrpc::{self, INVALID_REQUEST, Outcome, PARSE_ERROR, RpcError};
use crate::knobs::Mode;
use crate::sse;
use crate::stdio::{flood_chunks, half_of, log};

type Shared = Arc<Handler>;

/// The port being served (set once in [`serve`]; one server per process).
static PORT: std::sync::OnceLock<u16> = std::sync::OnceLock::new();

/// Bind, print the URL, serve.
pub async fn serve(handler: Arc<Handler>, ignore_stdin: bool) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", handler.knobs.port)).await?;
    let port = listener.local_addr()?.port();
    let _ = PORT.set(port);
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "http://127.0.0.1:{port}/mcp")?;
        out.flush()?;
    }
    log(&format!(
        "{:?} mode on http://127.0.0.1:{port}/mcp",
        handler.knobs.mode
    ));
    if !ignore_stdin {
        // Open SSE streams would block a graceful shutdown forever: exit outright at EOF.
        std::thread::spawn(|| {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            std::process::exit(0);
        });
    }
    // An authorization-limited server publishes the metadata its challenge points at.
    let oauth = handler.knobs.oauth.or(handler
        .knobs
        .auth
        .require_token
        .as_ref()
        .map(|_| crate::knobs::OauthKnob::Modern));
    let mut app = Router::new().route("/mcp", any(endpoint));
    if let Some(path) = &handler.knobs.auth.public_path {
        app = app.route(path, any(endpoint));
    }
    if let Some(how) = oauth {
        app = oauth_routes(app, port, how);
    }
    app = crate::cards::routes(app, port, &handler.knobs)?;
    let app = app.with_state(handler);
    axum::serve(listener, app).await?;
    Ok(())
}

async fn endpoint(
    State(h): State<Shared>,
    method: Method,
    uri: axum::http::Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let port = PORT.get().copied().unwrap_or(0);
    let public = h.knobs.auth.public_path.as_deref() == Some(uri.path());
    if h.knobs.localhost_only && !host_is_localhost(&headers, port) {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let mut r = Response::new(Body::from(format!("Invalid Host header: {host}")));
        *r.status_mut() = StatusCode::FORBIDDEN;
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
        return r;
    }
    let rpc_method = (method == Method::POST)
        .then(|| serde_json::from_slice::<Value>(&body).ok())
        .flatten()
        .and_then(|v| v.get("method").and_then(Value::as_str).map(str::to_owned));
    // Recorded before the authorization check, so a refused anonymous request is logged too.
    if method == Method::POST {
        crate::record::post(&h.knobs.record, &headers, rpc_method.as_deref());
        if let Some(redirect) = crate::record::redirect(&h.knobs.record, rpc_method.as_deref()) {
            return redirect;
        }
    }
    if !public
        && let Some(refused) =
            crate::auth::refusal(&h.knobs.auth, port, &headers, rpc_method.as_deref())
    {
        return refused;
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let ok = origin.to_str().is_ok_and(headers::origin_ok);
        if !ok && !h.knobs.no_origin_check {
            let err = RpcError::new(INVALID_REQUEST, "Forbidden origin").status(403);
            return json_response(&h, jsonrpc::error(&Value::Null, &err), 403, None);
        }
    }
    if h.knobs.no_405
        && h.knobs.mode != Mode::Legacy
        && matches!(method, Method::GET | Method::DELETE)
    {
        return StatusCode::NOT_FOUND.into_response();
    }
    match method {
        Method::POST => post(h, headers, body).await,
        Method::GET => get(&h, &headers),
        Method::DELETE => delete(&h, &headers),
        _ => StatusCode::METHOD_NOT_ALLOWED.into_response(),
    }
}

/// `--localhost-only`: is `Host` `localhost` or `localhost:PORT`?
fn host_is_localhost(headers: &HeaderMap, port: u16) -> bool {
    headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|h| h == "localhost" || h == format!("localhost:{port}"))
}

fn session_header(headers: &HeaderMap) -> Option<String> {
    headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Legacy: `GET` with a live session and `Accept: text/event-stream` opens the HTTP+SSE
/// stream (`event: endpoint`, then keep-alives forever). Modern: 405 unless `--get-stream`.
fn get(h: &Handler, headers: &HeaderMap) -> Response {
    let wants_sse = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"));
    let legacy = h.knobs.mode == Mode::Legacy;
    if h.knobs.get_events && wants_sse {
        return sse::response(
            StatusCode::OK,
            sse::forever(
                vec![": standalone stream\n\n".to_owned()],
                Duration::from_secs(1),
            ),
        );
    }
    if !(legacy || h.knobs.get_stream) || !wants_sse {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let session = session_header(headers);
    if legacy && !h.knobs.get_stream {
        match session.as_deref().map(|s| h.session_state(s)) {
            None => return StatusCode::BAD_REQUEST.into_response(),
            Some(Some(SessionState::Live)) => {}
            Some(_) => return StatusCode::NOT_FOUND.into_response(),
        }
    }
    let sid = session.unwrap_or_else(|| h.modern_session.clone());
    let first = format!("event: endpoint\ndata: /mcp?sessionId={sid}\n\n");
    sse::response(
        StatusCode::OK,
        sse::forever(vec![first], Duration::from_secs(1)),
    )
}

/// Legacy: `DELETE` ends a session (200), unknown → 404, missing → 400. Modern: 405.
fn delete(h: &Handler, headers: &HeaderMap) -> Response {
    if h.knobs.mode != Mode::Legacy {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    match session_header(headers) {
        None => StatusCode::BAD_REQUEST.into_response(),
        Some(s) if h.end_session(&s) => StatusCode::OK.into_response(),
        Some(_) => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn post(h: Shared, headers: HeaderMap, body: Bytes) -> Response {
    let msg: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) => {
            let err = RpcError::new(
                INVALID_REQUEST,
                "Body must be one JSON-RPC message (no batches)",
            );
            return json_response(&h, jsonrpc::error(&Value::Null, &err), 400, None);
        }
        Err(e) => {
            let err = RpcError::new(PARSE_ERROR, format!("Parse error: {e}"));
            return json_response(&h, jsonrpc::error(&Value::Null, &err), 400, None);
        }
    };
    if let Some(r) = crate::ask::http_post(&h.knobs, &msg) {
        return r;
    }
    if let Some(r) = crate::refuse::http_post(&h.knobs.refuse, &msg) {
        return r;
    }
    let session = session_header(&headers);
    let version_header = headers::get(&headers, "mcp-protocol-version");
    let inc = Incoming {
        msg: &msg,
        transport: Transport::Http,
        session: session.as_deref(),
        version_header: version_header.as_deref(),
    };
    let outcome = match headers::check(&h.knobs, &headers, &msg, inc.is_legacy_request()) {
        Some(err) => h.reply_err(&msg, err, inc),
        None => h.handle(inc),
    };
    // `--sse-endless` replaces every answer, header errors included, with the endless stream.
    let outcome = match outcome {
        Outcome::Reply { .. } | Outcome::Listen { .. } if h.knobs.sse_endless => Outcome::Endless,
        other => other,
    };
    if h.knobs.delay > 0 && !matches!(outcome, Outcome::Accepted | Outcome::Hang) {
        tokio::time::sleep(Duration::from_millis(h.knobs.delay)).await;
    }
    match outcome {
        Outcome::Reply {
            body,
            status,
            session,
        } => {
            let notes = if h.knobs.mode == Mode::Legacy {
                crate::rugpull::take_notifications(true, true, &[])
            } else {
                Vec::new()
            };
            if !notes.is_empty() {
                let events: Vec<String> = notes.iter().chain([&body]).map(sse::event).collect();
                let mut r = sse::response(StatusCode::OK, stream::iter(events));
                add_session(&mut r, session);
                r
            } else if h.knobs.sse && status == 200 {
                let mut r = sse::response(StatusCode::OK, sse::finite(&msg, &body));
                add_session(&mut r, session);
                r
            } else {
                json_response(&h, body, status, session)
            }
        }
        Outcome::Accepted if h.knobs.notify_200 => json_response(
            &h,
            serde_json::json!({"jsonrpc": "2.0", "result": {}}),
            200,
            None,
        ),
        Outcome::Accepted => StatusCode::ACCEPTED.into_response(),
        Outcome::Listen { before, ack }
            if h.knobs.rug.rug_pull.is_some() && h.knobs.list_changed =>
        {
            let first: Vec<String> = before.iter().chain([&ack]).map(sse::event).collect();
            sse::response(StatusCode::OK, crate::rugpull::listen_stream(first, ack))
        }
        Outcome::Listen { before, ack } => sse::response(
            StatusCode::OK,
            sse::forever(
                before.iter().chain([&ack]).map(sse::event).collect(),
                Duration::from_secs(1),
            ),
        ),
        Outcome::Hang => std::future::pending().await,
        Outcome::Crash => {
            log("crash-after reached: exiting with code 3");
            std::process::exit(3);
        }
        Outcome::Endless => sse::response(StatusCode::OK, sse::endless()),
        Outcome::Flood => {
            let chunks = stream::iter(flood_chunks().map(Bytes::from))
                .chain(stream::once(std::future::pending::<Bytes>()))
                .map(Ok::<Bytes, std::convert::Infallible>);
            raw_json(Body::from_stream(chunks))
        }
        Outcome::InvalidUtf8(id) => raw_json(Body::from(jsonrpc::invalid_utf8_bytes(&id))),
        Outcome::HalfMessage(body) => {
            // Headers and half the body go out; then the body fails (hyper aborts the
            // chunked stream) and the process exits, like a server dying mid-write.
            exit_soon(1, "half-message: exiting with code 1");
            let half = stream::iter([Ok(Bytes::from(half_of(&body)))]).chain(stream::once(async {
                tokio::time::sleep(Duration::from_millis(50)).await;
                Err(std::io::Error::other("half message"))
            }));
            raw_json(Body::from_stream(half))
        }
        Outcome::ReplyThenExit(body) => {
            exit_soon(0, "exit-after-discover: exiting with code 0");
            json_response(&h, body, 200, None)
        }
    }
}

/// Exit shortly, after the current response had time to be written.
fn exit_soon(code: i32, why: &'static str) {
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        log(why);
        std::process::exit(code);
    });
}

fn raw_json(body: Body) -> Response {
    let mut r = Response::new(body);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn add_session(r: &mut Response, session: Option<String>) {
    if let Some(v) = session.and_then(|s| HeaderValue::from_str(&s).ok()) {
        r.headers_mut().insert("mcp-session-id", v);
    }
}

/// A JSON body with `status` (or 200 for errors under `--errors-200`, and for the codes of
/// `--status-200-code`).
fn json_response(h: &Handler, body: Value, status: u16, session: Option<String>) -> Response {
    let code = body.pointer("/error/code").and_then(Value::as_i64);
    let status = if h.knobs.errors_200 || code.is_some_and(|c| h.knobs.status_200_code.contains(&c))
    {
        200
    } else {
        status
    };
    let mut r = raw_json(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    add_session(&mut r, session);
    r
}

/// `--oauth`: RFC 9728 protected-resource metadata for `/mcp` naming this origin as the
/// authorization server, and that server's RFC 8414 metadata.
fn oauth_routes(app: Router<Shared>, port: u16, how: crate::knobs::OauthKnob) -> Router<Shared> {
    let origin = format!("http://127.0.0.1:{port}");
    let prm = serde_json::json!({
        "resource": format!("{origin}/mcp"),
        "authorization_servers": [origin.clone()],
    });
    let mut meta = serde_json::json!({
        "issuer": origin,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "registration_endpoint": format!("{origin}/register"),
        "code_challenge_methods_supported": ["S256"],
    });
    if how == crate::knobs::OauthKnob::Modern {
        meta["authorization_response_iss_parameter_supported"] = Value::Bool(true);
        meta["client_id_metadata_document_supported"] = Value::Bool(true);
    }
    app.route(
        crate::auth::RESOURCE_METADATA_PATH,
        axum::routing::get(move || async move { axum::Json(prm) }),
    )
    .route(
        "/.well-known/oauth-authorization-server",
        axum::routing::get(move || async move { axum::Json(meta) }),
    )
}
