//! A connection to one server, whatever the transport.
//!
//! [`Connection`] sits on a [`Transport`]: it hands out request ids, dresses requests for their
//! era, follows a 2025 server's session (the `Mcp-Session-Id` it issued and the protocol version
//! it negotiated, echoed on later legacy requests as 2025 clients do), matches answers to
//! requests, answers server-to-client requests ([`ServerRequests`]), redacts secrets, and keeps
//! diagnostics (stderr, non-JSON output, notifications, exit status) for reports. Every request
//! comes back as an [`Exchange`], bounded by the request's timeout from the first byte written
//! to the answer.

mod attached;
mod dress;
mod http_answer;
mod routing;
mod server_request;

use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use mcpseal_protocol::jsonrpc::id_key;
use mcpseal_protocol::keys::HEADER_SESSION_ID;
use mcpseal_protocol::{Era, Request, Wait, client_info};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

pub use server_request::{ServerRequest, ServerRequests};

use crate::error::{ConnectError, TransportError, TransportErrorKind as Kind};
use crate::exchange::{Exchange, TransportKind};
use crate::headers::recorded;
use crate::public_get::{MetadataResponse, PublicClient};
use crate::redact::Redactor;
use crate::support::{elapsed_ms, lock};
use crate::target::{Options, Target};
use crate::transport::{Message, RawResponse, Transport};
use dress::{LegacySession, answer_headers, request_headers};
use http_answer::read_answer;
use routing::{Outcome, SharedRouting, route};
use server_request::Answerer;

/// An open connection to one server.
pub struct Connection {
    transport: Arc<Transport>,
    target: Target,
    next_id: AtomicI64,
    redactor: Redactor,
    legacy: Mutex<LegacySession>,
    options: Options,
    routing: SharedRouting,
    router: Option<JoinHandle<()>>,
    answerer: Answerer,
    public: OnceLock<Result<PublicClient, String>>,
    /// stdio: the server has answered a request (the start-up allowance is over).
    answered: AtomicBool,
}

impl Drop for Connection {
    fn drop(&mut self) {
        if let Some(router) = &self.router {
            router.abort();
        }
    }
}

impl Connection {
    /// Opens a connection: spawns the stdio server, or prepares the HTTP client (no request is
    /// sent yet). Server-to-client requests are declined ([`ServerRequests::Decline`]).
    ///
    /// # Errors
    /// See [`Transport::open`].
    pub async fn open(target: &Target, options: Options) -> Result<Connection, ConnectError> {
        Connection::open_with(target, options, ServerRequests::Decline).await
    }

    /// Opens a connection that handles server-to-client requests as `server_requests` says.
    ///
    /// # Errors
    /// See [`Transport::open`].
    pub async fn open_with(
        target: &Target,
        options: Options,
        server_requests: ServerRequests,
    ) -> Result<Connection, ConnectError> {
        let redactor = Redactor::for_connection(target, &options);
        let (transport, inbox) = Transport::open(target, &options).await?;
        let transport = Arc::new(transport);
        let diagnostics = transport.shared_diagnostics().clone();
        let answerer = Answerer::new(
            server_requests,
            Arc::downgrade(&transport),
            diagnostics.clone(),
            options.timeout,
        );
        let routing = SharedRouting::default();
        // Over HTTP every answer comes back on its own POST; only stdio has an inbox to route.
        let router = (transport.kind() == TransportKind::Stdio)
            .then(|| tokio::spawn(route(inbox, routing.clone(), diagnostics, answerer.clone())));
        Ok(Connection {
            transport,
            target: target.clone(),
            next_id: AtomicI64::new(1),
            redactor,
            legacy: Mutex::new(LegacySession::default()),
            options,
            routing,
            router,
            answerer,
            public: OnceLock::new(),
            answered: AtomicBool::new(false),
        })
    }

    /// The transport in use.
    pub fn transport(&self) -> TransportKind {
        self.transport.kind()
    }

    /// The process id of a stdio server.
    pub fn process_id(&self) -> Option<u32> {
        self.transport.process_id()
    }

    /// The target this connection speaks to.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The options it was opened with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The redactor (for callers that render their own evidence).
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The next JSON-RPC id (integers counting from 1).
    pub fn next_id(&self) -> Value {
        json!(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    /// The session id a 2025 HTTP server issued, if any.
    pub fn legacy_session_id(&self) -> Option<String> {
        lock(&self.legacy).session_id.clone()
    }

    /// Sends one request (or notification) and returns what happened. Never fails: problems
    /// are in [`Exchange::transport_error`].
    ///
    /// A request that timed out earlier in this run (on any connection sharing these options'
    /// [`TimeoutMemo`](crate::TimeoutMemo)) with no shorter a timeout, or whose reply stream
    /// passed its cap without the answer, is not sent again: it fails at once with the
    /// original reason.
    pub async fn send(&self, request: Request) -> Exchange {
        self.send_inner(request, false).await.0
    }

    /// [`Connection::send`], except that a result may come back as its text instead of in the
    /// exchange (a large one read over stdio, see [`Message`](crate::Message); over HTTP any
    /// response with a `result`, from a JSON body or an event stream, validated as a `Value`
    /// parse would validate it): then
    /// the exchange's `response` has every member but `result`, and the text is returned with
    /// it. It is returned only when redaction cannot touch it (no known secret can be in it),
    /// so it is exactly what the value would have said; otherwise, and for every other answer,
    /// the exchange is [`Connection::send`]'s and the text `None`. [`Exchange::restore_result`] puts it
    /// back.
    pub async fn send_keeping_result(&self, request: Request) -> (Exchange, Option<String>) {
        self.send_inner(request, true).await
    }

    async fn send_inner(&self, request: Request, keep_result: bool) -> (Exchange, Option<String>) {
        let id = request.id.clone().unwrap_or_else(|| self.next_id());
        let timeout = request.timeout.unwrap_or(self.options.timeout);
        let memo = &self.options.timeouts;
        if let Some(err) = memo.recall(&self.target, &request, timeout) {
            let mut exchange = Exchange::sent(self.transport.kind(), request.to_message(&id));
            exchange.transport_error = Some(err);
            self.redactor.exchange(&mut exchange);
            return (exchange, None);
        }
        let (mut exchange, result) = match self.transport.kind() {
            TransportKind::Stdio => self.send_stdio(&request, id, keep_result).await,
            TransportKind::Http => self.send_http(&request, id, keep_result).await,
        };
        if let Some(err) = &exchange.transport_error {
            memo.remember(&self.target, &request, timeout, err);
        }
        if request.method == "initialize"
            && let Some(result) = exchange.result()
        {
            let mut s = lock(&self.legacy);
            s.protocol_version = result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if let Some(sid) = exchange.response_header(HEADER_SESSION_ID) {
                s.session_id = Some(sid.to_owned());
            }
        }
        self.redactor.exchange(&mut exchange);
        (exchange, result)
    }

    async fn send_stdio(
        &self,
        request: &Request,
        id: Value,
        keep_result: bool,
    ) -> (Exchange, Option<String>) {
        let message = request.to_message(&id);
        let started = Instant::now();
        let mut exchange = Exchange::sent(TransportKind::Stdio, message.clone());
        // Until the server has answered once, it may still be starting up.
        let timeout = request
            .timeout
            .unwrap_or_else(|| match self.options.startup_timeout {
                Some(startup) if !self.answered.load(Ordering::Relaxed) => {
                    startup.max(self.options.timeout)
                }
                _ => self.options.timeout,
            });
        let deadline = tokio::time::Instant::now() + timeout;
        let key = id_key(&id);
        // Registered before writing, so an answer that comes back at once is not missed.
        let rx = if request.notification {
            None
        } else {
            match lock(&self.routing).register(key.clone(), request.wait) {
                Ok(rx) => Some(rx),
                Err(err) => {
                    exchange.transport_error = Some(err);
                    return (exchange, None);
                }
            }
        };
        let sent = self
            .transport
            .send(&Message::from_value(message), &[], timeout)
            .await;
        if let Err(err) = sent {
            lock(&self.routing).finish(&key);
            exchange.transport_error = Some(err);
            exchange.duration_ms = elapsed_ms(started);
            return (exchange, None);
        }
        let Some(rx) = rx else {
            exchange.duration_ms = elapsed_ms(started);
            return (exchange, None);
        };
        let outcome = tokio::time::timeout_at(deadline, rx).await;
        let flooded = lock(&self.routing).flooded(&key);
        exchange.notifications = lock(&self.routing).finish(&key);
        let mut kept = None;
        match outcome {
            Ok(Ok(Outcome::Message(m))) => {
                // An acknowledgement that ended a listen is kept as a notification, the
                // response stays empty: the server never answered the request itself.
                if m.head().get("method").is_some() {
                    let v = m.into_value();
                    if !exchange.notifications.contains(&v) {
                        exchange.notifications.push(v);
                    }
                } else if keep_result && !self.redactor.may_touch(m.text()) {
                    match m.into_raw_result() {
                        Ok((head, text)) => {
                            exchange.response = Some(head);
                            kept = Some(text);
                        }
                        Err(m) => exchange.response = Some(m.into_value()),
                    }
                } else {
                    exchange.response = Some(m.into_value());
                }
                self.answered.store(true, Ordering::Relaxed);
            }
            Ok(Ok(Outcome::Failed(err))) => exchange.transport_error = Some(err),
            Ok(Err(_)) => {
                exchange.transport_error = Some(TransportError::new(
                    Kind::Closed,
                    "the stdout reader stopped",
                ));
            }
            Err(_) => {
                // An answer that still comes is reported as late, not as a stray.
                lock(&self.routing).timed_out(key, &request.method, timeout);
                exchange.transport_error = Some(TransportError::timeout(&request.method, timeout));
                if let Some(n) = self.transport.partial_line().filter(|n| *n > 0) {
                    lock(&self.routing).wedge(&TransportError::new(
                        Kind::Closed,
                        format!(
                            "the server is in the middle of a message it did not end within {} ({n} bytes so far, no newline): nothing after it can be read",
                            crate::error::format_duration(timeout)
                        ),
                    ));
                } else if flooded && request.wait == Wait::Response {
                    // A server that streams notifications without end instead of answering:
                    // every later answer would arrive behind the flood, and reading it costs
                    // mcpseal a core for the rest of the run. The connection is given up (each
                    // later request fails at once, naming the flood) and the server killed.
                    // The timed-out exchange keeps the first notifications as evidence.
                    lock(&self.routing).wedge(&TransportError::new(
                        Kind::Closed,
                        format!(
                            "the server flooded notifications (more than {} messages or {} bytes) without answering `{}` within {}: nothing more is asked of it",
                            attached::MAX_ATTACHED,
                            attached::MAX_ATTACHED_BYTES,
                            request.method,
                            crate::error::format_duration(timeout)
                        ),
                    ));
                    self.transport.kill();
                }
            }
        }
        exchange.duration_ms = elapsed_ms(started);
        (exchange, kept)
    }

    async fn send_http(
        &self,
        request: &Request,
        id: Value,
        keep_result: bool,
    ) -> (Exchange, Option<String>) {
        let message = request.to_message(&id);
        let session = lock(&self.legacy).clone();
        let headers = request_headers(self.transport.base_headers(), request, &session);
        let answers = answer_headers(self.transport.base_headers(), &session);
        let started = Instant::now();
        let mut exchange = Exchange::sent(TransportKind::Http, message.clone());
        exchange.request_headers = recorded(&headers);
        let timeout = request.timeout.unwrap_or(self.options.timeout);
        let message = Message::from_value(message);
        let outcome = tokio::time::timeout(timeout, async {
            let reply = self.transport.send(&message, &headers, timeout).await?;
            exchange.http_status = reply.status;
            exchange.response_headers = reply.headers;
            read_answer(
                reply.body,
                request,
                &id,
                &mut exchange,
                &self.answerer,
                &answers,
                keep_result.then_some(&self.redactor),
            )
            .await
        })
        .await;
        let mut kept = None;
        exchange.transport_error = match outcome {
            Ok(Ok(text)) => {
                kept = text;
                None
            }
            Ok(Err(e)) => Some(e),
            Err(_) => Some(TransportError::timeout(&request.method, timeout)),
        };
        exchange.duration_ms = elapsed_ms(started);
        (exchange, kept)
    }

    /// The 2025 handshake: `initialize` with `protocol_version` and `clientInfo`, then, when it
    /// succeeded, `notifications/initialized`. Returns both exchanges.
    pub async fn handshake_with(
        &self,
        protocol_version: &str,
        client: Value,
    ) -> (Exchange, Option<Exchange>) {
        self.handshake_declaring(protocol_version, client, json!({}))
            .await
    }

    /// The 2025 handshake declaring `capabilities` as the client's (what the server may ask
    /// of it mid-request: `elicitation`, `sampling`, `roots`).
    pub async fn handshake_declaring(
        &self,
        protocol_version: &str,
        client: Value,
        capabilities: Value,
    ) -> (Exchange, Option<Exchange>) {
        let init = self
            .send(Request::legacy(
                "initialize",
                Some(
                    json!({"protocolVersion": protocol_version, "capabilities": capabilities,
                    "clientInfo": client}),
                ),
            ))
            .await;
        if init.result().is_none() {
            return (init, None);
        }
        let initialized = self
            .send(Request::legacy("notifications/initialized", None).notification())
            .await;
        (init, Some(initialized))
    }

    /// The 2025-11-25 handshake with mcpseal's own `clientInfo`.
    pub async fn handshake(&self) -> (Exchange, Option<Exchange>) {
        self.handshake_with(Era::Legacy.revision(), client_info())
            .await
    }

    /// A raw HTTP request to the endpoint (e.g. `GET` expecting an event stream), reading a
    /// bounded preview of the body and never draining it. `None` on stdio.
    pub async fn raw_request(
        &self,
        method: &str,
        headers: &[(String, String)],
        with_session: bool,
    ) -> Option<RawResponse> {
        let mut all = headers.to_vec();
        if with_session && let Some(sid) = self.legacy_session_id() {
            all.push((HEADER_SESSION_ID.to_owned(), sid));
        }
        let mut raw = self.transport.raw_request(method, &all).await?;
        raw.request_headers = raw
            .request_headers
            .iter()
            .map(|h| self.redactor.header(&h.name, &h.value))
            .collect();
        raw.headers = raw
            .headers
            .iter()
            .map(|h| self.redactor.header(&h.name, &h.value))
            .collect();
        raw.body_preview = self.redactor.scrub(&raw.body_preview);
        Some(raw)
    }

    /// GETs a public JSON document (OAuth metadata and the like), possibly on another origin,
    /// through a [`PublicClient`] (no user header ever, same-origin redirects only). `None` on
    /// stdio.
    pub async fn fetch_metadata(&self, url: &str) -> Option<MetadataResponse> {
        if self.transport.kind() != TransportKind::Http {
            return None;
        }
        let client = self.public.get_or_init(|| {
            PublicClient::new(self.options.timeout, self.options.limits.max_metadata_bytes)
                .map_err(|e| e.to_string())
        });
        Some(match client {
            Ok(client) => client.get_json(url).await,
            Err(e) => MetadataResponse {
                url: url.to_owned(),
                status: None,
                body: None,
                error: Some(e.clone()),
            },
        })
    }

    /// Diagnostics so far (stderr, notifications, non-JSON output, exit status), secrets
    /// scrubbed.
    pub fn diagnostics(&self) -> Vec<String> {
        self.transport
            .diagnostics()
            .into_iter()
            .map(|l| self.redactor.scrub(&l))
            .collect()
    }

    /// Ends the connection: closes the child's stdin, waits briefly, then SIGTERM and at last
    /// SIGKILL to its whole process group (see [`Transport::close`]). Dropping a connection
    /// kills the group too, without the grace.
    pub async fn close(&self) {
        self.transport.close().await;
    }

    /// Kills a stdio server's whole process group now (SIGKILL, no grace): for a run being
    /// interrupted (Ctrl-C), when there is no time for [`Connection::close`]. Later requests
    /// fail at once as closed. A no-op on HTTP.
    pub fn kill(&self) {
        self.transport.kill();
    }
}
