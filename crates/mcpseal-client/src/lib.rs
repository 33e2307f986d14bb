//! Speaks MCP on the wire and writes down what was said.
//!
//! This crate is mcpseal's only contact with servers. It spawns stdio servers (never through a
//! shell), speaks Streamable HTTP (JSON and SSE answers, legacy sessions), and knows the one
//! thing that differs between protocol eras: how a request is dressed (the 2026-07-28 `_meta`
//! envelope and routing headers, or the 2025-11-25 `initialize` handshake).
//!
//! Two layers: a [`Transport`] moves JSON-RPC messages both ways and knows nothing of what they
//! mean (stdio line framing, HTTP POSTs with whole or event-stream answers, raw GETs); a
//! [`Connection`] on top hands out ids, dresses requests for their era, follows a 2025 session,
//! matches answers to requests, answers server-to-client requests ([`ServerRequests`]) and
//! redacts secrets. A proxy that forwards everything uses the transport; everything else uses
//! the connection. Public documents (OAuth metadata, registry entries, server cards) are
//! fetched by a [`PublicClient`], which never sends the user's headers.
//!
//! Every round trip comes back as an [`Exchange`], never as an `Err`: a JSON-RPC error is an
//! answer, and a transport failure (timeout, crash, oversized or invalid output) is recorded in
//! [`Exchange::transport_error`] as *no evidence*. Callers judge; this crate only reports.
//!
//! What it refuses to do: it knows nothing of fingerprints, locks or conformance rules (those
//! live in `mcpseal-surface` and `mcpseal-probe`); it never runs `sh -c`; it never reads more
//! than [`Limits`] allow, nor waits on a read or a write past the request's timeout; and
//! credential header values never leave a [`Connection`] unredacted (the [`Transport`] below it
//! redacts nothing: a proxy forwards what it is given).
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcpseal_client::ConnectError> {
//! use mcpseal_client::{Connection, Options, Request, Target};
//! let target = Target::stdio(["node", "server.js"]);
//! let conn = Connection::open(&target, Options::default()).await?;
//! let exchange = conn.send(Request::modern("tools/list", None)).await;
//! if let Some(result) = exchange.result() {
//!     println!("{result}");
//! }
//! # Ok(()) }
//! ```

mod capture;
mod connection;
mod diagnostics;
mod error;
mod exchange;
mod headers;
mod memo;
mod public_get;
mod redact;
mod support;
mod target;
mod transport;

pub use capture::{
    Capture, CaptureOptions, Discovery, SanityCheck, capture_surface, discover, list_items,
    normalise_pages, sanity_check,
};
pub use connection::{Connection, ServerRequest, ServerRequests};
pub use diagnostics::Diagnostics;
pub use error::{ConnectError, TransportError, TransportErrorKind, format_duration};
pub use exchange::{Exchange, Header, TransportKind};
pub use memo::TimeoutMemo;
pub use public_get::{MetadataResponse, PublicClient, PublicResponse, user_agent};
pub use transport::{
    Inbound, Inbox, Message, RawResponse, Reply, ReplyBody, ReplyStream, StreamItem, Transport,
    WholeBody,
};
// The wire vocabulary lives in `mcpseal-protocol`; re-exported so that a client user needs one
// import path for a request and its dress.
pub use mcpseal_protocol::jsonrpc::MessageKind;
pub use mcpseal_protocol::keys::{
    CLIENT_NAME, HEADER_MCP_METHOD, HEADER_MCP_NAME, HEADER_PROTOCOL_VERSION, HEADER_SESSION_ID,
    META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION, META_SERVER_INFO,
    META_SUBSCRIPTION_ID,
};
pub use mcpseal_protocol::{
    Envelope, Era, HeaderEdit, Request, Wait, client_info, encode_header_value,
    is_modern_error_code,
};
pub use redact::{Redactor, looks_secret, redact_argv};
pub use target::{Limits, Options, Target, parse_header, redact_url};
// The command-line grammar is pure, so it lives in the protocol crate (fuzzed there).
pub use mcpseal_protocol::command::{TokenizeError, quote_words, tokenize};
