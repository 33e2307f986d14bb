//! The MCP wire vocabulary of both revisions mcpseal speaks, defined once.
//!
//! Everything that names something on the wire lives here: the revisions and their eras
//! ([`Era`]), the `_meta` keys and header names ([`keys`]), method names and error codes
//! ([`method`]), how a request is dressed for its era ([`Request`]), result types and multi
//! round-trip requests ([`mrtr`]), the list table ([`ListKind`]: method, result key, identity
//! key), the raw-capture document ([`RawCapture`]), the two pure framings of the transports
//! (newline-delimited stdio lines in [`framing`], Server-Sent Events in [`sse`]), the
//! classification of JSON-RPC messages ([`jsonrpc`]) and the one-string command line of a stdio
//! server ([`command`]).
//!
//! What it refuses to do: any I/O, async or clock reading. The client, the server half, the
//! surface model and the fixtures all build on it, so it stays small and fast to compile, and the
//! fuzz targets reach the framings without tokio or an HTTP stack.
//!
//! ```
//! use mcpseal_protocol::{Era, ListKind, Request, keys};
//!
//! let request = Request::modern(ListKind::Tools.method(), None);
//! let message = request.to_message(&serde_json::json!(1));
//! assert_eq!(message["method"], "tools/list");
//! assert_eq!(
//!     message["params"]["_meta"][keys::META_PROTOCOL_VERSION],
//!     Era::Modern.revision()
//! );
//! ```
#![deny(missing_docs)]

mod capture;
pub mod command;
pub mod framing;
mod identity;
pub mod jsonrpc;
pub mod keys;
mod list;
pub mod method;
pub mod mrtr;
mod prompt;
mod request;
mod revision;
pub mod routing;
pub mod sse;

pub use capture::{
    CAPTURE_SCHEMA_VERSION, CaptureError, FailureCause, FailureKind, ListCapture, ListFailure,
    RawCapture, RawLists, is_surrogate_error, validate_json,
};
pub use identity::{server_info, server_name, server_version};
pub use list::ListKind;
pub use method::is_modern_error_code;
pub use prompt::prompt_get_params;
pub use request::{
    Envelope, HeaderEdit, Request, Wait, client_info, decode_header_value, encode_header_value,
};
pub use revision::{
    Era, LATEST_LEGACY_REVISION, LEGACY_REVISIONS, MODERN_REVISION, era_of_revision,
    legacy_revision,
};
