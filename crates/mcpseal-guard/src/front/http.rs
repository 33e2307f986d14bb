//! The Streamable HTTP front: an endpoint (`http://ADDR/mcp`) in front of an HTTP upstream.
//!
//! Built on `mcpseal-server`'s plumbing: the same limits layer (a present `Origin` that is not
//! allowed → 403, a foreign `Host` on a loopback listener → 403, bodies bounded in bytes and time)
//! and the same accept loop (header-read timeout, connection cap). Behind it, every request is
//! one upstream request:
//!
//! * `POST` of a message the guard does not judge (notifications, responses to server requests,
//!   other requests): forwarded with the host's headers; the upstream's status, headers and body
//!   come back as they are — a JSON body chunk by chunk, never held whole; an event stream event
//!   by event, each message checked on its way (a `list_changed` marks its lists stale before the
//!   host sees it), with the guard's own keep-alive comments while it is quiet; closing it (the
//!   2026 way to cancel) closes the upstream's;
//! * `POST` of a list request: answered by the guard ([`crate::lists`]);
//! * `POST` of a call, get, read or completion: judged first ([`intercept::judge_call`]), then
//!   forwarded as above, or refused with a JSON-RPC error (status 200, as servers answer an
//!   unknown tool);
//! * `POST` of `server/discover` / `initialize`: forwarded, the answer checked
//!   ([`intercept::server_answer`]);
//! * `GET` (a 2025 server's standalone stream) and any other method (`DELETE` of a 2025 session):
//!   forwarded and relayed, the stream checked like any other.
//!
//! Headers: the host's are forwarded to the upstream — and only there: the transport never
//! follows a redirect — except the hop-by-hop ones, `Host`, `Content-Length`, `Accept-Encoding`
//! (the guard must read what it checks) and `Origin` (checked here, by the limits layer).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use futures_util::stream;
use mcpseal_client::{Header, Message, Reply, ReplyBody, ReplyStream, StreamItem};
use mcpseal_protocol::method::code;
use mcpseal_protocol::{keys, routing};
use mcpseal_server::{HttpLimits, HttpOptions, MCP_PATH, ServeError, limit, serve_router};
use serde_json::{Value, json};
use tokio::net::TcpListener;

use super::{Checked, to_host};
use crate::dress::Dress;
use crate::intercept::{self, Route};
use crate::lists;
use crate::state::Guard;
use crate::upstream::Upstream;

/// Interval of the guard's keep-alive comments on a quiet relayed event stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A bound HTTP front, ready to [`serve_http`].
#[derive(Debug)]
pub struct HttpFront {
    listener: TcpListener,
    local_addr: SocketAddr,
}

impl HttpFront {
    /// Binds `addr` (`127.0.0.1:0` picks a free port).
    ///
    /// # Errors
    /// [`ServeError::Bind`] when the address cannot be bound.
    pub async fn bind(addr: &str) -> Result<HttpFront, ServeError> {
        let bind_err = |source| ServeError::Bind {
            addr: addr.to_owned(),
            source,
        };
        let listener = TcpListener::bind(addr).await.map_err(bind_err)?;
        let local_addr = listener.local_addr().map_err(bind_err)?;
        Ok(HttpFront {
            listener,
            local_addr,
        })
    }

    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint URL, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.local_addr)
    }
}

struct Ctx {
    guard: Arc<Guard>,
    upstream: Arc<Upstream>,
    checked: Checked,
    forward_timeout: Duration,
}

/// Serves the front until `shutdown` completes (see the module docs). `forward_timeout` bounds
/// each forwarded request up to the upstream's status line.
///
/// # Errors
/// As `mcpseal_server::serve_router`.
pub async fn serve_http(
    front: HttpFront,
    guard: Arc<Guard>,
    upstream: Arc<Upstream>,
    options: HttpOptions,
    forward_timeout: Duration,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), ServeError> {
    let max_body_bytes = upstream.transport().options().limits.max_message_bytes;
    let ctx = Arc::new(Ctx {
        guard,
        upstream,
        checked: Checked::default(),
        forward_timeout,
    });
    let app = Router::new()
        .route(MCP_PATH, any(endpoint))
        .fallback(|| async { StatusCode::NOT_FOUND })
        .with_state(ctx);
    let app = limit(
        app,
        HttpLimits {
            options: options.clone(),
            max_body_bytes,
            check_host: front.local_addr.ip().is_loopback(),
        },
    );
    serve_router(front.listener, app, &options, shutdown, || {}).await
}

async fn endpoint(
    State(ctx): State<Arc<Ctx>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let forwarded = forwarded(&headers);
    match method {
        Method::POST => post(&ctx, forwarded, body).await,
        Method::GET => {
            let all = with_base(&ctx, forwarded);
            match ctx
                .upstream
                .transport()
                .get_stream(&all, ctx.forward_timeout)
                .await
            {
                Some(Ok(reply)) => relay(&ctx, reply, false).await,
                Some(Err(e)) => bad_gateway(&Value::Null, &e.to_string()),
                None => StatusCode::METHOD_NOT_ALLOWED.into_response(),
            }
        }
        other => {
            let Some(raw) = ctx
                .upstream
                .transport()
                .raw_request(other.as_str(), &forwarded)
                .await
            else {
                return StatusCode::METHOD_NOT_ALLOWED.into_response();
            };
            let Some(status) = raw.status else {
                return bad_gateway(&Value::Null, raw.error.as_deref().unwrap_or("no answer"));
            };
            let mut r = Response::new(Body::from(raw.body_preview));
            *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
            copy_headers(&raw.headers, r.headers_mut(), false);
            r
        }
    }
}

async fn post(ctx: &Arc<Ctx>, headers: Vec<(String, String)>, body: Bytes) -> Response {
    let parsed = String::from_utf8(body.to_vec())
        .map_err(|e| e.to_string())
        .and_then(|t| Message::parse(t).map_err(|e| e.to_string()));
    let message = match parsed {
        Ok(m) => m,
        Err(e) => {
            return json_response(
                400,
                &json!({"jsonrpc": "2.0", "id": null, "error": {
                    "code": code::PARSE_ERROR, "message": format!("Parse error: {e}")}}),
            );
        }
    };
    let route = intercept::route(message.value());
    if matches!(route, Route::List(_) | Route::Item(_) | Route::Uri(_))
        && let Some(error) = routing_mismatch(message.value(), &headers)
    {
        // The guard answers these itself (or judges them before the upstream sees them), so it
        // refuses bad routing headers as a 2026 server must, instead of hiding them.
        let id = message.id().cloned().unwrap_or(Value::Null);
        return json_response(400, &json!({"jsonrpc": "2.0", "id": id, "error": error}));
    }
    match route {
        Route::Forward => forward(ctx, &message, headers).await,
        Route::Server(era) => {
            ctx.checked.expect(&message, era);
            forward(ctx, &message, headers).await
        }
        Route::List(kind) => {
            let dress = Dress::of_request(message.value(), &headers);
            let answer =
                lists::answer_list(&ctx.guard, &ctx.upstream, kind, message.value(), dress).await;
            json_response(answer.status, &answer.message)
        }
        Route::Item(_) | Route::Uri(_) => {
            let dress = Dress::of_request(message.value(), &headers);
            match intercept::judge_call(&ctx.guard, &ctx.upstream, &route, &dress).await {
                None => forward(ctx, &message, headers).await,
                Some(r) => {
                    let id = message.id().cloned().unwrap_or(Value::Null);
                    json_response(200, &r.response(&id, ctx.guard.hint()))
                }
            }
        }
    }
}

/// The `-32020` error for a 2026 request whose `MCP-Protocol-Version`, `Mcp-Method` or
/// `Mcp-Name` is missing, repeated or disagrees with its body (`Mcp-Param-*` is left to the
/// upstream, which sees the request as the host sent it).
fn routing_mismatch(message: &Value, headers: &[(String, String)]) -> Option<Value> {
    let checked = [
        keys::HEADER_PROTOCOL_VERSION,
        keys::HEADER_MCP_METHOD,
        keys::HEADER_MCP_NAME,
    ];
    for (name, expected) in routing::routing_headers(message, None) {
        if !checked.iter().any(|c| c.eq_ignore_ascii_case(&name)) {
            continue;
        }
        let sent: Vec<&str> = headers
            .iter()
            .filter(|(n, _)| n.eq_ignore_ascii_case(&name))
            .map(|(_, v)| v.as_str())
            .collect();
        let why = match sent.as_slice() {
            [] => "is missing",
            [one] if *one == expected => continue,
            [_] => "does not match the body",
            _ => "is repeated",
        };
        return Some(json!({"code": code::HEADER_MISMATCH,
            "message": format!("Header mismatch: {name} {why}"),
            "data": {"header": name, "value": sent.first(), "expected": expected}}));
    }
    None
}

/// The upstream's base headers with the host's in place of same-named ones.
fn with_base(ctx: &Ctx, headers: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut all = ctx.upstream.transport().base_headers();
    all.retain(|(n, _)| !headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n)));
    all.extend(headers);
    all
}

async fn forward(ctx: &Arc<Ctx>, message: &Message, headers: Vec<(String, String)>) -> Response {
    let all = with_base(ctx, headers);
    match ctx
        .upstream
        .transport()
        .send(message, &all, ctx.forward_timeout)
        .await
    {
        Ok(reply) => {
            let checked = message.id().is_some()
                && matches!(intercept::route(message.value()), Route::Server(_));
            relay(ctx, reply, checked).await
        }
        Err(e) => bad_gateway(message.id().unwrap_or(&Value::Null), &e.to_string()),
    }
}

/// The upstream's reply as the host's response (see the module docs). `checked`: a JSON body is
/// read whole to check it (the answer to `server/discover` / `initialize`).
async fn relay(ctx: &Arc<Ctx>, reply: Reply, checked: bool) -> Response {
    let status =
        StatusCode::from_u16(reply.status.unwrap_or(502)).unwrap_or(StatusCode::BAD_GATEWAY);
    let stream = matches!(reply.body, ReplyBody::Stream(_));
    let mut response = match reply.body {
        ReplyBody::Whole(w) if checked => match w.read().await {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                match Message::parse(text) {
                    Ok(m) => {
                        let m = to_host(&ctx.guard, &ctx.upstream, &ctx.checked, m);
                        Response::new(Body::from(m.text().to_owned()))
                    }
                    Err(_) => Response::new(Body::from(bytes)),
                }
            }
            Err(e) => return bad_gateway(&Value::Null, &e.to_string()),
        },
        ReplyBody::Whole(w) => {
            let chunks = stream::unfold(Some(w), |w| async move {
                let mut w = w?;
                match w.chunk().await {
                    Ok(Some(c)) => Some((Ok::<Bytes, std::io::Error>(c), Some(w))),
                    Ok(None) => None,
                    Err(e) => Some((Err(std::io::Error::other(e.to_string())), None)),
                }
            });
            Response::new(Body::from_stream(chunks))
        }
        ReplyBody::Stream(s) => Response::new(Body::from_stream(events(Arc::clone(ctx), s))),
        ReplyBody::Inbox => Response::new(Body::empty()),
    };
    *response.status_mut() = status;
    copy_headers(&reply.headers, response.headers_mut(), stream);
    response
}

/// A relayed event stream: each message checked and re-emitted as one `message` event, keep-alive
/// comments while it is quiet. Ends with the upstream's stream; dropped (the host closed it), it
/// drops the upstream's.
fn events(
    ctx: Arc<Ctx>,
    upstream: ReplyStream,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send {
    struct S {
        ctx: Arc<Ctx>,
        upstream: ReplyStream,
        tick: tokio::time::Interval,
        done: bool,
    }
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + KEEP_ALIVE, KEEP_ALIVE);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let state = S {
        ctx,
        upstream,
        tick,
        done: false,
    };
    stream::unfold(state, |mut s| async move {
        if s.done {
            return None;
        }
        let item = tokio::select! {
            item = s.upstream.next() => item,
            _ = s.tick.tick() => return Some((Ok(Bytes::from_static(b": keep-alive\n\n")), s)),
        };
        let bytes = match item {
            None => return None,
            Some(Ok(StreamItem::Message(m))) => {
                let m = to_host(&s.ctx.guard, &s.ctx.upstream, &s.ctx.checked, m);
                format!("event: message\ndata: {}\n\n", intercept::one_line(&m))
            }
            Some(Ok(StreamItem::Unparsed(data))) => {
                let mut out = String::new();
                for line in data.lines() {
                    out.push_str("data: ");
                    out.push_str(line);
                    out.push('\n');
                }
                out.push('\n');
                out
            }
            Some(Err(e)) => {
                s.done = true;
                s.ctx.guard.note(&format!(
                    "mcpseal guard: the upstream's event stream broke: {e}"
                ));
                return None;
            }
        };
        Some((Ok(Bytes::from(bytes)), s))
    })
}

/// Request headers that must not be forwarded (hop-by-hop, or the guard's own business).
fn dropped_request_header(name: &str) -> bool {
    matches!(
        name,
        "host"
            | "content-length"
            | "connection"
            | "keep-alive"
            | "proxy-connection"
            | "proxy-authorization"
            | "proxy-authenticate"
            | "te"
            | "trailer"
            | "transfer-encoding"
            | "upgrade"
            | "accept-encoding"
            | "origin"
    )
}

/// The host's headers as forwarded to the upstream.
fn forwarded(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(n, _)| !dropped_request_header(n.as_str()))
        .filter_map(|(n, v)| Some((n.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect()
}

/// Copies the upstream's response headers, without hop-by-hop ones and the length (the body is
/// re-framed). An event stream also gets `Cache-Control: no-cache` and `X-Accel-Buffering: no`
/// unless the upstream set them.
fn copy_headers(from: &[Header], to: &mut HeaderMap, stream: bool) {
    for h in from {
        let lower = h.name.to_ascii_lowercase();
        if matches!(
            lower.as_str(),
            "content-length"
                | "connection"
                | "keep-alive"
                | "transfer-encoding"
                | "te"
                | "trailer"
                | "upgrade"
        ) {
            continue;
        }
        if let (Ok(n), Ok(v)) = (
            HeaderName::from_bytes(h.name.as_bytes()),
            HeaderValue::from_str(&h.value),
        ) {
            to.append(n, v);
        }
    }
    if stream {
        to.entry(header::CACHE_CONTROL)
            .or_insert(HeaderValue::from_static("no-cache"));
        to.entry("x-accel-buffering")
            .or_insert(HeaderValue::from_static("no"));
    }
}

fn json_response(status: u16, body: &Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn bad_gateway(id: &Value, why: &str) -> Response {
    json_response(
        502,
        &json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": code::INTERNAL_ERROR,
            "message": format!("mcpseal guard: the upstream did not answer: {why}")}}),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_and_origin_are_not_forwarded() {
        let mut h = HeaderMap::new();
        for (n, v) in [
            ("authorization", "Bearer t"),
            ("mcp-session-id", "s1"),
            ("host", "127.0.0.1:1"),
            ("origin", "http://localhost"),
            ("accept-encoding", "gzip"),
            ("connection", "keep-alive"),
            ("mcp-protocol-version", "2026-07-28"),
        ] {
            h.insert(HeaderName::from_static(n), HeaderValue::from_static(v));
        }
        let mut names: Vec<String> = forwarded(&h).into_iter().map(|(n, _)| n).collect();
        names.sort();
        assert_eq!(
            names,
            ["authorization", "mcp-protocol-version", "mcp-session-id"]
        );
    }
}
