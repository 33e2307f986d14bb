//! Joining the shards of one run into the cohort's document.
//!
//! Refuses rather than guesses: documents of different runs, cohorts or tool versions, a shard
//! that is missing or given twice with different content, a target with two rows, or fewer rows
//! than the cohort has targets. The result has no `shard` and sorted rows, so it is
//! byte-identical whatever the shard count was.

use std::collections::BTreeMap;

use crate::document::{IndexRun, Row};
use crate::shard::Shard;

/// Why shards cannot be merged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no run document to merge")]
    Empty,
    /// Two documents disagree on what run they belong to.
    #[error("the documents are of different runs: {field} `{a}` vs `{b}`")]
    Mismatch {
        /// `runId`, `cohortSha256`, `toolVersion`, `cohortTargets` or `schemaVersion`.
        field: &'static str,
        /// One value.
        a: String,
        /// The other.
        b: String,
    },
    /// Shards of different counts.
    #[error("shards of different counts: {0} and {1}")]
    ShardCounts(Shard, Shard),
    /// The same shard twice, with different rows.
    #[error("shard {0} is given twice with different rows")]
    DuplicateShard(Shard),
    /// A shard is missing.
    #[error("shard {0} is missing")]
    MissingShard(Shard),
    /// One target with two different rows.
    #[error("target `{0}` has two different rows")]
    DuplicateRow(String),
    /// Fewer rows than the cohort has targets.
    #[error("{rows} rows for a cohort of {targets} targets")]
    Incomplete {
        /// Rows found.
        rows: usize,
        /// Targets in the cohort.
        targets: usize,
    },
}

impl MergeError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            MergeError::Empty => "give the directories `mcpseal index run --out` wrote",
            MergeError::Mismatch { .. } | MergeError::ShardCounts(..) => {
                "merge the shards of one run only: same --run-id, cohort file and mcpseal version"
            }
            MergeError::DuplicateShard(_) | MergeError::DuplicateRow(_) => {
                "each shard's directory once; rerun the shard if its two copies differ"
            }
            MergeError::MissingShard(_) | MergeError::Incomplete { .. } => {
                "run the missing shard (`mcpseal index run --shard I/N`) and merge again"
            }
        }
    }
}

fn same(field: &'static str, a: &str, b: &str) -> Result<(), MergeError> {
    if a == b {
        Ok(())
    } else {
        Err(MergeError::Mismatch {
            field,
            a: a.to_owned(),
            b: b.to_owned(),
        })
    }
}

/// Merges the documents of one run (shards, or already merged documents, or both).
///
/// # Errors
/// [`MergeError`].
pub fn merge(docs: &[IndexRun]) -> Result<IndexRun, MergeError> {
    let first = docs.first().ok_or(MergeError::Empty)?;
    let mut shards: BTreeMap<u32, &IndexRun> = BTreeMap::new();
    let mut count: Option<Shard> = None;
    let mut whole = false;
    for d in docs {
        same(
            "schemaVersion",
            &first.schema_version.to_string(),
            &d.schema_version.to_string(),
        )?;
        same("runId", &first.run_id, &d.run_id)?;
        same("cohortSha256", &first.cohort_sha256, &d.cohort_sha256)?;
        same("toolVersion", &first.tool_version, &d.tool_version)?;
        same(
            "cohortTargets",
            &first.cohort_targets.to_string(),
            &d.cohort_targets.to_string(),
        )?;
        match d.shard {
            None => whole = true,
            Some(s) => {
                if let Some(c) = count
                    && c.count != s.count
                {
                    return Err(MergeError::ShardCounts(c, s));
                }
                count = Some(s);
                if let Some(prev) = shards.insert(s.index, d)
                    && prev.rows != d.rows
                {
                    return Err(MergeError::DuplicateShard(s));
                }
            }
        }
    }
    if let (Some(c), false) = (count, whole) {
        for index in 0..c.count {
            if !shards.contains_key(&index) {
                return Err(MergeError::MissingShard(Shard {
                    index,
                    count: c.count,
                }));
            }
        }
    }
    let mut rows: BTreeMap<&str, &Row> = BTreeMap::new();
    for d in docs {
        for r in &d.rows {
            if let Some(prev) = rows.insert(&r.id, r)
                && *prev != *r
            {
                return Err(MergeError::DuplicateRow(r.id.clone()));
            }
        }
    }
    if rows.len() != first.cohort_targets {
        return Err(MergeError::Incomplete {
            rows: rows.len(),
            targets: first.cohort_targets,
        });
    }
    Ok(IndexRun::new(
        first.run_id.clone(),
        first.tool_version.clone(),
        first.cohort_sha256.clone(),
        first.cohort_targets,
        None,
        rows.into_values().cloned().collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Change, Evidence, RowState};
    use crate::shard::shard_of;

    fn row(id: &str) -> Row {
        Row {
            id: id.into(),
            install: format!("cmd:{id}"),
            kind: "cmd".into(),
            version: None,
            expanded: None,
            rerun: format!("mcpseal index rerun {id} --cohort c.toml"),
            state: RowState::Ready,
            reason: None,
            era_hint: None,
            era: Some("2026-07-28".into()),
            reported_version: None,
            fingerprint: Some("00".into()),
            counts: None,
            probe_state: Some("measured".into()),
            errors: 0,
            warnings: 0,
            sdk_findings: 0,
            application_findings: 0,
            rules: Vec::new(),
            skipped_rules: Vec::new(),
            published: None,
            change: Change::first(),
            evidence: Evidence::default(),
        }
    }

    fn sharded(ids: &[&str], n: u32) -> Vec<IndexRun> {
        (0..n)
            .map(|i| {
                let rows = ids
                    .iter()
                    .filter(|id| shard_of(id, n) == i)
                    .map(|id| row(id))
                    .collect();
                IndexRun::new(
                    "r1".into(),
                    "0.1.0".into(),
                    "sha256:c".into(),
                    ids.len(),
                    Some(Shard { index: i, count: n }),
                    rows,
                )
            })
            .collect()
    }

    #[test]
    fn any_shard_count_merges_to_the_same_bytes() {
        let ids = ["a", "b", "c", "d", "e", "f", "g"];
        let one = merge(&sharded(&ids, 1)).expect("1").to_bytes();
        for n in 2..=4 {
            let mut docs = sharded(&ids, n);
            docs.reverse();
            assert_eq!(merge(&docs).expect("n").to_bytes(), one, "{n} shards");
        }
        // Merging a merged document again changes nothing (idempotent).
        let merged = merge(&sharded(&ids, 3)).expect("3");
        assert_eq!(
            merge(&[merged.clone(), merged]).expect("again").to_bytes(),
            one
        );
    }

    #[test]
    fn refusals() {
        let ids = ["a", "b", "c", "d", "e", "f", "g"];
        let docs = sharded(&ids, 3);
        assert!(matches!(
            merge(&docs[..2]),
            Err(MergeError::MissingShard(s)) if s.index == 2
        ));
        let mut other = docs.clone();
        other[1].run_id = "r2".into();
        assert!(matches!(
            merge(&other),
            Err(MergeError::Mismatch { field: "runId", .. })
        ));
        let mut twice = docs.clone();
        let mut changed = docs[0].clone();
        changed.rows.push(row("zz"));
        twice.push(changed);
        assert!(matches!(merge(&twice), Err(MergeError::DuplicateShard(_))));
        let mut mixed = docs.clone();
        mixed.extend(sharded(&ids, 2));
        assert!(matches!(merge(&mixed), Err(MergeError::ShardCounts(..))));
        let mut short = docs;
        for d in &mut short {
            d.cohort_targets = 8;
        }
        assert!(matches!(
            merge(&short),
            Err(MergeError::Incomplete {
                rows: 7,
                targets: 8
            })
        ));
        assert_eq!(merge(&[]), Err(MergeError::Empty));
    }
}
