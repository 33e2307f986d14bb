//! `mcpseal index run|merge|history`: parse, one facade call ([`mcpseal::index::run`],
//! [`mcpseal::index::merge`], [`mcpseal::index::history`]), render, exit code (0 the document was written — what the rows
//! say is data, not the command's verdict; 2 it could not be).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use mcpseal::index::model::history::Recorded;
use mcpseal::index::model::shard::Shard;
use mcpseal::index::{IndexOptions, history, merge, run, site};
use mcpseal::report::DocFormat;
use mcpseal::sources::{Cache, Config, LaunchOptions, Launcher};

use crate::error::{CliError, Outcome};
use crate::output;

/// `mcpseal index`.
#[derive(Debug, Args)]
pub struct IndexArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: IndexCommand,
}

/// `mcpseal index …`.
#[derive(Debug, Subcommand)]
pub enum IndexCommand {
    /// Measure a cohort (or one shard of it): install, start, snapshot and probe each target;
    /// write `shard-I-of-N.json` and the evidence into `--out`.
    Run(RunArgs),
    /// Join the shard directories of one run into `--out/index.json` (byte-identical whatever
    /// the shard count).
    Merge(MergeArgs),
    /// Print every recorded run's counts from the history database, oldest first.
    History(HistoryArgs),
    /// Write the static site (`index.html`, a page per server, the evidence) from a merged run
    /// and the history.
    Site(SiteArgs),
}

/// `mcpseal index site`.
#[derive(Debug, Args)]
pub struct SiteArgs {
    /// The directory `merge` wrote (or its `index.json`).
    #[arg(long, value_name = "DIR")]
    pub from: PathBuf,
    /// The history database.
    #[arg(long, value_name = "FILE")]
    pub db: PathBuf,
    /// Where the pages go.
    #[arg(long, value_name = "DIR", default_value = "public")]
    pub out: PathBuf,
}

/// `mcpseal index history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The history database (`merge --history` writes it).
    #[arg(long, value_name = "FILE")]
    pub db: PathBuf,
}

/// `mcpseal index run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The cohort file (`schemas/cohort.schema.json`, docs/index.md).
    #[arg(value_name = "COHORT")]
    pub cohort: PathBuf,
    /// Only the targets of shard I of N (a target's shard is a hash of its id).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Targets measured at once (default: the number of cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Where the shard document and the evidence go.
    #[arg(long, value_name = "DIR", default_value = "index-out")]
    pub out: PathBuf,
    /// The run's id, the same for every shard of one run (default: today's UTC date).
    #[arg(long, value_name = "ID")]
    pub run_id: Option<String>,
    /// The previous run's document or directory, for the change since then.
    #[arg(long, value_name = "PATH")]
    pub previous: Option<PathBuf>,
    /// The install cache (default: the user's cache directory, `mcpseal/sources`).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Let installed targets reach the network (they run without it by default).
    #[arg(long)]
    pub allow_network: bool,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

/// `mcpseal index merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The directories (or documents) `mcpseal index run --out` wrote, one per shard.
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where `index.json` and the evidence go.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also record the merged run in this SQLite history (idempotent on the run id).
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = DocFormat::Text)]
    pub format: DocFormat,
}

impl IndexArgs {
    /// Whether the command prints JSON.
    pub fn json(&self) -> bool {
        let f = match &self.command {
            IndexCommand::Run(a) => a.format,
            IndexCommand::Merge(a) => a.format,
            IndexCommand::History(_) | IndexCommand::Site(_) => DocFormat::Text,
        };
        f == DocFormat::Json
    }
}

fn options(a: &RunArgs) -> Result<IndexOptions, CliError> {
    let root = a
        .cache
        .clone()
        .or_else(Cache::default_root)
        .ok_or_else(|| {
            CliError::usage("no cache directory could be found").hint("give one with `--cache DIR`")
        })?;
    let launcher = Launcher::current_exe().map_err(|e| {
        CliError::usage(format!("cannot find the running mcpseal executable: {e}"))
            .hint("run mcpseal from its installed path")
    })?;
    let mut launch = LaunchOptions::new(launcher);
    launch.isolation.network = !a.allow_network;
    let mut o = IndexOptions::new(
        a.cohort.clone(),
        a.out.clone(),
        Config::new(Cache::new(root)),
        launch,
    );
    if let Some(s) = a.shard {
        o.shard = s;
    }
    if let Some(j) = a.jobs {
        o.jobs = j.max(1);
    }
    if let Some(id) = &a.run_id {
        o.run_id.clone_from(id);
    }
    o.previous.clone_from(&a.previous);
    o.tool_version = env!("MCPSEAL_VERSION").to_owned();
    Ok(o)
}

fn render(doc: &mcpseal::index::model::document::IndexRun, format: DocFormat) -> String {
    match format {
        DocFormat::Json => String::from_utf8_lossy(&doc.to_bytes()).into_owned(),
        DocFormat::Text => mcpseal::index::model::render::text(doc),
    }
}

/// Runs `mcpseal index …`.
pub async fn run_command(a: IndexArgs) -> Result<Outcome, CliError> {
    match a.command {
        IndexCommand::Run(r) => {
            let o = options(&r)?;
            let done = run(&o).await?;
            for t in &done.timings {
                output::note(&format!(
                    "{}: install {:.1} s{} · capture {:.1} s · probe {:.1} s · total {:.1} s",
                    t.id,
                    t.install.as_secs_f64(),
                    if t.cached { " (cached)" } else { "" },
                    t.capture.as_secs_f64(),
                    t.probe.as_secs_f64(),
                    t.total.as_secs_f64()
                ));
            }
            output::note(&format!("wrote {}", done.path.display()));
            output::emit(&render(&done.document, r.format), None)?;
            Ok(Outcome::Ok)
        }
        IndexCommand::Merge(m) => {
            let done = merge(&m.dirs, &m.out, m.history.as_deref())?;
            output::note(&format!("wrote {}", done.path.display()));
            match done.recorded {
                Some(Recorded::Added(n)) => output::note(&format!("history: {n} rows recorded")),
                Some(Recorded::AlreadyThere) => {
                    output::note("history: this run was already recorded (nothing changed)");
                }
                None => {}
            }
            output::emit(&render(&done.document, m.format), None)?;
            Ok(Outcome::Ok)
        }
        IndexCommand::History(h) => {
            let lines = history(&h.db)?;
            output::emit(&mcpseal::index::model::history::render(&lines), None)?;
            Ok(Outcome::Ok)
        }
        IndexCommand::Site(a) => {
            let done = site(&a.from, &a.db, &a.out)?;
            output::note(&format!(
                "wrote {} pages into {}",
                done.pages.len(),
                a.out.display()
            ));
            Ok(Outcome::Ok)
        }
    }
}
