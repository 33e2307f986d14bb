//! The index's history: every merged run in one SQLite file (WAL; one writer at a time,
//! `BEGIN IMMEDIATE`; schema migrations by `PRAGMA user_version`).
//!
//! Tables: `runs` (one per run id), `targets` (one per target id, its latest install string),
//! `rows` (one per run × target: state, era, fingerprint, counts, change, published-fingerprint
//! state), `rule_counts` (one per run × target × rule), `skipped_rules` (one per run × target ×
//! probe rule left out). Recording a run is idempotent on its run id: the same document again
//! changes nothing; a different document under a known run id is refused, so a merge can never
//! lose or duplicate a row.
//!
//! Schema 2 added `rows.published` and `skipped_rules`. A run recorded under schema 1 kept
//! neither, so their absence there says nothing: `runs.recorded_schema` (1 for those runs) tells
//! a reader which rows can be read for them ([`TargetLine::recorded_schema`],
//! [`RunLine::published`]).

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use crate::document::{IndexRun, PublishedState, RowState};

/// The first schema whose runs record `rows.published` and `skipped_rules`.
pub const PUBLISHED_SINCE: u32 = 2;

/// The schema migrations, in order; `user_version` is how many have run.
const MIGRATIONS: &[&str] = &[
    r"
CREATE TABLE runs (
    run_id TEXT PRIMARY KEY,
    tool_version TEXT NOT NULL,
    cohort_sha256 TEXT NOT NULL,
    document_sha256 TEXT NOT NULL,
    targets INTEGER NOT NULL
);
CREATE TABLE targets (
    target_id TEXT PRIMARY KEY,
    install TEXT NOT NULL,
    kind TEXT NOT NULL
);
CREATE TABLE rows (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    target_id TEXT NOT NULL REFERENCES targets(target_id),
    version TEXT,
    state TEXT NOT NULL,
    era TEXT,
    fingerprint TEXT,
    errors INTEGER NOT NULL,
    warnings INTEGER NOT NULL,
    change_kind TEXT NOT NULL,
    without_bump INTEGER NOT NULL,
    capture TEXT,
    probe TEXT,
    PRIMARY KEY (run_id, target_id)
);
CREATE TABLE rule_counts (
    run_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    rule TEXT NOT NULL,
    severity TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (run_id, target_id, rule),
    FOREIGN KEY (run_id, target_id) REFERENCES rows(run_id, target_id)
);
",
    r"
ALTER TABLE runs ADD COLUMN recorded_schema INTEGER NOT NULL DEFAULT 1;
ALTER TABLE rows ADD COLUMN published TEXT;
CREATE TABLE skipped_rules (
    run_id TEXT NOT NULL,
    target_id TEXT NOT NULL,
    rule TEXT NOT NULL,
    PRIMARY KEY (run_id, target_id, rule),
    FOREIGN KEY (run_id, target_id) REFERENCES rows(run_id, target_id)
);
",
];

/// A history file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// SQLite refused.
    #[error("the history database: {0}")]
    Sql(#[from] rusqlite::Error),
    /// Written by a newer mcpseal.
    #[error("the history database is at schema {found}; this mcpseal knows {known}")]
    Newer {
        /// Its `user_version`.
        found: i64,
        /// Migrations this build has.
        known: usize,
    },
    /// A run id already recorded with other content.
    #[error("run `{0}` is already recorded with different rows")]
    Conflict(String),
}

impl HistoryError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            HistoryError::Sql(_) => "check the path; only one writer at a time",
            HistoryError::Newer { .. } => "use the mcpseal that wrote it, or a newer one",
            HistoryError::Conflict(_) => {
                "a run id names one run: merge all its shards first, or give the new run its own --run-id"
            }
        }
    }
}

/// What recording a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// New rows were written.
    Added(usize),
    /// The run was already there, identical.
    AlreadyThere,
}

/// The history database.
pub struct History {
    conn: Connection,
}

/// One run's line of `history`: its counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLine {
    /// The run id.
    pub run_id: String,
    /// Rows.
    pub targets: usize,
    /// Rows per state, in [`RowState::ALL`] order.
    pub states: Vec<(RowState, usize)>,
    /// Rows that changed.
    pub changed: usize,
    /// Of those, without a bump.
    pub changed_without_bump: usize,
    /// Per rule, targets it fired on.
    pub rules: Vec<(String, usize)>,
    /// Rows per published-fingerprint state, in [`PublishedState::ALL`] order (rows without a
    /// comparison — not `registry:` targets — are in none); `None` for a run recorded before
    /// schema [`PUBLISHED_SINCE`], which did not keep the column.
    pub published: Option<Vec<(PublishedState, usize)>>,
}

impl History {
    /// Opens (or creates) `path`, in WAL mode, migrated to this build's schema.
    ///
    /// # Errors
    /// [`HistoryError`].
    pub fn open(path: &Path) -> Result<History, HistoryError> {
        let mut conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(30))?;
        let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let known = MIGRATIONS.len();
        let done = usize::try_from(version).unwrap_or(usize::MAX);
        if done > known {
            return Err(HistoryError::Newer {
                found: version,
                known,
            });
        }
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        for m in &MIGRATIONS[done..] {
            tx.execute_batch(m)?;
        }
        tx.pragma_update(None, "user_version", known as i64)?;
        tx.commit()?;
        Ok(History { conn })
    }

    /// Records a run (see the module docs).
    ///
    /// # Errors
    /// [`HistoryError::Conflict`] when the run id holds other content.
    pub fn record(&mut self, run: &IndexRun) -> Result<Recorded, HistoryError> {
        let sha = crate::sha256_tagged(&run.to_bytes());
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let known: Option<String> = tx
            .query_row(
                "SELECT document_sha256 FROM runs WHERE run_id = ?1",
                params![run.run_id],
                |r| r.get(0),
            )
            .optional()?;
        match known {
            Some(k) if k == sha => return Ok(Recorded::AlreadyThere),
            Some(_) => return Err(HistoryError::Conflict(run.run_id.clone())),
            None => {}
        }
        tx.execute(
            "INSERT INTO runs (run_id, tool_version, cohort_sha256, document_sha256, targets, recorded_schema) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![run.run_id, run.tool_version, run.cohort_sha256, sha, run.rows.len() as i64, MIGRATIONS.len() as i64],
        )?;
        for r in &run.rows {
            tx.execute(
                "INSERT INTO targets (target_id, install, kind) VALUES (?1, ?2, ?3)
                 ON CONFLICT(target_id) DO UPDATE SET install = excluded.install, kind = excluded.kind",
                params![r.id, r.install, r.kind],
            )?;
            let change = serde_json::to_value(r.change.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            tx.execute(
                "INSERT INTO rows (run_id, target_id, version, state, era, fingerprint, errors, warnings, change_kind, without_bump, capture, probe, published)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                params![
                    run.run_id,
                    r.id,
                    r.version,
                    r.state.as_str(),
                    r.era,
                    r.fingerprint,
                    r.errors as i64,
                    r.warnings as i64,
                    change,
                    r.change.without_bump,
                    r.evidence.capture,
                    r.evidence.probe,
                    r.published.as_ref().map(|p| p.state.as_str())
                ],
            )?;
            for rule in &r.skipped_rules {
                tx.execute(
                    "INSERT OR IGNORE INTO skipped_rules (run_id, target_id, rule) VALUES (?1, ?2, ?3)",
                    params![run.run_id, r.id, rule],
                )?;
            }
            for h in &r.rules {
                tx.execute(
                    "INSERT INTO rule_counts (run_id, target_id, rule, severity, count) VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![run.run_id, r.id, h.rule, h.severity.as_str(), h.count as i64],
                )?;
            }
        }
        tx.commit()?;
        Ok(Recorded::Added(run.rows.len()))
    }

    /// Every run's counts, oldest run id first (run ids sort as their dates do).
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn runs(&self) -> Result<Vec<RunLine>, HistoryError> {
        let mut lines = Vec::new();
        let mut runs = self
            .conn
            .prepare("SELECT run_id, targets, recorded_schema FROM runs ORDER BY run_id")?;
        let ids: Vec<(String, i64, i64)> = runs
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<_, _>>()?;
        for (run_id, targets, recorded_schema) in ids {
            let mut states = Vec::new();
            for s in RowState::ALL {
                let n: i64 = self.conn.query_row(
                    "SELECT COUNT(*) FROM rows WHERE run_id = ?1 AND state = ?2",
                    params![run_id, s.as_str()],
                    |r| r.get(0),
                )?;
                states.push((s, usize::try_from(n).unwrap_or(0)));
            }
            let (changed, without): (i64, i64) = self.conn.query_row(
                "SELECT COUNT(*), COALESCE(SUM(without_bump), 0) FROM rows WHERE run_id = ?1 AND change_kind = 'changed'",
                params![run_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            let mut q = self.conn.prepare(
                "SELECT rule, COUNT(*) FROM rule_counts WHERE run_id = ?1 GROUP BY rule ORDER BY rule",
            )?;
            let rules: Vec<(String, usize)> = q
                .query_map(params![run_id], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
                })?
                .map(|x| x.map(|(rule, n)| (rule, usize::try_from(n).unwrap_or(0))))
                .collect::<Result<_, _>>()?;
            let published = if recorded_schema >= i64::from(PUBLISHED_SINCE) {
                let mut counts = Vec::new();
                for p in PublishedState::ALL {
                    let n: i64 = self.conn.query_row(
                        "SELECT COUNT(*) FROM rows WHERE run_id = ?1 AND published = ?2",
                        params![run_id, p.as_str()],
                        |r| r.get(0),
                    )?;
                    counts.push((p, usize::try_from(n).unwrap_or(0)));
                }
                Some(counts)
            } else {
                None
            };
            lines.push(RunLine {
                run_id,
                targets: usize::try_from(targets).unwrap_or(0),
                states,
                changed: usize::try_from(changed).unwrap_or(0),
                changed_without_bump: usize::try_from(without).unwrap_or(0),
                rules,
                published,
            });
        }
        Ok(lines)
    }

    /// How many rows the history holds (all runs).
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn row_count(&self) -> Result<usize, HistoryError> {
        let n: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM rows", [], |r| r.get(0))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }
}

/// The text of `mcpseal index history`: one line per run, every rate with its denominator.
pub fn render(lines: &[RunLine]) -> String {
    let mut out = String::new();
    for l in lines {
        let states: Vec<String> = l
            .states
            .iter()
            .map(|(s, n)| format!("{} {}", s.as_str(), crate::document::rate(*n, l.targets)))
            .collect();
        out.push_str(&format!("{}: {}\n", l.run_id, states.join(" · ")));
        out.push_str(&format!(
            "  changed {} · without a bump {}\n",
            crate::document::rate(l.changed, l.targets),
            crate::document::rate(l.changed_without_bump, l.targets)
        ));
        if !l.rules.is_empty() {
            let rules: Vec<String> = l.rules.iter().map(|(r, n)| format!("{r} {n}")).collect();
            out.push_str(&format!("  rules (targets): {}\n", rules.join(", ")));
        }
        match &l.published {
            Some(counts) if counts.iter().any(|(_, n)| *n > 0) => {
                let parts: Vec<String> = counts
                    .iter()
                    .map(|(p, n)| {
                        format!("{} {}", p.as_str(), crate::document::rate(*n, l.targets))
                    })
                    .collect();
                out.push_str(&format!("  published fingerprint: {}\n", parts.join(" · ")));
            }
            Some(_) => {}
            None => out.push_str(
                "  published fingerprint: not recorded (recorded before history schema 2)\n",
            ),
        }
    }
    out
}

#[cfg(test)]
mod tests;

/// One target's row in one run, for its page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetLine {
    /// The run id.
    pub run_id: String,
    /// The pinned version.
    pub version: Option<String>,
    /// The state.
    pub state: String,
    /// The fingerprint.
    pub fingerprint: Option<String>,
    /// `first`, `unchanged`, `changed`, `notCompared`.
    pub change: String,
    /// Changed without a bump.
    pub without_bump: bool,
    /// Error findings.
    pub errors: usize,
    /// Evidence addresses (capture, probe).
    pub evidence: (Option<String>, Option<String>),
    /// The published-fingerprint comparison (`None`: the row has none — not a `registry:`
    /// target, or its entry was not read — or, below [`PUBLISHED_SINCE`], it was not kept).
    pub published: Option<PublishedState>,
    /// Probe rules left out on this target, sorted (empty below [`PUBLISHED_SINCE`]: not kept).
    pub skipped_rules: Vec<String>,
    /// The history schema the run was recorded under: below [`PUBLISHED_SINCE`] the row kept
    /// neither `published` nor `skipped_rules`, so their absence says nothing.
    pub recorded_schema: u32,
}

impl TargetLine {
    /// Whether `published` and `skipped_rules` were kept for this row.
    pub fn published_recorded(&self) -> bool {
        self.recorded_schema >= PUBLISHED_SINCE
    }
}

/// The columns of a [`TargetLine`], after the target id (see [`target_line`]).
const LINE_SELECT: &str = "SELECT rows.target_id, rows.run_id, rows.version, rows.state, rows.fingerprint, rows.change_kind, rows.without_bump, rows.errors, rows.capture, rows.probe, rows.published, runs.recorded_schema
     FROM rows JOIN runs ON runs.run_id = rows.run_id";

/// A [`LINE_SELECT`] row (its skipped rules filled in by the caller).
fn target_line(r: &rusqlite::Row<'_>) -> rusqlite::Result<TargetLine> {
    let published: Option<String> = r.get(10)?;
    Ok(TargetLine {
        run_id: r.get(1)?,
        version: r.get(2)?,
        state: r.get(3)?,
        fingerprint: r.get(4)?,
        change: r.get(5)?,
        without_bump: r.get(6)?,
        errors: usize::try_from(r.get::<_, i64>(7)?).unwrap_or(0),
        evidence: (r.get(8)?, r.get(9)?),
        published: published.as_deref().and_then(PublishedState::parse),
        skipped_rules: Vec::new(),
        recorded_schema: u32::try_from(r.get::<_, i64>(11)?).unwrap_or(0),
    })
}

impl History {
    /// `target`'s rows, oldest run first.
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn target_lines(&self, target: &str) -> Result<Vec<TargetLine>, HistoryError> {
        let mut q = self.conn.prepare(&format!(
            "{LINE_SELECT} WHERE rows.target_id = ?1 ORDER BY rows.run_id"
        ))?;
        let mut lines: Vec<TargetLine> = q
            .query_map(params![target], target_line)?
            .collect::<Result<_, _>>()?;
        let mut skipped = self.conn.prepare(
            "SELECT run_id, rule FROM skipped_rules WHERE target_id = ?1 ORDER BY run_id, rule",
        )?;
        let mut rows = skipped.query(params![target])?;
        while let Some(r) = rows.next()? {
            let run_id: String = r.get(0)?;
            if let Ok(i) = lines.binary_search_by(|l| l.run_id.cmp(&run_id)) {
                lines[i].skipped_rules.push(r.get(1)?);
            }
        }
        Ok(lines)
    }

    /// Every target's rows, oldest run first, in one pass over each table (the site reads all
    /// targets at once: a query per target would scan `rows` once per target, quadratic in the
    /// cohort).
    ///
    /// # Errors
    /// [`HistoryError::Sql`].
    pub fn lines_by_target(
        &self,
    ) -> Result<std::collections::BTreeMap<String, Vec<TargetLine>>, HistoryError> {
        let mut q = self.conn.prepare(&format!(
            "{LINE_SELECT} ORDER BY rows.target_id, rows.run_id"
        ))?;
        let mut out: std::collections::BTreeMap<String, Vec<TargetLine>> =
            std::collections::BTreeMap::new();
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let target: String = r.get(0)?;
            out.entry(target).or_default().push(target_line(r)?);
        }
        let mut skipped = self.conn.prepare(
            "SELECT target_id, run_id, rule FROM skipped_rules ORDER BY target_id, run_id, rule",
        )?;
        let mut rows = skipped.query([])?;
        while let Some(r) = rows.next()? {
            let target: String = r.get(0)?;
            let run_id: String = r.get(1)?;
            if let Some(lines) = out.get_mut(&target)
                && let Ok(i) = lines.binary_search_by(|l| l.run_id.cmp(&run_id))
            {
                lines[i].skipped_rules.push(r.get(2)?);
            }
        }
        Ok(out)
    }
}
