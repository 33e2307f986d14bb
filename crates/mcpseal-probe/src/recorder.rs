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

use std::sync::Mutex;

use mcpseal_client::{
    Connection, Exchange, RawResponse, Request, TransportError, TransportErrorKind, TransportKind,
};
use serde_json::Value;
use tokio::task::JoinHandle;

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
}

impl<'c> Recorder<'c> {
    pub(crate) fn new(conn: &'c Connection) -> Self {
        Recorder {
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
        let method = request.method.clone();
        let exchange = match Connection::open(self.conn.target(), self.conn.options().clone()).await
        {
            Ok(fresh) => {
                let ex = fresh.send(request).await;
                lock(&self.closing).push(tokio::spawn(async move { fresh.close().await }));
                ex
            }
            Err(e) => {
                let mut ex = Exchange::sent(
                    self.conn.transport(),
                    request.to_message(&self.conn.next_id()),
                );
                ex.transport_error = Some(TransportError {
                    kind: TransportErrorKind::Spawn,
                    message: format!("could not start a second process for `{method}`: {e}"),
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
