//! mcpseal's own block, `publisher-provided["io.github.mcpseal/mcpseal"]`.
//!
//! ```json
//! {"schemaVersion": 1, "form": "mcpseal/1",
//!  "spec": "https://github.com/mcpseal/mcpseal/blob/main/SPEC.md",
//!  "endpoint": "https://mcp.example.com/mcp",
//!  "declared": {"sha256": "<64 hex>", "lockedAt": "1.2.0",
//!               "exclude": ["/tools/name=clock/description"]},
//!  "anonymous": {"sha256": "<64 hex of JCS(answers)>", "answers": {"tools/list": {…}}}}
//! ```
//!
//! Everything is derived from the lock (and the endpoint), so the same lock always gives the
//! same block, byte for byte: `registry check` relies on it. `declared.exclude` is the lock's
//! exclusions, without which no one could reproduce the hash; it is left out when empty.
//! `anonymous` is present exactly when the lock has an anonymous section.

use mcpseal_surface::lock::LockFile;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::BlockError;
use crate::anonymous::{LockAnonymous, PublishedAnonymous};
use crate::keys::MCPSEAL_SPEC_URL;

/// The block format version this code writes and reads.
pub const BLOCK_SCHEMA_VERSION: u32 = 1;

/// mcpseal's published block (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal registry block",
    description = "server.json `_meta[\"io.modelcontextprotocol.registry/publisher-provided\"][\"io.github.mcpseal/mcpseal\"]`, schemaVersion 1. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/registry-block.schema.json")
)]
pub struct SealBlock {
    /// Always 1.
    #[schemars(range(min = 1, max = 1))]
    pub schema_version: u32,
    /// The canonical form of the fingerprint (`mcpseal/1` or `mcp-surface/1`).
    #[schemars(regex(pattern = r"^(mcpseal/1|mcp-surface/1)$"))]
    pub form: String,
    /// Where the form is specified.
    pub spec: String,
    /// The endpoint the fingerprint was published for.
    pub endpoint: String,
    /// The declared surface.
    pub declared: SealDeclared,
    /// Anonymous access, when the lock measured it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anonymous: Option<PublishedAnonymous>,
}

/// The declared part of [`SealBlock`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SealDeclared {
    /// SHA-256 (hex) of the canonical surface after `exclude`.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// The server version the surface was locked under.
    pub locked_at: String,
    /// JSON Pointers left out of the hash (the lock's exclusions).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

impl SealBlock {
    /// The block `lock` publishes for `endpoint`.
    ///
    /// # Errors
    /// [`BlockError::Anonymous`] when the lock's anonymous section is unusable.
    pub fn from_lock(lock: &LockFile, endpoint: &str) -> Result<SealBlock, BlockError> {
        let anonymous = LockAnonymous::from_lock_extra(&lock.extra)?
            .map(|a| PublishedAnonymous::of(&a.answers));
        Ok(SealBlock {
            schema_version: BLOCK_SCHEMA_VERSION,
            form: lock.form.as_str().to_owned(),
            spec: MCPSEAL_SPEC_URL.to_owned(),
            endpoint: endpoint.to_owned(),
            declared: SealDeclared {
                sha256: lock.declared.sha256.clone(),
                locked_at: lock.declared.version.clone(),
                exclude: lock
                    .declared
                    .exclude
                    .iter()
                    .map(|p| p.as_str().to_owned())
                    .collect(),
            },
            anonymous,
        })
    }
}
