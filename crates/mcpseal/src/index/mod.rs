//! `mcpseal index`: a cohort of pinned servers measured the same way.
//!
//! [`run`] measures one shard of a cohort file (`mcpseal_index::cohort`): each target is
//! installed by the same cached, sandboxed installer as `replay` (`mcpseal-sources`), started,
//! snapshotted fail-closed and probed, all within its budget; one failing target is a row that
//! says so and never stops the run. The raw capture and the probe report of each target are
//! written content-addressed under `OUT/evidence/` and named from the row. The change since the
//! previous run (`--previous`, a document written by an earlier run or merge) is the
//! fingerprint comparison, classified by the surface diff when the previous capture is in that
//! run's evidence store.
//!
//! [`merge`] joins the shard directories of one run into `OUT/index.json` (plus their
//! evidence); the bytes do not depend on the shard count (see `mcpseal_index::merge`).
//!
//! Concurrency: up to [`IndexOptions::jobs`] targets at once; the rows are sorted by id, so
//! the document does not depend on which finished first. Timings ([`Timing`]) are returned
//! beside the document, never in it.

mod expand;
mod from_registry;
pub mod manners;
mod measure;
mod store;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use futures_util::StreamExt;
use mcpseal_index::cohort::{CheckedCohort, CohortError};
use mcpseal_index::document::{Change, ChangeKind, IndexRun, Row};
use mcpseal_index::merge::MergeError;
use mcpseal_index::shard::Shard;
use mcpseal_report::{ErrorBody, ErrorKind};
use mcpseal_sources::{Config, LaunchOptions, SourceError, Sources};
use serde_json::Value;

use crate::described::Described;

pub use from_registry::{RegistryCohort, cohort_from_registry};
pub use mcpseal_index as model;

/// How to run one shard of a cohort.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// The cohort file.
    pub cohort: PathBuf,
    /// Which shard (default the whole cohort).
    pub shard: Shard,
    /// Targets measured at once (at least 1).
    pub jobs: usize,
    /// Remote targets of one host measured at once (default 1, see [`manners`]).
    pub per_host: usize,
    /// Only this target (`mcpseal index rerun ID`): its row is written to
    /// `OUT/rerun-ID.json`, a document of one row that no merge reads.
    pub only: Option<String>,
    /// Where the shard document and the evidence go.
    pub out: PathBuf,
    /// The run's id, the same for every shard of one run.
    pub run_id: String,
    /// A document of the previous run (its evidence is read from `evidence/` beside it).
    pub previous: Option<PathBuf>,
    /// Cache, registries, tools.
    pub config: Config,
    /// The sandbox launcher and isolation for installed packages (entry point, args and env
    /// come from each target).
    pub launch: LaunchOptions,
    /// The mcpseal version written into the document.
    pub tool_version: String,
}

impl IndexOptions {
    /// Defaults: the whole cohort, one job per core, run id the UTC day.
    pub fn new(
        cohort: PathBuf,
        out: PathBuf,
        config: Config,
        launch: LaunchOptions,
    ) -> IndexOptions {
        IndexOptions {
            cohort,
            shard: Shard::ALL,
            jobs: std::thread::available_parallelism().map_or(2, usize::from),
            per_host: 1,
            only: None,
            out,
            run_id: today(),
            previous: None,
            config,
            launch,
            tool_version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// Today's UTC date (`YYYY-MM-DD`), the default run id.
pub fn today() -> String {
    jiff::Timestamp::now()
        .to_string()
        .chars()
        .take(10)
        .collect()
}

/// How long one target took, by stage (for stderr and benchmarks; never in the document).
#[derive(Debug, Clone, Default)]
pub struct Timing {
    /// The target.
    pub id: String,
    /// Resolve + install.
    pub install: Duration,
    /// The install was in the cache.
    pub cached: bool,
    /// Start + snapshot.
    pub capture: Duration,
    /// Start + probe.
    pub probe: Duration,
    /// All of it.
    pub total: Duration,
}

/// What a run wrote.
#[derive(Debug, Clone)]
pub struct IndexRunOutcome {
    /// The shard's document (also written to [`IndexRunOutcome::path`]).
    pub document: IndexRun,
    /// Where.
    pub path: PathBuf,
    /// Per target, in row order.
    pub timings: Vec<Timing>,
}

/// Why an index command could not finish (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The cohort file cannot be read.
    #[error("cannot read the cohort file `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `rerun` of an id the cohort does not hold.
    #[error("the cohort `{path}` has no target `{id}`")]
    UnknownTarget {
        /// The cohort file.
        path: PathBuf,
        /// The id asked for.
        id: String,
    },
    /// The cohort file is not valid.
    #[error("`{path}`: {source}")]
    Cohort {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: CohortError,
    },
    /// A run document (`--previous`, a shard to merge) cannot be read.
    #[error("cannot read the run document `{path}`: {why}")]
    Document {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// The installer could not be set up.
    #[error("{0}")]
    Sources(#[from] SourceError),
    /// The shards cannot be merged.
    #[error("{0}")]
    Merge(#[from] MergeError),
    /// The history database cannot be used.
    #[error("`{path}`: {source}")]
    History {
        /// The database file.
        path: PathBuf,
        /// Why.
        #[source]
        source: mcpseal_index::history::HistoryError,
    },
    /// Something could not be written.
    #[error("could not write `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl IndexError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            IndexError::Read { .. } => "check the path of the cohort file",
            IndexError::UnknownTarget { .. } => {
                "give the id of a `[[target]]` of that cohort file (each row's `rerun` names both)"
            }
            IndexError::Cohort { source, .. } => source.hint(),
            IndexError::Document { .. } => {
                "give a file (or directory) that `mcpseal index run` or `merge` wrote, of this mcpseal's format"
            }
            IndexError::Sources(e) => e.hint(),
            IndexError::Merge(e) => e.hint(),
            IndexError::History { source, .. } => source.hint(),
            IndexError::Write { .. } => "check the output directory and its permissions",
        }
    }

    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            IndexError::Write { .. } => ErrorKind::Write,
            _ => ErrorKind::Usage,
        }
    }
}

impl Described for IndexError {
    fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint().to_owned()),
        }
    }
}

/// Reads and checks a cohort file.
///
/// # Errors
/// [`IndexError::Read`], [`IndexError::Cohort`].
pub fn load_cohort(path: &Path) -> Result<CheckedCohort, IndexError> {
    let bytes = store::read_bounded(path, mcpseal_index::cohort::MAX_COHORT_BYTES + 1).map_err(
        |source| IndexError::Read {
            path: path.to_owned(),
            source,
        },
    )?;
    mcpseal_index::cohort::parse(&bytes).map_err(|source| IndexError::Cohort {
        path: path.to_owned(),
        source,
    })
}

/// Measures `options.shard` of the cohort and writes `OUT/shard-I-of-N.json` and the evidence
/// (see the module docs).
///
/// # Errors
/// [`IndexError`] when the cohort, the previous document or the installer cannot be used, or
/// nothing can be written; a target that fails is a row instead.
pub async fn run(options: &IndexOptions) -> Result<IndexRunOutcome, IndexError> {
    let cohort = load_cohort(&options.cohort)?;
    let previous = match &options.previous {
        Some(p) => Some(store::Previous::load(p)?),
        None => None,
    };
    let mine: Vec<_> = match &options.only {
        Some(id) => {
            let one: Vec<_> = cohort.targets.iter().filter(|t| &t.id == id).collect();
            if one.is_empty() {
                return Err(IndexError::UnknownTarget {
                    path: options.cohort.clone(),
                    id: id.clone(),
                });
            }
            one
        }
        None => cohort
            .targets
            .iter()
            .filter(|t| options.shard.holds(&t.id))
            .collect(),
    };
    let sources = Sources::new(options.config.clone())?;
    let hosts = manners::HostLimits::new(options.per_host);
    let cohort_name = options.cohort.to_string_lossy();
    let ctx = measure::Context {
        sources: &sources,
        launcher: &options.launch,
        hosts: &hosts,
        cohort: &cohort_name,
    };
    let mut measured = futures_util::stream::iter(mine)
        .map(|t| measure::measure(&ctx, t))
        .buffer_unordered(options.jobs.max(1));
    let mut rows = Vec::new();
    let mut timings = Vec::new();
    // Each target's evidence is written (and its bytes and canonical surface dropped) as soon
    // as the target is done, so the run's memory does not grow with the cohort: only the small
    // rows are kept until the end (measured flat in BENCHMARKS.md, "mcpseal index").
    while let Some(m) = measured.next().await {
        for (address, bytes) in &m.evidence {
            store::put(&options.out, address, bytes)?;
        }
        let mut row = m.row;
        if let Some(prev) = &previous {
            row.change = change(prev, &row, m.canonical.as_ref());
        }
        rows.push(row);
        timings.push(m.timing);
    }
    let shard = options.only.is_none().then_some(options.shard);
    let document = IndexRun::new(
        options.run_id.clone(),
        options.tool_version.clone(),
        cohort.sha256.clone(),
        cohort.targets.len(),
        shard,
        rows,
    );
    timings.sort_by(|a, b| a.id.cmp(&b.id));
    let path = match &options.only {
        Some(id) => options.out.join(format!("rerun-{id}.json")),
        None => options.out.join(IndexRun::shard_file(options.shard)),
    };
    store::write(&path, &document.to_bytes())?;
    Ok(IndexRunOutcome {
        document,
        path,
        timings,
    })
}

/// The change of `row` since the previous run.
fn change(prev: &store::Previous, row: &Row, canonical: Option<&Value>) -> Change {
    let Some(before) = prev.rows.get(&row.id) else {
        return Change::first();
    };
    let mut c = Change {
        kind: ChangeKind::NotCompared,
        previous_run: Some(prev.run_id.clone()),
        previous_fingerprint: before.fingerprint.clone(),
        previous_version: before.version.clone(),
        without_bump: false,
        changes: Vec::new(),
    };
    let (Some(a), Some(b)) = (&before.fingerprint, &row.fingerprint) else {
        return c;
    };
    if a == b {
        c.kind = ChangeKind::Unchanged;
        return c;
    }
    c.kind = ChangeKind::Changed;
    c.without_bump =
        before.version == row.version && before.reported_version == row.reported_version;
    if let (Some(old), Some(new)) = (prev.canonical(before), canonical) {
        c.changes = mcpseal_surface::diff::diff(&old, new)
            .changes
            .iter()
            .map(|ch| format!("{}: {}", ch.class.as_str(), ch.explanation))
            .collect();
    }
    c
}

/// What a merge wrote.
#[derive(Debug, Clone)]
pub struct MergeOutcome {
    /// The merged document (also written to [`MergeOutcome::path`]).
    pub document: IndexRun,
    /// `OUT/index.json`.
    pub path: PathBuf,
    /// What recording it in the history did (when a history database was given).
    pub recorded: Option<mcpseal_index::history::Recorded>,
}

/// Joins the shard documents found in `dirs` (each a directory `run --out` wrote, or a
/// document file) into `out/index.json`, and copies the evidence the rows name into
/// `out/evidence/` (checking each file's address).
///
/// When `history` names a database, the merged run is recorded there too (idempotent on its
/// run id).
///
/// # Errors
/// [`IndexError::Document`] for an unreadable document or missing evidence,
/// [`IndexError::Merge`] when the shards do not make one whole run, [`IndexError::History`].
pub fn merge(
    dirs: &[PathBuf],
    out: &Path,
    history: Option<&Path>,
) -> Result<MergeOutcome, IndexError> {
    let mut docs = Vec::new();
    let mut sources: BTreeMap<String, PathBuf> = BTreeMap::new();
    for d in dirs {
        for (file, doc) in store::documents_in(d)? {
            let base = file.parent().map(Path::to_owned).unwrap_or_default();
            for r in &doc.rows {
                for a in [&r.evidence.capture, &r.evidence.probe]
                    .into_iter()
                    .flatten()
                {
                    sources.entry(a.clone()).or_insert_with(|| base.clone());
                }
            }
            docs.push(doc);
        }
    }
    let document = mcpseal_index::merge::merge(&docs)?;
    for (address, base) in &sources {
        store::copy_evidence(base, out, address)?;
    }
    let path = out.join("index.json");
    store::write(&path, &document.to_bytes())?;
    let recorded = match history {
        Some(db) => {
            Some(
                open_history(db)?
                    .record(&document)
                    .map_err(|source| IndexError::History {
                        path: db.to_owned(),
                        source,
                    })?,
            )
        }
        None => None,
    };
    Ok(MergeOutcome {
        document,
        path,
        recorded,
    })
}

fn open_history(db: &Path) -> Result<mcpseal_index::history::History, IndexError> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| IndexError::Write {
            path: dir.to_owned(),
            source,
        })?;
    }
    mcpseal_index::history::History::open(db).map_err(|source| IndexError::History {
        path: db.to_owned(),
        source,
    })
}

/// Every recorded run's counts, oldest first (`mcpseal index history`).
///
/// # Errors
/// [`IndexError::History`]; a database that does not exist is an error, not an empty history.
pub fn history(db: &Path) -> Result<Vec<mcpseal_index::history::RunLine>, IndexError> {
    if !db.is_file() {
        return Err(IndexError::Read {
            path: db.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no history database"),
        });
    }
    open_history(db)?
        .runs()
        .map_err(|source| IndexError::History {
            path: db.to_owned(),
            source,
        })
}

/// What `site` wrote.
#[derive(Debug, Clone)]
pub struct SiteOutcome {
    /// Every page written, relative to the output directory.
    pub pages: Vec<String>,
}

/// Writes the static site into `out`: `index.html` and `servers/ID.html` from the merged run in
/// `from` (a directory `merge` wrote, or its `index.json`) and every run of the history `db`;
/// the latest run's evidence is copied to `out/evidence/` so the pages' links work offline.
///
/// # Errors
/// [`IndexError`].
pub fn site(from: &Path, db: &Path, out: &Path) -> Result<SiteOutcome, IndexError> {
    let docs = store::documents_in(from)?;
    let (file, latest) = match docs.as_slice() {
        [(f, d)] if d.shard.is_none() => (f.clone(), d.clone()),
        _ => {
            return Err(IndexError::Document {
                path: from.to_owned(),
                why: "not one merged run document (run `mcpseal index merge` first)".into(),
            });
        }
    };
    let runs = history(db)?;
    let h = open_history(db)?;
    let mut targets = h.lines_by_target().map_err(|source| IndexError::History {
        path: db.to_owned(),
        source,
    })?;
    // Only the latest run's targets get a page.
    targets.retain(|id, _| {
        latest
            .rows
            .binary_search_by(|r| r.id.as_str().cmp(id))
            .is_ok()
    });
    let base = file.parent().map(Path::to_owned).unwrap_or_default();
    for r in &latest.rows {
        for a in [&r.evidence.capture, &r.evidence.probe]
            .into_iter()
            .flatten()
        {
            store::copy_evidence(&base, out, a)?;
        }
    }
    // Older runs' evidence is linked only where the site already holds it (a site directory
    // kept between runs accumulates it); a link never points at nothing.
    let held = |a: &Option<String>| {
        a.as_deref()
            .and_then(mcpseal_index::document::evidence_path)
            .is_some_and(|p| out.join(p).is_file())
    };
    for lines in targets.values_mut() {
        for l in lines.iter_mut() {
            if !held(&l.evidence.0) {
                l.evidence.0 = None;
            }
            if !held(&l.evidence.1) {
                l.evidence.1 = None;
            }
        }
    }
    let files = mcpseal_index::site::render(&latest, &runs, &targets);
    let mut pages = Vec::with_capacity(files.len());
    for (rel, html) in files {
        store::write(&out.join(&rel), html.as_bytes())?;
        pages.push(rel);
    }
    Ok(SiteOutcome { pages })
}

/// The committed schema files of the index documents.
pub fn schemas() -> Vec<(&'static str, Value)> {
    vec![
        ("cohort.schema.json", mcpseal_index::cohort::schema()),
        ("index-run.schema.json", mcpseal_index::document::schema()),
    ]
}
