//! The document of `mcpseal rpc` (`schemaVersion: 1`): one request and every exchange.
//!
//! ```json
//! {"schemaVersion": 1, "exchange": {…}, "handshake": [{…}], "diagnostics": ["[stderr] …"]}
//! ```
//!
//! An exchange is the client's record of one round trip, as every report quotes it
//! ([`ExchangeRecord`](crate::ExchangeRecord)). When the request got no valid answer (exit 2), `error` is added.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::error::ErrorBody;
use crate::record::ExchangeRecord;

/// The document of `mcpseal rpc` (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal rpc exchange",
    description = "`mcpseal rpc --format json`, schemaVersion 1: one JSON-RPC request and every exchange behind it. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/rpc-report.schema.json")
)]
pub struct RpcReport {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// The exchange of the request asked for.
    pub exchange: ExchangeRecord,
    /// The handshake exchanges, when one was asked for.
    pub handshake: Vec<ExchangeRecord>,
    /// What the server said outside the protocol (stderr, non-JSON stdout, exit status).
    pub diagnostics: Vec<String>,
    /// Set when the request got no valid answer (exit 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}
