//! JSON-RPC method names and error codes of both revisions.
//!
//! Why constants: a method name is wire vocabulary, and a typo in one (`resources/template/list`)
//! is a request the server rightly refuses, which the capture would then record as "not served".
//! Spelling each once makes such a typo a compile error.

/// 2026-07-28: the server describes itself (replaces `initialize`).
pub const SERVER_DISCOVER: &str = "server/discover";
/// 2025: the handshake.
pub const INITIALIZE: &str = "initialize";
/// 2025: the notification that ends the handshake.
pub const NOTIFICATION_INITIALIZED: &str = "notifications/initialized";
/// `ping` (removed in 2026-07-28).
pub const PING: &str = "ping";
/// List tools.
pub const TOOLS_LIST: &str = "tools/list";
/// Call a tool.
pub const TOOLS_CALL: &str = "tools/call";
/// List resources.
pub const RESOURCES_LIST: &str = "resources/list";
/// List resource templates.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// Read a resource.
pub const RESOURCES_READ: &str = "resources/read";
/// Subscribe to one resource (2025).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// Unsubscribe from one resource (2025).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// List prompts.
pub const PROMPTS_LIST: &str = "prompts/list";
/// Get a prompt.
pub const PROMPTS_GET: &str = "prompts/get";
/// Completion of an argument.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// Set the log level (2025).
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// 2026-07-28: open a subscription stream.
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// 2026-07-28: the acknowledgement that opens a `subscriptions/listen` stream.
pub const NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED: &str =
    "notifications/subscriptions/acknowledged";
/// Cancellation of a request in flight.
pub const NOTIFICATION_CANCELLED: &str = "notifications/cancelled";
/// Progress of a request in flight.
pub const NOTIFICATION_PROGRESS: &str = "notifications/progress";
/// A log message (deprecated in 2026-07-28).
pub const NOTIFICATION_MESSAGE: &str = "notifications/message";
/// A subscribed resource changed.
pub const NOTIFICATION_RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// The tool list changed.
pub const NOTIFICATION_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// The resource list changed.
pub const NOTIFICATION_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// The prompt list changed.
pub const NOTIFICATION_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// Server-to-client (2025): ask the client's model.
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// Server-to-client (2025): ask the user.
pub const ELICITATION_CREATE: &str = "elicitation/create";
/// Server-to-client (2025): the client's roots.
pub const ROOTS_LIST: &str = "roots/list";

/// JSON-RPC and MCP error codes.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The message is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist (or is not available).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// 2026-07-28: a routing header disagrees with the body, or is missing.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// 2026-07-28: the request lacks a client capability the server needs.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// 2026-07-28: the request's protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// A resource that does not exist.
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}

/// True for the error codes only a 2026-era server sends about the request's dress:
/// `-32020` header mismatch, `-32021` missing client capability, `-32022` unsupported version.
/// Receiving one proves the server is modern; the request must be fixed, never downgraded.
pub fn is_modern_error_code(code: i64) -> bool {
    matches!(code, -32022..=-32020)
}
