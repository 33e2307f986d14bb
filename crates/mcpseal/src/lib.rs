//! mcpseal: make an MCP server's surface a promise that can be checked.
//!
//! This crate is the library a user of mcpseal imports. It holds the *workflows* — the things
//! that join several crates, speak to servers and touch files — one function per command, each
//! returning the command's typed report (`mcpseal_report`'s documents) or one error type with a
//! hint: [`snapshot::run`], [`lock::run`], [`check::run`], [`verify::run`] (with its retries),
//! [`diff::run`] (loading files and capturing live sides), [`probe::run`] and [`rpc::run`].
//! The connection-level steps they are made of ([`snapshot()`], [`lock::lock`],
//! [`check::check`], [`verify::verify`], [`rpc()`]) stay public for callers that manage their
//! own connection. The pieces live below: `mcpseal-client` speaks the wire, `mcpseal-surface` is
//! the pure canonical form and the one lock comparison, `mcpseal-report` types and renders
//! every document.
//!
//! Nothing here prints: every workflow returns data (or a typed error saying what was wrong and
//! what to do, [`Described`]), and the `mcpseal` binary decides how to render it and which exit
//! code it means.

pub mod anonymous;
pub mod atomic;
pub mod call;
pub mod check;
pub mod config;
mod connect;
mod described;
pub mod diff;
pub mod guard;
pub mod index;
pub mod init;
pub mod lock;
pub mod probe;
pub mod profiles;
pub mod progress;
pub mod publish;
pub mod replay;
pub mod rpc;
pub mod schemas;
pub mod serve;
pub mod snapshot;
pub mod verify;
pub mod version_source;
pub mod writer_lock;

pub use connect::{OpenError, open, unreachable_hint};
pub use described::Described;
pub use rpc::{RpcCall, RpcOutcome, rpc};
pub use snapshot::{
    Snapshot, SnapshotError, SnapshotOptions, SnapshotRunError, TrustedCapture, capture_trusted,
    snapshot, snapshot_with_anonymous,
};

/// Re-exports of the crates the workflows are built on.
pub use mcpseal_client as client;
pub use mcpseal_publish as publishing;
pub use mcpseal_report as report;
pub use mcpseal_sources as sources;
pub use mcpseal_surface as surface;

/// The tool that makes mcpseal's reports (its name and this library's version), as SARIF
/// drivers and probe reports name it.
pub fn tool_info() -> mcpseal_report::ToolInfo {
    mcpseal_report::ToolInfo {
        name: "mcpseal".into(),
        version: env!("CARGO_PKG_VERSION").into(),
    }
}
