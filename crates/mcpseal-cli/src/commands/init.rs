//! `mcpseal init`: parse, one facade call ([`mcpseal::init::run`]), render.

use mcpseal::config::ServerTarget;
use mcpseal::init::{FileAction, FileRole, InitOptions, InitReport};

use crate::args::{ConnectArgs, DocFormat, TargetArgs};
use crate::error::{CliError, Outcome};
use crate::{output, settings};

/// `mcpseal init`.
#[derive(Debug, clap::Args)]
pub struct InitArgs {
    /// Replace existing files that differ from what init would write (never the lock: a lock
    /// changes only through `mcpseal lock`'s version rules).
    #[arg(long)]
    pub force: bool,
    /// Write nothing and start nothing: print the files init would write.
    #[arg(long)]
    pub dry_run: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
    /// Most pages read per list before refusing.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub page_cap: usize,
    /// The server, when detection should not decide (a URL, or its command after `--`).
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub connect: ConnectArgs,
}

pub async fn run(args: InitArgs) -> Result<Outcome, CliError> {
    let server = match (&args.target.url, args.target.command.is_empty()) {
        (None, true) => None,
        _ => Some(match settings::target(&args.target)? {
            t if args.target.url.is_some() => ServerTarget::Url(t.display()),
            _ => ServerTarget::Command(args.target.command.clone()),
        }),
    };
    let options = InitOptions {
        dir: std::path::PathBuf::new(),
        server,
        connect: settings::options(&args.connect)?,
        page_cap: args.page_cap,
        force: args.force,
        dry_run: args.dry_run,
    };
    let report = mcpseal::init::run(&options).await?;
    let text = match args.format {
        DocFormat::Text => render(&report),
        DocFormat::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&report).map_err(|e| CliError::usage(e.to_string()))?
        ),
    };
    output::emit(&text, None)?;
    Ok(Outcome::Ok)
}

/// The text report: what was written (or, in a dry run, each file's text), then the offers.
fn render(r: &InitReport) -> String {
    let mut out = format!("server: {}  (from {})\n", r.server, r.server_from);
    for f in &r.files {
        let is_lock = f.role == FileRole::Lock;
        let what = match (f.action, r.dry_run) {
            (FileAction::Created, false) if is_lock => match &r.lock {
                Some(l) => format!(
                    "locked     {} (version {}, sha256 {})",
                    f.path,
                    l.version.as_deref().unwrap_or("?"),
                    l.sha256.get(..16).unwrap_or(&l.sha256)
                ),
                None => format!("locked     {}", f.path),
            },
            (FileAction::Created, true) if is_lock => format!(
                "would lock {} (captured from the server when run without --dry-run)",
                f.path
            ),
            (FileAction::Created, false) => format!("wrote      {}", f.path),
            (FileAction::Created, true) => format!("would write {}", f.path),
            (FileAction::Overwritten, false) => format!("overwrote  {} (--force)", f.path),
            (FileAction::Overwritten, true) => format!("would overwrite {} (--force)", f.path),
            (FileAction::Unchanged, _) => format!("unchanged  {}", f.path),
            (FileAction::Kept, _) if is_lock => format!(
                "kept       {} (exists; a lock changes only through `mcpseal lock`)",
                f.path
            ),
            (FileAction::Kept, _) => format!(
                "kept       {} (exists and differs from what init writes; --force replaces it)",
                f.path
            ),
        };
        out.push_str(&what);
        out.push('\n');
        if let Some(text) = &f.content {
            out.push_str(&format!("--- {} ---\n{text}", f.path));
            if !text.ends_with('\n') {
                out.push('\n');
            }
            out.push_str("---\n");
        }
    }
    if !r.changed {
        out.push_str("nothing changed: every file is already there\n");
    } else if !r.dry_run {
        out.push_str(
            "next: commit these files; `mcpseal check` and `mcpseal probe` now need no arguments\n",
        );
    }
    for s in &r.suggestions {
        out.push_str(&format!(
            "\noffered for {} (not written):\n{}\n",
            s.file, s.text
        ));
    }
    out
}
