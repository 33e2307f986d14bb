//! The `_meta` keys and HTTP header names of both revisions: the only place they are spelled.

/// `_meta` key carrying the protocol revision of a 2026 request.
pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key carrying the client capabilities of a 2026 request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key carrying the client identity of a 2026 request.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key a 2026 server uses to identify itself on results.
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key tagging notifications of a `subscriptions/listen` stream.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// HTTP header repeating the protocol revision.
pub const HEADER_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// HTTP header repeating the JSON-RPC method (2026).
pub const HEADER_MCP_METHOD: &str = "Mcp-Method";
/// HTTP header repeating `params.name` or `params.uri` (2026).
pub const HEADER_MCP_NAME: &str = "Mcp-Name";
/// HTTP header carrying a 2025 session id.
pub const HEADER_SESSION_ID: &str = "Mcp-Session-Id";

/// The client name mcpseal sends in `clientInfo`.
pub const CLIENT_NAME: &str = "mcpseal";
