//! The message-level transport: JSON-RPC messages to and from one server, both ways, with no
//! idea of what they mean.
//!
//! [`Transport::send`] writes any message — a request, a notification, or the answer to a
//! server-to-client request — and returns the [`Reply`] it got: on stdio nothing (everything
//! the server writes arrives on the [`Inbox`] returned by [`Transport::open`]), on HTTP the
//! status, headers and body of that POST (a whole body, or a request-scoped event stream
//! yielding each message as it arrives). Ids, era dress, sessions, matching answers to requests
//! and redaction are the [`Connection`](crate::Connection)'s, built on top; a proxy that
//! forwards everything uses the transport directly.
//!
//! Bounds: every send is bounded by its timeout (a stdio write to a server that does not read
//! its stdin, an HTTP request body, the wait for a status line), every read by bytes
//! ([`Limits`](crate::Limits)). Reading a body or stream is bounded in time by whoever reads
//! it, since a `subscriptions/listen` stream is meant to stay open.

mod http;
mod message;
mod process;
mod raw;
mod reader;
mod reply;
mod stdio;
mod writer;

use std::time::Duration;

pub use message::{Inbound, Inbox, Message};
pub(crate) use message::{Members, split_result};
pub use raw::RawResponse;
pub use reply::{Reply, ReplyBody, ReplyStream, StreamItem, WholeBody};

use crate::diagnostics::{Diagnostics, SharedDiagnostics};
use crate::error::{ConnectError, TransportError};
use crate::exchange::TransportKind;
use crate::support::lock;
use crate::target::{Options, Target};
use http::HttpTransport;
use stdio::StdioTransport;

enum Inner {
    // Both boxed: either state is hundreds of bytes (the HTTP one holds the options), and a
    // transport is one pointer either way.
    Stdio(Box<StdioTransport>),
    Http(Box<HttpTransport>),
}

/// An open transport to one server. `Send + Sync`: share it (e.g. in an `Arc`) between a task
/// that sends and one that reads the inbox.
pub struct Transport {
    inner: Inner,
    options: Options,
    diagnostics: SharedDiagnostics,
}

impl Transport {
    /// Spawns the stdio server, or prepares the HTTP client (nothing is sent yet). Returns the
    /// transport and its inbox.
    ///
    /// # Errors
    /// An empty command, a program that cannot be started, a URL that is not `http(s)://`, or
    /// an HTTP client that cannot be built.
    pub async fn open(
        target: &Target,
        options: &Options,
    ) -> Result<(Transport, Inbox), ConnectError> {
        let diagnostics = Diagnostics::shared(options.limits.max_stderr_lines);
        let (inner, inbox) = match target {
            Target::Stdio { program, args } => {
                if program.is_empty() {
                    return Err(ConnectError::EmptyCommand);
                }
                let (t, inbox) = StdioTransport::spawn(program, args, options, diagnostics.clone())
                    .map_err(|source| {
                        lock(&diagnostics).push(format!("[spawn] {program}: {source}"));
                        ConnectError::Spawn {
                            program: program.clone(),
                            source,
                        }
                    })?;
                (Inner::Stdio(Box::new(t)), inbox)
            }
            Target::Http { url } => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(ConnectError::InvalidUrl(url.clone()));
                }
                let (t, inbox) = HttpTransport::new(url, options)?;
                (Inner::Http(Box::new(t)), inbox)
            }
        };
        let transport = Transport {
            inner,
            options: options.clone(),
            diagnostics,
        };
        Ok((transport, inbox))
    }

    /// Which transport this is.
    pub fn kind(&self) -> TransportKind {
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

    /// stdio: the bytes of a line the server has begun on stdout and not ended yet (0 when
    /// it is between messages); `None` on HTTP. A request that times out while this is not 0
    /// can never be followed by another answer until the server ends that line.
    pub fn partial_line(&self) -> Option<usize> {
        match &self.inner {
            Inner::Stdio(t) => Some(t.partial_line()),
            Inner::Http(_) => None,
        }
    }

    /// The options it was opened with.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The headers every MCP POST starts from: `Content-Type: application/json`,
    /// `Accept: application/json, text/event-stream`, then the user's
    /// ([`Options::headers`]). Empty on stdio.
    pub fn base_headers(&self) -> Vec<(String, String)> {
        match &self.inner {
            Inner::Stdio(_) => Vec::new(),
            Inner::Http(t) => t.base_headers(),
        }
    }

    /// Sends one message of any kind, within `timeout`.
    ///
    /// stdio: writes it as one line (`headers` are ignored); the reply body is
    /// [`ReplyBody::Inbox`]. HTTP: POSTs it with exactly `headers` (start from
    /// [`Transport::base_headers`]) and returns the status, headers and unread body.
    ///
    /// # Errors
    /// [`Timeout`](crate::TransportErrorKind::Timeout) naming the message's method when it
    /// could not be written (stdio: the server does not read its stdin) or no status line came
    /// within `timeout`; [`Closed`](crate::TransportErrorKind::Closed) with the exit status
    /// when the server is gone; [`Network`](crate::TransportErrorKind::Network) and
    /// [`Protocol`](crate::TransportErrorKind::Protocol) (a header that cannot be sent) on
    /// HTTP.
    pub async fn send(
        &self,
        message: &Message,
        headers: &[(String, String)],
        timeout: Duration,
    ) -> Result<Reply, TransportError> {
        match &self.inner {
            Inner::Stdio(t) => t.send(message, timeout).await,
            Inner::Http(t) => t.send(message, headers, timeout).await,
        }
    }

    /// GETs the endpoint with exactly `headers` (start from [`Transport::base_headers`], add
    /// `Accept: text/event-stream` and a 2025 session id): the standalone event stream on
    /// which a 2025 server sends what belongs to no request. The status line within `timeout`;
    /// the stream is read like a POST's. `None` on stdio (everything is on the inbox).
    ///
    /// # Errors
    /// As [`Transport::send`] over HTTP.
    pub async fn get_stream(
        &self,
        headers: &[(String, String)],
        timeout: Duration,
    ) -> Option<Result<Reply, TransportError>> {
        match &self.inner {
            Inner::Stdio(_) => None,
            Inner::Http(t) => Some(t.get(headers, timeout).await),
        }
    }

    /// A raw HTTP request to the endpoint (e.g. `GET` expecting an event stream) with the
    /// user's headers and then `headers`, reading a bounded preview of the body and never
    /// draining it. `None` on stdio. Nothing is redacted here.
    pub async fn raw_request(
        &self,
        method: &str,
        headers: &[(String, String)],
    ) -> Option<RawResponse> {
        match &self.inner {
            Inner::Stdio(_) => None,
            Inner::Http(t) => Some(t.raw_request(method, headers).await),
        }
    }

    /// Diagnostics so far (stderr, non-JSON output, exit status), as lines, **not** redacted.
    pub fn diagnostics(&self) -> Vec<String> {
        lock(&self.diagnostics).lines()
    }

    /// The diagnostics handle, for the connection's own entries.
    pub(crate) fn shared_diagnostics(&self) -> &SharedDiagnostics {
        &self.diagnostics
    }

    /// Ends the transport: closes a stdio child's stdin, waits briefly for it to exit, then
    /// sends SIGTERM to its whole process group, waits briefly again, then SIGKILL (at once
    /// SIGTERM when it is not even reading its stdin). Returns when the server and whatever
    /// it started are gone. Dropping the transport kills the group too, without the grace. A
    /// no-op on HTTP.
    pub async fn close(&self) {
        if let Inner::Stdio(t) = &self.inner {
            t.close().await;
        }
    }

    /// Kills a stdio server's whole process group now (SIGKILL, no grace), for a run that is
    /// being interrupted; the transport is unusable afterwards. A no-op on HTTP.
    pub fn kill(&self) {
        if let Inner::Stdio(t) = &self.inner {
            t.kill();
        }
    }
}
