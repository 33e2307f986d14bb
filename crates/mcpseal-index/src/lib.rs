//! mcpseal's fleet index: many pinned servers measured the same way, with history.
//!
//! This crate is the data half of `mcpseal index`; the workflow that installs, starts,
//! snapshots and probes each target lives in the facade (`mcpseal::index`), which writes what
//! this crate models:
//!
//! * [`cohort`]: the cohort file (`cohort.toml`) — targets by exact version and install method;
//! * [`shard`]: deterministic shards (a target's shard is a hash of its id);
//! * [`document`]: the run document (one row per target) and where its evidence lives;
//! * [`merge`]: shards of one run joined, byte-identical whatever the shard count;
//! * [`history`]: every merged run in SQLite (WAL, migrations, idempotent on run id);
//! * [`site`]: the static HTML pages (no JavaScript, inline SVG, deterministic bytes).
//!
//! Nothing here speaks to a server or reads the network.

pub mod cohort;
pub mod document;
pub mod history;
pub mod merge;
pub mod render;
pub mod shard;
pub mod site;

use sha2::{Digest, Sha256};

/// `sha256:HEX` of `bytes`: how every content address of the index is spelled.
pub fn sha256_tagged(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
