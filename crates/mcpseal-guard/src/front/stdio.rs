//! The stdio front: the host starts the guard as its server command and speaks newline-delimited
//! JSON-RPC on the guard's stdin and stdout.
//!
//! Upstream over stdio (the guard started the real server): host lines are forwarded in order as
//! they arrive, one writer per direction, so a message is never split or reordered against the
//! ones around it; the upstream's output is read by its own task, which hands the guard's own
//! answers to the [`Upstream`], checks the answers to `server/discover` / `initialize`, marks
//! lists stale on `list_changed`, and forwards everything else byte for byte — server-to-client
//! requests, progress, listen streams, cancellations. Work that waits (a list the guard answers
//! after reading every upstream page, a call whose list must be read first) runs in a task of its
//! own, so the host's next line — say, its answer to a server's `roots/list` — is never held up
//! behind it.
//!
//! Upstream over HTTP (a URL entry wrapped for a stdio-only host): each host message becomes one
//! POST, dressed as a Streamable HTTP client dresses it (the 2026 routing headers from the body,
//! the 2025 session id and negotiated version learnt from `initialize`); its answer — a JSON
//! body or an event stream — comes back as lines. `notifications/cancelled` for a 2026 request
//! closes that request's stream (how HTTP cancels).
//!
//! Ends when the host closes stdin (the upstream is closed politely, its last output drained) or
//! when the upstream goes away (then the host sees the guard's stdout close, as it would see the
//! server's).

use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpseal_client::{Inbound, Inbox, Message, ReplyBody, StreamItem, TransportKind};
use mcpseal_protocol::framing::{Frame, LineFramer};
use mcpseal_protocol::jsonrpc::{MessageKind, id_key};
use mcpseal_protocol::method::code;
use mcpseal_protocol::{keys, method, routing};
use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};

use super::{Checked, lock, to_host};
use crate::dress::Dress;
use crate::intercept::{self, Route};
use crate::lists;
use crate::state::{Guard, Verdict};
use crate::upstream::Upstream;

/// How long one line to the host may take before the host is taken to have stopped reading.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the upstream's last output is drained after the host closed stdin.
const DRAIN: Duration = Duration::from_secs(5);

/// How a stdio front ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StdioEnd {
    /// The host closed stdin.
    HostClosed,
    /// The upstream went away (its output ended, with the reason).
    UpstreamClosed(String),
    /// The host stopped reading stdout (a write failed or stalled).
    HostGone(String),
}

/// Lines to the host, written whole and in order by one task.
#[derive(Clone)]
struct HostOut(mpsc::Sender<Vec<u8>>);

impl HostOut {
    async fn send(&self, message: &Message) {
        let mut line = intercept::one_line(message).into_bytes();
        line.push(b'\n');
        let _ = self.0.send(line).await;
    }

    async fn send_value(&self, value: Value) {
        self.send(&Message::from_value(value)).await;
    }
}

struct Ctx {
    guard: Arc<Guard>,
    upstream: Arc<Upstream>,
    out: HostOut,
    checked: Checked,
    /// HTTP upstream: the 2025 session and negotiated version, and the POSTs in flight.
    http: HttpSession,
    forward_timeout: Duration,
}

#[derive(Default)]
struct HttpSession {
    session_id: Mutex<Option<String>>,
    negotiated: Mutex<Option<String>>,
    in_flight: Mutex<HashMap<String, (AbortHandle, bool)>>,
}

/// Serves the host on `input`/`output` (the process's stdin and stdout, or any byte streams)
/// until one side ends (see the module docs). `inbox` is the upstream transport's inbox;
/// `forward_timeout` bounds each forwarded write (stdio) or POST up to its status line (HTTP).
///
/// # Errors
/// Reading `input` failed.
pub async fn serve_stdio<R, W>(
    guard: Arc<Guard>,
    upstream: Arc<Upstream>,
    inbox: Inbox,
    mut input: R,
    output: W,
    forward_timeout: Duration,
) -> io::Result<StdioEnd>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Vec<u8>>(256);
    let mut writer = tokio::spawn(write_lines(output, rx));
    let ctx = Arc::new(Ctx {
        guard,
        upstream,
        out: HostOut(tx),
        checked: Checked::default(),
        http: HttpSession::default(),
        forward_timeout,
    });
    let stdio_upstream = ctx.upstream.transport().kind() == TransportKind::Stdio;
    // An HTTP transport's inbox never delivers: nothing to read then.
    let mut reader = stdio_upstream.then(|| tokio::spawn(read_upstream(inbox, Arc::clone(&ctx))));
    let max = ctx.upstream.transport().options().limits.max_message_bytes;
    let mut framer = LineFramer::new(max);
    let mut buf = vec![0u8; 64 * 1024];
    let mut frames = Vec::new();
    let mut tasks = JoinSet::new();
    let end = loop {
        tokio::select! {
            n = input.read(&mut buf) => {
                let n = n?;
                if n == 0 {
                    break StdioEnd::HostClosed;
                }
                framer.feed(&buf[..n], &mut frames);
                for frame in frames.drain(..) {
                    match frame {
                        Frame::Line(line) => host_line(&ctx, &line, &mut tasks).await,
                        Frame::Oversize => {
                            ctx.out.send_value(error(&Value::Null, code::INVALID_REQUEST,
                                &format!("Message larger than {max} bytes"))).await;
                        }
                    }
                }
                while tasks.try_join_next().is_some() {}
            }
            r = wait(&mut reader), if reader.is_some() => {
                reader = None;
                let why = r.unwrap_or_else(|e| e.to_string());
                break StdioEnd::UpstreamClosed(why);
            }
            w = &mut writer => {
                break StdioEnd::HostGone(match w {
                    Ok(Err(e)) => e,
                    _ => "the host stopped reading".to_owned(),
                });
            }
        }
    };
    if end == StdioEnd::HostClosed {
        // Answers still on their way are let through before the upstream is closed.
        let _ =
            tokio::time::timeout(DRAIN, async { while tasks.join_next().await.is_some() {} }).await;
        ctx.upstream.transport().close().await;
        if let Some(r) = reader.as_mut()
            && tokio::time::timeout(DRAIN, r).await.is_ok()
        {
            reader = None;
        }
    }
    tasks.shutdown().await;
    if let Some(r) = reader {
        r.abort();
        let _ = r.await;
    }
    drop(ctx);
    let _ = tokio::time::timeout(DRAIN, writer).await;
    Ok(end)
}

/// The reader's end, or never when there is none.
async fn wait(
    reader: &mut Option<tokio::task::JoinHandle<String>>,
) -> Result<String, tokio::task::JoinError> {
    match reader {
        Some(r) => r.await,
        None => std::future::pending().await,
    }
}

/// One line from the host.
async fn host_line(ctx: &Arc<Ctx>, line: &[u8], tasks: &mut JoinSet<()>) {
    let text = String::from_utf8_lossy(line.trim_ascii()).into_owned();
    if text.is_empty() {
        return;
    }
    let message = match Message::parse(text) {
        Ok(m) => m,
        Err(e) => {
            ctx.out
                .send_value(error(
                    &Value::Null,
                    code::PARSE_ERROR,
                    &format!("Parse error: {e}"),
                ))
                .await;
            return;
        }
    };
    let route = intercept::route(message.value());
    let id = message.id().cloned().unwrap_or(Value::Null);
    match route {
        Route::Forward => forward(ctx, message, tasks).await,
        Route::Server(era) => {
            ctx.checked.expect(&message, era);
            forward(ctx, message, tasks).await;
        }
        Route::List(kind) => {
            let ctx = Arc::clone(ctx);
            tasks.spawn(async move {
                let dress = dress(&ctx, &message);
                let answer =
                    lists::answer_list(&ctx.guard, &ctx.upstream, kind, message.value(), dress)
                        .await;
                ctx.out.send_value(answer.message).await;
            });
        }
        Route::Item(_) | Route::Uri(_) => {
            let fast = match &route {
                Route::Item(item) => ctx.guard.judge(item),
                Route::Uri(uri) => ctx.guard.judge_uri(uri),
                _ => Verdict::Forward,
            };
            match fast {
                Verdict::Forward => forward(ctx, message, tasks).await,
                Verdict::Refuse(r) => {
                    ctx.guard.audit_refusal(&r);
                    ctx.out.send_value(r.response(&id, ctx.guard.hint())).await;
                }
                Verdict::Read(_) => {
                    let ctx = Arc::clone(ctx);
                    tasks.spawn(async move {
                        let dress = dress(&ctx, &message);
                        match intercept::judge_call(&ctx.guard, &ctx.upstream, &route, &dress).await
                        {
                            None => forward_now(&ctx, message).await,
                            Some(r) => ctx.out.send_value(r.response(&id, ctx.guard.hint())).await,
                        }
                    });
                }
            }
        }
    }
}

fn dress(ctx: &Ctx, message: &Message) -> Dress {
    Dress::of_request(message.value(), &http_headers(ctx, message))
}

/// Forwards a host message: written at once on stdio (in order), a POST of its own over HTTP.
async fn forward(ctx: &Arc<Ctx>, message: Message, tasks: &mut JoinSet<()>) {
    if ctx.upstream.transport().kind() == TransportKind::Stdio {
        forward_now(ctx, message).await;
        return;
    }
    if cancels_http_request(ctx, &message) {
        return;
    }
    let key = message.id().map(id_key);
    let modern = is_modern(&message);
    let task_ctx = Arc::clone(ctx);
    let abort = tasks.spawn(async move { post(&task_ctx, message).await });
    if let Some(key) = key {
        lock(&ctx.http.in_flight).insert(key, (abort, modern));
    }
}

async fn forward_now(ctx: &Arc<Ctx>, message: Message) {
    match ctx.upstream.transport().kind() {
        TransportKind::Stdio => {
            if let Err(e) = ctx
                .upstream
                .transport()
                .send(&message, &[], ctx.forward_timeout)
                .await
            {
                ctx.guard.note(&format!(
                    "mcpseal guard: forwarding to the upstream failed: {e}"
                ));
            }
        }
        TransportKind::Http => post(ctx, message).await,
    }
}

/// `notifications/cancelled` naming a 2026 request in flight over HTTP: closing its stream is
/// the cancellation, and the notification is not sent (2026 HTTP has none). True when handled.
fn cancels_http_request(ctx: &Ctx, message: &Message) -> bool {
    if message.method() != Some(method::NOTIFICATION_CANCELLED) {
        return false;
    }
    let Some(id) = message.value().pointer("/params/requestId") else {
        return false;
    };
    let Some((task, modern)) = lock(&ctx.http.in_flight).remove(&id_key(id)) else {
        return false;
    };
    task.abort();
    modern
}

fn is_modern(message: &Message) -> bool {
    message
        .value()
        .get("params")
        .and_then(|p| p.get(keys::META))
        .and_then(|m| m.get(keys::META_PROTOCOL_VERSION))
        .is_some()
}

/// The headers of one POST for a host message (HTTP upstream): the 2026 routing headers from the
/// body, else the 2025 session's version; the 2025 session id.
fn http_headers(ctx: &Ctx, message: &Message) -> Vec<(String, String)> {
    if ctx.upstream.transport().kind() != TransportKind::Http {
        return Vec::new();
    }
    let schema = (message.method() == Some(method::TOOLS_CALL))
        .then(|| {
            message
                .value()
                .pointer("/params/name")
                .and_then(Value::as_str)
                .and_then(|n| ctx.guard.tool_schema(n))
        })
        .flatten();
    let mut headers = routing::routing_headers(message.value(), schema.as_ref());
    if headers.is_empty()
        && let Some(v) = lock(&ctx.http.negotiated).clone()
    {
        headers.push((keys::HEADER_PROTOCOL_VERSION.to_owned(), v));
    }
    if let Some(s) = lock(&ctx.http.session_id).clone() {
        headers.push((keys::HEADER_SESSION_ID.to_owned(), s));
    }
    headers
}

/// One host message POSTed to the HTTP upstream; its answer comes back as lines.
async fn post(ctx: &Arc<Ctx>, message: Message) {
    let transport = ctx.upstream.transport();
    let mut headers = transport.base_headers();
    for (n, v) in http_headers(ctx, &message) {
        headers.retain(|(h, _)| !h.eq_ignore_ascii_case(&n));
        headers.push((n, v));
    }
    let request_id = (message.kind() == MessageKind::Request)
        .then(|| message.id().cloned())
        .flatten();
    let is_initialize = message.method() == Some(method::INITIALIZE);
    let reply = match transport
        .send(&message, &headers, ctx.forward_timeout)
        .await
    {
        Ok(r) => r,
        Err(e) => {
            if let Some(id) = &request_id {
                ctx.out
                    .send_value(error(
                        id,
                        code::INTERNAL_ERROR,
                        &format!("the upstream did not answer: {e}"),
                    ))
                    .await;
            }
            return;
        }
    };
    if is_initialize && let Some(s) = reply.header(keys::HEADER_SESSION_ID) {
        *lock(&ctx.http.session_id) = Some(s.to_owned());
    }
    let status = reply.status.unwrap_or(0);
    match reply.body {
        ReplyBody::Whole(w) => {
            let bytes = match w.read().await {
                Ok(b) => b,
                Err(e) => {
                    if let Some(id) = &request_id {
                        ctx.out
                            .send_value(error(id, code::INTERNAL_ERROR, &e.to_string()))
                            .await;
                    }
                    return;
                }
            };
            let text = String::from_utf8_lossy(&bytes);
            match Message::parse(text.trim().to_owned()) {
                Ok(m) => deliver(ctx, m, is_initialize).await,
                Err(_) if request_id.is_some() && !(200..300).contains(&status) => {
                    let id = request_id.clone().unwrap_or(Value::Null);
                    ctx.out
                        .send_value(error(
                            &id,
                            code::INTERNAL_ERROR,
                            &format!(
                                "the upstream answered HTTP {status} without a JSON-RPC message"
                            ),
                        ))
                        .await;
                }
                Err(_) => {}
            }
        }
        ReplyBody::Stream(mut s) => {
            while let Some(item) = s.next().await {
                match item {
                    Ok(StreamItem::Message(m)) => deliver(ctx, m, is_initialize).await,
                    Ok(StreamItem::Unparsed(_)) => {}
                    Err(e) => {
                        ctx.guard.note(&format!(
                            "mcpseal guard: the upstream's event stream broke: {e}"
                        ));
                        break;
                    }
                }
            }
        }
        ReplyBody::Inbox => {}
    }
    if let Some(id) = &request_id {
        lock(&ctx.http.in_flight).remove(&id_key(id));
    }
}

/// An upstream message (HTTP) to the host.
async fn deliver(ctx: &Arc<Ctx>, message: Message, from_initialize: bool) {
    if from_initialize
        && let Some(v) = message
            .value()
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
    {
        *lock(&ctx.http.negotiated) = Some(v.to_owned());
    }
    let m = to_host(&ctx.guard, &ctx.upstream, &ctx.checked, message);
    ctx.out.send(&m).await;
}

/// Reads the stdio upstream's output until it ends; returns why it ended.
async fn read_upstream(mut inbox: Inbox, ctx: Arc<Ctx>) -> String {
    while let Some(item) = inbox.recv().await {
        match item {
            Inbound::Message(m) => {
                if ctx.upstream.deliver(&m) {
                    continue;
                }
                let m = to_host(&ctx.guard, &ctx.upstream, &ctx.checked, m);
                ctx.out.send(&m).await;
            }
            Inbound::Fault(e) => {
                ctx.guard.note(&format!(
                    "mcpseal guard: the upstream wrote something that is not a message: {e}"
                ));
            }
            Inbound::Closed(e) => return e.to_string(),
        }
    }
    "the upstream's output ended".to_owned()
}

fn error(id: &Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::Receiver<Vec<u8>>,
) -> Result<(), String> {
    while let Some(line) = lines.recv().await {
        let write = async {
            writer.write_all(&line).await?;
            writer.flush().await
        };
        match tokio::time::timeout(WRITE_TIMEOUT, write).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(format!("writing stdout failed: {e}")),
            Err(_) => {
                return Err(format!(
                    "the host did not read stdout for {} s",
                    WRITE_TIMEOUT.as_secs()
                ));
            }
        }
    }
    Ok(())
}
