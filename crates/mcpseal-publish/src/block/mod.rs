//! The fingerprint blocks published inside `server.json`'s `publisher-provided` `_meta`:
//! mcpseal's own ([`seal`]), mcp-surface's ([`mcp_surface`]), and reading either back from a
//! registry entry as one [`Claim`] ([`claim`]).

pub mod claim;
pub mod mcp_surface;
pub mod seal;

use thiserror::Error;

pub use claim::{Claim, ClaimAnonymous, ClaimError, ClaimSource, ExpectedAnswer, read_claim};
pub use mcp_surface::{
    MCP_SURFACE_PROBES, McpSurfaceBlock, McpSurfaceDeclaration, from_mcp_surface_lock,
};
pub use seal::{BLOCK_SCHEMA_VERSION, SealBlock, SealDeclared};

use crate::anonymous::AnonymousError;

/// Why a block cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum BlockError {
    /// The lock's anonymous section is unusable.
    #[error("{0}")]
    Anonymous(#[from] AnonymousError),
    /// mcp-surface's lock file is unusable.
    #[error("the mcp-surface lock is unusable: {0}")]
    McpSurfaceLock(String),
}
