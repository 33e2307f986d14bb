//! Anonymous access: the lock's section (read) and the published answers (written and checked).
//!
//! The lock's section is the shape documented by the anonymous-access work (issue 13):
//!
//! ```json
//! "anonymous": {"sha256": "…",
//!               "answers": {"tools/list": {"answers": true, "status": 200}},
//!               "configs": {"open": {"POST /mcp": {"tools/list": {…}}}}}
//! ```
//!
//! `answers` is the default configuration on the target's own route; `configs` every measured
//! one. This module reads it from a lock's unknown top-level keys and checks its hash
//! ([`section_sha256`]: SHA-256 of the JCS bytes of the section without its `sha256` member —
//! the section "hashed on its own"; if the anonymous-access work settles on another rule,
//! that one function changes).
//!
//! What is published is smaller (the 4 KB cap): only `answers`, with
//! `sha256 = SHA-256(JCS(answers))`, so a verifier can check the published answers alone.

use std::collections::BTreeMap;

use mcpseal_surface::{jcs, sha256_hex};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use thiserror::Error;

/// How one method answered without a credential.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// HTTP 200 and a JSON-RPC `result`.
    pub answers: bool,
    /// The HTTP status.
    pub status: u16,
    /// The JSON-RPC error code, when refused with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
}

/// Method → answer.
pub type Answers = BTreeMap<String, Answer>;

/// The anonymous part of a published block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PublishedAnonymous {
    /// SHA-256 (hex) of the JCS bytes of `answers`.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
    /// Method → how it answered without a credential (default configuration and route).
    pub answers: Answers,
}

impl PublishedAnonymous {
    /// The published part of `answers`, with its hash.
    pub fn of(answers: &Answers) -> PublishedAnonymous {
        PublishedAnonymous {
            sha256: answers_sha256(answers),
            answers: answers.clone(),
        }
    }

    /// Whether `sha256` is the hash of `answers` (a block that contradicts itself proves
    /// nothing).
    pub fn hash_holds(&self) -> bool {
        answers_sha256(&self.answers) == self.sha256
    }
}

/// SHA-256 of the JCS bytes of an answers map.
pub fn answers_sha256(answers: &Answers) -> String {
    let value = serde_json::to_value(answers).unwrap_or(Value::Null);
    sha256_hex(&jcs(&value))
}

/// The lock's anonymous section (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct LockAnonymous {
    /// The stored hash (checked on read).
    pub sha256: String,
    /// Default configuration, own route.
    pub answers: Answers,
    /// Every measured configuration, as stored (not published: too large for the cap).
    pub configs: Value,
}

/// Why a lock's anonymous section cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum AnonymousError {
    /// Not the documented shape.
    #[error("the lock's `anonymous` section is malformed: {0}")]
    Shape(String),
    /// The stored hash is not the section's.
    #[error(
        "the lock's `anonymous` section was edited by hand: stored sha256 {stored}, computed {computed}"
    )]
    EditedByHand {
        /// Stored (shortened).
        stored: String,
        /// Computed (shortened).
        computed: String,
    },
}

/// SHA-256 of the JCS bytes of a lock's anonymous section without its `sha256` member.
pub fn section_sha256(section: &Map<String, Value>) -> String {
    let mut rest = section.clone();
    rest.remove("sha256");
    sha256_hex(&jcs(&Value::Object(rest)))
}

impl LockAnonymous {
    /// Reads the section from a lock's unknown top-level keys; `Ok(None)` when the lock has
    /// none.
    ///
    /// # Errors
    /// [`AnonymousError`]: wrong shape, or a hash that does not hold.
    pub fn from_lock_extra(
        extra: &Map<String, Value>,
    ) -> Result<Option<LockAnonymous>, AnonymousError> {
        let Some(section) = extra.get("anonymous") else {
            return Ok(None);
        };
        let Value::Object(map) = section else {
            return Err(AnonymousError::Shape("not an object".into()));
        };
        let Some(Value::String(stored)) = map.get("sha256") else {
            return Err(AnonymousError::Shape("`sha256` must be a string".into()));
        };
        let answers: Answers = match map.get("answers") {
            Some(a) => serde_json::from_value(a.clone())
                .map_err(|e| AnonymousError::Shape(format!("`answers`: {e}")))?,
            None => return Err(AnonymousError::Shape("`answers` is missing".into())),
        };
        let computed = section_sha256(map);
        if &computed != stored {
            return Err(AnonymousError::EditedByHand {
                stored: stored.chars().take(12).collect(),
                computed: computed.chars().take(12).collect(),
            });
        }
        Ok(Some(LockAnonymous {
            sha256: stored.clone(),
            answers,
            configs: map.get("configs").cloned().unwrap_or(Value::Null),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn section() -> Map<String, Value> {
        let mut s = json!({"answers": {"tools/list": {"answers": false, "status": 401},
                                        "ping": {"answers": true, "status": 200}},
                            "configs": {}});
        let hash = section_sha256(s.as_object().expect("object"));
        s["sha256"] = json!(hash);
        let mut extra = Map::new();
        extra.insert("anonymous".into(), s);
        extra
    }

    #[test]
    fn a_sound_section_reads_and_a_tampered_one_is_refused() {
        let extra = section();
        let a = LockAnonymous::from_lock_extra(&extra)
            .expect("reads")
            .expect("present");
        assert!(!a.answers["tools/list"].answers);
        let published = PublishedAnonymous::of(&a.answers);
        assert!(published.hash_holds());
        let mut tampered = extra.clone();
        tampered["anonymous"]["answers"]["tools/list"]["answers"] = json!(true);
        assert!(matches!(
            LockAnonymous::from_lock_extra(&tampered),
            Err(AnonymousError::EditedByHand { .. })
        ));
        assert_eq!(LockAnonymous::from_lock_extra(&Map::new()), Ok(None));
        let mut widened = published.clone();
        widened.answers.insert(
            "prompts/list".into(),
            Answer {
                answers: true,
                status: 200,
                code: None,
            },
        );
        assert!(!widened.hash_holds());
    }
}
