//! mcpseal: make an MCP server's surface a promise that can be checked.
//!
//! This crate is the library a user of mcpseal imports. It holds the *workflows* — the things
//! that join several crates and touch files: capture a surface and fingerprint it
//! ([`snapshot`]), send one request ([`rpc`]), and, as they land, lock, check, verify, diff and
//! probe. The pieces live below it: `mcpseal-client` speaks the wire, `mcpseal-surface` is the
//! pure canonical form, `mcpseal-report` renders findings.
//!
//! Nothing here prints: every workflow returns data (or a typed error saying what was wrong and
//! what to do), and the `mcpseal` binary decides how to render it and which exit code it means.

pub mod atomic;
pub mod check;
pub mod config;
mod connect;
pub mod diff;
pub mod guard;
pub mod lock;
pub mod probe;
pub mod publish;
mod rpc;
pub mod serve;
mod snapshot;
pub mod verify;
pub mod version_source;

pub use connect::{OpenError, open, unreachable_hint};
pub use rpc::{RpcCall, RpcOutcome, rpc};
pub use snapshot::{
    Snapshot, SnapshotError, SnapshotOptions, TrustedCapture, capture_trusted, snapshot,
};

/// Re-exports of the crates the workflows are built on.
pub use mcpseal_client as client;
pub use mcpseal_publish as publishing;
pub use mcpseal_report as report;
pub use mcpseal_sources as sources;
pub use mcpseal_surface as surface;
