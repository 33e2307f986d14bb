//! The document of `mcpseal probe --list-rules --format json` (`schemaVersion: 1`): every
//! registered rule, in id order.
//!
//! ```json
//! {"schemaVersion": 1, "rules": [{"id": "SEAL001", "title": "…", "transports": ["stdio", "http"], …}]}
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::RuleInfo;

/// The rule catalogue (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal probe rule list",
    description = "`mcpseal probe --list-rules --format json`, schemaVersion 1: the registered conformance rules. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/rule-list.schema.json")
)]
pub struct RuleList {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// Every registered rule, in id order (retired ids are not listed).
    pub rules: Vec<RuleInfo>,
}

impl RuleList {
    /// The list of `rules`.
    pub fn of(rules: &[RuleInfo]) -> RuleList {
        RuleList {
            schema_version: 1,
            rules: rules.to_vec(),
        }
    }
}
