//! Why a capture does not become a surface: [`SurfaceError`], the fail-closed cases, and the
//! mapping of serde_json's refusals onto them (a lone surrogate is the server's fault, not a
//! parse error of ours).

use super::ListKind;

/// Errors that stop a capture from becoming a surface. mcpseal fails closed: it never hashes
/// a surface whose meaning is ambiguous.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SurfaceError {
    /// The bytes are not a raw capture document (JSON syntax, UTF-8, unknown era, shapes).
    #[error("invalid capture document")]
    Capture {
        /// The parser's explanation.
        #[source]
        source: mcpseal_protocol::CaptureError,
    },
    /// A `\uD800`–`\uDFFF` escape without its partner. RFC 8785 cannot serialise it and UTF-8
    /// cannot hold it, so two implementations could not agree on its bytes: the server is at
    /// fault.
    #[error("lone UTF-16 surrogate in {location}")]
    LoneSurrogate {
        /// Where (e.g. `server`, `tools page 2`).
        location: String,
    },
    /// A server result or a page holds JSON serde_json cannot represent (e.g. a number beyond
    /// the double range, nesting deeper than 128).
    #[error("unrepresentable JSON in {location}")]
    InvalidJson {
        /// Where (e.g. `server`, `tools page 2`).
        location: String,
        /// The parser's explanation.
        #[source]
        source: serde_json::Error,
    },
    /// Two items of one list share an identity: which one a client sees is undefined.
    #[error("duplicate identity in `{list}`: two items with `{key}` {identity:?}")]
    DuplicateIdentity {
        /// The list.
        list: ListKind,
        /// The identity key (`name`, `uri`, `uriTemplate`).
        key: &'static str,
        /// The repeated value.
        identity: String,
    },
    /// An item has no identity, or it is not a string.
    #[error("item {index} of `{list}` has no string `{key}`: found {found}")]
    MissingIdentity {
        /// The list.
        list: ListKind,
        /// The identity key.
        key: &'static str,
        /// Zero-based position in the concatenated pages.
        index: usize,
        /// What was there instead (`nothing`, `a number`, `not an object`, ...).
        found: &'static str,
    },
}

/// A JSON refusal at `location`: [`SurfaceError::LoneSurrogate`] when serde_json refused a lone
/// surrogate, [`SurfaceError::InvalidJson`] otherwise.
pub(super) fn json_error(location: String, source: serde_json::Error) -> SurfaceError {
    if mcpseal_protocol::is_surrogate_error(&source) {
        SurfaceError::LoneSurrogate { location }
    } else {
        SurfaceError::InvalidJson { location, source }
    }
}
