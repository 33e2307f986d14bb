//! Anonymous access: the published answers (written and checked).
//!
//! The lock's section (`anonymous`: `sha256`, `answers`, `configs`) is defined once, in
//! [`mcpseal_surface::lock::anonymous`] (re-exported here): the lock rules, the registry block
//! and the card read the same type and the same hash rule.
//!
//! What is published is smaller (the 4 KB cap): only `answers`, with
//! `sha256 = SHA-256(JCS(answers))`, so a verifier can check the published answers alone.

use mcpseal_surface::{jcs, sha256_hex};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use mcpseal_surface::lock::anonymous::{
    AnonymousError, Answer, Answers, LockAnonymous, section_sha256,
};

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

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
