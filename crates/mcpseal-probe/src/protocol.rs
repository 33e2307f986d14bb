//! Every revision-specific constant of the probe, in one place: adding a future revision starts
//! here. Codes both revisions define are the protocol crate's, re-exported under the probe's
//! names; the release-candidate numbering exists only here (the probe recognises it).

use mcpseal_protocol::method::code;

/// The revision the probe judges against.
pub const TARGET_REVISION: &str = mcpseal_protocol::MODERN_REVISION;

/// Base of the specification pages of the target revision.
pub const SPEC_BASE: &str = "https://modelcontextprotocol.io/specification/2026-07-28";

/// JSON-RPC "Method not found".
pub const METHOD_NOT_FOUND: i64 = code::METHOD_NOT_FOUND;
/// JSON-RPC "Invalid Request".
pub const INVALID_REQUEST: i64 = code::INVALID_REQUEST;
/// JSON-RPC "Invalid params" (also the 2026 resource-not-found code).
pub const INVALID_PARAMS: i64 = code::INVALID_PARAMS;
/// The retired 2025 resource-not-found code.
pub const OLD_RESOURCE_NOT_FOUND: i64 = code::RESOURCE_NOT_FOUND;
/// 2026 HeaderMismatch.
pub const HEADER_MISMATCH: i64 = code::HEADER_MISMATCH;
/// 2026 MissingRequiredClientCapability.
pub const MISSING_CAPABILITY: i64 = code::MISSING_REQUIRED_CLIENT_CAPABILITY;
/// 2026 UnsupportedProtocolVersion.
pub const UNSUPPORTED_VERSION: i64 = code::UNSUPPORTED_PROTOCOL_VERSION;
/// Release-candidate numbering, retired before GA: HeaderMismatch.
pub const RC_HEADER_MISMATCH: i64 = -32001;
/// Release-candidate numbering: MissingRequiredClientCapability.
pub const RC_MISSING_CAPABILITY: i64 = -32003;
/// Release-candidate numbering: UnsupportedProtocolVersion.
pub const RC_UNSUPPORTED_VERSION: i64 = -32004;

/// A protocol version no server supports, to provoke UnsupportedProtocolVersion.
pub const BOGUS_VERSION: &str = "1999-01-01";
/// A resource URI no server serves.
pub const BOGUS_URI: &str = "file:///mcpseal-probe/does-not-exist";
/// A task id no server knows.
pub const BOGUS_TASK: &str = "mcpseal-probe-no-such-task";

/// A method no revision defines.
pub const UNKNOWN_METHOD: &str = "mcpseal/no-such-method";

/// The extension id of tasks in 2026-07-28.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// `SPEC_BASE` + `/` + `path`.
pub fn spec(path: &str) -> String {
    format!("{SPEC_BASE}/{path}")
}
