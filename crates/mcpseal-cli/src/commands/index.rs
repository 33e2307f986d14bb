//! `mcpseal index run|rerun|merge|history|site|cohort`: parse, one facade call
//! ([`mcpseal::index::run`], [`mcpseal::index::merge`], [`mcpseal::index::history`],
//! [`mcpseal::index::site`], [`mcpseal::index::cohort_from_registry`]), render, exit code (0 the
//! document was written — what the rows say is data, not the command's verdict; 2 it could
//! not be).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use mcpseal::index::model::history::Recorded;
use mcpseal::index::model::shard::Shard;
use mcpseal::index::{IndexOptions, cohort_from_registry, history, merge, run, site};
use mcpseal::publish::registry::ListOptions;
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
    /// Recompute one row: measure target ID of the cohort again and write `rerun-ID.json`
    /// (every row's `rerun` field is this command).
    Rerun(RerunArgs),
    /// Write a cohort file pinning what an MCP Registry lists (`registry:NAME@VER` targets)
    /// to stdout.
    Cohort(CohortArgs),
}

/// `mcpseal index cohort`.
#[derive(Debug, Args)]
pub struct CohortArgs {
    /// The MCP Registry's base URL, without `/v0.1`.
    #[arg(long, value_name = "URL")]
    pub from_registry: String,
    /// Only servers whose name contains TEXT (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub search: Option<String>,
    /// Every listed version, not only the latest of each server.
    #[arg(long)]
    pub all_versions: bool,
    /// Most pages read (100 servers each).
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub max_pages: u32,
}

/// `mcpseal index rerun`.
#[derive(Debug, Args)]
pub struct RerunArgs {
    /// The target's id.
    #[arg(value_name = "ID")]
    pub id: String,
    /// The cohort file.
    #[arg(long, value_name = "FILE")]
    pub cohort: PathBuf,
    /// Where `rerun-ID.json` and the evidence go.
    #[arg(long, value_name = "DIR", default_value = "index-rerun")]
    pub out: PathBuf,
    /// The run id written into the document (default: today's UTC date).
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
    /// Targets measured at once (default: the number of cores); the async runtime's worker
    /// threads are sized from it.
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Remote (`url:`) targets of one host measured at once.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub per_host: usize,
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
            IndexCommand::Rerun(a) => a.format,
            IndexCommand::History(_) | IndexCommand::Site(_) | IndexCommand::Cohort(_) => {
                DocFormat::Text
            }
        };
        f == DocFormat::Json
    }

    /// The `--jobs` of `run` (the runtime's worker threads are sized from it).
    pub fn jobs(&self) -> Option<usize> {
        match &self.command {
            IndexCommand::Run(a) => Some(a.jobs.unwrap_or_else(default_jobs).max(1)),
            IndexCommand::Rerun(_) => Some(1),
            _ => None,
        }
    }
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

fn base_options(
    cohort: &std::path::Path,
    out: &std::path::Path,
    cache: Option<&std::path::Path>,
    allow_network: bool,
) -> Result<IndexOptions, CliError> {
    let root = cache
        .map(std::path::Path::to_owned)
        .or_else(Cache::default_root)
        .ok_or_else(|| {
            CliError::usage("no cache directory could be found").hint("give one with `--cache DIR`")
        })?;
    let launcher = Launcher::current_exe().map_err(|e| {
        CliError::usage(format!("cannot find the running mcpseal executable: {e}"))
            .hint("run mcpseal from its installed path")
    })?;
    let mut launch = LaunchOptions::new(launcher);
    launch.isolation.network = !allow_network;
    let mut o = IndexOptions::new(
        cohort.to_owned(),
        out.to_owned(),
        Config::new(Cache::new(root)),
        launch,
    );
    o.tool_version = env!("MCPSEAL_VERSION").to_owned();
    Ok(o)
}

fn options(a: &RunArgs) -> Result<IndexOptions, CliError> {
    let mut o = base_options(&a.cohort, &a.out, a.cache.as_deref(), a.allow_network)?;
    o.per_host = a.per_host.max(1);
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
    Ok(o)
}

fn rerun_options(a: &RerunArgs) -> Result<IndexOptions, CliError> {
    let mut o = base_options(&a.cohort, &a.out, a.cache.as_deref(), a.allow_network)?;
    o.only = Some(a.id.clone());
    o.jobs = 1;
    if let Some(id) = &a.run_id {
        o.run_id.clone_from(id);
    }
    o.previous.clone_from(&a.previous);
    Ok(o)
}

fn timings(done: &mcpseal::index::IndexRunOutcome) {
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
            timings(&done);
            output::emit(&render(&done.document, r.format), None)?;
            Ok(Outcome::Ok)
        }
        IndexCommand::Rerun(r) => {
            let o = rerun_options(&r)?;
            let done = run(&o).await?;
            timings(&done);
            output::emit(&render(&done.document, r.format), None)?;
            Ok(Outcome::Ok)
        }
        IndexCommand::Cohort(c) => {
            let options = ListOptions {
                registry: c.from_registry.clone(),
                search: c.search.clone(),
                latest_only: !c.all_versions,
                limit: 100,
                max_pages: c.max_pages.max(1),
                attempts: 3,
                wait: std::time::Duration::from_secs(2),
                timeout: std::time::Duration::from_secs(30),
            };
            let done = cohort_from_registry(&options).await?;
            for l in &done.left_out {
                output::note(&format!("left out {l}"));
            }
            if done.truncated {
                output::note(&format!(
                    "the listing is longer than {} pages: only those were read (raise `--max-pages`)",
                    options.max_pages
                ));
            }
            output::note(&format!("{} targets", done.targets));
            output::emit(&done.text, None)?;
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
