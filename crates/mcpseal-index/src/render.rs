//! The run document for the terminal: one line per target, then the counts, every rate with
//! its denominator.

use crate::document::{ChangeKind, IndexRun, RowState, rate};

/// The text form of `run`.
pub fn text(run: &IndexRun) -> String {
    let mut out = String::new();
    let shard = run
        .shard
        .map(|s| format!(", shard {s}"))
        .unwrap_or_default();
    out.push_str(&format!(
        "index run {} ({} of {} targets{shard})\n",
        run.run_id,
        run.rows.len(),
        run.cohort_targets
    ));
    for r in &run.rows {
        let fp = r
            .fingerprint
            .as_deref()
            .map(|f| f.get(..12).unwrap_or(f))
            .unwrap_or("-");
        let change = match r.change.kind {
            ChangeKind::First => "first run".to_owned(),
            ChangeKind::Unchanged => "unchanged".to_owned(),
            ChangeKind::NotCompared => "not compared".to_owned(),
            ChangeKind::Changed if r.change.without_bump => "CHANGED without a version bump".into(),
            ChangeKind::Changed => "changed".to_owned(),
        };
        out.push_str(&format!(
            "  {:<24} {:<13} {:<10} {fp:<12} {}E {}W  {change}\n",
            r.id,
            r.state.as_str(),
            r.era.as_deref().unwrap_or("-"),
            r.errors,
            r.warnings,
        ));
        if let Some(reason) = &r.reason
            && !matches!(r.state, RowState::Ready | RowState::Findings)
        {
            out.push_str(&format!("      {reason}\n"));
        }
    }
    let s = &run.summary;
    let d = s.targets;
    out.push_str(&format!(
        "ready {} · findings {} · incomplete {} · unreachable {} · install failed {} · not run {}\n",
        rate(s.ready, d),
        rate(s.findings, d),
        rate(s.incomplete, d),
        rate(s.unreachable, d),
        rate(s.install_failed, d),
        rate(s.not_run, d),
    ));
    out.push_str(&format!(
        "changed {} · changed without a bump {}\n",
        rate(s.changed, d),
        rate(s.changed_without_bump, d)
    ));
    out
}
