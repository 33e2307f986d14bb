//! Command-line knobs: the mode and every deliberate misbehaviour, one flag each.
//!
//! The doc comment of each flag is its `--help` line and says which client behaviour
//! or conformance rule it exists to provoke. Flags combine freely; the handler reads
//! them through [`Knobs`] and never looks at `std::env`.

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// Which protocol era (and which deliberate deviation from it) the fixture speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Clean 2026-07-28 (stateless): per-request `_meta`, `server/discover`, routing headers.
    Modern,
    /// Stateful 2025-11-25: `initialize` handshake, HTTP sessions keyed by `Mcp-Session-Id`.
    Legacy,
    /// Modern, but a legacy `initialize` also succeeds (dual-era server).
    Dual,
    /// Answers every method, even unknown ones, with a result (must fail mcpseal's sanity check).
    Liar,
    /// Modern, but any request carrying `params._meta` gets -32602 (rejects the 2026 envelope).
    StrictParams,
    /// HTTP only: modern, but any POST carrying `Mcp-Method` gets 400 + -32600.
    StrictHeaders,
}

/// A list, for the knobs that break one list at a time (named by its key: `tools`,
/// `resources`, `resourceTemplates`, `prompts`).
pub use mcpseal_protocol::ListKind;

/// Parses a list knob value by the list's key.
fn list_kind(s: &str) -> Result<ListKind, String> {
    ListKind::from_key(s).ok_or_else(|| {
        let keys: Vec<&str> = ListKind::ALL.iter().map(|k| k.key()).collect();
        format!("`{s}` is not a list; expected one of {}", keys.join(", "))
    })
}

/// How (or whether) the fixture serves tasks, for the tasks-migration rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TasksKnob {
    /// Advertise the 2025 core `tasks` capability and serve `tasks/list|get|result|cancel`.
    Core,
    /// Advertise only `extensions["io.modelcontextprotocol/tasks"]` and serve `tasks/get`.
    Ext,
    /// Advertise both the core capability and the extension.
    Both,
    /// Advertise nothing but still answer `tasks/get`.
    Hidden,
}

/// Text after the flag list in `--help`.
const AFTER_HELP: &str = "\
stdio: newline-delimited JSON-RPC; stdout carries only JSON-RPC (unless --noise); logs on stderr; exits 0 at stdin EOF.
HTTP:  prints exactly one line `http://127.0.0.1:PORT/mcp`, serves POST /mcp; exits 0 at stdin EOF
       (spawn it with a piped stdin, or pass --ignore-stdin).
Exit codes: 0 normal / stdin EOF / --exit-after-discover, 1 --half-message or I/O error,
            2 usage error (also --mode strict-headers without --http), 3 --crash-after.";

/// `mcpseal-fixture`: a hand-written MCP server that misbehaves exactly, for tests.
///
/// stdout carries only JSON-RPC (stdio) or the one URL line (`--http`); logs go to stderr.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "mcpseal-fixture",
    version,
    about = "Hand-written MCP fixture server (stdio or Streamable HTTP) that misbehaves exactly, for tests",
    long_about = None,
    after_help = AFTER_HELP
)]
pub struct Knobs {
    /// Protocol era and deviation to serve
    #[arg(long, value_enum, default_value = "modern")]
    pub mode: Mode,

    /// Serve Streamable HTTP on 127.0.0.1 (prints `http://127.0.0.1:PORT/mcp`) instead of stdio
    #[arg(long)]
    pub http: bool,

    /// HTTP port (0 = pick a free one)
    #[arg(long, default_value_t = 0, requires = "http")]
    pub port: u16,

    /// HTTP: keep serving after stdin reaches EOF (default: exit, so dropping stdin stops it)
    #[arg(long, requires = "http")]
    pub ignore_stdin: bool,

    /// HTTP: answer requests as `text/event-stream`, response JSON split over two `data:` lines
    #[arg(long)]
    pub sse: bool,

    /// Add N generated tools `tool_00001`… with nested schemas (surface-size and speed tests)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub tools: usize,

    /// Items per list page (default: everything on one page); exercises cursor following
    #[arg(long, value_name = "N")]
    pub page_size: Option<usize>,

    /// Shuffle list order on every call (non-deterministic tools/list ordering rule)
    #[arg(long)]
    pub shuffle: bool,

    /// Exit with code 3, without answering, when request N+1 arrives (INCOMPLETE state)
    #[arg(long, value_name = "N")]
    pub crash_after: Option<u64>,

    /// stdio: print a non-JSON line before every response (client must skip stdout noise)
    #[arg(long)]
    pub noise: bool,

    /// Sleep MS milliseconds before each answer (client timeouts)
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub delay: u64,

    /// Put one identity twice in that list (duplicate-identity check of the surface capture)
    #[arg(long, value_parser = list_kind, value_name = "LIST")]
    pub duplicate: Option<ListKind>,

    /// Advertise that list's capability as usual, then answer the list with -32601 (a server
    /// that contradicts itself: not served, and warned about)
    #[arg(long, value_parser = list_kind, value_name = "LIST")]
    pub disown: Option<ListKind>,

    /// Load the served surface from a JSON file (`null` list = method not served: -32601)
    #[arg(long, value_name = "FILE")]
    pub surface: Option<PathBuf>,

    /// serverInfo version (default 1.0.0, or the `--surface` file's)
    #[arg(long, value_name = "V")]
    pub server_version: Option<String>,

    /// Append ` (listing N by process P)` to TOOL's description, N counting `tools/list` calls
    /// (a surface that changes between two captures, in one process or two: lock refusal and
    /// `--exclude`)
    #[arg(long, value_name = "TOOL")]
    pub volatile_description: Option<String>,

    /// Never answer METHOD; keep serving everything else (per-request timeout)
    #[arg(long, value_name = "METHOD")]
    pub hang_on: Vec<String>,

    /// On the first request write 100 MB without a newline, then hang (client size caps)
    #[arg(long)]
    pub flood: bool,

    /// HTTP: answer every POST with an SSE stream of keep-alives and notifications, never the response
    #[arg(long)]
    pub sse_endless: bool,

    /// Answer `server/discover`, then exit 0 (probe "incomplete" state)
    #[arg(long)]
    pub exit_after_discover: bool,

    /// That list's `nextCursor` repeats forever (client cursor-loop detection)
    #[arg(long, value_parser = list_kind, value_name = "LIST")]
    pub cursor_loop: Option<ListKind>,

    /// That list always returns a fresh `nextCursor` (client page cap)
    #[arg(long, value_parser = list_kind, value_name = "LIST")]
    pub endless_pages: Option<ListKind>,

    /// That list's page 1 returns `nextCursor: ""` (valid in 2026), page 2 ends it
    #[arg(long, value_parser = list_kind, value_name = "LIST")]
    pub empty_cursor: Option<ListKind>,

    /// Advertise listChanged on tools/prompts/resources and honour `subscriptions/listen`
    #[arg(long)]
    pub list_changed: bool,

    /// Advertise listChanged but never answer `subscriptions/listen` (MCP009 silence)
    #[arg(long)]
    pub silent_listen: bool,

    /// Answer the first request with bytes that are not UTF-8
    #[arg(long)]
    pub invalid_utf8: bool,

    /// Write half of the first response (no newline), then exit 1
    #[arg(long)]
    pub half_message: bool,

    /// Omit `resultType` from every result (MCP004)
    #[arg(long)]
    pub no_result_type: bool,

    /// Omit `ttlMs`/`cacheScope` from every cacheable result (MCP005)
    #[arg(long)]
    pub no_cache_hints: bool,

    /// Omit cache hints only from `prompts/list` and `resources/read` (MCP005, 0.2+ scope)
    #[arg(long)]
    pub partial_cache: bool,

    /// Omit `_meta["io.modelcontextprotocol/serverInfo"]` from results (MCP018)
    #[arg(long)]
    pub no_server_info_meta: bool,

    /// Pre-final discover: body `serverInfo` and `protocolVersion` in the DiscoverResult
    #[arg(long)]
    pub body_server_info: bool,

    /// RC-era error codes: -32004 bad version, -32001 header mismatch (MCP012)
    #[arg(long)]
    pub old_error_codes: bool,

    /// Refuse an unsupported protocol version with CODE instead of -32022 (SEAL012, not the
    /// release-candidate numbering)
    #[arg(long, value_name = "CODE", allow_hyphen_values = true)]
    pub version_error_code: Option<i64>,

    /// HTTP: refuse a routing-header mismatch with CODE instead of -32020 (SEAL012, SEAL030)
    #[arg(long, value_name = "CODE", allow_hyphen_values = true)]
    pub header_mismatch_code: Option<i64>,

    /// Unknown resource gets the retired -32002 instead of -32602 (MCP011)
    #[arg(long)]
    pub old_not_found: bool,

    /// Unknown resource gets an empty `contents` result (`empty`) or -32603 (`internal`)
    /// instead of -32602 (resource-not-found rule)
    #[arg(long, value_enum, value_name = "HOW")]
    pub missing_resource: Option<MissingResourceKnob>,

    /// HTTP modern: mint and send `Mcp-Session-Id` on every response (MCP003)
    #[arg(long)]
    pub session_id: bool,

    /// HTTP legacy: answer requests without `Mcp-Session-Id` (a stateless 2025 server, the kind
    /// mcp-surface's `mcp-surface/1` capture expects)
    #[arg(long)]
    pub sessionless: bool,

    /// Modern still answers the removed `ping` (MCP006)
    #[arg(long)]
    pub ping: bool,

    /// Modern still answers `logging/setLevel` and `resources/(un)subscribe` (MCP007, MCP008)
    #[arg(long)]
    pub removed_methods: bool,

    /// HTTP: `GET /mcp` opens a never-ending HTTP+SSE stream with `event: endpoint` (MCP010, MCP016)
    #[arg(long)]
    pub get_stream: bool,

    /// Advertise/serve tasks: core, ext, both or hidden (MCP021)
    #[arg(long, value_enum, value_name = "HOW")]
    pub tasks: Option<TasksKnob>,

    /// Also serve the pre-GA name `messages/listen` like `subscriptions/listen`
    #[arg(long)]
    pub messages_listen: bool,

    /// Declare the deprecated `logging` server capability (MCP015)
    #[arg(long)]
    pub deprecated_caps: bool,

    /// Modern serves requests that lack `_meta` or its required keys (envelope validation)
    #[arg(long)]
    pub lenient_meta: bool,

    /// HTTP modern: tolerate missing/mismatching routing headers (pre-final builds)
    #[arg(long)]
    pub lenient_headers: bool,

    /// Leave tool NAME out of the surface (repeatable): one server, two configurations, two
    /// surfaces (a read-only mode; issue 13's lock profiles). `tools/call` of it is then an
    /// unknown tool, as on a server started without it.
    #[arg(long, value_name = "NAME")]
    pub hide_tool: Vec<String>,
    /// Discover also lists version V in supportedVersions, yet requests with V are rejected
    #[arg(long, value_name = "V")]
    pub advertise_version: Vec<String>,

    /// Legacy `initialize` answers with `protocolVersion` V (e.g. `2024-11-05`, an older
    /// revision the server negotiates down to) instead of 2025-11-25
    #[arg(long, value_name = "V")]
    pub negotiate_version: Option<String>,

    /// JSON-RPC errors carry `id: null` instead of the request id
    #[arg(long)]
    pub error_id_null: bool,

    /// HTTP: send every JSON-RPC error with status 200 (status-mapping root cause, SEAL044)
    #[arg(long)]
    pub errors_200: bool,

    /// HTTP: send JSON-RPC errors with code CODE (e.g. -32022) with status 200 (repeatable;
    /// one status fault at a time)
    #[arg(long, value_name = "CODE", allow_hyphen_values = true)]
    pub status_200_code: Vec<i64>,

    /// HTTP: accept any `Origin` header (DNS-rebinding rule)
    #[arg(long)]
    pub no_origin_check: bool,

    /// Modern answers the removed `ping` only as the first request of the process (MCP006)
    #[arg(long)]
    pub ping_when_first: bool,

    /// HTTP: `GET /mcp` opens a never-ending 2025 standalone SSE stream (no `endpoint` event; MCP010)
    #[arg(long)]
    pub get_events: bool,

    /// HTTP: answer notification POSTs with 200 and a JSON body, not an empty 202 (SEAL032)
    #[arg(long)]
    pub notify_200: bool,

    /// HTTP modern: answer `GET` and `DELETE` with 404 instead of 405 (SEAL033)
    #[arg(long)]
    pub no_405: bool,

    /// Add tools with broken definitions: invalid, remote-ref or sloppy (SEAL036/037/038; repeatable)
    #[arg(long, value_enum, value_name = "HOW")]
    pub tool_defs: Vec<ToolDefsKnob>,

    /// Add `bad_output`, `bad_error`, `ask` and `ask_badly`, tools for `--call` tests (SEAL039)
    #[arg(long)]
    pub call_tools: bool,

    /// HTTP: publish OAuth protected-resource and authorization-server metadata (MCP019/020)
    #[arg(long, value_enum, value_name = "HOW")]
    pub oauth: Option<OauthKnob>,

    /// Schema-invalid 2026 results: discover's `tools.listChanged: "yes"`, serverInfo `version: 1`
    #[arg(long)]
    pub invalid_wire: bool,

    /// Refuse requests whose `_meta` lacks `clientInfo` with -32602 (pre-final builds)
    #[arg(long)]
    pub require_client_info: bool,

    /// -32022 errors carry no `data` (no `supported`/`requested`)
    #[arg(long)]
    pub bare_version_error: bool,

    /// Once a listing was served, ignore each request's `_meta` version (TS SDK v2 stdio)
    #[arg(long)]
    pub pin_version: bool,

    /// `_meta` serverInfo only on cacheable results (not on `prompts/get`, `tools/call`)
    #[arg(long)]
    pub partial_server_info: bool,

    /// HTTP: no version in the header nor in `_meta` → -32022 without `requested` (TS SDK v2)
    #[arg(long)]
    pub versionless_unsupported: bool,

    /// Misacknowledge `subscriptions/listen`: no-id, superset or late (acknowledgement rule)
    #[arg(long, value_enum, value_name = "HOW")]
    pub listen_ack: Option<ListenAckKnob>,

    /// Server-to-client requests (`--ask-client`, `--ask-padding`), in their own module.
    #[command(flatten)]
    pub ask: crate::ask::AskKnobs,
    /// Rug pulls (`--rug-pull`, `--rug-pull-after-calls`), in their own module.
    #[command(flatten)]
    pub rug: crate::rugpull::RugPullKnobs,
    /// HTTP: serve the document FILE at PATH as a server card or AI Catalog (`PATH=FILE`,
    /// repeatable; `{origin}` in FILE becomes this fixture's origin), with CORS, Cache-Control,
    /// a strong ETag and 304 on a matching If-None-Match (`card check`)
    #[arg(long = "card", value_name = "PATH=FILE", requires = "http")]
    pub cards: Vec<String>,

    /// HTTP: serve `--card` documents as text/plain without CORS, Cache-Control or ETag
    #[arg(long, requires = "http")]
    pub card_bare: bool,

    /// HTTP: append `GET PATH authorization=yes|no` per card request to FILE (credential test)
    #[arg(long, value_name = "FILE", requires = "http")]
    pub card_log: Option<PathBuf>,

    /// Bearer authorization (`--require-token`, `--open-method`, `--insufficient-scope`), in
    /// their own module.
    #[command(flatten)]
    pub auth: crate::auth::AuthKnobs,

    /// stdio: also print a JSON line that is not a JSON-RPC message before every response
    /// (stdout-noise rule: JSON that is not MCP counts too)
    #[arg(long)]
    pub noise_json: bool,

    /// HTTP: serve a request whose `_meta` names 2026-07-28 but that lacks the
    /// `MCP-Protocol-Version` header as a 2026 request (found on a dual-era server; SEAL030)
    #[arg(long, requires = "http")]
    pub serve_without_version_header: bool,

    /// HTTP: refuse every request whose `Host` is not `localhost[:PORT]` with 403 and a plain
    /// text body (DNS-rebinding protection that rejects `127.0.0.1`; the unreachable hint)
    #[arg(long, requires = "http")]
    pub localhost_only: bool,

    /// Add items that need a client capability (`approve`, `fixture://approval`, `long_job`)
    /// and answer requests lacking it as HOW says (-32021 rule)
    #[arg(long, value_enum, value_name = "HOW")]
    pub capability_gate: Option<crate::gate::GateKnob>,

    /// Answer `tools/call` of an unknown tool with an `isError: true` result instead of -32602
    #[arg(long)]
    pub unknown_tool_is_error: bool,

    /// Wait MS milliseconds before reading the first message (a slow-starting server)
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub startup_delay: u64,

    /// Legacy: serve requests without the `initialize` handshake, and over HTTP refuse an
    /// `MCP-Protocol-Version` it does not know with 400 (TypeScript SDK v1 stateless HTTP)
    #[arg(long)]
    pub stateless_legacy: bool,

    /// Tools with an `outputSchema` contract and the call log (`--contract-tools`,
    /// `--call-log`), in their own module.
    #[command(flatten)]
    pub contract: crate::contract::ContractKnobs,

    /// Lists that need a credential (`--unauthorized`), in their own module.
    #[command(flatten)]
    pub refuse: crate::refuse::RefuseKnobs,

    /// Append `PID PGID METHOD` per request received (before answering or delaying it) to
    /// FILE: a readiness signal for tests that act while a request is in flight (signals,
    /// concurrent runs), and the server's process group
    #[arg(long, value_name = "FILE")]
    pub request_log: Option<PathBuf>,

    /// Append every JSON-RPC message received (requests and notifications, both transports),
    /// as one line of JSON, to FILE: what a client or proxy actually sent (forwarding tests)
    #[arg(long, value_name = "FILE")]
    pub message_log: Option<PathBuf>,

    /// Which credential headers each request carried (`--credential-log`), in its own module.
    #[command(flatten)]
    pub record: crate::record::RecordKnobs,

    /// A credential in the environment (`--require-env`), in its own module.
    #[command(flatten)]
    pub envgate: crate::envgate::EnvGateKnobs,
}

/// How `--missing-resource` answers `resources/read` of an unknown URI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MissingResourceKnob {
    /// A result with an empty `contents` array (MUST NOT).
    Empty,
    /// JSON-RPC -32603 Internal error.
    Internal,
}

/// How `--listen-ack` gets the `subscriptions/listen` acknowledgement wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ListenAckKnob {
    /// The acknowledgement lacks `_meta["io.modelcontextprotocol/subscriptionId"]`.
    NoId,
    /// The acknowledgement claims every notification type and a resource, requested or not.
    Superset,
    /// A `notifications/tools/list_changed` for the subscription precedes the acknowledgement.
    Late,
}

/// Which broken tool definitions `--tool-defs` adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolDefsKnob {
    /// `broken_input` (inputSchema root type `array`) and `broken_output` (outputSchema `type: "objekt"`).
    Invalid,
    /// `remote_ref`: inputSchema property `$ref` to `https://schemas.example.com/args.json`.
    RemoteRef,
    /// `bad name!` without description, `dangling` with `$ref: #/$defs/missing`, `echo` twice.
    Sloppy,
}

/// Which OAuth metadata the HTTP fixture publishes (authorization-server rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OauthKnob {
    /// Dynamic Client Registration only, no RFC 9207 `iss` support advertised.
    Legacy,
    /// RFC 9207 `iss` and Client ID Metadata Documents advertised (DCR kept for old clients).
    Modern,
}
