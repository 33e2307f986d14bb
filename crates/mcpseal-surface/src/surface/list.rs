//! The four MCP lists ([`ListKind`]) and the state each has in a surface ([`ListState`]):
//! served, or `null` with the reason ([`NotServed`]), so a gap is explained and never hidden.

use serde::{Deserialize, Serialize};

use super::Item;

pub use mcpseal_protocol::ListKind;

/// Why a list is `null` in the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NotServedKind {
    /// A JSON-RPC error answered some page (e.g. `-32601`).
    Error,
    /// No answer.
    Transport,
    /// The page cap was hit: the capture is incomplete.
    PageCap,
    /// A cursor repeated: the capture is incomplete.
    CursorLoop,
    /// The list is absent from the capture.
    NotCaptured,
    /// A page is not an object or lacks an array under the list key, or no page was recorded.
    Malformed,
}

/// Why a list is not served, for people and for the snapshot command's refusal rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotServed {
    /// The reason.
    pub kind: NotServedKind,
    /// Detail for people; never hashed.
    pub message: String,
}

impl NotServed {
    /// True for `pageCap` and `cursorLoop`: the server may well serve the list, mcpseal just
    /// could not read all of it, so a `null` would be a lie. `mcpseal snapshot` refuses these.
    pub fn is_untrustworthy(&self) -> bool {
        matches!(
            self.kind,
            NotServedKind::PageCap | NotServedKind::CursorLoop
        )
    }
}

/// A served list (items sorted by identity) or the reason it is not served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListState {
    /// Served; possibly empty.
    Served(Vec<Item>),
    /// Not served: `null` in the canonical form.
    NotServed(NotServed),
}

impl ListState {
    /// The items when served.
    pub fn items(&self) -> Option<&[Item]> {
        match self {
            ListState::Served(items) => Some(items),
            ListState::NotServed(_) => None,
        }
    }
}
