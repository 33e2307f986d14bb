//! The JSON-RPC errors a guard answers the host with, instead of forwarding.
//!
//! Two kinds. A **blocked item** (changed, new, removed, renamed, or not approved at all) is
//! refused like an unknown tool is (`-32602`: to the host it is not there), with a message that
//! names the item, its drift classes and the commands to review and approve it. A guard that
//! **cannot verify** anything (a lock for another server, a listing that failed or cannot be
//! normalised) answers `-32603`: nothing unverified is forwarded. Both carry
//! `data.mcpsealGuard` for programs.

use mcpseal_protocol::method::code;
use serde_json::{Value, json};

use crate::policy::{DriftClass, ItemRef};

/// Why a request was not forwarded.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// The item is blocked by the policy.
    Blocked {
        /// The item.
        item: ItemRef,
        /// Its drift classes.
        classes: Vec<DriftClass>,
        /// The first reason, for the message.
        reason: String,
        /// Its hash in the lock.
        locked_sha256: Option<String>,
        /// Its hash as served.
        live_sha256: Option<String>,
    },
    /// Nothing can be verified: `why` says what failed.
    Unverifiable {
        /// What failed, in words.
        why: String,
    },
}

/// The commands a refusal points at, rendered once by whoever started the guard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReviewHint {
    /// `mcpseal guard review --lock … -- …` (or the URL form), without credentials.
    pub review: String,
    /// `mcpseal guard approve ITEM --lock … -- …`, with `ITEM` standing for the item.
    pub approve: String,
}

impl Refusal {
    /// The JSON-RPC error object.
    pub fn error(&self, hint: &ReviewHint) -> Value {
        match self {
            Refusal::Blocked {
                item,
                classes,
                reason,
                locked_sha256,
                live_sha256,
            } => {
                let names: Vec<&str> = classes.iter().map(|c| c.name()).collect();
                let what = match (locked_sha256, live_sha256) {
                    (None, _) => "the lock does not approve it",
                    (Some(_), None) => "it is locked but no longer listed",
                    (Some(_), Some(_)) => "it changed since it was locked",
                };
                let approve = hint.approve.replace("ITEM", &item.to_string());
                let message = format!(
                    "mcpseal guard blocked {} `{}`: {what} ({}: {reason}); review it with `{}` and approve it with `{approve}`",
                    item.kind_word(),
                    item.id,
                    names.join(", "),
                    hint.review,
                );
                json!({
                    "code": code::INVALID_PARAMS,
                    "message": message,
                    "data": {"mcpsealGuard": {
                        "item": item.to_string(),
                        "classes": names,
                        "decision": "block",
                        "lockedSha256": locked_sha256,
                        "liveSha256": live_sha256,
                        "review": hint.review,
                        "approve": approve,
                    }}
                })
            }
            Refusal::Unverifiable { why } => json!({
                "code": code::INTERNAL_ERROR,
                "message": format!(
                    "mcpseal guard cannot verify this server, so it forwards nothing: {why}; review with `{}`",
                    hint.review
                ),
                "data": {"mcpsealGuard": {"decision": "block", "unverifiable": why, "review": hint.review}}
            }),
        }
    }

    /// A whole JSON-RPC error response to `id`.
    pub fn response(&self, id: &Value, hint: &ReviewHint) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "error": self.error(hint)})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpseal_protocol::ListKind;

    #[test]
    fn a_blocked_item_names_itself_its_class_and_the_commands() {
        let hint = ReviewHint {
            review: "mcpseal guard review --lock s.lock.json -- node …".into(),
            approve: "mcpseal guard approve ITEM --lock s.lock.json -- node …".into(),
        };
        let r = Refusal::Blocked {
            item: ItemRef::new(ListKind::Tools, "search"),
            classes: vec![DriftClass::Description, DriftClass::Meta],
            reason: "the addition carries a URL".into(),
            locked_sha256: Some("a".into()),
            live_sha256: Some("b".into()),
        };
        let e = r.error(&hint);
        assert_eq!(e["code"], -32602);
        let m = e["message"].as_str().unwrap_or_default();
        for part in [
            "tool `search`",
            "description, meta",
            "changed since it was locked",
            "mcpseal guard review --lock s.lock.json",
            "mcpseal guard approve tool:search",
        ] {
            assert!(m.contains(part), "{part} missing from {m}");
        }
        assert_eq!(e["data"]["mcpsealGuard"]["item"], "tool:search");
        let u = Refusal::Unverifiable { why: "x".into() }.response(&json!(3), &hint);
        assert_eq!(u["error"]["code"], -32603);
        assert_eq!(u["id"], 3);
    }
}
