//! `--ask-client`: a server that sends the client a request (`roots/list`, as 2025 servers do)
//! before it answers one of the client's, and answers that one only with what the client said.
//!
//! It exists for the client's server-request handling: that the answer comes back at all (the
//! default decline, or a handler's result), over stdio and over an HTTP event stream. With
//! `--ask-padding BYTES` (stdio) it also provokes the deadlock a client falls into when its
//! stdout reader waits for stdin: the fixture waits until the client has started writing its
//! *next* message, then sends the request followed by BYTES of notifications, more than a pipe
//! holds, and reads stdin again only once all of it was read. A client that stops reading
//! stdout to answer while its next message is still being written never finishes either.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io::{self, BufRead, Write};
use std::sync::{Mutex, OnceLock};

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use clap::Args;
use futures_util::stream::{self, StreamExt};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::jsonrpc;
use crate::knobs::Knobs;

/// The knobs of this module (flattened into the fixture's flags).
#[derive(Debug, Clone, Default, Args)]
pub struct AskKnobs {
    /// Before answering METHOD, send the client a `roots/list` request; answer METHOD only once
    /// the client answered it, with `{"askedClient": <its answer>}` (server-request handling)
    #[arg(long, value_name = "METHOD")]
    pub ask_client: Option<String>,

    /// stdio, with --ask-client: wait until the client writes its next message, then follow the
    /// request with BYTES of notifications (a client whose stdout reader waits for stdin deadlocks)
    #[arg(long, value_name = "BYTES", requires = "ask_client")]
    pub ask_padding: Option<usize>,

    /// With --ask-client: ask this instead of `roots/list` (`sampling/createMessage` and
    /// `elicitation/create` get params a client can answer), for forwarding tests
    #[arg(long, value_name = "METHOD", requires = "ask_client")]
    pub ask_with: Option<String>,
}

/// The id of the request the fixture sends the client.
fn ask_id(n: u64) -> Value {
    json!(format!("fixture-ask-{n}"))
}

/// The request of the `--ask-client` plan: `roots/list`, or `--ask-with METHOD` (a sampling or
/// elicitation request with minimal valid params, or any other method bare).
fn roots_plan_request(knobs: &AskKnobs, id: &Value) -> Value {
    match knobs.ask_with.as_deref() {
        Some(m @ "sampling/createMessage") => json!({"jsonrpc": "2.0", "id": id, "method": m,
            "params": {"messages": [{"role": "user", "content": {"type": "text", "text": "Hello?"}}],
                       "maxTokens": 16}}),
        Some(m @ "elicitation/create") => json!({"jsonrpc": "2.0", "id": id, "method": m,
            "params": {"mode": "form", "message": "Proceed?",
                       "requestedSchema": {"type": "object", "properties": {}}}}),
        Some(m) => json!({"jsonrpc": "2.0", "id": id, "method": m}),
        None => json!({"jsonrpc": "2.0", "id": id, "method": "roots/list"}),
    }
}

/// What the fixture asks the client before it answers a request, and how it answers then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// `--ask-client METHOD`: `roots/list`, then `{"askedClient": <the client's answer>}`.
    Roots,
    /// `--contract-tools` in legacy mode, `tools/call` of `confirm`: `elicitation/create`, then
    /// the tool's result from the client's `ElicitResult`.
    Confirm,
}

/// The plan for `msg`, if the fixture asks the client something before answering it.
fn plan(knobs: &Knobs, msg: &Value) -> Option<Plan> {
    if is_asked(&knobs.ask, msg) {
        return Some(Plan::Roots);
    }
    if crate::contract::asks_mid_call(knobs, msg) {
        crate::contract::record(knobs, "confirm");
        return Some(Plan::Confirm);
    }
    None
}

fn ask_request(plan: Plan, ask: &AskKnobs, id: &Value) -> Value {
    match plan {
        Plan::Roots => roots_plan_request(ask, id),
        Plan::Confirm => json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create",
            "params": crate::contract::elicitation_params()}),
    }
}

fn final_answer(plan: Plan, request: &Value, answer: &Value) -> Value {
    let id = request.get("id").unwrap_or(&Value::Null);
    match plan {
        Plan::Roots => jsonrpc::result(id, json!({"askedClient": answer})),
        Plan::Confirm => {
            let elicited = answer.get("result").cloned().unwrap_or(Value::Null);
            jsonrpc::result(id, crate::contract::after_elicitation(&elicited))
        }
    }
}

fn is_asked(knobs: &AskKnobs, msg: &Value) -> bool {
    msg.get("id").is_some()
        && knobs.ask_client.as_deref().is_some()
        && msg.get("method").and_then(Value::as_str) == knobs.ask_client.as_deref()
}

/// The stdio side: the one request waiting for the client's answer.
#[derive(Debug, Default)]
pub struct StdioAsk {
    waiting: Option<(Value, Value, Plan)>,
    asked: u64,
}

impl StdioAsk {
    /// Handles `msg` when it is this module's business (the asked method, or the client's
    /// answer to our request); returns `false` to let the handler have it.
    ///
    /// # Errors
    /// I/O errors on stdin or stdout.
    pub fn intercept(
        &mut self,
        knobs: &Knobs,
        msg: &Value,
        input: &mut impl BufRead,
    ) -> io::Result<bool> {
        if let Some((request, id, plan)) = &self.waiting
            && msg.get("method").is_none()
            && msg.get("id") == Some(id)
        {
            let mut out = io::stdout().lock();
            writeln!(out, "{}", final_answer(*plan, request, msg))?;
            out.flush()?;
            self.waiting = None;
            return Ok(true);
        }
        if self.waiting.is_some() {
            return Ok(false);
        }
        let Some(plan) = plan(knobs, msg) else {
            return Ok(false);
        };
        let knobs = &knobs.ask;
        if knobs.ask_padding.is_some() && plan == Plan::Roots {
            // Blocks until the first bytes of the client's next message are here.
            input.fill_buf()?;
        }
        self.asked += 1;
        let id = ask_id(self.asked);
        let mut out = io::stdout().lock();
        writeln!(out, "{}", ask_request(plan, knobs, &id))?;
        let mut left = knobs.ask_padding.unwrap_or(0);
        let pad = "p".repeat(16 * 1024);
        while left > 0 {
            let note = jsonrpc::notification(
                "notifications/message",
                json!({"level": "debug", "data": pad}),
            );
            let line = format!("{note}\n");
            out.write_all(line.as_bytes())?;
            left = left.saturating_sub(line.len());
        }
        out.flush()?;
        self.waiting = Some((msg.clone(), id, plan));
        Ok(true)
    }
}

type Waiters = Mutex<HashMap<String, oneshot::Sender<Value>>>;

fn waiters() -> &'static Waiters {
    static WAITERS: OnceLock<Waiters> = OnceLock::new();
    WAITERS.get_or_init(Waiters::default)
}

fn lock(w: &Waiters) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<Value>>> {
    w.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The HTTP side: the asked method gets an event stream carrying our request, then (once the
/// client POSTed its answer) the final answer; the client's answer gets 202. `None` lets the
/// fixture handle the POST as usual.
pub fn http_post(knobs: &Knobs, msg: &Value) -> Option<Response> {
    if msg.get("method").is_none()
        && let Some(id) = msg.get("id").and_then(Value::as_str)
        && let Some(tx) = lock(waiters()).remove(id)
    {
        let _ = tx.send(msg.clone());
        return Some(StatusCode::ACCEPTED.into_response());
    }
    let plan = plan(knobs, msg)?;
    static ASKED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = ASKED.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
    let id = ask_id(n);
    let (tx, rx) = oneshot::channel();
    lock(waiters()).insert(id.as_str().unwrap_or_default().to_owned(), tx);
    let request = msg.clone();
    let first = crate::sse::event(&ask_request(plan, &knobs.ask, &id));
    let then = async move {
        let answer = rx.await.unwrap_or(Value::Null);
        crate::sse::event(&final_answer(plan, &request, &answer))
    };
    let body = stream::once(async move { first })
        .chain(stream::once(then))
        .map(|s| Ok::<Bytes, Infallible>(Bytes::from(s)));
    let mut r = Response::new(Body::from_stream(body));
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    Some(r)
}
