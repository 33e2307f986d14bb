//! The document of `mcpseal card check` (`--format json`, `schemaVersion: 1`; additive changes
//! only).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Check;

fn one(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "integer", "const": 1})
}

/// How `card check` came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum CardVerdict {
    /// Every card found is valid and consistent with the live server (exit 0).
    Consistent,
    /// A card is invalid or contradicts the live server (exit 1).
    Mismatch,
    /// No card at any place (exit 2).
    NoCard,
    /// The live server could not be reached or trusted (exit 2).
    Unreachable,
}

/// One place a card was looked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Probed {
    /// The place (`ai-catalog`, `server-card`, `well-known-server-card`, …).
    pub place: String,
    /// The URL asked.
    pub url: String,
    /// The status (`null`: no answer).
    pub status: Option<u16>,
    /// Why there was no answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One card found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FoundCard {
    /// The place.
    pub place: String,
    /// Where it was read (a URL, or `inline:<identifier>` for a catalog's inline card).
    pub url: String,
    /// `v1`, `smithery`, `legacy`, `unknown`.
    pub shape: String,
    /// `Content-Type` of the answer.
    pub media_type: Option<String>,
    /// `Access-Control-Allow-Origin`.
    pub cors: Option<String>,
    /// `Cache-Control`.
    pub cache_control: Option<String>,
    /// `ETag`.
    pub etag: Option<String>,
    /// Status of the revalidation with `If-None-Match` (`null`: not asked).
    pub revalidation_status: Option<u16>,
    /// The checks of this card (HTTP, validity, reconciliation).
    pub checks: Vec<Check>,
}

/// What the live server says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LiveServer {
    /// The era.
    pub era: String,
    /// `serverInfo.name`.
    pub name: Option<String>,
    /// `serverInfo.version`.
    pub version: Option<String>,
    /// `supportedVersions` (2026) or the negotiated `protocolVersion` (2025).
    pub supported_versions: Vec<String>,
}

/// The report of `mcpseal card check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal card check report",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/card-check-report.schema.json")
)]
pub struct CardCheckReport {
    /// Always 1.
    #[schemars(schema_with = "one")]
    pub schema_version: u32,
    /// The verdict.
    pub verdict: CardVerdict,
    /// The MCP endpoint checked.
    pub url: String,
    /// Every place asked, in discovery order.
    pub probed: Vec<Probed>,
    /// The cards found.
    pub cards: Vec<FoundCard>,
    /// The live server (`null`: not reached).
    pub live: Option<LiveServer>,
    /// Why the live server could not be reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_error: Option<String>,
}
