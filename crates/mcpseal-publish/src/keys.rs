//! The names this crate publishes and reads: `_meta` keys, schema URLs, media types, paths.
//! Defined once here; nothing else in the crate spells them.

/// The only `_meta` key of `server.json` the official registry keeps.
pub const PUBLISHER_PROVIDED: &str = "io.modelcontextprotocol.registry/publisher-provided";

/// mcpseal's reverse-DNS key inside [`PUBLISHER_PROVIDED`] (the project's GitHub namespace,
/// which is what the registry can prove for an `io.github.*` name).
pub const MCPSEAL_KEY: &str = "io.github.mcpseal/mcpseal";

/// mcp-surface's key inside [`PUBLISHER_PROVIDED`].
pub const MCP_SURFACE_KEY: &str = "io.github.sidneybissoli/mcp-surface";

/// The registry-managed `_meta` key of a registry response (status, dates, `isLatest`).
pub const OFFICIAL: &str = "io.modelcontextprotocol.registry/official";

/// The most bytes of marshalled JSON the official registry accepts under
/// [`PUBLISHER_PROVIDED`].
pub const MAX_PUBLISHER_PROVIDED_BYTES: usize = 4096;

/// `$schema` of the `server.json` schema this crate validates against (vendored copy).
pub const SERVER_SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/// The official registry's base URL (without `/v0.1`).
pub const OFFICIAL_REGISTRY: &str = "https://registry.modelcontextprotocol.io";

/// `$schema` of a v1 server card (the only value the v1 schema allows).
pub const CARD_SCHEMA_URL: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/// The server-card media type.
pub const CARD_MEDIA_TYPE: &str = "application/mcp-server-card+json";

/// The AI Catalog media type.
pub const CATALOG_MEDIA_TYPE: &str = "application/ai-catalog+json";

/// Where mcpseal's form is specified. The form id, not this URL, pins the bytes: SPEC.md
/// gives any change that can alter a hash a new form id, so the link may follow `main`.
pub const MCPSEAL_SPEC_URL: &str = "https://github.com/mcpseal/mcpseal/blob/main/SPEC.md";

/// Where mcp-surface specifies `mcp-surface/1` (the URL mcp-surface itself publishes).
pub const MCP_SURFACE_SPEC_URL: &str =
    "https://github.com/SidneyBissoli/mcp-br-commons/blob/main/packages/mcp-surface/SPEC.md";
