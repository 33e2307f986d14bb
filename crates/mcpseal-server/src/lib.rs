//! The server half of MCP: JSON-RPC dispatch to a [`Handler`] over stdio and Streamable HTTP,
//! 2026-07-28 (stateless) and 2025-11-25 on one server.
//!
//! The dispatcher decides everything the protocol decides, so a server built on this crate is
//! conformant by construction: `server/discover`; the per-request `_meta` envelope (missing
//! keys `-32602`, unknown version `-32022` with the supported versions); `resultType`, cache
//! hints (`ttlMs`, `cacheScope`) and `_meta` serverInfo on every 2026 result; list pagination with
//! opaque cursors; `subscriptions/listen` acknowledged first; the final error numbers (`-32002`
//! only for 2025 requests); over HTTP the routing headers (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`: `-32020` + 400), 404 for unknown methods, 202 for notifications,
//! 405 for anything but POST, 403 for a foreign `Origin`, bounded bodies and connections. The
//! 2025 path: `initialize` (negotiating any published 2025 revision), `ping`, 2025 result shapes,
//! stateless over HTTP (no session ids are minted). [`Options::legacy`] off makes a modern-only
//! server. mcpseal's own probe (`mcpseal probe`) finds nothing on a modern-only server made with
//! it and only its dual-era advisory on a dual-era one; the crate's tests hold it to that.
//!
//! What it refuses to do: server-to-client requests (gone in 2026-07-28; the 2025 path does not
//! offer sampling, elicitation or roots either), sessions, the HTTP GET stream, logging,
//! `resources/subscribe`, completions, tasks. It never writes to stdout except protocol messages
//! and never logs.
//!
//! ```no_run
//! use std::sync::Arc;
//! use mcpseal_protocol::ListKind;
//! use mcpseal_server::{Answer, Context, Handler, Implementation, Options, RpcError, Server};
//! use serde_json::{Map, Value, json};
//!
//! struct Echo {
//!     me: Implementation,
//!     tools: Arc<[Value]>,
//! }
//!
//! impl Handler for Echo {
//!     fn implementation(&self) -> &Implementation {
//!         &self.me
//!     }
//!     fn list(&self, kind: ListKind) -> Option<Arc<[Value]>> {
//!         (kind == ListKind::Tools).then(|| Arc::clone(&self.tools))
//!     }
//!     async fn call_tool(&self, _: &str, args: Map<String, Value>, _: &Context) -> Result<Answer, RpcError> {
//!         Ok(json!({"content": [{"type": "text", "text": Value::Object(args).to_string()}]}).into())
//!     }
//!     async fn read_resource(&self, uri: &str, _: &Context) -> Result<Answer, RpcError> {
//!         Err(RpcError::resource_not_found(uri))
//!     }
//! }
//!
//! # async fn run() -> Result<(), mcpseal_server::ServeError> {
//! let tools: Arc<[Value]> = Arc::from(vec![json!({"name": "echo", "inputSchema": {"type": "object"}})]);
//! let server = Server::new(Echo { me: Implementation::new("echo", "1.0.0"), tools }, Options::default());
//! server.serve_stdio().await
//! # }
//! ```
//!
//! Why not `rmcp` (the official Rust SDK, 3.11) as the base: evaluated against the probe's
//! findings on it (`docs/peers.md`). Its `Origin` validation can be switched on
//! (`StreamableHttpServerConfig::with_allowed_origins`), and serverInfo `_meta` could be added
//! by hand to each result type; but its stdio service answers `ping` before the lifecycle is
//! chosen in code no option reaches (`serve_server_with_ct_inner` replies to `PingRequest` in its
//! pre-initialize loop, whatever `_meta` says), and it pins one lifecycle for the whole stdio
//! process from the first non-discover request, which is exactly the "derived from an earlier
//! request" behaviour 2026-07-28 forbids. Working around that means owning the stdio loop, the
//! dispatch and the result decoration — the whole of this crate — while also carrying rmcp's own
//! model of the wire beside `mcpseal-protocol` (two definitions of every method and key) and its
//! compile cost (the largest Rust unit in the build after aws-lc).
#![deny(missing_docs)]

mod accept;
mod answer;
mod dress;
mod error;
mod handler;
mod http;
mod listen;
mod options;
mod out;
mod pages;
mod server;
mod stdio;
mod wire;

pub use accept::serve_router;
pub use answer::{Answer, Raw};
pub use error::{RpcError, ServeError};
pub use handler::{Context, Handler, Implementation, TransportKind};
pub use http::{HttpLimits, HttpServer, MCP_PATH, limit};
pub use options::{CacheScope, HttpOptions, Options};
pub use server::Server;
