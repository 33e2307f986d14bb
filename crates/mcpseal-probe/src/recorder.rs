//! What the engine keeps of every probe sent: enough to say afterwards whether the run was
//! *measured* or *incomplete*, and what an authorization refusal said — not the exchanges.
//!
//! Rules hold the exchanges they judge (and quote them as evidence); the recorder keeps one
//! small [`Sent`] record per probe instead of a copy of each exchange. A copy per probe was the
//! probe's largest cost against a hostile server: a listing page of 1 MiB of text is several
//! MiB once parsed, and each of a run's dozens of listings (and each exchange carrying up to
//! 1 MiB of a notification flood) was kept twice over, until the report was built — the probe
//! peaked near 150 MiB against a million tools, where `snapshot` stays near 35 MiB.
//!
//! The closes of fresh server processes ([`Recorder::send_fresh`]) run in the background and
//! are awaited together at the end of the run ([`Recorder::finish`]): a server that ignores
//! end of input and SIGTERM costs one close grace for the run, not one per fresh process.
//!
//! Fresh processes may also be asked *ahead* ([`Recorder::fresh_ahead`]), at most `jobs` at
//! once (`--jobs`): started in the background while the probed process is busy, and recorded
//! only when their exchange is taken ([`Recorder::take_fresh`]), at the point of the run where
//! the sequential probe would have sent them, so the record (and with it every verdict and
//! the incomplete reason) is the same. One never taken is not recorded, and its own timeout
//! memo is dropped with it: an answer nobody judged makes no method dead for the run. A node
//! server starts in about 0.5 s, so asking fresh processes one after the other was most of a
//! probe of one.

use std::sync::{Arc, Mutex};

use mcpseal_client::{
    Connection, Exchange, RawResponse, Request, TimeoutMemo, TransportError, TransportErrorKind,
    TransportKind,
};
use serde_json::Value;
use tokio::sync::{Semaphore, oneshot};
use tokio::task::JoinHandle;

/// A fresh-process exchange asked ahead of its use ([`Recorder::fresh_ahead`]).
/// Dropped untaken, its process is killed (its task aborted: dropping a connection kills the
/// server's process group), so an answer nobody needs costs no more time or CPU.
pub(crate) struct Ahead {
    method: String,
    request: Request,
    answer: oneshot::Receiver<Result<(Exchange, TimeoutMemo), String>>,
    task: Option<JoinHandle<()>>,
}

impl Drop for Ahead {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// What the engine needs of one probe sent (a JSON-RPC request or notification).
#[derive(Debug, Clone)]
pub(crate) struct Sent {
    /// The request's method.
    pub(crate) method: String,
    /// HTTP status, when one arrived.
    pub(crate) http_status: Option<u16>,
    /// The `WWW-Authenticate` challenge of the answer, if any.
    pub(crate) challenge: Option<String>,
    /// A result came back.
    pub(crate) has_result: bool,
    /// It was refused for authorization ([`crate::access::refused`]).
    pub(crate) refused: bool,
    /// A status probe that got an HTTP status: answered, even without a JSON-RPC body.
    pub(crate) answered_by_status: bool,
    /// Why no answer came, if none did.
    pub(crate) transport_error: Option<TransportError>,
}

/// Records every probe sent on one connection.
pub(crate) struct Recorder<'c> {
    conn: &'c Connection,
    sent: Mutex<Vec<Sent>>,
    raw: Mutex<Vec<RawResponse>>,
    status_probes: Mutex<Vec<Value>>,
    /// Requests whose expected answer is a 403 (a foreign `Origin`): not refusals.
    forbidden_ok: Mutex<Vec<Value>>,
    /// Closes of fresh server processes still running.
    closing: Mutex<Vec<JoinHandle<()>>>,
    /// Fresh processes that may be starting or asked at once.
    jobs: Arc<Semaphore>,
    /// More than one job: fresh processes may be asked ahead.
    ahead: bool,
}

impl<'c> Recorder<'c> {
    /// A recorder for `conn` that asks at most `jobs` fresh processes at once (at least one).
    pub(crate) fn new(conn: &'c Connection, jobs: usize) -> Self {
        let jobs = jobs.max(1);
        Recorder {
            jobs: Arc::new(Semaphore::new(jobs)),
            ahead: jobs > 1,
            conn,
            sent: Mutex::new(Vec::new()),
            raw: Mutex::new(Vec::new()),
            status_probes: Mutex::new(Vec::new()),
            forbidden_ok: Mutex::new(Vec::new()),
            closing: Mutex::new(Vec::new()),
        }
    }

    /// The connection probed.
    pub(crate) fn conn(&self) -> &'c Connection {
        self.conn
    }

    /// Sends `request`; an authorization refusal (401, or 403 unless the request expects one)
    /// comes back as an unanswered exchange ([`crate::access`]), never as an answer.
    pub(crate) async fn send(&self, request: Request) -> Exchange {
        let mut exchange = self.conn.send(request).await;
        let forbidden_ok = exchange
            .request
            .get("id")
            .is_some_and(|id| lock(&self.forbidden_ok).contains(id));
        if crate::access::is_refusal(exchange.http_status, forbidden_ok) {
            crate::access::neutralise(&mut exchange);
        }
        self.record(&exchange);
        exchange
    }

    /// Sends `request` as the first message of a fresh server process (stdio), recorded like
    /// any other probe; the process is closed afterwards, in the background (awaited by
    /// [`Recorder::finish`]). Used for `initialize`, so the handshake neither persists in the
    /// process the rules probe nor meets a process that already pinned its era.
    pub(crate) async fn send_fresh(&self, request: Request) -> Exchange {
        let ahead = self.start_fresh(request, self.conn.options().timeouts.clone());
        self.take_fresh(ahead).await
    }

    /// Whether fresh processes may be asked ahead of their use (`--jobs` above 1).
    pub(crate) fn asks_ahead(&self) -> bool {
        self.ahead
    }

    /// Starts asking `request` of a fresh server process in the background (at most `jobs`
    /// at once), with a timeout memo of its own; nothing is recorded until
    /// [`Recorder::take_fresh`]. Dropping the [`Ahead`] discards the answer (the process is
    /// still closed, and awaited by [`Recorder::finish`]).
    pub(crate) fn fresh_ahead(&self, request: Request) -> Ahead {
        self.start_fresh(request, TimeoutMemo::default())
    }

    fn start_fresh(&self, request: Request, memo: TimeoutMemo) -> Ahead {
        let target = self.conn.target().clone();
        let mut options = self.conn.options().clone();
        options.timeouts = memo.clone();
        let jobs = Arc::clone(&self.jobs);
        let (tx, answer) = oneshot::channel();
        let sent = request.clone();
        let task = tokio::spawn(async move {
            // The permit covers start-up and the answer, not the close: a server that
            // ignores end of input must not hold up the next fresh process.
            let permit = jobs.acquire_owned().await.ok();
            match Connection::open(&target, options).await {
                Ok(fresh) => {
                    let ex = fresh.send(sent).await;
                    drop(permit);
                    // The receiver may be gone (an answer asked ahead and not needed).
                    let _ = tx.send(Ok((ex, memo)));
                    fresh.close().await;
                }
                Err(e) => {
                    drop(permit);
                    let _ = tx.send(Err(e.to_string()));
                }
            }
        });
        Ahead {
            method: request.method.clone(),
            request,
            answer,
            task: Some(task),
        }
    }

    /// The exchange of a fresh process asked with [`Recorder::fresh_ahead`] (or
    /// [`Recorder::send_fresh`]), recorded now; its timeouts join the run's memo.
    pub(crate) async fn take_fresh(&self, mut ahead: Ahead) -> Exchange {
        if let Some(task) = ahead.task.take() {
            lock(&self.closing).push(task);
        }
        let exchange = match (&mut ahead.answer).await {
            Ok(Ok((ex, memo))) => {
                self.conn.options().timeouts.absorb(&memo);
                ex
            }
            failed => {
                let why = match failed {
                    Ok(Err(e)) => e,
                    _ => "its task ended without an answer".to_owned(),
                };
                let mut ex = Exchange::sent(
                    self.conn.transport(),
                    ahead.request.to_message(&self.conn.next_id()),
                );
                ex.transport_error = Some(TransportError {
                    kind: TransportErrorKind::Spawn,
                    message: format!(
                        "could not start a second process for `{}`: {why}",
                        ahead.method
                    ),
                });
                ex
            }
        };
        self.record(&exchange);
        exchange
    }

    /// Waits for the closes of the fresh processes. A close that could not finish (its task
    /// panicked or was cancelled) dropped its connection, which kills the process group.
    pub(crate) async fn finish(&self) {
        let closing = std::mem::take(&mut *lock(&self.closing));
        futures_util::future::join_all(closing).await;
    }

    fn record(&self, ex: &Exchange) {
        let answered_by_status = ex.http_status.is_some()
            && !crate::access::refused(ex)
            && ex
                .request
                .get("id")
                .is_some_and(|id| lock(&self.status_probes).contains(id));
        let sent = Sent {
            method: ex.method().to_owned(),
            http_status: ex.http_status,
            challenge: crate::access::challenge(&ex.response_headers).map(str::to_owned),
            has_result: ex.result().is_some(),
            refused: crate::access::refused(ex),
            answered_by_status,
            transport_error: ex.transport_error.clone(),
        };
        lock(&self.sent).push(sent);
    }

    /// Records a raw HTTP request's response.
    pub(crate) fn push_raw(&self, raw: &RawResponse) {
        lock(&self.raw).push(raw.clone());
    }

    /// Marks the request `id` as a status probe (an HTTP status is its answer).
    pub(crate) fn mark_status_probe(&self, id: Value) {
        lock(&self.status_probes).push(id);
    }

    /// Marks the request `id` as one whose right answer is a 403.
    pub(crate) fn mark_forbidden_ok(&self, id: Value) {
        lock(&self.forbidden_ok).push(id);
    }

    /// Every probe sent so far, in order.
    pub(crate) fn sent(&self) -> Vec<Sent> {
        lock(&self.sent).clone()
    }

    /// Every raw HTTP request so far, in order.
    pub(crate) fn raw(&self) -> Vec<RawResponse> {
        lock(&self.raw).clone()
    }

    /// The methods whose answers came after their request had timed out (the client's
    /// `[late answer]` diagnostics), in order.
    pub(crate) fn late_answers(&self) -> Vec<String> {
        self.conn
            .diagnostics()
            .iter()
            .filter_map(|l| l.strip_prefix("[late answer] `"))
            .filter_map(|rest| rest.split('`').next())
            .map(str::to_owned)
            .collect()
    }

    /// Whether the user passed a credential header (`Authorization`, a cookie, a key).
    pub(crate) fn sends_credential(&self) -> bool {
        let redactor = self.conn.redactor();
        self.conn
            .options()
            .headers
            .iter()
            .any(|(name, _)| redactor.is_secret_name(name))
    }

    pub(crate) fn transport(&self) -> TransportKind {
        self.conn.transport()
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
