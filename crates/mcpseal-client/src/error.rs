//! The two ways speaking to a server fails: it could not be reached at all ([`ConnectError`]),
//! or one message got no valid answer ([`TransportError`], recorded inside an exchange as *no
//! evidence*).
//!
//! A leaf module: every other module of the crate may use it, it uses none of them, so the
//! transports and the connection never import each other to name a failure.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

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

/// Why no valid JSON-RPC answer came back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TransportErrorKind {
    /// Nothing arrived within the per-request timeout, or the request could not be written
    /// within it.
    Timeout,
    /// The server went away (process exited, stdout closed, connection reset).
    Closed,
    /// A message (or body, or SSE event) exceeded the byte limit.
    Oversize,
    /// The server wrote bytes that are not UTF-8 where JSON was expected.
    InvalidUtf8,
    /// The bytes were not a JSON-RPC answer to this request (not JSON, wrong shape, HTTP body
    /// with no JSON-RPC message).
    Protocol,
    /// The process could not be started.
    Spawn,
    /// A network-level failure (connection refused, DNS, TLS).
    Network,
}

/// A transport failure: the kind, and a message for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransportError {
    /// What went wrong, for machines.
    pub kind: TransportErrorKind,
    /// What went wrong, for people.
    pub message: String,
}

impl TransportError {
    pub(crate) fn new(kind: TransportErrorKind, message: impl Into<String>) -> Self {
        TransportError {
            kind,
            message: message.into(),
        }
    }

    /// No answer to `method` within `timeout`: the one wording of a timeout, whichever
    /// transport waited, so findings and CLI errors read the same over stdio and HTTP.
    pub(crate) fn timeout(method: &str, timeout: Duration) -> Self {
        TransportError::new(
            TransportErrorKind::Timeout,
            format!(
                "no answer to `{method}` within {}",
                format_duration(timeout)
            ),
        )
    }

    /// A reply event stream passed `max` bytes without the answer to our request: the server
    /// streams without answering (a notification flood), so asking again would only read
    /// another `max` bytes.
    pub(crate) fn endless_stream(max: usize) -> Self {
        TransportError::new(
            TransportErrorKind::Oversize,
            format!("{ENDLESS_STREAM}{max} bytes without a response to our request"),
        )
    }

    /// Whether waiting longer or asking again cannot help: a timeout, or an answer past the
    /// byte limit — a reply stream that passed its cap without the answer
    /// ([`TransportError::endless_stream`]), a message or body larger than
    /// `--max-message-bytes` (a compression bomb among them). The limit does not change within
    /// a run, so the same request would only make the server send (and mcpseal read) the same
    /// oversize answer again: against a bomb on every list, each of the probe's asks re-paid
    /// it. What the [`TimeoutMemo`](crate::TimeoutMemo) remembers.
    pub(crate) fn is_dead_wait(&self) -> bool {
        matches!(
            self.kind,
            TransportErrorKind::Timeout | TransportErrorKind::Oversize
        )
    }

    /// A reqwest failure with its whole source chain (the top-level message alone says
    /// "error sending request", the reason is in the chain).
    pub(crate) fn network(e: &reqwest::Error) -> Self {
        use std::error::Error as _;
        let mut msg = e.to_string();
        let mut source = e.source();
        while let Some(s) = source {
            msg = format!("{msg}: {s}");
            source = s.source();
        }
        TransportError::new(TransportErrorKind::Network, msg)
    }

    /// `what` (a method, or "the response to id …") could not be written to a stdio server
    /// within `timeout`: the server is not reading its stdin.
    pub(crate) fn write_timeout(what: &str, timeout: Duration) -> Self {
        TransportError::new(
            TransportErrorKind::Timeout,
            format!(
                "could not write `{what}` to the server within {}: it is not reading its stdin",
                format_duration(timeout)
            ),
        )
    }
}

/// How [`TransportError::endless_stream`] begins (the one wording, so it can be told).
const ENDLESS_STREAM: &str = "the event stream passed ";

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
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
