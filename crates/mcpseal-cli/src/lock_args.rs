//! Arguments of `lock`, `check`, `verify` and `diff`. Doc comments are the `--help` text.

use std::path::PathBuf;

use clap::Args;

use crate::args::{ConnectArgs, FormArg, Format, OutputArgs, TargetArgs};

/// Where the server's version comes from, and the lock file.
#[derive(Debug, Args, Clone)]
pub struct VersionArgs {
    /// The server's version (semver; a leading `v` and PEP 440 versions such as `1.0rc1` are
    /// accepted). Default: the one manifest in the working directory (`package.json`,
    /// `Cargo.toml`, `pyproject.toml`), else the server's `serverInfo.version`.
    #[arg(long, value_name = "VERSION")]
    pub server_version: Option<String>,
    /// Read the version from this `package.json`, `Cargo.toml` or `pyproject.toml`.
    #[arg(long, value_name = "PATH", conflicts_with = "server_version")]
    pub manifest: Option<PathBuf>,
}

/// The lock rules' switches.
#[derive(Debug, Args, Clone)]
pub struct RuleArgs {
    /// Also require at least a new minor for additive and security changes (semver's "new
    /// features"); by default any higher version carries them.
    #[arg(long)]
    pub strict_semver: bool,
    /// Refuse security-class changes (a tool that may now write, a rewritten description, new
    /// instructions…) whatever the version; by default they are accepted and shown loudly.
    #[arg(long)]
    pub deny_security: bool,
}

/// The lock file, on every command that reads or writes one: one default name for all.
#[derive(Debug, Args, Clone)]
pub struct LockFileArgs {
    /// The lock file.
    #[arg(
        long = "lock",
        default_value = "surface.lock.json",
        value_name = "FILE"
    )]
    pub path: PathBuf,
}

/// `--profile NAME` on `lock`, `check` and `verify`: one named configuration profile of a lock
/// of profiles (SPEC.md section 9.5).
#[derive(Debug, Args, Clone)]
pub struct ProfileArgs {
    /// Lock or judge the configuration profile NAME (a read-only mode, a feature flag): the
    /// lock file then holds named profiles (`schemaVersion: 2`), each with its own target;
    /// run `lock` once per profile. Without it, `check` and `verify` judge every profile of
    /// such a lock, each against its `[profiles.NAME]` in mcpseal.toml; a lock without profiles
    /// refuses it.
    #[arg(long, value_name = "NAME", value_parser = profile_name)]
    pub profile: Option<String>,
    /// What the project config says about profiles (filled by `project::apply`, not a flag).
    #[arg(skip)]
    pub config: crate::project::ConfigProfiles,
}

fn profile_name(s: &str) -> Result<String, String> {
    mcpseal::surface::lock::check_profile_name(s).map(|()| s.to_owned())
}

/// How `lock`, `check` and `verify` read the surface and report their verdict (`diff` words
/// its page cap for two sides, `probe` and `snapshot` have their own formats).
#[derive(Debug, Args, Clone)]
pub struct ReportArgs {
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text, ignore_case = true, value_name = "FORMAT")]
    pub format: Format,
    /// Most pages read per list before refusing.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub page_cap: usize,
    /// Text and Markdown: list every change on its own line in path order, instead of grouped
    /// by class (security first) with repeated `$schema` changes folded.
    #[arg(long)]
    pub full: bool,
}

/// Anonymous-access measurement switches shared by `lock`, `check` and `verify`.
#[derive(Debug, Args)]
pub struct AnonymousArgs {
    /// Probe `tools/call` anonymously with this tool and arguments (`NAME=JSON`, e.g.
    /// `echo={"text":"hi"}`): only a tool safe to run for a stranger. Without it, a tool that
    /// cannot exist is asked, so nothing runs.
    #[arg(long, value_name = "NAME=JSON")]
    pub anonymous_call: Option<String>,
    /// stdio: the server's credential is this environment variable; the anonymous
    /// measurement starts it without it (repeatable)
    #[arg(long, value_name = "NAME")]
    pub anonymous_env_unset: Vec<String>,
    /// HTTP: also measure anonymous access on this path of the target's origin (`/admin/mcp`;
    /// repeatable), recorded as its own route (`POST /admin/mcp`) beside the target's own.
    #[arg(long = "route", value_name = "PATH")]
    pub routes: Vec<String>,
    /// Also measure anonymous access under this named configuration (repeatable; e.g.
    /// `key-set`), recorded as `configs.NAME` beside `default`; give its headers and
    /// environment with `--anonymous-config-header` / `--anonymous-config-env`.
    #[arg(long = "anonymous-config", value_name = "NAME")]
    pub configs: Vec<String>,
    /// HTTP: `NAME=Header: value`, a header the probes of configuration NAME carry
    /// (repeatable; the value is never shown).
    #[arg(long = "anonymous-config-header", value_name = "NAME=HEADER")]
    pub config_headers: Vec<String>,
    /// stdio: `NAME=VAR=value`, a variable set in the server's environment for configuration
    /// NAME (repeatable; the value is never shown).
    #[arg(long = "anonymous-config-env", value_name = "NAME=VAR=VALUE")]
    pub config_env: Vec<String>,
}

/// `mcpseal lock`.
#[derive(Debug, Args)]
pub struct LockArgs {
    /// Require the anonymous-access measurement (which methods answer without a credential,
    /// each probe sent alone with the credential headers removed, locked as the `anonymous`
    /// section). It is on by default for HTTP and for stdio with `--anonymous-env-unset`; with
    /// this flag a stdio server without an env configuration is an error instead of a skip.
    #[arg(long)]
    pub anonymous: bool,
    /// Do not measure anonymous access; the lock's section, if any, is kept as it is (the
    /// report says so).
    #[arg(long, conflicts_with = "anonymous")]
    pub no_anonymous: bool,
    #[command(flatten)]
    pub anonymous_call: AnonymousArgs,
    #[command(flatten)]
    pub lock: LockFileArgs,
    #[command(flatten)]
    pub profile: ProfileArgs,
    /// Leave this part of the surface out of the hash: a JSON Pointer, with `KEY=VALUE` to pick
    /// a list item (`/resources`, `/tools/name=clock/description`; `/` in a value is `~1`).
    /// Repeatable; replaces the exclusions recorded in the lock (default: keep them).
    #[arg(long = "exclude", value_name = "POINTER")]
    pub exclude: Vec<String>,
    /// Canonical form of a new lock (an existing lock keeps its own).
    #[arg(long, value_enum)]
    pub form: Option<FormArg>,
    /// Wait this long for another `mcpseal lock` writing the same lock file (one run at a time
    /// reads, decides and writes it; `30s`, `2m`), then refuse naming it (exit 2). Default: as
    /// long as its two captures can take, 12 × `--timeout` + 5s.
    #[arg(long, value_name = "DURATION")]
    pub lock_timeout: Option<String>,
    /// Accept a lock written for another server name (`serverInfo.name`); without it that is
    /// refused (exit 2) as the wrong lock or the wrong server. The new name is a SECURITY change.
    #[arg(long)]
    pub allow_rename: bool,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub version: VersionArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `mcpseal check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Do not re-measure the lock's anonymous section (the report says it was skipped).
    #[arg(long)]
    pub no_anonymous: bool,
    #[command(flatten)]
    pub anonymous_call: AnonymousArgs,
    #[command(flatten)]
    pub lock: LockFileArgs,
    #[command(flatten)]
    pub profile: ProfileArgs,
    /// Accept a lock written for another server name (`serverInfo.name`); without it that is
    /// refused (exit 2) as the wrong lock or the wrong server.
    #[arg(long)]
    pub allow_rename: bool,
    /// Fail (exit 1) when the server reports a version lower than the lock's; without it that
    /// is a warning.
    #[arg(long)]
    pub strict_version: bool,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub version: VersionArgs,
    #[command(flatten)]
    pub rules: RuleArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `mcpseal verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Do not re-measure the lock's anonymous section (the report says it was skipped).
    #[arg(long)]
    pub no_anonymous: bool,
    #[command(flatten)]
    pub anonymous_call: AnonymousArgs,
    /// Ask up to N times while the live surface differs (an edge may serve old instances right
    /// after a deploy); a refusal (liar, unreachable) is never retried.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub attempts: u32,
    /// Wait between attempts: `10s`, `500ms`, `1m`.
    #[arg(long, default_value = "10s", value_name = "DURATION")]
    pub wait: String,
    #[command(flatten)]
    pub lock: LockFileArgs,
    #[command(flatten)]
    pub profile: ProfileArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// `mcpseal diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Text, ignore_case = true, value_name = "FORMAT")]
    pub format: Format,
    /// Most pages read per list when a side is a live server.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub page_cap: usize,
    /// Text and Markdown: list every change on its own line in path order, instead of grouped
    /// by class (security first) with repeated `$schema` changes folded.
    #[arg(long)]
    pub full: bool,
    /// The old side: a lock file, a snapshot JSON (`mcpseal snapshot --format json`), a raw
    /// capture, or an http(s) URL.
    #[arg(value_name = "A")]
    pub a: String,
    /// The new side, as A; or give the server's command after `--` instead.
    #[arg(value_name = "B")]
    pub b: Option<String>,
    /// The new side as a stdio server command line after `--` (no shell).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub connect: ConnectArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
