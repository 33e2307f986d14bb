//! One list item ([`Item`]) held as its canonical bytes with its hashes pre-computed, so that
//! hashing a surface never re-parses, and the hash pair a lock file records ([`ItemHash`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::jcs::hex;

/// One list item, held as its canonical bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub(super) identity: String,
    pub(super) canonical: Vec<u8>,
    pub(super) sha256: [u8; 32],
    pub(super) description_sha256: Option<[u8; 32]>,
}

impl Item {
    /// An item from its identity, canonical bytes and the decoded text of its `description`
    /// when that is a string; computes both hashes.
    pub(super) fn new(identity: String, canonical: Vec<u8>, description: Option<&[u8]>) -> Item {
        Item {
            sha256: Sha256::digest(&canonical).into(),
            description_sha256: description.map(|d| Sha256::digest(d).into()),
            identity,
            canonical,
        }
    }

    /// The identity (`name`, `uri` or `uriTemplate`).
    pub fn identity(&self) -> &str {
        &self.identity
    }

    /// The item's RFC 8785 bytes, all fields kept.
    pub fn canonical_bytes(&self) -> &[u8] {
        &self.canonical
    }

    /// The item's hashes (see [`ItemHash`]).
    pub fn hash(&self) -> ItemHash {
        ItemHash {
            sha256: hex(&self.sha256),
            description_sha256: self.description_sha256.as_ref().map(|d| hex(d)),
        }
    }

    /// The item parsed back into a value (allocates; for display and lock files).
    pub fn value(&self) -> Value {
        // Our own RFC 8785 output always parses; Null is unreachable.
        serde_json::from_slice(&self.canonical).unwrap_or(Value::Null)
    }
}

/// Hashes of one item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemHash {
    /// SHA-256 (lowercase hex) of the item's canonical bytes.
    pub sha256: String,
    /// SHA-256 of the UTF-8 bytes of its `description` string; `None` (JSON `null`) when there
    /// is no description or it is not a string. Lets the diff spot description-only changes
    /// (tool poisoning) without storing text.
    pub description_sha256: Option<String>,
}
