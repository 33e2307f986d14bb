//! Command-line arguments. Doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Make an MCP server's surface a promise that can be checked.
///
/// Exit codes: 0 ok · 1 the check found something (findings, drift, a refusal by a rule) ·
/// 2 usage error, unreachable server, unreadable input, or a run that could not finish.
#[derive(Debug, Parser)]
#[command(
    name = "mcpseal",
    version = env!("MCPSEAL_VERSION"),
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Send one JSON-RPC request and print the whole exchange as JSON.
    Rpc(RpcArgs),
    /// Capture a server's surface and print its fingerprint.
    Snapshot(SnapshotArgs),
    /// Probe a live server for conformance with MCP 2026-07-28 (exit 0 ready, 1 findings at or
    /// above `--fail-on`, 2 usage error, unreachable or incomplete).
    Probe(ProbeArgs),
    /// Lock the surface next to the server's version in `surface.lock.json` (refuses a changed
    /// surface without the right version bump; exit 1 refused).
    Lock(crate::lock_args::LockArgs),
    /// CI gate: compare the server with the lock (exit 0 same surface, 1 changed, 2 no lock or
    /// no verdict).
    Check(crate::lock_args::CheckArgs),
    /// Verify a deployed endpoint against the lock (exit 0 match, 1 drift, 2 could not verify).
    Verify(crate::lock_args::VerifyArgs),
    /// Semantic diff of two surfaces with contract-break classes (exit 0 none, 1 changes, 2
    /// trouble).
    Diff(crate::lock_args::DiffArgs),
    /// MCP Registry: stamp the fingerprint into server.json, check it, verify a published
    /// entry against its live server, list a registry.
    Registry(crate::publish_args::RegistryArgs),
    /// Server cards: emit one from the lock, check a server's cards against the live server.
    Card(crate::publish_args::CardArgs),
    /// Serve a static site as a read-only MCP server whose every answer is checked against its
    /// signed `sha256sum` manifest (stdio by default; `--http ADDR`; `--cli VERB`; `--check`).
    Serve(crate::commands::serve::ServeArgs),
    /// A pinning proxy between a host and a server: the host sees and calls only what the lock
    /// approves (`-- COMMAND` for stdio, `--upstream URL` with or without `--listen ADDR`).
    Guard(crate::commands::guard::GuardArgs),
    /// Print the resolved project settings (`mcpseal.toml`, `[tool.mcpseal]` or `"mcpseal"` in
    /// `package.json`) and where each came from.
    Config(crate::project::ConfigArgs),
    /// Print a shell completion script: `mcpseal completions bash > /etc/bash_completion.d/mcpseal`.
    Completions(crate::shell::CompletionsArgs),
    /// Print the `mcpseal(1)` man page (roff): `mcpseal man > mcpseal.1`.
    Man,
}

/// The server to speak to: a URL, or a command after `--`.
#[derive(Debug, Args, Clone)]
pub struct TargetArgs {
    /// Streamable HTTP endpoint (`http://…` or `https://…`).
    #[arg(value_name = "URL")]
    pub url: Option<String>,
    /// Server command line after `--`, passed to the server untouched (no shell).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

/// Options of every command that speaks to a server.
#[derive(Debug, Args, Clone)]
pub struct ConnectArgs {
    /// HTTP header sent on every request, `Name: value` (repeatable). `${VAR}` in the value is
    /// read from the environment, so tokens stay out of shell history.
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
    pub headers: Vec<String>,
    /// HTTP header whose whole value is read from an environment variable, `NAME=VAR`
    /// (repeatable).
    #[arg(long = "header-env", value_name = "NAME=VAR")]
    pub header_env: Vec<String>,
    /// Another header name whose value is secret and must be redacted everywhere (credential
    /// headers such as `Authorization`, `Cookie` and names containing `key`, `token` or
    /// `secret` always are).
    #[arg(long = "secret-header", value_name = "NAME")]
    pub secret_headers: Vec<String>,
    /// Per-request timeout: `10s`, `500ms`, `1m`; a bare number is seconds [default: 10s].
    #[arg(long, value_name = "DURATION")]
    pub timeout: Option<String>,
    /// stdio: how long to wait for a server's first answer while it starts (interpreters under
    /// load start slowly); never shorter than the request timeout, and capped by an explicit
    /// `--timeout`.
    #[arg(long, default_value = "30s", value_name = "DURATION")]
    pub startup_timeout: String,
    /// Environment variable for a stdio server, `K=V` (repeatable).
    #[arg(long = "env", short = 'e', value_name = "K=V")]
    pub env: Vec<String>,
    /// Working directory for a stdio server.
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Largest message accepted from the server, in bytes.
    #[arg(long, default_value_t = 16 * 1024 * 1024, value_name = "BYTES")]
    pub max_message_bytes: usize,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset.
    #[default]
    Auto,
    /// Always colour text output.
    Always,
    /// Never colour.
    Never,
}

/// `--format` of commands whose result is a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DocFormat {
    /// For people.
    Text,
    /// The public JSON document (`schemaVersion: 1`).
    Json,
}

/// Rendering options.
#[derive(Debug, Args, Clone)]
pub struct OutputArgs {
    /// Write the result to this file instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// When to colour text output (`NO_COLOR` is honoured).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `mcpseal rpc`.
#[derive(Debug, Args)]
pub struct RpcArgs {
    /// Params as JSON, or `@FILE` to read the JSON from a file (the 2026 `_meta` envelope is
    /// merged in).
    #[arg(long, value_name = "JSON|@FILE")]
    pub params: Option<String>,
    /// The protocol era to dress the request for.
    #[arg(long, default_value = "2026-07-28", value_parser = ["2025-11-25", "2026-07-28"])]
    pub era: String,
    /// Run the 2025 `initialize` handshake first.
    #[arg(long)]
    pub handshake: bool,
    /// Output format (the exchange is JSON data, so JSON is the default here).
    #[arg(long, value_enum, default_value_t = DocFormat::Json)]
    pub format: DocFormat,
    /// JSON-RPC method.
    #[arg(value_name = "METHOD")]
    pub method: String,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub target: TargetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub output: OutputArgs,
}

/// `--form`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormArg {
    /// mcpseal's own form: both eras, the era hashed (see SPEC.md).
    #[value(name = "mcpseal/1")]
    McpSeal1,
    /// Byte-compatible with mcp-surface's form and capture.
    #[value(name = "mcp-surface/1")]
    McpSurface1,
}

/// `mcpseal snapshot`.
#[derive(Debug, Args)]
pub struct SnapshotArgs {
    /// Canonical form.
    #[arg(long, value_enum, default_value_t = FormArg::McpSeal1)]
    pub form: FormArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
    /// Most pages read per list before refusing.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub page_cap: usize,
    /// Also write the raw capture (what the server said, the input of the canonical form) to
    /// this file; `tools/fingerprint.py FILE` recomputes the fingerprint from it.
    #[arg(long, value_name = "FILE")]
    pub save_capture: Option<PathBuf>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub target: TargetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub output: OutputArgs,
}

/// `--fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Exit 1 when there is at least one error finding.
    Error,
    /// Exit 1 when there is at least one error or warning finding.
    Warning,
    /// Never exit 1 (unreachable and incomplete runs still exit 2).
    Never,
}

/// `mcpseal probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Report format: `text`, `json`, `sarif` or `markdown`.
    #[arg(long, default_value = "text", value_name = "FORMAT")]
    pub format: mcpseal_report::Format,
    /// Also write the same probe rendered as FORMAT to FILE (repeatable; split at the first
    /// `:`, so `json:C:\out.json` works). Checked before the server is started.
    #[arg(long = "emit", value_name = "FORMAT:FILE")]
    pub emit: Vec<String>,
    /// Add the wire traffic behind each finding (text format).
    #[arg(long)]
    pub verbose: bool,
    /// Run only these rules: comma-separated ids, case-insensitive (repeatable).
    #[arg(long, value_name = "IDS")]
    pub only: Vec<String>,
    /// Skip these rules: comma-separated ids, case-insensitive (repeatable).
    #[arg(long, value_name = "IDS")]
    pub skip: Vec<String>,
    /// Lowest severity that makes the exit code 1.
    #[arg(long = "fail-on", value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    /// Call tool NAME with the JSON object of arguments and judge the result (SEAL039;
    /// repeatable). Never done by default: a call may have side effects. NAME must be listed
    /// by the server (else exit 2, before anything is called).
    #[arg(long = "call", value_name = "NAME=JSON")]
    pub calls: Vec<String>,
    /// List the rules (id, severity, remediation, transports, mcp-stateless id, title) and exit;
    /// no target needed. `--format json|markdown` for machine-readable lists.
    #[arg(long)]
    pub list_rules: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub target: TargetArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub output: OutputArgs,
}
