//! rmcp-peer: a small MCP server built on the official Rust SDK (rmcp 3.x), used as a
//! real peer by the mcpseal test suite. Not part of mcpseal itself.
//!
//! Usage:
//!   rmcp-peer stdio [--modern-only]
//!   rmcp-peer http [--port P] [--modern-only] [--json-response]
//!
//! HTTP mode binds 127.0.0.1:P (P = 0 picks a free port; default: $PORT or 0) and, once the
//! listener is bound, prints exactly one line `http://127.0.0.1:<port>/mcp` on stdout (that line
//! is the readiness signal). Logs go to stderr.
//!
//! Default (dual-era, the SDK defaults): answers 2026-07-28 `server/discover` + per-request
//! `_meta` requests statelessly AND legacy `initialize` (2024-11-05 .. 2025-11-25), with HTTP
//! sessions for legacy clients. `--modern-only`: advertises only 2026-07-28,
//! `legacy_session_mode = false`, `stateless_protocol_metadata_required = true`.

use std::borrow::Cow;

use rmcp::{
    ErrorData, Json, RoleServer, ServerHandler, ServiceExt,
    handler::server::{
        router::{prompt::PromptRouter, tool::ToolRouter},
        wrapper::Parameters,
    },
    model::{
        Implementation, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
        PromptMessage, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
        ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role, ServerCapabilities,
        ServerConfig,
    },
    prompt, prompt_handler, prompt_router, schemars,
    service::RequestContext,
    tool, tool_handler, tool_router,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use serde::{Deserialize, Serialize};

const README_URI: &str = "peer://readme";
const ITEMS_PREFIX: &str = "peer://items/";
const README_TEXT: &str = "rmcp-peer: a test peer for mcpseal (rmcp 3.x).\n";

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The message to echo back
    message: String,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// First addend
    a: f64,
    /// Second addend
    b: f64,
}

#[derive(Debug, Serialize, schemars::JsonSchema)]
struct AddResult {
    /// a + b
    sum: f64,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// Who to greet
    name: String,
}

#[derive(Debug, Clone)]
struct Peer {
    modern_only: bool,
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
}

impl Peer {
    fn new(modern_only: bool) -> Self {
        Self {
            modern_only,
            tool_router: Self::tool_router(),
            prompt_router: Self::prompt_router(),
        }
    }
}

#[tool_router]
impl Peer {
    #[tool(description = "Echo the message back")]
    fn echo(&self, Parameters(EchoArgs { message }): Parameters<EchoArgs>) -> String {
        message
    }

    #[tool(description = "Add two numbers; returns structured content {sum}")]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> Json<AddResult> {
        Json(AddResult { sum: a + b })
    }

    #[tool(
        description = "Current time as seconds since the Unix epoch",
        annotations(
            title = "Clock",
            read_only_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn clock(&self) -> String {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        now.to_string()
    }
}

#[prompt_router]
impl Peer {
    #[prompt(name = "greet", description = "Greet someone by name")]
    async fn greet(
        &self,
        Parameters(GreetArgs { name }): Parameters<GreetArgs>,
    ) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Please greet {name}."),
        )]
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for Peer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("rmcp-peer", env!("CARGO_PKG_VERSION")))
        .with_instructions("mcpseal test peer (rmcp)")
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        if self.modern_only {
            Cow::Borrowed(&[ProtocolVersion::V_2026_07_28])
        } else {
            Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(README_URI, "readme")
                .with_description("About this peer")
                .with_mime_type("text/plain"),
        ]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("peer://items/{id}", "item")
                .with_description("An item by id")
                .with_mime_type("text/plain"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let text = if uri == README_URI {
            README_TEXT.to_string()
        } else if let Some(id) = uri.strip_prefix(ITEMS_PREFIX).filter(|id| !id.is_empty()) {
            format!("item {id}\n")
        } else {
            return Err(ErrorData::resource_not_found(
                format!("no such resource: {uri}"),
                None,
            ));
        };
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, uri).with_mime_type("text/plain"),
        ])
        .into())
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: rmcp-peer stdio [--modern-only]\n       rmcp-peer http [--port P] [--modern-only] [--json-response]"
    );
    std::process::exit(2)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(mode) = args.first().cloned() else {
        usage()
    };
    let mut modern_only = false;
    let mut json_response = false;
    let mut port: u16 = std::env::var("PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--modern-only" => modern_only = true,
            "--json-response" => json_response = true,
            "--port" => {
                port = it
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or_else(|| usage());
            }
            _ => usage(),
        }
    }

    match mode.as_str() {
        "stdio" => {
            eprintln!("rmcp-peer: serving on stdio (modern_only={modern_only})");
            // rmcp serves 2026-07-28 requests while it is still waiting for a (legacy)
            // `initialize`; when stdin closes before any `initialize` arrived (the normal end of
            // a modern-only session), `serve` returns ConnectionClosed. That is a clean shutdown.
            match Peer::new(modern_only).serve(rmcp::transport::stdio()).await {
                Ok(service) => {
                    service.waiting().await?;
                }
                Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
                    eprintln!("rmcp-peer: stdin closed (no initialize seen), exiting");
                }
                Err(e) => return Err(e.into()),
            }
        }
        "http" => {
            let ct = tokio_util::sync::CancellationToken::new();
            let config = StreamableHttpServerConfig::default()
                .with_legacy_session_mode(!modern_only)
                .with_stateless_protocol_metadata_required(modern_only)
                .with_json_response(json_response)
                .with_sse_keep_alive(None)
                .with_cancellation_token(ct.clone());
            let service: StreamableHttpService<Peer, LocalSessionManager> =
                StreamableHttpService::new(
                    move || Ok(Peer::new(modern_only)),
                    Default::default(),
                    config,
                );
            let router = axum::Router::new().nest_service("/mcp", service);
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
            let addr = listener.local_addr()?;
            eprintln!(
                "rmcp-peer: listening (modern_only={modern_only}, json_response={json_response})"
            );
            {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                writeln!(out, "http://{addr}/mcp")?;
                out.flush()?;
            }
            axum::serve(listener, router)
                .with_graceful_shutdown(async move {
                    // SIGINT or SIGTERM: stop accepting, cancel open streams, exit 0.
                    let mut term =
                        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                            .expect("install SIGTERM handler");
                    tokio::select! {
                        _ = tokio::signal::ctrl_c() => {}
                        _ = term.recv() => {}
                    }
                    ct.cancel();
                })
                .await?;
        }
        _ => usage(),
    }
    Ok(())
}
