//! Publishing a surface: the `server.json` fingerprint block for the MCP Registry, the
//! registry's v0.1 read documents, and server cards.
//!
//! Pure data in, data out (no I/O, no clock, no network), so every rule here is unit-tested
//! and the facade (`mcpseal::registry`, `mcpseal::card`) only fetches, captures and writes.
//!
//! * [`block`]: mcpseal's block under
//!   `_meta["io.modelcontextprotocol.registry/publisher-provided"]["io.github.mcpseal/mcpseal"]`
//!   ([`SealBlock`], `schemaVersion: 1`, JSON Schema from [`block_schema`]), mcp-surface's block
//!   read and written in its own shape ([`McpSurfaceBlock`]), and either read back from a
//!   registry entry as one [`Claim`];
//! * [`anonymous`]: the lock's anonymous-access section (the documented shape) and the
//!   published answers with their own hash;
//! * [`cap`]: the registry's 4096-byte cap, counted as the registry counts;
//! * [`server_json`]: [`server_json::stamp`] and [`server_json::check`] on the
//!   file's text, keeping every other key, the key order and the indentation;
//! * [`validate`](mod@validate): offline validation against the vendored `server.json`
//!   (2025-12-11) and server-card (v1) schemas;
//! * [`registry`]: v0.1 URLs (names encoded once) and response documents;
//! * [`card`]: card shapes, validity, claims, emission and discovery places;
//! * [`ordered`]: the order-preserving JSON tree the editing relies on.

#![deny(missing_docs)]

pub mod anonymous;
pub mod block;
pub mod cap;
pub mod card;
pub mod keys;
pub mod ordered;
pub mod registry;
pub mod server_json;
pub mod validate;

pub use block::{
    BlockError, Claim, ClaimError, ClaimSource, McpSurfaceBlock, McpSurfaceDeclaration, SealBlock,
    read_claim,
};
pub use card::{Card, CardShape, detect};
pub use server_json::{ServerJson, ServerJsonError, Stamped, stamp};

/// The JSON Schema (2020-12) of [`SealBlock`], generated from the type (committed as
/// `schemas/registry-block.schema.json`).
pub fn block_schema() -> serde_json::Value {
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<SealBlock>()
        .to_value()
}
