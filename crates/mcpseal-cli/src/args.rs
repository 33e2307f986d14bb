//! Command-line arguments. Doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
pub use mcpseal::report::{DocFormat, Format};

/// Make an MCP server's surface a promise that can be checked.
///
/// Exit codes: 0 ok · 1 the check found something (findings, drift, a refusal by a rule) ·
/// 2 usage error, unreachable server, unreadable input, or a run that could not finish (with
/// `--format json`, a JSON error document `{"schemaVersion": 1, "error": {"kind", "message",
/// "hint"}}` on stdout) · 130/143 interrupted by SIGINT/SIGTERM (servers stopped, nothing
/// half-written).
///
/// Environment: `MCPSEAL_WORKER_THREADS=N` sets the async runtime's worker threads, and `serve
/// --http`'s connection threads (default: the available parallelism).
#[derive(Debug, Parser)]
#[command(
    name = "mcpseal",
    version = env!("MCPSEAL_VERSION"),
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    /// No progress display on stderr (shown only when stderr is a terminal: what a command
    /// waits for, such as the probe rule running). Errors, warnings and results still print.
    #[arg(long, global = true)]
    pub quiet: bool,
    /// When to colour text output (on stdout and stderr alike): `auto` colours a terminal,
    /// unless `NO_COLOR` is set (non-empty) or `TERM=dumb`; `CLICOLOR_FORCE` (set, not `0`)
    /// colours a pipe too. `NO_COLOR` wins over `CLICOLOR_FORCE`; files (`-o`) are never
    /// coloured. Text is also wrapped to the terminal's width (`COLUMNS`, when set, wins).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
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
    /// Call one tool as a strict client would and judge the result; `--negative-controls` proves
    /// the judgement can say no (exit 0 accepted, 1 a verdict failed or a trap, 2 usage error,
    /// unreachable or input needed). `--prompt`/`--resource` read a prompt or resource instead.
    Call(CallArgs),
    /// Serve a static site as a read-only MCP server whose every answer is checked against its
    /// signed `sha256sum` manifest (stdio by default; `--http ADDR`; `--cli VERB`; `--check`).
    Serve(crate::commands::serve::ServeArgs),
    /// A pinning proxy between a host and a server: the host sees and calls only what the lock
    /// approves (`-- COMMAND` for stdio, `--upstream URL` with or without `--listen ADDR`).
    Guard(crate::commands::guard::GuardArgs),
    /// Replay a package's published history: install, start (isolated) and capture each
    /// version, judge each against the previous one (exit 0 no violation, 1 violations, 2
    /// could not replay).
    Replay(crate::commands::replay::ReplayArgs),
    /// Set a project up: detect its server (package.json, pyproject.toml, Cargo.toml), write
    /// `mcpseal.toml`, capture the first lock, add `.github/workflows/mcpseal.yml` (never
    /// overwrites without `--force`; a second run changes nothing).
    Init(crate::commands::init::InitArgs),
    /// A fleet index: measure a cohort of pinned servers (sharded), merge the shards
    /// (exit 0 the document was written, 2 it could not be).
    Index(crate::commands::index::IndexArgs),
    /// Print the resolved project settings (`mcpseal.toml`, `[tool.mcpseal]` or `"mcpseal"` in
    /// `package.json`) and where each came from.
    Config(crate::project::ConfigArgs),
    /// Print a shell completion script: `mcpseal completions bash > /etc/bash_completion.d/mcpseal`.
    Completions(crate::shell::CompletionsArgs),
    /// Print the `mcpseal(1)` man page (roff): `mcpseal man > mcpseal.1`; `mcpseal man COMMAND`
    /// prints `mcpseal-COMMAND(1)`.
    Man(crate::shell::ManArgs),
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
    /// Most bytes of list pages one surface capture keeps before it fails (a server paging
    /// forever cannot grow mcpseal's memory past it).
    #[arg(long, default_value_t = 256 * 1024 * 1024, value_name = "BYTES")]
    pub max_capture_bytes: usize,
    /// Name of an environment variable whose value is secret (repeatable): redacted wherever
    /// it appears, in reports, logs and what the server echoes back, whether it was passed
    /// with `--env` or inherited. Credential-looking `--env` values and command-line
    /// arguments (`--api-key X`, `--token=X`, `API_KEY=X`) always are.
    #[arg(long = "secret-env", value_name = "NAME")]
    pub secret_env: Vec<String>,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour a terminal (see `--color`).
    #[default]
    Auto,
    /// Always colour text output (not files).
    Always,
    /// Never colour.
    Never,
}

/// Rendering options.
#[derive(Debug, Args, Clone)]
pub struct OutputArgs {
    /// Write the result to this file instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
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
    #[arg(long, value_enum, default_value_t = DocFormat::Json, ignore_case = true)]
    pub format: DocFormat,
    /// JSON-RPC method.
    #[arg(value_name = "METHOD")]
    pub method: String,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `mcpseal call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool to call, as the server lists it (omitted with `--prompt` or `--resource`). It
    /// is called once (plus the retries its server asks for), and never any other tool.
    #[arg(value_name = "TOOL")]
    pub tool: Option<String>,
    /// The arguments: a JSON object, or `@FILE` to read it from a file.
    #[arg(long, value_name = "JSON|@FILE", default_value = "{}")]
    pub args: String,
    /// Answer what the server asks: KEY is an `inputRequests` key (2026-07-28) or a method
    /// (`elicitation/create`, `sampling/createMessage`, `roots/list`; also a 2025 server's
    /// mid-call request); JSON (or `@FILE`) is the whole result sent back (repeatable). On a
    /// terminal, what was not answered is asked for.
    #[arg(long = "answer", value_name = "KEY=JSON")]
    pub answers: Vec<String>,
    /// Tamper the one real result as the listed `outputSchema` says it cannot be, and require
    /// every tampered copy to be rejected (a copy that passes is a trap: exit 1). No extra call
    /// is made.
    #[arg(long)]
    pub negative_controls: bool,
    /// The call is meant to fail (`isError`, or a JSON-RPC error): pass when it does.
    #[arg(long)]
    pub expect_error: bool,
    /// Send the arguments even when they break the tool's `inputSchema` (to test the server's
    /// own validation).
    #[arg(long)]
    pub no_input_check: bool,
    /// Never ask at the terminal: what is not answered with `--answer` is reported (exit 2).
    #[arg(long)]
    pub no_ask: bool,
    /// The most requests one call makes (the first and its `input_required` retries).
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub max_rounds: u32,
    /// Read this prompt (`prompts/get`, with `--args` as its string arguments) instead of
    /// calling a tool.
    #[arg(long, value_name = "NAME", conflicts_with = "resource")]
    pub prompt: Option<String>,
    /// Read this resource (`resources/read`) instead of calling a tool.
    #[arg(long, value_name = "URI")]
    pub resource: Option<String>,
    /// Report format: `text`, `json`, `markdown` or `sarif`.
    #[arg(long, default_value = "text", value_name = "FORMAT")]
    pub format: mcpseal_report::Format,
    /// Add the server's diagnostics (text format).
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
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
    #[arg(long, value_enum, default_value_t = DocFormat::Text, ignore_case = true)]
    pub format: DocFormat,
    /// Most pages read per list before refusing.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub page_cap: usize,
    /// Also write the raw capture (what the server said, the input of the canonical form) to
    /// this file; `tools/fingerprint.py FILE` recomputes the fingerprint from it.
    #[arg(long, value_name = "FILE")]
    pub save_capture: Option<PathBuf>,
    /// Require the anonymous-access measurement (which methods answer without a credential):
    /// it is on by default for HTTP and for stdio with `--anonymous-env-unset`; with this flag
    /// a stdio server without an env configuration is an error instead of a silent skip.
    #[arg(long)]
    pub anonymous: bool,
    /// Do not measure anonymous access (the output says so).
    #[arg(long, conflicts_with = "anonymous")]
    pub no_anonymous: bool,
    /// Record what a stranger sees instead: the surface captured without any credential
    /// (credential headers removed; stdio: without the `--anonymous-env-unset` variables), the
    /// lists that answered as usual and the ones refused with 401/403 marked refused.
    #[arg(long, conflicts_with_all = ["anonymous", "no_anonymous"])]
    pub anonymous_only: bool,
    #[command(flatten)]
    pub anonymous_call: crate::lock_args::AnonymousArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
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
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text, ignore_case = true, value_name = "FORMAT")]
    pub format: Format,
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
    /// stdio: how many fresh server processes (the checks that need their own process) may
    /// start at once, beside the probed one. Default: the number of cores; 1 asks them one
    /// after the other. The report is the same either way.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// List the rules (id, severity, remediation, transports, mcp-stateless id, title) and exit;
    /// no target needed. `--format json|markdown` for machine-readable lists.
    #[arg(long)]
    pub list_rules: bool,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
