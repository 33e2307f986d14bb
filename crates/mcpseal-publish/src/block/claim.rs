//! Reading a published fingerprint back from a registry entry's `server` object.
//!
//! mcpseal's block is preferred; mcp-surface's is read when it is the only one. Either becomes
//! a [`Claim`]: the form, endpoint, hash, version, exclusions and anonymous answers, in one
//! shape, so `registry verify` does not care who published it. Nothing here decides whether
//! the claim holds: the block's own anonymous hash is reported ([`ClaimAnonymous::hash_holds`]),
//! the live comparison is the facade's.

use std::collections::BTreeMap;

use mcpseal_surface::Form;
use mcpseal_surface::lock::Pointer;
use serde_json::Value;
use thiserror::Error;

use super::mcp_surface::McpSurfaceBlock;
use super::seal::{BLOCK_SCHEMA_VERSION, SealBlock};
use crate::keys::{MCP_SURFACE_KEY, MCPSEAL_KEY, PUBLISHER_PROVIDED};

/// Who published the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimSource {
    /// `io.github.mcpseal/mcpseal`.
    Mcpseal,
    /// `io.github.sidneybissoli/mcp-surface`.
    McpSurface,
}

impl ClaimSource {
    /// The `publisher-provided` key.
    pub fn key(self) -> &'static str {
        match self {
            ClaimSource::Mcpseal => MCPSEAL_KEY,
            ClaimSource::McpSurface => MCP_SURFACE_KEY,
        }
    }
}

/// How a method is expected to answer without a credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedAnswer {
    /// It answers (HTTP 200 and a `result`).
    pub answers: bool,
    /// The status, when the block says (mcpseal's blocks do).
    pub status: Option<u16>,
    /// The JSON-RPC error code, when the block says.
    pub code: Option<i64>,
}

/// The anonymous part of a claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimAnonymous {
    /// Method → expected answer.
    pub answers: BTreeMap<String, ExpectedAnswer>,
    /// The published hash.
    pub sha256: String,
    /// Whether the published hash is the hash of the published answers.
    pub hash_holds: bool,
}

/// A published fingerprint (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// Whose block.
    pub source: ClaimSource,
    /// The form of the hash.
    pub form: Form,
    /// The endpoint the block names.
    pub endpoint: String,
    /// The declared hash.
    pub sha256: String,
    /// The version the surface was locked at.
    pub locked_at: String,
    /// Exclusions to apply before hashing.
    pub exclude: Vec<Pointer>,
    /// Anonymous access, when published.
    pub anonymous: Option<ClaimAnonymous>,
}

/// Why an entry carries no usable claim (each means "could not verify", exit 2).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ClaimError {
    /// Neither block is there.
    #[error(
        "the entry publishes no fingerprint: `_meta[\"{PUBLISHER_PROVIDED}\"]` has neither `{MCPSEAL_KEY}` nor `{MCP_SURFACE_KEY}`"
    )]
    NoBlock,
    /// A block in a form this version does not know.
    #[error("the `{key}` block is in form `{form}`, which this mcpseal does not know")]
    UnknownForm {
        /// The block's key.
        key: &'static str,
        /// Its form.
        form: String,
    },
    /// A newer block format.
    #[error(
        "the `{MCPSEAL_KEY}` block has `schemaVersion` {found}; this mcpseal reads {BLOCK_SCHEMA_VERSION}"
    )]
    Newer {
        /// The version found.
        found: u64,
    },
    /// Not the block's shape.
    #[error("the `{key}` block is malformed: {reason}")]
    Malformed {
        /// The block's key.
        key: &'static str,
        /// Why.
        reason: String,
    },
}

/// Reads the claim of a registry entry's `server` object (see the module docs).
///
/// # Errors
/// [`ClaimError`].
pub fn read_claim(server: &Value) -> Result<Claim, ClaimError> {
    let provided = server.get("_meta").and_then(|m| m.get(PUBLISHER_PROVIDED));
    if let Some(block) = provided.and_then(|p| p.get(MCPSEAL_KEY)) {
        return seal_claim(block);
    }
    if let Some(block) = provided.and_then(|p| p.get(MCP_SURFACE_KEY)) {
        return mcp_surface_claim(block);
    }
    Err(ClaimError::NoBlock)
}

fn seal_claim(block: &Value) -> Result<Claim, ClaimError> {
    let malformed = |reason: String| ClaimError::Malformed {
        key: MCPSEAL_KEY,
        reason,
    };
    match block.get("schemaVersion").and_then(Value::as_u64) {
        Some(v) if v > u64::from(BLOCK_SCHEMA_VERSION) => {
            return Err(ClaimError::Newer { found: v });
        }
        _ => {}
    }
    if let Some(form) = block.get("form").and_then(Value::as_str)
        && form.parse::<Form>().is_err()
    {
        return Err(ClaimError::UnknownForm {
            key: MCPSEAL_KEY,
            form: form.to_owned(),
        });
    }
    let b: SealBlock =
        serde_json::from_value(block.clone()).map_err(|e| malformed(e.to_string()))?;
    let form = b
        .form
        .parse::<Form>()
        .map_err(|e| malformed(e.to_string()))?;
    let exclude = b
        .declared
        .exclude
        .iter()
        .map(|p| Pointer::parse(p).map_err(|e| malformed(format!("`declared.exclude`: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Claim {
        source: ClaimSource::Mcpseal,
        form,
        endpoint: b.endpoint,
        sha256: b.declared.sha256,
        locked_at: b.declared.locked_at,
        exclude,
        anonymous: b.anonymous.map(|a| ClaimAnonymous {
            hash_holds: a.hash_holds(),
            sha256: a.sha256,
            answers: a
                .answers
                .into_iter()
                .map(|(m, a)| {
                    (
                        m,
                        ExpectedAnswer {
                            answers: a.answers,
                            status: Some(a.status),
                            code: a.code,
                        },
                    )
                })
                .collect(),
        }),
    })
}

fn mcp_surface_claim(block: &Value) -> Result<Claim, ClaimError> {
    let form = block.get("form").and_then(Value::as_str).unwrap_or("");
    if form != Form::McpSurface1.as_str() {
        return Err(ClaimError::UnknownForm {
            key: MCP_SURFACE_KEY,
            form: form.to_owned(),
        });
    }
    let b: McpSurfaceBlock =
        serde_json::from_value(block.clone()).map_err(|e| ClaimError::Malformed {
            key: MCP_SURFACE_KEY,
            reason: e.to_string(),
        })?;
    Ok(Claim {
        source: ClaimSource::McpSurface,
        form: Form::McpSurface1,
        endpoint: b.endpoint,
        sha256: b.declared.sha256,
        locked_at: b.declared.locked_at,
        exclude: Vec::new(),
        anonymous: b.anonymous.map(|a| ClaimAnonymous {
            hash_holds: a.hash_holds(),
            sha256: a.sha256,
            answers: a
                .answers
                .into_iter()
                .map(|(m, answers)| {
                    (
                        m,
                        ExpectedAnswer {
                            answers,
                            status: None,
                            code: None,
                        },
                    )
                })
                .collect(),
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn server(key: &str, block: Value) -> Value {
        json!({"name": "a/b", "_meta": {PUBLISHER_PROVIDED: {key: block, "other": 1}}})
    }

    #[test]
    fn reads_both_blocks_and_prefers_mcpseal() {
        let h = "a".repeat(64);
        let seal = json!({"schemaVersion": 1, "form": "mcpseal/1", "spec": "s", "endpoint": "http://x/mcp",
            "declared": {"sha256": h, "lockedAt": "1.0.0", "exclude": ["/tools"]}});
        let c = read_claim(&server(MCPSEAL_KEY, seal.clone())).expect("claim");
        assert_eq!(
            (c.source, c.form, c.exclude.len()),
            (ClaimSource::Mcpseal, Form::McpSeal1, 1)
        );
        let ms = json!({"form": "mcp-surface/1", "spec": "s", "endpoint": "http://x/mcp",
            "declared": {"sha256": h, "lockedAt": "1.0.0"},
            "anonymous": {"sha256": "0", "answers": {"ping": true}}});
        let c = read_claim(&server(MCP_SURFACE_KEY, ms.clone())).expect("claim");
        assert_eq!(c.source, ClaimSource::McpSurface);
        assert!(
            !c.anonymous.expect("anonymous").hash_holds,
            "a wrong hash is reported"
        );
        let mut both = server(MCPSEAL_KEY, seal);
        both["_meta"][PUBLISHER_PROVIDED][MCP_SURFACE_KEY] = ms;
        assert_eq!(
            read_claim(&both).expect("claim").source,
            ClaimSource::Mcpseal
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(
            read_claim(&json!({"name": "a/b"})),
            Err(ClaimError::NoBlock)
        );
        let unknown = json!({"schemaVersion": 1, "form": "mcpseal/9"});
        assert!(matches!(
            read_claim(&server(MCPSEAL_KEY, unknown)),
            Err(ClaimError::UnknownForm { .. })
        ));
        let newer = json!({"schemaVersion": 2, "form": "mcpseal/1"});
        assert_eq!(
            read_claim(&server(MCPSEAL_KEY, newer)),
            Err(ClaimError::Newer { found: 2 })
        );
        assert!(matches!(
            read_claim(&server(MCP_SURFACE_KEY, json!({"form": "mcp-surface/2"}))),
            Err(ClaimError::UnknownForm { .. })
        ));
        assert!(matches!(
            read_claim(&server(MCPSEAL_KEY, json!({"form": "mcpseal/1"}))),
            Err(ClaimError::Malformed { .. })
        ));
    }
}
