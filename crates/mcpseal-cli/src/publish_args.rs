//! Arguments of `mcpseal registry …` and `mcpseal card …`. Doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use crate::args::{ConnectArgs, Format, OutputArgs};

/// `mcpseal registry`.
#[derive(Debug, Args)]
pub struct RegistryArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: RegistryCommand,
}

/// `registry` subcommands.
#[derive(Debug, Subcommand)]
pub enum RegistryCommand {
    /// Write the lock's fingerprint into server.json's publisher-provided `_meta` (exit 0
    /// written or up to date, 1 refused: over 4096 bytes or invalid, file unchanged).
    Stamp(ServerJsonArgs),
    /// CI: server.json carries exactly what the lock produces, and the lock's version (exit 0
    /// yes, 1 no).
    Check(ServerJsonArgs),
    /// Verify a registry entry against its live remotes (exit 0 all match, 1 mismatch, 2 could
    /// not verify: no entry, no block, unknown form, unreachable).
    Verify(RegistryVerifyArgs),
    /// List a registry's servers, following `metadata.nextCursor`.
    List(RegistryListArgs),
}

/// Options of `stamp` and `check`.
#[derive(Debug, Args)]
pub struct ServerJsonArgs {
    /// The server.json file.
    #[arg(
        long = "server-json",
        default_value = "server.json",
        value_name = "PATH"
    )]
    pub server_json: PathBuf,
    /// The lock file.
    #[arg(long, default_value = "surface.lock.json", value_name = "PATH")]
    pub lock: PathBuf,
    /// The endpoint the fingerprint is published for (default: the first streamable-http
    /// remote of server.json).
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// Also write (or check) mcp-surface's block, form `mcp-surface/1`, same endpoint.
    #[arg(long)]
    pub also_mcp_surface: bool,
    /// Where the `mcp-surface/1` hash comes from when the lock is in form `mcpseal/1`: an
    /// mcpseal lock in form `mcp-surface/1`, or mcp-surface's own surface.lock.json.
    #[arg(long, value_name = "PATH", requires = "also_mcp_surface")]
    pub mcp_surface_lock: Option<PathBuf>,
    #[command(flatten)]
    pub report: ReportFormat,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `--format` of the registry and card reports that have a SARIF form (`registry list` has
/// none and words its own).
#[derive(Debug, Args)]
pub struct ReportFormat {
    /// Report format: `text`, `json`, `sarif` or `markdown`.
    #[arg(
        long,
        value_enum,
        default_value_t = Format::Text,
        ignore_case = true,
        value_name = "FORMAT"
    )]
    pub format: Format,
}

/// Where the registry is and how hard to ask it.
#[derive(Debug, Args)]
pub struct RegistryAccessArgs {
    /// The registry's base URL, without `/v0.1`.
    #[arg(long, default_value = mcpseal::publishing::keys::OFFICIAL_REGISTRY, value_name = "URL")]
    pub registry: String,
    /// Ask up to N times: 5xx and 429 answers are retried with backoff (honouring
    /// Retry-After), and a remote whose surface differs is asked again.
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub attempts: u32,
    /// Wait between attempts (the first backoff step): `10s`, `500ms`, `1m`.
    #[arg(long, default_value = "2s", value_name = "DURATION")]
    pub wait: String,
    /// Per-request timeout.
    #[arg(long, default_value = "10s", value_name = "DURATION")]
    pub timeout: String,
}

/// `registry verify`.
#[derive(Debug, Args)]
pub struct RegistryVerifyArgs {
    /// `NAMESPACE/NAME[@VERSION|latest]` (default version: latest).
    #[arg(value_name = "NAME[@VERSION]")]
    pub entry: String,
    /// Also install each published npm/PyPI package at its exact version (install scripts off,
    /// as `replay` does) and compare its stdio surface, started in the sandbox without network.
    #[arg(long)]
    pub package: bool,
    /// `--package`: the install cache (default: the user's cache directory, `mcpseal/sources`,
    /// shared with `replay`).
    #[arg(long, value_name = "DIR", requires = "package")]
    pub cache: Option<std::path::PathBuf>,
    /// `--package`: let the started package reach the network (said in the report).
    #[arg(long, requires = "package")]
    pub allow_network: bool,
    /// Most pages read per list.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub page_cap: usize,
    #[command(flatten)]
    pub report: ReportFormat,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `registry list`.
#[derive(Debug, Args)]
pub struct RegistryListArgs {
    /// Only servers whose name contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,
    /// Every version, not only the latest of each server.
    #[arg(long)]
    pub all_versions: bool,
    /// Servers per page asked (the registry caps it at 100).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub limit: u32,
    /// Most pages read.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub max_pages: u32,
    /// Report format: `text`, `json` or `markdown`.
    #[arg(
        long,
        value_enum,
        default_value_t = Format::Text,
        ignore_case = true,
        value_name = "FORMAT"
    )]
    pub format: Format,
    #[command(flatten)]
    pub access: RegistryAccessArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `mcpseal card`.
#[derive(Debug, Args)]
pub struct CardArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: CardCommand,
}

/// `card` subcommands.
#[derive(Debug, Subcommand)]
pub enum CardCommand {
    /// Print a server card made from the lock (and server.json for `--shape v1`).
    Emit(CardEmitArgs),
    /// Find a server's cards and check them against the live server (exit 0 valid and
    /// consistent, 1 mismatch or invalid card, 2 no card or server unreachable).
    Check(CardCheckArgs),
}

/// `--shape`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShapeArg {
    /// The server-card extension's v1 (identity, remotes, protocol versions; no primitives).
    V1,
    /// Smithery's /.well-known/mcp/server-card.json (serverInfo, authentication, the lists).
    Smithery,
}

/// `card emit`.
#[derive(Debug, Args)]
pub struct CardEmitArgs {
    /// The lock file.
    #[arg(long, default_value = "surface.lock.json", value_name = "PATH")]
    pub lock: PathBuf,
    /// The server.json file (v1 only).
    #[arg(
        long = "server-json",
        default_value = "server.json",
        value_name = "PATH"
    )]
    pub server_json: PathBuf,
    /// The card's shape.
    #[arg(long, value_enum, default_value_t = ShapeArg::V1)]
    pub shape: ShapeArg,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `card check`.
#[derive(Debug, Args)]
pub struct CardCheckArgs {
    /// The server's Streamable HTTP endpoint (`https://host/mcp`).
    #[arg(value_name = "URL")]
    pub url: String,
    /// Most pages read per list.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub page_cap: usize,
    #[command(flatten)]
    pub report: ReportFormat,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
