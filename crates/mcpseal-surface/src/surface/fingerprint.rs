//! The fingerprint document of a surface in one form: the whole-surface hash and the per-item
//! hashes ([`Items`]) that let the diff and the lock point at the item that changed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Form, ItemHash};

/// Per-item hashes of each list, keyed by identity; `None` (JSON `null`) when not served.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Items {
    /// Tools by `name`.
    pub tools: Option<BTreeMap<String, ItemHash>>,
    /// Resources by `uri`.
    pub resources: Option<BTreeMap<String, ItemHash>>,
    /// Resource templates by `uriTemplate`.
    pub resource_templates: Option<BTreeMap<String, ItemHash>>,
    /// Prompts by `name`.
    pub prompts: Option<BTreeMap<String, ItemHash>>,
}

/// The fingerprint of a surface in one form.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fingerprint {
    /// The form the hash was computed in.
    pub form: Form,
    /// SHA-256 (lowercase hex) of the canonical bytes.
    pub sha256: String,
    /// Per-item hashes (identical in both forms: they cover the item only).
    pub items: Items,
}
