//! The index run document: one row per target, as `mcpseal index run` writes it for one shard
//! (`shard-I-of-N.json`) and `mcpseal index merge` writes it for the whole cohort
//! (`index.json`, `schemas/index-run.schema.json`).
//!
//! Deterministic bytes: rows are sorted by id, no field holds a time measured during the run
//! (durations go to stderr), and a merged document does not say how many shards it came from —
//! so the merge of 3 shards is byte-identical to the merge of the unsharded run.
//!
//! Honest states: a target is `ready` or `findings` only when it was measured in full;
//! `incomplete`, `unreachable`, `installFailed` and `notRun` are their own states and never
//! count as clean.

use mcpseal_report::Severity;
use mcpseal_report::replay::Counts;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::shard::Shard;

/// The run document's format version.
pub const INDEX_SCHEMA_VERSION: u32 = 1;

/// One index run (one shard, or the merged cohort).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "mcpseal index run")]
pub struct IndexRun {
    /// Always 1 for this shape.
    pub schema_version: u32,
    /// The run's id (every shard of one run carries the same; `--run-id`, default the UTC day).
    pub run_id: String,
    /// The mcpseal version that measured.
    pub tool_version: String,
    /// `sha256:HEX` of the cohort file's bytes.
    pub cohort_sha256: String,
    /// How many targets the cohort holds (a merge checks that every one has a row).
    pub cohort_targets: usize,
    /// The shard this document holds; absent on a merged document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// Counts over the rows (every rate's denominator is `targets`).
    pub summary: Summary,
    /// One row per target of the shard, sorted by id.
    pub rows: Vec<Row>,
}

/// Counts over the rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Rows (the denominator of every rate).
    pub targets: usize,
    /// Measured in full, no error finding.
    pub ready: usize,
    /// Measured in full, at least one error finding.
    pub findings: usize,
    /// Some probes went unanswered, or the budget ran out after the snapshot.
    pub incomplete: usize,
    /// Did not answer (did not start, crashed, hung, refused the connection).
    pub unreachable: usize,
    /// The install failed (not found, integrity mismatch, install error).
    pub install_failed: usize,
    /// Not attempted (a method this build cannot run yet, a launch that could not be planned).
    pub not_run: usize,
    /// Rows whose fingerprint differs from the previous run's.
    pub changed: usize,
    /// Of those, changed without a version bump.
    pub changed_without_bump: usize,
    /// Rows whose live surface has the fingerprint their registry entry publishes.
    pub published_match: usize,
    /// Rows whose live surface differs from the published fingerprint.
    pub published_mismatch: usize,
    /// Rows of a registry entry that publishes no (readable) fingerprint block.
    pub published_none: usize,
    /// Per rule: how many targets it fired on (sorted by rule id).
    pub rules: Vec<RuleTargets>,
}

/// How many targets one rule fired on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleTargets {
    /// The rule id.
    pub rule: String,
    /// Its severity.
    pub severity: Severity,
    /// Targets with at least one finding of it.
    pub targets: usize,
}

/// How a target's measurement ended.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum RowState {
    /// Measured in full, no error finding.
    Ready,
    /// Measured in full, at least one error finding.
    Findings,
    /// Captured, but the probe was incomplete or the budget ran out before it finished.
    Incomplete,
    /// No trustworthy answer (did not start, crashed, hung, refused).
    Unreachable,
    /// The install failed.
    InstallFailed,
    /// Not attempted.
    NotRun,
}

impl RowState {
    /// The camelCase name.
    pub fn as_str(self) -> &'static str {
        match self {
            RowState::Ready => "ready",
            RowState::Findings => "findings",
            RowState::Incomplete => "incomplete",
            RowState::Unreachable => "unreachable",
            RowState::InstallFailed => "installFailed",
            RowState::NotRun => "notRun",
        }
    }

    /// Every state, in table order.
    pub const ALL: [RowState; 6] = [
        RowState::Ready,
        RowState::Findings,
        RowState::Incomplete,
        RowState::Unreachable,
        RowState::InstallFailed,
        RowState::NotRun,
    ];

    /// Reads [`RowState::as_str`] back.
    pub fn parse(s: &str) -> Option<RowState> {
        RowState::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

/// One target's measurement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    /// The target's id.
    pub id: String,
    /// The install string from the cohort.
    pub install: String,
    /// `npm`, `pypi`, `git`, `url`, `registry` or `cmd`.
    pub kind: String,
    /// The exact version the cohort pins (absent for `url:` and `cmd:` targets).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// What a `registry:` target was expanded into (`npm:PKG@VER`, `pypi:PKG==VER`,
    /// `url:https://…`), when the entry could be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expanded: Option<String>,
    /// The one command that recomputes this row (`mcpseal index rerun ID --cohort FILE`).
    pub rerun: String,
    /// How the measurement ended.
    pub state: RowState,
    /// Why, when it is not `ready`/`findings` (the first error, the installer's message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The cohort's era hint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era_hint: Option<String>,
    /// The revision the surface was captured in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub era: Option<String>,
    /// The server's own `serverInfo.version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reported_version: Option<String>,
    /// SHA-256 of the canonical surface (`mcpseal/1` form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// Items per list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<Counts>,
    /// The probe's run state (`measured`, `unreachable`, `incomplete`), when it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_state: Option<String>,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Findings an SDK upgrade fixes (the probe's `remediation: sdk`).
    pub sdk_findings: usize,
    /// Findings the server's own code must fix (`remediation: application`).
    pub application_findings: usize,
    /// Findings per rule, sorted by rule id.
    pub rules: Vec<RuleHit>,
    /// Probe rules not run on this target, sorted (toward other people's servers — `url:`
    /// targets — the rules that send any `tools/call` are left out: an index never calls a
    /// tool there).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_rules: Vec<String>,
    /// The fingerprint the target's registry entry publishes, against the live one (only on
    /// `registry:` targets whose entry was read).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub published: Option<Published>,
    /// The change since the previous run of this target.
    pub change: Change,
    /// The stored evidence behind the row.
    pub evidence: Evidence,
}

/// The registry entry's published fingerprint against the measured surface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Published {
    /// What the comparison found.
    pub state: PublishedState,
    /// Whose block was read (`mcpseal`, `mcp-surface`), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The block's form (`mcpseal/1`, `mcp-surface/1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<String>,
    /// The published SHA-256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_sha256: Option<String>,
    /// The live surface's SHA-256 in the block's form, its exclusions applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live_sha256: Option<String>,
    /// Why there is no comparison (no block, an unreadable block, no capture).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What the published-fingerprint comparison found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum PublishedState {
    /// The live surface has the published fingerprint.
    Match,
    /// It does not.
    Mismatch,
    /// The entry publishes no fingerprint block, or one this mcpseal cannot read.
    None,
    /// A block is published but the surface was not captured: nothing can be said.
    NotCompared,
}

impl PublishedState {
    /// The camelCase name.
    pub fn as_str(self) -> &'static str {
        match self {
            PublishedState::Match => "match",
            PublishedState::Mismatch => "mismatch",
            PublishedState::None => "none",
            PublishedState::NotCompared => "notCompared",
        }
    }

    /// Every state, in table order.
    pub const ALL: [PublishedState; 4] = [
        PublishedState::Match,
        PublishedState::Mismatch,
        PublishedState::None,
        PublishedState::NotCompared,
    ];

    /// Reads [`PublishedState::as_str`] back.
    pub fn parse(s: &str) -> Option<PublishedState> {
        PublishedState::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// The command that recomputes the row of `id` from the cohort file `cohort` (as it was named
/// to `run`).
pub fn rerun_command(id: &str, cohort: &str) -> String {
    let quote = |s: &str| {
        if !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | ':'))
        {
            s.to_owned()
        } else {
            format!("'{}'", s.replace('\'', "'\\''"))
        }
    };
    format!(
        "mcpseal index rerun {} --cohort {}",
        quote(id),
        quote(cohort)
    )
}

/// A rule's findings on one target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleHit {
    /// The rule id.
    pub rule: String,
    /// Its severity.
    pub severity: Severity,
    /// Findings of it.
    pub count: usize,
}

/// The change since the previous run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// What the comparison found.
    pub kind: ChangeKind,
    /// The previous run compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_run: Option<String>,
    /// Its fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_fingerprint: Option<String>,
    /// Its pinned version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_version: Option<String>,
    /// Changed while neither the pinned version nor the reported version moved.
    pub without_bump: bool,
    /// The classified changes (`breaking: tool x removed`, …), when the previous surface was
    /// in the evidence store.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<String>,
}

/// What the comparison with the previous run found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    /// No previous run of this target.
    First,
    /// The same fingerprint.
    Unchanged,
    /// A different fingerprint.
    Changed,
    /// One side has no fingerprint (not captured): nothing can be said.
    NotCompared,
}

impl Change {
    /// No previous run.
    pub fn first() -> Change {
        Change {
            kind: ChangeKind::First,
            previous_run: None,
            previous_fingerprint: None,
            previous_version: None,
            without_bump: false,
            changes: Vec::new(),
        }
    }
}

/// Content addresses (`sha256:HEX`) of the evidence files under `evidence/` (see
/// [`evidence_path`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// The raw capture (what the server said, untouched).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capture: Option<String>,
    /// The probe report (run times removed, so equal runs store equal bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<String>,
}

/// Where a content address lives under an output directory:
/// `evidence/sha256/AB/HEX.json` (`None` for anything but `sha256:` and 64 hex digits).
pub fn evidence_path(address: &str) -> Option<std::path::PathBuf> {
    let hex = address.strip_prefix("sha256:")?;
    if hex.len() != 64
        || !hex
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    {
        return None;
    }
    Some(
        std::path::Path::new("evidence")
            .join("sha256")
            .join(&hex[..2])
            .join(format!("{hex}.json")),
    )
}

impl Summary {
    /// The counts of `rows`.
    pub fn of(rows: &[Row]) -> Summary {
        let mut s = Summary {
            targets: rows.len(),
            ..Summary::default()
        };
        let mut rules: std::collections::BTreeMap<(String, Severity), usize> =
            std::collections::BTreeMap::new();
        for r in rows {
            match r.state {
                RowState::Ready => s.ready += 1,
                RowState::Findings => s.findings += 1,
                RowState::Incomplete => s.incomplete += 1,
                RowState::Unreachable => s.unreachable += 1,
                RowState::InstallFailed => s.install_failed += 1,
                RowState::NotRun => s.not_run += 1,
            }
            if r.change.kind == ChangeKind::Changed {
                s.changed += 1;
                if r.change.without_bump {
                    s.changed_without_bump += 1;
                }
            }
            match r.published.as_ref().map(|p| p.state) {
                Some(PublishedState::Match) => s.published_match += 1,
                Some(PublishedState::Mismatch) => s.published_mismatch += 1,
                Some(PublishedState::None) => s.published_none += 1,
                Some(PublishedState::NotCompared) | None => {}
            }
            for h in &r.rules {
                *rules.entry((h.rule.clone(), h.severity)).or_default() += 1;
            }
        }
        s.rules = rules
            .into_iter()
            .map(|((rule, severity), targets)| RuleTargets {
                rule,
                severity,
                targets,
            })
            .collect();
        s
    }
}

impl IndexRun {
    /// A document of `rows` (sorted here) with its summary.
    pub fn new(
        run_id: String,
        tool_version: String,
        cohort_sha256: String,
        cohort_targets: usize,
        shard: Option<Shard>,
        mut rows: Vec<Row>,
    ) -> IndexRun {
        rows.sort_by(|a, b| a.id.cmp(&b.id));
        IndexRun {
            schema_version: INDEX_SCHEMA_VERSION,
            run_id,
            tool_version,
            cohort_sha256,
            cohort_targets,
            shard,
            summary: Summary::of(&rows),
            rows,
        }
    }

    /// Pretty JSON with one trailing newline: the bytes written to disk.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Plain data always serialises.
        let mut out = serde_json::to_vec_pretty(self).unwrap_or_default();
        out.push(b'\n');
        out
    }

    /// The file a shard's document is written to: `shard-I-of-N.json`.
    pub fn shard_file(shard: Shard) -> String {
        format!("shard-{}-of-{}.json", shard.index, shard.count)
    }
}

/// The JSON Schema of the run document.
pub fn schema() -> serde_json::Value {
    mcpseal_report::schemas::schema_of::<IndexRun>()
}

/// `ready / targets` as `N of D (P%)`: every rate with its denominator.
pub fn rate(n: usize, d: usize) -> String {
    if d == 0 {
        return format!("{n} of 0");
    }
    // Integer tenths, so the text is the same on every machine.
    let tenths = (n * 1000 + d / 2) / d;
    format!("{n} of {d} ({}.{}%)", tenths / 10, tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_paths_refuse_what_is_not_an_address() {
        let hex = "ab".repeat(32);
        assert_eq!(
            evidence_path(&format!("sha256:{hex}")),
            Some(std::path::Path::new("evidence/sha256/ab").join(format!("{hex}.json")))
        );
        for bad in [
            "sha256:../../etc/passwd",
            "md5:00",
            &format!("sha256:{}", "AB".repeat(32)),
            "sha256:",
        ] {
            assert_eq!(evidence_path(bad), None, "{bad}");
        }
    }

    #[test]
    fn rerun_commands_quote_what_a_shell_would_split() {
        assert_eq!(
            rerun_command("mem", "examples/cohort.toml"),
            "mcpseal index rerun mem --cohort examples/cohort.toml"
        );
        assert_eq!(
            rerun_command("mem", "/tmp/my cohort's.toml"),
            "mcpseal index rerun mem --cohort '/tmp/my cohort'\\''s.toml'"
        );
    }

    #[test]
    fn rates_name_their_denominator() {
        assert_eq!(rate(1, 3), "1 of 3 (33.3%)");
        assert_eq!(rate(0, 0), "0 of 0");
        assert_eq!(rate(2, 2), "2 of 2 (100.0%)");
    }
}
