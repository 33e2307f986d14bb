//! A connection to one server, whatever the transport.
//!
//! [`Connection`] hands out request ids, dresses requests for their era, follows a 2025 server's
//! session (the `Mcp-Session-Id` it issued and the protocol version it negotiated, echoed on later
//! legacy requests as 2025 clients do), redacts secrets, and keeps diagnostics (stderr, non-JSON
//! output, notifications, exit status) for reports.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use thiserror::Error;

use crate::exchange::{Exchange, TransportKind};
use crate::http::{HttpTransport, LegacyDress, MetadataResponse, RawResponse};
use crate::redact::Redactor;
use crate::stdio::StdioTransport;
use crate::target::{Options, Target};
use mcpseal_protocol::keys::HEADER_SESSION_ID;
use mcpseal_protocol::{Era, Request, client_info};

/// Why a connection could not be opened at all.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConnectError {
    /// The server process could not be started.
    #[error("could not start `{program}`: {source}")]
    Spawn {
        /// The program that was run.
        program: String,
        /// The operating system's reason.
        #[source]
        source: std::io::Error,
    },
    /// The stdio target has no program.
    #[error("the server command is empty")]
    EmptyCommand,
    /// The URL is not an `http(s)://` URL.
    #[error("`{0}` is not an http:// or https:// URL")]
    InvalidUrl(String),
    /// The HTTP client could not be built (TLS set-up).
    #[error("could not set up the HTTP client: {0}")]
    HttpClient(String),
}

/// Diagnostics kept while speaking to a server: what it said outside the protocol.
#[derive(Debug, Default)]
pub struct Diagnostics {
    entries: Vec<String>,
    stderr: VecDeque<String>,
    max_stderr: usize,
    dropped: usize,
}

pub(crate) type SharedDiagnostics = Arc<Mutex<Diagnostics>>;

const MAX_ENTRIES: usize = 2000;

impl Diagnostics {
    fn new(max_stderr: usize) -> Self {
        Diagnostics {
            max_stderr,
            ..Diagnostics::default()
        }
    }

    /// Cuts a line for display (at most 300 characters).
    pub fn cut(text: &str) -> String {
        let mut out: String = text.chars().take(300).collect();
        if out.len() < text.len() {
            out.push('…');
        }
        out
    }

    pub(crate) fn push(&mut self, entry: String) {
        if self.entries.len() < MAX_ENTRIES {
            self.entries.push(entry);
        } else {
            self.dropped += 1;
        }
    }

    pub(crate) fn push_stderr(&mut self, line: &str) {
        if self.stderr.len() >= self.max_stderr.max(1) {
            self.stderr.pop_front();
        }
        self.stderr.push_back(Self::cut(line));
    }

    pub(crate) fn record_exit(&mut self, status: &str) {
        let entry = format!("[exit] {status}");
        if !self.entries.contains(&entry) {
            self.push(entry);
        }
    }

    pub(crate) fn last_stderr(&self) -> Option<String> {
        self.stderr
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .cloned()
    }

    /// All diagnostics as lines: `[stderr] …`, `[notification] …`, `[non-JSON stdout] …`,
    /// `[exit] …`, `[spawn] …`.
    pub fn lines(&self) -> Vec<String> {
        let mut out = self.entries.clone();
        out.extend(self.stderr.iter().map(|l| format!("[stderr] {l}")));
        if self.dropped > 0 {
            out.push(format!(
                "[diagnostics] {} more entries dropped",
                self.dropped
            ));
        }
        out
    }
}

/// Formats a duration the way the CLI accepts it (`10s`, `500ms`).
pub fn format_duration(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

enum Inner {
    // Boxed: the stdio state is much larger than the HTTP client handle.
    Stdio(Box<StdioTransport>),
    Http(HttpTransport),
}

#[derive(Default)]
struct LegacySession {
    session_id: Option<String>,
    protocol_version: Option<String>,
}

/// An open connection to one server.
pub struct Connection {
    inner: Inner,
    target: Target,
    next_id: AtomicI64,
    diagnostics: SharedDiagnostics,
    redactor: Redactor,
    legacy: Mutex<LegacySession>,
    options: Options,
}

impl Connection {
    /// Opens a connection: spawns the stdio server, or prepares the HTTP client (no request is
    /// sent yet).
    pub async fn open(target: &Target, options: Options) -> Result<Connection, ConnectError> {
        let diagnostics = Arc::new(Mutex::new(Diagnostics::new(
            options.limits.max_stderr_lines,
        )));
        let mut redactor = Redactor::new(options.secret_headers.iter().cloned());
        for (name, value) in &options.headers {
            redactor.learn(name, value);
        }
        let inner = match target {
            Target::Stdio { program, args } => {
                if program.is_empty() {
                    return Err(ConnectError::EmptyCommand);
                }
                let t = StdioTransport::spawn(program, args, &options, diagnostics.clone())
                    .map_err(|source| {
                        if let Ok(mut d) = diagnostics.lock() {
                            d.push(format!("[spawn] {program}: {source}"));
                        }
                        ConnectError::Spawn {
                            program: program.clone(),
                            source,
                        }
                    })?;
                Inner::Stdio(Box::new(t))
            }
            Target::Http { url } => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(ConnectError::InvalidUrl(url.clone()));
                }
                Inner::Http(HttpTransport::new(url, &options)?)
            }
        };
        Ok(Connection {
            inner,
            target: target.clone(),
            next_id: AtomicI64::new(1),
            diagnostics,
            redactor,
            legacy: Mutex::new(LegacySession::default()),
            options,
        })
    }

    /// The transport in use.
    pub fn transport(&self) -> TransportKind {
        match self.inner {
            Inner::Stdio(_) => TransportKind::Stdio,
            Inner::Http(_) => TransportKind::Http,
        }
    }

    /// The process id of a stdio server.
    pub fn process_id(&self) -> Option<u32> {
        match &self.inner {
            Inner::Stdio(t) => t.pid(),
            Inner::Http(_) => None,
        }
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
    pub async fn send(&self, request: Request) -> Exchange {
        let id = request.id.clone().unwrap_or_else(|| self.next_id());
        let mut exchange = match &self.inner {
            Inner::Stdio(t) => t.send(&request, id).await,
            Inner::Http(t) => {
                let dress = if request.is_modern() || !request.standard_headers {
                    LegacyDress::default()
                } else {
                    let s = lock(&self.legacy);
                    LegacyDress {
                        session_id: s.session_id.clone(),
                        protocol_version: s.protocol_version.clone(),
                    }
                };
                t.send(&request, id, &dress).await
            }
        };
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
        exchange
    }

    /// The 2025 handshake: `initialize` with `protocol_version` and `clientInfo`, then, when it
    /// succeeded, `notifications/initialized`. Returns both exchanges.
    pub async fn handshake_with(
        &self,
        protocol_version: &str,
        client: Value,
    ) -> (Exchange, Option<Exchange>) {
        let init = self
            .send(Request::legacy(
                "initialize",
                Some(
                    json!({"protocolVersion": protocol_version, "capabilities": {},
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
        let Inner::Http(t) = &self.inner else {
            return None;
        };
        let mut all = headers.to_vec();
        if with_session && let Some(sid) = self.legacy_session_id() {
            all.push((HEADER_SESSION_ID.to_owned(), sid));
        }
        let mut raw = t.raw_request(method, &all).await;
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

    /// GETs a public JSON document (OAuth metadata and the like), possibly on another origin.
    /// The user's headers are never sent: they usually carry a token, and the URL comes from
    /// data the server controls. `None` on stdio.
    pub async fn fetch_metadata(&self, url: &str) -> Option<MetadataResponse> {
        let Inner::Http(t) = &self.inner else {
            return None;
        };
        Some(t.fetch_metadata(url).await)
    }

    /// Diagnostics so far (stderr, notifications, non-JSON output, exit status), secrets
    /// scrubbed.
    pub fn diagnostics(&self) -> Vec<String> {
        lock(&self.diagnostics)
            .lines()
            .into_iter()
            .map(|l| self.redactor.scrub(&l))
            .collect()
    }

    /// Ends the connection: closes the child's stdin, waits briefly, then kills it. Dropping a
    /// connection kills the child too, just less politely.
    pub async fn close(&self) {
        if let Inner::Stdio(t) = &self.inner {
            t.close().await;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
