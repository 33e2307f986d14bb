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

/// `_meta` key of a request asking for progress notifications (both revisions).
pub const META_PROGRESS_TOKEN: &str = "progressToken";
/// `_meta` key carrying the (deprecated) log level of a 2026 request.
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// The `_meta` member of params and results.
pub const META: &str = "_meta";
/// Result member naming the kind of a 2026 result.
pub const RESULT_TYPE: &str = "resultType";
/// The `resultType` of a finished result.
pub const RESULT_TYPE_COMPLETE: &str = "complete";
/// Cache hint of a 2026 cacheable result: milliseconds the result stays fresh.
pub const TTL_MS: &str = "ttlMs";
/// Cache hint of a 2026 cacheable result: `public` or `private`.
pub const CACHE_SCOPE: &str = "cacheScope";
/// `server/discover`: the revisions the server accepts in the per-request envelope.
pub const SUPPORTED_VERSIONS: &str = "supportedVersions";
/// List results: the cursor of the next page.
pub const NEXT_CURSOR: &str = "nextCursor";

/// HTTP header repeating the protocol revision.
pub const HEADER_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// HTTP header repeating the JSON-RPC method (2026).
pub const HEADER_MCP_METHOD: &str = "Mcp-Method";
/// HTTP header repeating `params.name` or `params.uri` (2026).
pub const HEADER_MCP_NAME: &str = "Mcp-Name";
/// Prefix of the HTTP headers mirroring `x-mcp-header` tool arguments (2026): `Mcp-Param-{Name}`.
pub const HEADER_MCP_PARAM_PREFIX: &str = "Mcp-Param-";
/// [`HEADER_MCP_PARAM_PREFIX`] lower-cased, as header names arrive from `http` (a server matches
/// it on every request, so it is not lower-cased per request).
pub const HEADER_MCP_PARAM_PREFIX_LOWER: &str = "mcp-param-";
/// The `inputSchema` property annotation naming the header that mirrors an argument (2026).
pub const SCHEMA_X_MCP_HEADER: &str = "x-mcp-header";
/// HTTP header carrying a 2025 session id.
pub const HEADER_SESSION_ID: &str = "Mcp-Session-Id";

/// The client name mcpseal sends in `clientInfo`.
pub const CLIENT_NAME: &str = "mcpseal";

#[cfg(test)]
mod tests {
    #[test]
    fn the_lower_cased_prefix_is_the_prefix_lower_cased() {
        assert_eq!(
            super::HEADER_MCP_PARAM_PREFIX_LOWER,
            super::HEADER_MCP_PARAM_PREFIX.to_ascii_lowercase()
        );
    }
}
