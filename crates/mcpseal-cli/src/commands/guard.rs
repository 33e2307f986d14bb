//! `mcpseal guard`: the pinning proxy (parse, one facade call, exit code).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use clap::{Args, Subcommand, ValueEnum};
use mcpseal::client::{Target, redact_url};
use mcpseal::guard::{Front, GuardEnd, GuardSetup, Mode, ReviewHint, StdioEnd};

use crate::args::ConnectArgs;
use crate::error::{CliError, Outcome};
use crate::interrupt::Signals;
use crate::lock_args::LockFileArgs;
use crate::{output, settings};

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Blocked items are hidden and their calls refused.
    Enforce,
    /// Everything is forwarded; what would be blocked is only logged.
    Warn,
}

/// `mcpseal guard`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct GuardArgs {
    /// Host configurations: put every server behind the guard, or take it out again.
    #[command(subcommand)]
    pub action: Option<GuardAction>,
    #[command(flatten)]
    pub lock: LockFileArgs,
    /// The policy (TOML): block, warn or allow per drift class, globally and per item. Default:
    /// block everything except `prose` (warn) and `cosmetic` (allow).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// `warn` forwards everything and only logs what would be blocked (overrides the policy's).
    #[arg(long, value_enum, value_name = "MODE")]
    pub mode: Option<ModeArg>,
    /// Append every block and warn decision to this file (JSON lines, created with mode 0600).
    #[arg(long, value_name = "FILE")]
    pub audit: Option<PathBuf>,
    /// The server's Streamable HTTP endpoint (instead of `-- COMMAND`).
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// Serve Streamable HTTP on this address (`127.0.0.1:8080`; port 0 picks one; the endpoint
    /// is `/mcp`, its URL printed on stdout once listening) instead of stdio. Needs `--upstream`.
    #[arg(long, value_name = "ADDR", requires = "upstream")]
    pub listen: Option<String>,
    /// The server command after `--` (stdio), run directly, without a shell.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// `mcpseal guard wrap|unwrap`.
#[derive(Debug, Subcommand)]
pub enum GuardAction {
    /// Rewrite a host's MCP configuration (Claude Desktop's or Cursor's `mcpServers`, VS Code's
    /// `mcp.json` `servers`) so each server runs behind the guard with its own lock under
    /// `--locks`; the original is kept as `CONFIG.mcpseal-guard.bak` (mode 0600). Idempotent.
    Wrap(WrapArgs),
    /// Restore the configuration from its backup, byte for byte.
    Unwrap(UnwrapArgs),
    /// Show the drift a running guard would block: each changed, added or removed item, its
    /// class and what changed. Exit 0 when nothing is pending, 1 when something is.
    Review(Box<ReviewArgs>),
    /// Re-lock only the named items (`tools/search`, `prompts/greet`, `server`…) or `--all`,
    /// leaving the rest of the lock as it was; the lock's version rules apply.
    Approve(Box<ApproveArgs>),
}

/// The server `review` and `approve` list: `-- COMMAND` or `--upstream URL`.
#[derive(Debug, Args)]
pub struct ServerArgs {
    #[command(flatten)]
    pub lock: LockFileArgs,
    /// The server's Streamable HTTP endpoint (instead of `-- COMMAND`).
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// The server command after `--` (stdio), run directly, without a shell.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// `mcpseal guard review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    #[command(flatten)]
    pub server: ServerArgs,
}

/// `mcpseal guard approve`.
#[derive(Debug, Args)]
pub struct ApproveArgs {
    /// The items to re-lock, as LIST/ID (`tools/search`, `resources/file:///a`, `server`) or
    /// as a refusal names them (`tool:search`).
    #[arg(
        value_name = "ITEM",
        required_unless_present = "all",
        conflicts_with = "all"
    )]
    pub items: Vec<String>,
    /// Re-lock every pending item.
    #[arg(long)]
    pub all: bool,
    /// Re-lock even when the server's version does not carry the bump the change needs (the
    /// lock keeps its version).
    #[arg(long)]
    pub allow_same_version: bool,
    /// Approve although the server's name is not the one the lock was written for (the lock
    /// then records the new name); without it, approve refuses another server's lock.
    #[arg(long)]
    pub allow_rename: bool,
    /// Wait this long for another run writing the same lock file (`mcpseal lock`, another
    /// approve; `30s`, `2m`), then refuse naming it (exit 2). Default: 12 × `--timeout` + 5s.
    #[arg(long, value_name = "DURATION")]
    pub lock_timeout: Option<String>,
    #[command(flatten)]
    pub server: ServerArgs,
}

/// `mcpseal guard wrap`.
#[derive(Debug, Args)]
pub struct WrapArgs {
    /// The host configuration (JSON).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// The directory of the per-server locks (`NAME.lock.json`); default: `mcpseal-locks` next
    /// to the configuration.
    #[arg(long, value_name = "DIR")]
    pub locks: Option<PathBuf>,
    /// The guard's executable as the host should start it; default: this `mcpseal`.
    #[arg(long, value_name = "PATH")]
    pub program: Option<String>,
}

/// `mcpseal guard unwrap`.
#[derive(Debug, Args)]
pub struct UnwrapArgs {
    /// The host configuration (JSON) `wrap` rewrote.
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
}

/// The lock file a `guard approve` would write (named by an interrupted run's line).
pub fn written_lock(args: &GuardArgs) -> Option<PathBuf> {
    match &args.action {
        Some(GuardAction::Approve(a)) => Some(a.server.lock.path.clone()),
        _ => None,
    }
}

/// Runs the guard (or one of its actions). The proxy stops gracefully on the run's `signals`
/// (crate::interrupt) — from the start, the start-up listing included — and the servers it
/// started are stopped with it; it then reports [`Outcome::Interrupted`].
pub async fn run(args: GuardArgs, signals: Signals) -> Result<Outcome, CliError> {
    match &args.action {
        Some(GuardAction::Wrap(w)) => return wrap(w),
        Some(GuardAction::Unwrap(u)) => return unwrap(u),
        Some(GuardAction::Review(r)) => return review(r).await,
        Some(GuardAction::Approve(a)) => return approve(a).await,
        None => {}
    }
    let target = target_of(&args.upstream, &args.command)?;
    let options = settings::options(&args.connect)?;
    let setup = GuardSetup {
        lock: args.lock.path.clone(),
        policy: args.policy.clone(),
        mode: args.mode.map(|m| match m {
            ModeArg::Enforce => Mode::Enforce,
            ModeArg::Warn => Mode::Warn,
        }),
        audit: args.audit.clone(),
        hint: hint(&args, &target),
        notes: Arc::new(|line: &str| output::note(line)),
    };
    let guard = mcpseal::guard::prepare(setup)?;
    let front = match &args.listen {
        Some(listen) => Front::Http {
            listen: listen.clone(),
        },
        None => Front::Stdio,
    };
    let signal = Arc::new(AtomicU8::new(0));
    let stop = {
        let signal = Arc::clone(&signal);
        async move {
            let caught = signals.caught().await;
            signal.store(caught.code(), Ordering::SeqCst);
        }
    };
    let end = mcpseal::guard::run(
        guard,
        &target,
        &options,
        front,
        |url| {
            let _ = output::emit(&format!("{url}\n"), None);
            output::note(&format!("mcpseal guard: Streamable HTTP on {url}"));
        },
        stop,
    )
    .await?;
    if let GuardEnd::Stdio(StdioEnd::UpstreamClosed(why) | StdioEnd::HostGone(why)) = &end {
        output::note(&format!("mcpseal guard: stopped: {why}"));
    }
    Ok(match signal.load(Ordering::SeqCst) {
        0 => Outcome::Ok,
        code => Outcome::Interrupted(code),
    })
}

fn target_of(upstream: &Option<String>, command: &[String]) -> Result<Target, CliError> {
    Ok(match (upstream, command.is_empty()) {
        (Some(url), true) => Target::http(url.clone()),
        (None, false) => Target::stdio(command.iter().cloned()),
        (Some(_), false) => {
            return Err(CliError::usage(
                "give either `--upstream URL` or `-- COMMAND`, not both",
            ));
        }
        (None, true) => {
            return Err(CliError::usage("no server given").hint(
                "put the server's command after `--` (`mcpseal guard --lock surface.lock.json -- node server.js`), or pass `--upstream URL`",
            ));
        }
    })
}

async fn review(args: &ReviewArgs) -> Result<Outcome, CliError> {
    let s = &args.server;
    let target = target_of(&s.upstream, &s.command)?;
    let options = settings::options(&s.connect)?;
    let review = mcpseal::guard::review::review(&s.lock.path, &target, &options).await?;
    let mut text = String::new();
    if review.clean() {
        text.push_str(&format!(
            "nothing pending: the server is what `{}` approves\n",
            s.lock.path.display()
        ));
    } else {
        if let Some((locked, live)) = &review.drift.identity {
            text.push_str(&format!(
                "this lock was written for `{locked}`; the server says `{live}`: the guard refuses everything it serves\n"
            ));
        }
        text.push_str(&format!(
            "pending drift against `{}` (locked at {}, server reports {}):\n",
            s.lock.path.display(),
            review.locked_version,
            review.reported_version.as_deref().unwrap_or("no version")
        ));
        for d in &review.drift.items {
            text.push_str(&mcpseal::guard::review::render_item(d));
        }
    }
    output::emit(&text, None)?;
    if review.clean() {
        return Ok(Outcome::Ok);
    }
    output::note(&format!(
        "hint: approve items with `mcpseal guard approve ITEM… --lock {} {}` (or `--all`)",
        s.lock.path.display(),
        server_words(&target)
    ));
    Ok(Outcome::Found)
}

async fn approve(args: &ApproveArgs) -> Result<Outcome, CliError> {
    use mcpseal::guard::review::{Approval, ApproveOptions, ApproveOutcome, parse_item};
    let s = &args.server;
    let target = target_of(&s.upstream, &s.command)?;
    let options = settings::options(&s.connect)?;
    let approval = if args.all {
        Approval::All
    } else {
        Approval::Items(args.items.iter().map(|i| parse_item(i)).collect())
    };
    let relax = ApproveOptions {
        allow_same_version: args.allow_same_version,
        allow_rename: args.allow_rename,
        lock_wait: match &args.lock_timeout {
            Some(text) => settings::parse_duration(text)?,
            None => mcpseal::lock::default_lock_wait(options.timeout),
        },
    };
    let done = mcpseal::guard::review::approve(&s.lock.path, &target, &options, &approval, &relax)
        .await
        .map_err(|e| CliError::usage(e.to_string()).hint(e.hint()))?;
    match done {
        ApproveOutcome::Written { items, version } => {
            let mut text = String::new();
            for i in &items {
                text.push_str(&format!("approved {i}\n"));
            }
            text.push_str(&format!(
                "wrote `{}` under version {version}\n",
                s.lock.path.display()
            ));
            output::emit(&text, None)?;
            Ok(Outcome::Ok)
        }
        ApproveOutcome::NothingPending => {
            output::emit("nothing pending: the lock is unchanged\n", None)?;
            Ok(Outcome::Ok)
        }
        ApproveOutcome::NeedsBump {
            need,
            locked,
            current,
        } => {
            output::note(&format!(
                "error: refused: the change needs {need} (the lock is at {locked}), and the server reports {current}; nothing was written"
            ));
            output::note(
                "hint: release the server under a new version first, or pass `--allow-same-version` to re-lock under the lock's version",
            );
            Ok(Outcome::Found)
        }
    }
}

/// The server as a refusal or hint shows it: the program's name only (its arguments may carry
/// a token) or the URL with its credentials redacted.
fn server_words(target: &Target) -> String {
    match target {
        Target::Http { url } => format!("--upstream {}", redact_url(url)),
        Target::Stdio { program, args } => {
            let more = if args.is_empty() { "" } else { " …" };
            format!("-- {program}{more}")
        }
    }
}

/// The commands a refusal points at. Only the program's name (its arguments may carry a token)
/// and the URL with its credentials redacted are shown.
fn hint(args: &GuardArgs, target: &Target) -> ReviewHint {
    let lock = args.lock.path.display();
    let server = server_words(target);
    ReviewHint {
        review: format!("mcpseal guard review --lock {lock} {server}"),
        approve: format!("mcpseal guard approve ITEM --lock {lock} {server}"),
    }
}

fn wrap(args: &WrapArgs) -> Result<Outcome, CliError> {
    let locks = match &args.locks {
        Some(d) => d.clone(),
        None => args
            .config
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join("mcpseal-locks"),
    };
    // The host starts the guard from a directory of its own choosing: the locks' path must not
    // depend on it.
    let locks = std::path::absolute(&locks).map_err(|e| {
        CliError::usage(format!("cannot resolve `{}`: {e}", locks.display()))
            .hint("pass `--locks DIR` with a directory that exists")
    })?;
    let program = match &args.program {
        Some(p) => p.clone(),
        None => std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "mcpseal".to_owned()),
    };
    let done = mcpseal::guard::wrap_config(&args.config, &program, &locks)
        .map_err(|e| CliError::usage(e.to_string()).hint(e.hint()))?;
    let mut text = String::new();
    for (name, lock) in &done.wrapped {
        text.push_str(&format!("wrapped  {name}  (lock: {lock})\n"));
    }
    for name in &done.already {
        text.push_str(&format!("already  {name}\n"));
    }
    output::emit(&text, None)?;
    if !done.wrapped.is_empty() {
        output::note(&format!(
            "mcpseal guard: write each lock before the host starts the servers: `mcpseal lock --lock {}/NAME.lock.json -- COMMAND` (or `… URL`); until then the guard refuses to start them",
            locks.display()
        ));
    }
    Ok(Outcome::Ok)
}

fn unwrap(args: &UnwrapArgs) -> Result<Outcome, CliError> {
    mcpseal::guard::unwrap_config(&args.config)
        .map_err(|e| CliError::usage(e.to_string()).hint(e.hint()))?;
    output::note(&format!(
        "mcpseal guard: restored `{}`",
        args.config.display()
    ));
    Ok(Outcome::Ok)
}
