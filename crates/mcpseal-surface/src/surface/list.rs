//! The four MCP lists ([`ListKind`]) and the state each has in a surface ([`ListState`]):
//! served; not served, because the server *answered* that the method does not exist
//! ([`NotServed`]); or failed, because mcpseal did not get the list ([`Failed`]). The last two
//! are both `null` in the canonical bytes (SPEC.md §4), but only the first is a fact about the
//! server: a surface with a failed list is never recorded (DESIGN invariant 3).

use serde::{Deserialize, Serialize};

use super::Item;
use mcpseal_protocol::{FailureCause, ListFailure};

pub use mcpseal_protocol::ListKind;

/// How the server said a list does not exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NotServedKind {
    /// It answered JSON-RPC `-32601` (over HTTP with a 2xx status or 404).
    MethodNotFound,
    /// A 2025-11-25 server that does not advertise the list's capability answered the list
    /// with a JSON-RPC error.
    NotAdvertised,
    /// A JSON-RPC error, in a capture written before the capture recorded causes (its code
    /// was not kept; that build read every error answer as "not served").
    Error,
}

/// A list the server said it does not serve: `null` in the surface, a fact about the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotServed {
    /// How the server said so.
    pub kind: NotServedKind,
    /// Detail for people; never hashed.
    pub message: String,
    /// The server advertises the list's capability all the same: it contradicts itself, and
    /// mcpseal warns about it.
    pub advertised: bool,
}

/// Why a list has no trustworthy content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FailedKind {
    /// The capture recorded a failure ([`Failed::record`] says which).
    Recorded,
    /// A page is not an object or has no array under the list key, or no page was recorded.
    Malformed,
    /// The list is absent from the capture (the capture stopped before it, or never read it).
    NotCaptured,
}

/// A list mcpseal did not get: `null` in the canonical bytes, but never a fact about the
/// server (a timeout, a crash, an oversize message, a 401, a cap, a malformed page ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Failed {
    /// What kind of failure.
    pub kind: FailedKind,
    /// Detail for people; never hashed.
    pub message: String,
    /// The capture's own record (cause, page, JSON-RPC code, HTTP status, challenge), for
    /// [`FailedKind::Recorded`].
    pub record: Option<ListFailure>,
}

impl Failed {
    /// The recorded cause, when the capture recorded one.
    pub fn cause(&self) -> Option<FailureCause> {
        self.record.as_ref()?.cause
    }

    /// The page (counting from 1) that failed, when known.
    pub fn page(&self) -> Option<u32> {
        self.record.as_ref()?.page
    }
}

/// A served list (items sorted by identity), one the server does not serve, or one mcpseal
/// did not get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListState {
    /// Served; possibly empty.
    Served(Vec<Item>),
    /// The server answered that it does not exist: `null` in the canonical form.
    NotServed(NotServed),
    /// mcpseal did not get it: `null` in the canonical bytes, and a capture that cannot be
    /// recorded.
    Failed(Failed),
}

impl ListState {
    /// The items when served.
    pub fn items(&self) -> Option<&[Item]> {
        match self {
            ListState::Served(items) => Some(items),
            ListState::NotServed(_) | ListState::Failed(_) => None,
        }
    }
}
