//! The Streamable HTTP transport: one endpoint, `/mcp`, POST only.
//!
//! Every limit is applied once, before any MCP handling (in [`HttpServer::run`]'s own service;
//! [`Server::http_router`] serves the same through an axum router and one layer):
//! a present `Origin` that is not allowed → 403, a foreign `Host` on a loopback server → 403
//! (both DNS-rebinding protection), a body past the size limit → 413, one that does not arrive
//! within the body timeout → 408. The endpoint then answers: not POST → 405 (`Allow: POST`; this
//! server has no GET stream and no sessions, in either era), invalid JSON → 400 `-32700`, an
//! accepted notification → 202 without a body, a request → `application/json`, or
//! `text/event-stream` when notifications related to it come first (progress, a listen stream).
//! No `Mcp-Session-Id` is ever minted or echoed, and `Last-Event-ID` is ignored.
//!
//! The accept loop is this crate's own (`crate::accept`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use futures_util::stream;
use hyper::body::Incoming;
use mcpseal_protocol::method::code;
use mcpseal_protocol::{decode_header_value, keys};
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::accept::serve_service;
use crate::dress::{Header, RoutingHeaders};
use crate::error::{RpcError, ServeError};
use crate::handler::Handler;
use crate::options::HttpOptions;
use crate::out::{Body as OutBody, Out};
use crate::server::{Handled, Server, error_response};

/// The path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

struct HttpState<H: Handler> {
    server: Server<H>,
    options: HttpOptions,
}

/// A bound Streamable HTTP server, ready to [`HttpServer::run`].
pub struct HttpServer<H: Handler> {
    listener: TcpListener,
    local_addr: SocketAddr,
    server: Server<H>,
    options: HttpOptions,
}

impl<H: Handler> std::fmt::Debug for HttpServer<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer")
            .field("local_addr", &self.local_addr)
            .finish_non_exhaustive()
    }
}

impl<H: Handler> Server<H> {
    /// Binds a Streamable HTTP listener on `addr` (`127.0.0.1:0` picks a free port).
    ///
    /// # Errors
    /// [`ServeError::Bind`] when the address cannot be bound.
    pub async fn bind_http(
        &self,
        addr: &str,
        options: HttpOptions,
    ) -> Result<HttpServer<H>, ServeError> {
        let bind_err = |source| ServeError::Bind {
            addr: addr.to_owned(),
            source,
        };
        let listener = TcpListener::bind(addr).await.map_err(bind_err)?;
        let local_addr = listener.local_addr().map_err(bind_err)?;
        Ok(HttpServer {
            listener,
            local_addr,
            server: self.clone(),
            options,
        })
    }

    /// The MCP endpoint as an axum router (`/mcp` and the limits layer), to mount in another
    /// application. The `Host` check is off here (the embedder knows its own names); `Origin`,
    /// body size and body timeout apply as in [`HttpServer::run`].
    pub fn http_router(&self, options: HttpOptions) -> Router {
        router(self.clone(), options, false)
    }
}

fn limits<H: Handler>(server: &Server<H>, options: &HttpOptions, check_host: bool) -> HttpLimits {
    HttpLimits {
        max_body_bytes: server.options().max_message_bytes,
        options: options.clone(),
        check_host,
    }
}

fn router<H: Handler>(server: Server<H>, options: HttpOptions, check_host: bool) -> Router {
    let limits = limits(&server, &options, check_host);
    let state = Arc::new(HttpState { server, options });
    let app = Router::new()
        .route(MCP_PATH, any(endpoint::<H>))
        .fallback(|| async { StatusCode::NOT_FOUND })
        .with_state(state);
    limit(app, limits)
}

/// The limits every request meets before any MCP handling (see the module docs): a present
/// `Origin` that is not allowed → 403, a foreign `Host` on a loopback server → 403, a body past
/// `max_body_bytes` → 413, one that does not arrive within the body timeout → 408.
///
/// Public for applications that answer MCP requests themselves on this crate's plumbing (a
/// proxy): [`limit`] applies the same layer [`Server::bind_http`] serves behind, and
/// [`crate::serve_router`] runs the same accept loop.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Origins, hosts, timeouts and the connection cap.
    pub options: HttpOptions,
    /// Largest request body, in bytes.
    pub max_body_bytes: usize,
    /// Refuse a foreign `Host` (for a server bound to a loopback address).
    pub check_host: bool,
}

/// `app` behind the limits layer ([`HttpLimits`]). The body reaches `app` read whole (bounded
/// in bytes and time): MCP request bodies are single messages.
pub fn limit(app: Router, limits: HttpLimits) -> Router {
    app.layer(middleware::from_fn_with_state(Arc::new(limits), guard))
}

impl<H: Handler> HttpServer<H> {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint URL, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.local_addr)
    }

    /// Serves until `shutdown` completes, then ends listen streams gracefully, lets open
    /// connections finish for a few seconds and returns.
    ///
    /// # Errors
    /// As [`crate::serve_router`].
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send) -> Result<(), ServeError> {
        let check_host = self.local_addr.ip().is_loopback();
        let endpoint = Endpoint {
            limits: Arc::new(limits(&self.server, &self.options, check_host)),
            state: Arc::new(HttpState {
                server: self.server.clone(),
                options: self.options.clone(),
            }),
        };
        let server = self.server;
        serve_service(
            self.listener,
            endpoint,
            &self.options,
            shutdown,
            move || {
                server.shutdown();
            },
        )
        .await
    }
}

/// A JSON body with this status.
fn json(status: u16, body: &Value) -> Response {
    // `to_vec` writes straight into a buffer; `to_string` goes through `fmt` for every piece.
    // Serialising a `Value` cannot fail (its keys are strings).
    let bytes = serde_json::to_vec(body).unwrap_or_else(|_| body.to_string().into_bytes());
    json_bytes(status, bytes)
}

/// A request's final message as a JSON body: the written bytes, with a cached artifact's text
/// sent from the cache (hyper sends the head and the parts in one `writev`, with their
/// `Content-Length`).
fn json_body(status: u16, body: &OutBody) -> Response {
    json_response(status, Body::new(body.to_wire()))
}

fn json_bytes(status: u16, bytes: Vec<u8>) -> Response {
    json_response(status, Body::from(bytes))
}

fn json_response(status: u16, body: Body) -> Response {
    let mut r = Response::new(body);
    *r.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn refuse(status: u16, code: i64, message: &str) -> Response {
    json(
        status,
        &error_response(&Value::Null, &RpcError::new(code, message)),
    )
}

/// Is `host` (no port, brackets kept for IPv6) a loopback name?
fn loopback_host(host: &str) -> bool {
    matches!(host, "localhost" | "[::1]")
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// `scheme://host[:port]` → (host, rest) when the scheme is http or https.
fn origin_host(origin: &str) -> Option<&str> {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))?;
    let host = match rest.strip_prefix('[') {
        Some(v6) => &rest[..v6.find(']')? + 2],
        None => rest.split(':').next()?,
    };
    let tail = &rest[host.len()..];
    (tail.is_empty()
        || tail
            .strip_prefix(':')
            .is_some_and(|p| p.parse::<u16>().is_ok()))
    .then_some(host)
}

fn origin_allowed(origin: &str, options: &HttpOptions) -> bool {
    options
        .allowed_origins
        .iter()
        .any(|a| a == "*" || a.eq_ignore_ascii_case(origin))
        || origin_host(origin).is_some_and(loopback_host)
}

fn host_allowed(host: &str, options: &HttpOptions) -> bool {
    // The name without its port, brackets kept for IPv6: a slice of `host`, not a copy.
    let name = if host.starts_with('[') {
        host.find(']').map_or(host, |end| &host[..=end])
    } else {
        host.split(':').next().unwrap_or_default()
    };
    loopback_host(name)
        || options
            .allowed_hosts
            .iter()
            .any(|a| a == "*" || a.eq_ignore_ascii_case(name))
}

/// The limits layer: Origin, Host, body size and time.
async fn guard(State(state): State<Arc<HttpLimits>>, request: Request, next: Next) -> Response {
    if let Some(refused) = refuse_origin_or_host(&state, request.headers()) {
        return refused;
    }
    let (parts, body) = request.into_parts();
    match read_body(&state, body).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, Body::from(bytes)))
                .await
        }
        Err(refused) => refused,
    }
}

/// The refusal of a request whose `Origin` is not allowed, or (when checked) whose `Host` is
/// not: DNS-rebinding protection, before the body is read.
fn refuse_origin_or_host(limits: &HttpLimits, headers: &HeaderMap) -> Option<Response> {
    let o = &limits.options;
    if let Some(origin) = headers.get(header::ORIGIN)
        && !origin.to_str().is_ok_and(|v| origin_allowed(v, o))
    {
        return Some(refuse(
            403,
            code::INVALID_REQUEST,
            "Forbidden: the request's Origin is not allowed",
        ));
    }
    if limits.check_host
        && let Some(host) = headers.get(header::HOST)
        && !host.to_str().is_ok_and(|v| host_allowed(v, o))
    {
        return Some(refuse(
            403,
            code::INVALID_REQUEST,
            "Forbidden: the request's Host is not allowed",
        ));
    }
    None
}

/// The whole body, bounded in bytes (413) and in time (408).
async fn read_body<B>(limits: &HttpLimits, body: B) -> Result<Bytes, Response>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
{
    let limit = limits.max_body_bytes;
    let timeout = limits.options.body_read_timeout;
    match tokio::time::timeout(timeout, collect_bounded(body, limit)).await {
        Ok(Some(bytes)) => Ok(bytes),
        Ok(None) => {
            let message = format!("Request body larger than {limit} bytes (or unreadable)");
            Err(refuse(413, code::INVALID_REQUEST, &message))
        }
        Err(_) => {
            let message = format!("Request body not received within {} s", timeout.as_secs());
            Err(refuse(408, code::INVALID_REQUEST, &message))
        }
    }
}

/// The data of `body` when it is at most `limit` bytes (`None` past it, or on a read error;
/// trailers are ignored). A body that arrives as one frame, as a small request body does, is
/// that frame's buffer as it is: no copy, and no queue of frames to collect into.
async fn collect_bounded<B>(mut body: B, limit: usize) -> Option<Bytes>
where
    B: hyper::body::Body<Data = Bytes> + Unpin,
{
    // A declared length past the limit is refused before any of it is read.
    if usize::try_from(body.size_hint().lower()).map_or(true, |n| n > limit) {
        return None;
    }
    let mut first: Option<Bytes> = None;
    let mut joined: Vec<u8> = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        let Ok(data) = frame.ok()?.into_data() else {
            continue;
        };
        total = total.checked_add(data.len()).filter(|&t| t <= limit)?;
        match first.take() {
            None if joined.is_empty() => first = Some(data),
            earlier => {
                if let Some(earlier) = earlier {
                    joined.extend_from_slice(&earlier);
                }
                joined.extend_from_slice(&data);
            }
        }
    }
    Some(first.unwrap_or_else(|| Bytes::from(joined)))
}

/// The endpoint of [`HttpServer::run`]: the limits layer and the router's two outcomes (`/mcp`
/// or 404) in one hyper service, in the same order, so a request meets no middleware stack,
/// header-map copy or second body collection on the way. [`Server::http_router`] serves the
/// same functions through axum for embedders.
struct Endpoint<H: Handler> {
    state: Arc<HttpState<H>>,
    limits: Arc<HttpLimits>,
}

impl<H: Handler> Clone for Endpoint<H> {
    fn clone(&self) -> Self {
        Endpoint {
            state: Arc::clone(&self.state),
            limits: Arc::clone(&self.limits),
        }
    }
}

impl<H: Handler> hyper::service::Service<hyper::Request<Incoming>> for Endpoint<H> {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        let me = self.clone();
        Box::pin(async move { Ok(me.answer(request).await) })
    }
}

impl<H: Handler> Endpoint<H> {
    async fn answer(self, request: hyper::Request<Incoming>) -> Response {
        if let Some(refused) = refuse_origin_or_host(&self.limits, request.headers()) {
            return refused;
        }
        let (parts, body) = request.into_parts();
        let bytes = match read_body(&self.limits, body).await {
            Ok(bytes) => bytes,
            Err(refused) => return refused,
        };
        if parts.uri.path() != MCP_PATH {
            return StatusCode::NOT_FOUND.into_response();
        }
        answer(&self.state, &parts.method, &parts.headers, &bytes).await
    }
}

/// A routing header's text: `None` when absent, `Some(None)` when it cannot stand for one body
/// value (sent twice, not visible ASCII, or a broken `=?base64?…?=` form).
fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<Option<Header<'a>>> {
    let mut all = headers.get_all(name).iter();
    let raw = all.next()?;
    if all.next().is_some() {
        return Some(None);
    }
    Some(raw.to_str().ok().and_then(decode_header_value))
}

fn routing_headers(headers: &HeaderMap) -> RoutingHeaders<'_> {
    RoutingHeaders {
        protocol_version: header_text(headers, keys::HEADER_PROTOCOL_VERSION),
        method: header_text(headers, keys::HEADER_MCP_METHOD),
        name: header_text(headers, keys::HEADER_MCP_NAME),
        params: headers
            .iter()
            .filter_map(|(n, v)| {
                let param = n
                    .as_str()
                    .strip_prefix(keys::HEADER_MCP_PARAM_PREFIX_LOWER)?;
                Some((param, v.to_str().ok().and_then(decode_header_value)))
            })
            .collect(),
    }
}

async fn endpoint<H: Handler>(
    State(state): State<Arc<HttpState<H>>>,
    method: Method,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    answer(&state, &method, &headers, &body).await
}

/// The MCP answer to one request whose limits were met.
async fn answer<H: Handler>(
    state: &HttpState<H>,
    method: &Method,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    if method != Method::POST {
        let mut r = StatusCode::METHOD_NOT_ALLOWED.into_response();
        r.headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("POST"));
        return r;
    }
    let msg: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return refuse(400, code::PARSE_ERROR, &format!("Parse error: {e}")),
    };
    let routing = routing_headers(headers);
    match state.server.handle(msg, Some(&routing)) {
        Handled::Reply { body, status } => json(status, &body),
        Handled::Accepted { .. } => StatusCode::ACCEPTED.into_response(),
        Handled::Running {
            mut out,
            mut work,
            id,
            listen,
        } => {
            // Run the request here until its first message: a plain answer needs no other task.
            let mut done = false;
            let first = loop {
                tokio::select! {
                    biased;
                    o = out.recv() => break o,
                    () = &mut work, if !done => done = true,
                }
            };
            match first {
                Some(Out::Final { body, status }) => json_body(status, &body),
                Some(Out::Notification(first)) => {
                    // Notifications first: the rest streams, so the request runs on its own.
                    if !done {
                        tokio::spawn(work);
                    }
                    event_stream(first, out, listen.then_some(state.options.keep_alive))
                }
                None => {
                    let e = RpcError::internal("The request ended without an answer");
                    json(500, &error_response(&id, &e))
                }
            }
        }
    }
}

fn event(message: &Value) -> Bytes {
    Bytes::from(format!("event: message\ndata: {message}\n\n"))
}

fn final_event(body: &OutBody) -> Bytes {
    Bytes::from(body.to_vec_with(b"event: message\ndata: ", b"\n\n"))
}

/// An event stream: `first`, then what `out` carries until its `Final`; with `keep_alive`, `:`
/// comments while it is quiet. Dropping the response (the client closed the stream) drops `out`,
/// which stops the request: on HTTP, closing the stream is how a client cancels.
fn event_stream(first: Value, out: mpsc::Receiver<Out>, keep_alive: Option<Duration>) -> Response {
    struct S {
        first: Option<Value>,
        out: mpsc::Receiver<Out>,
        done: bool,
        tick: Option<tokio::time::Interval>,
    }
    let tick = keep_alive.map(|d| {
        let mut i = tokio::time::interval_at(tokio::time::Instant::now() + d, d);
        i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        i
    });
    let state = S {
        first: Some(first),
        out,
        done: false,
        tick,
    };
    let body = stream::unfold(state, |mut s| async move {
        if let Some(f) = s.first.take() {
            return Some((Ok::<Bytes, std::convert::Infallible>(event(&f)), s));
        }
        if s.done {
            return None;
        }
        let next = match s.tick.as_mut() {
            Some(tick) => tokio::select! {
                o = s.out.recv() => Some(o),
                _ = tick.tick() => None,
            },
            None => Some(s.out.recv().await),
        };
        match next {
            None => Some((Ok(Bytes::from_static(b": keep-alive\n\n")), s)),
            Some(None) => None,
            Some(Some(Out::Notification(n))) => Some((Ok(event(&n)), s)),
            Some(Some(Out::Final { body, .. })) => {
                s.done = true;
                Some((Ok(final_event(&body)), s))
            }
        }
    });
    let mut r = Response::new(Body::from_stream(body));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_and_hosts() {
        let o = HttpOptions::default();
        for ok in [
            "http://localhost",
            "http://127.0.0.1:8080",
            "https://[::1]:3000",
            "http://localhost:1",
        ] {
            assert!(origin_allowed(ok, &o), "{ok}");
        }
        for bad in [
            "http://mcpseal-probe.invalid",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "null",
            "file://",
            "http://localhost:notaport",
        ] {
            assert!(!origin_allowed(bad, &o), "{bad}");
        }
        let o = HttpOptions {
            allowed_origins: vec!["https://app.example".into()],
            allowed_hosts: vec!["mcp.example".into()],
            ..HttpOptions::default()
        };
        assert!(origin_allowed("https://app.example", &o));
        assert!(
            host_allowed("127.0.0.1:9", &o)
                && host_allowed("[::1]:9", &o)
                && host_allowed("mcp.example:443", &o)
        );
        assert!(!host_allowed("evil.example", &o));
    }
}
