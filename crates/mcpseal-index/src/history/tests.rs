//! The history against real SQLite files (temporary ones, and the committed schema-1 file).

use super::*;
use crate::document::{Change, ChangeKind, Evidence, Row, RuleHit};
use mcpseal_report::Severity;

fn row(id: &str, state: RowState, changed: bool) -> Row {
    Row {
        id: id.into(),
        install: format!("cmd:{id}"),
        kind: "cmd".into(),
        version: None,
        expanded: None,
        rerun: format!("mcpseal index rerun {id} --cohort c.toml"),
        state,
        reason: None,
        era_hint: None,
        era: None,
        reported_version: None,
        fingerprint: None,
        counts: None,
        probe_state: None,
        errors: 1,
        warnings: 0,
        sdk_findings: 1,
        application_findings: 0,
        rules: vec![RuleHit {
            rule: "SEAL001".into(),
            severity: Severity::Error,
            count: 1,
        }],
        skipped_rules: Vec::new(),
        published: None,
        change: Change {
            kind: if changed {
                ChangeKind::Changed
            } else {
                ChangeKind::First
            },
            without_bump: changed,
            ..Change::first()
        },
        evidence: Evidence::default(),
    }
}

fn run(id: &str, rows: Vec<Row>) -> IndexRun {
    let n = rows.len();
    IndexRun::new(id.into(), "0.1.0".into(), "sha256:c".into(), n, None, rows)
}

#[test]
fn runs_are_recorded_once_and_read_back() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("history.sqlite");
    let r1 = run(
        "2026-12-01",
        vec![
            row("a", RowState::Findings, false),
            row("b", RowState::Unreachable, false),
        ],
    );
    let r2 = run(
        "2026-12-08",
        vec![
            row("a", RowState::Findings, true),
            row("b", RowState::Ready, false),
        ],
    );
    {
        let mut h = History::open(&path).expect("open");
        assert_eq!(h.record(&r1).expect("r1"), Recorded::Added(2));
        assert_eq!(h.record(&r1).expect("again"), Recorded::AlreadyThere);
    }
    // Reopened (migrations already run), the second run added, nothing duplicated.
    let mut h = History::open(&path).expect("reopen");
    assert_eq!(h.record(&r2).expect("r2"), Recorded::Added(2));
    assert_eq!(h.record(&r2).expect("again"), Recorded::AlreadyThere);
    assert_eq!(h.row_count().expect("count"), 4);
    let mut other = r2.clone();
    other.rows.pop();
    assert!(matches!(h.record(&other), Err(HistoryError::Conflict(_))));
    assert_eq!(
        h.row_count().expect("count"),
        4,
        "a refused run writes nothing"
    );
    let lines = h.runs().expect("runs");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].run_id, "2026-12-01");
    assert!(lines[0].states.contains(&(RowState::Unreachable, 1)));
    assert!(lines[0].states.contains(&(RowState::Ready, 0)));
    assert_eq!(lines[1].changed_without_bump, 1);
    assert_eq!(lines[1].rules, vec![("SEAL001".to_owned(), 2)]);
    let text = render(&lines);
    assert!(text.contains("unreachable 1 of 2 (50.0%)"), "{text}");
    let mode: String = h
        .conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .expect("mode");
    assert_eq!(mode, "wal");
}

/// `tests/data/history-v1.sqlite` was written by `History::record` at schema 1 (before
/// `published` and `skipped_rules` were kept): run `2026-11-24`, targets `gone`
/// (unreachable), `local` (findings, SEAL001) and `remote` (a `url:` row whose document
/// listed three skipped rules the schema could not hold).
#[test]
fn a_schema_1_history_is_read_and_extended() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("history.sqlite");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/history-v1.sqlite"),
        &path,
    )
    .expect("copy the committed schema-1 history");
    let at = |p: &Path| -> i64 {
        Connection::open(p)
            .expect("open")
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .expect("user_version")
    };
    assert_eq!(at(&path), 1, "the committed file is a schema-1 history");

    let mut h = History::open(&path).expect("migrates");
    // The old run is read as it was, its missing columns said to be missing.
    let lines = h.runs().expect("runs");
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0].run_id, "2026-11-24");
    assert!(lines[0].states.contains(&(RowState::Unreachable, 1)));
    assert!(lines[0].states.contains(&(RowState::Findings, 1)));
    assert_eq!(lines[0].rules, vec![("SEAL001".to_owned(), 1)]);
    assert_eq!(lines[0].published, None);
    assert!(render(&lines).contains("published fingerprint: not recorded"));
    let remote = h.target_lines("remote").expect("lines");
    assert_eq!(remote.len(), 1);
    assert!(!remote[0].published_recorded());
    assert!(remote[0].skipped_rules.is_empty() && remote[0].published.is_none());

    // Extended: a new run keeps both, next to the old one.
    let mut remote_row = row("remote", RowState::Ready, false);
    remote_row.kind = "url".into();
    remote_row.skipped_rules = vec!["SEAL030".into(), "SEAL034".into(), "SEAL043".into()];
    let mut registry_row = row("listed", RowState::Ready, false);
    registry_row.kind = "registry".into();
    registry_row.published = Some(crate::document::Published {
        state: PublishedState::Mismatch,
        block: Some("mcpseal".into()),
        form: Some("mcpseal/1".into()),
        declared_sha256: Some("sha256:d".into()),
        live_sha256: Some("sha256:l".into()),
        reason: None,
    });
    let r2 = run(
        "2026-12-01",
        vec![
            row("local", RowState::Findings, false),
            remote_row,
            registry_row,
        ],
    );
    assert_eq!(h.record(&r2).expect("record"), Recorded::Added(3));
    assert_eq!(h.record(&r2).expect("again"), Recorded::AlreadyThere);
    assert_eq!(h.row_count().expect("count"), 6);
    drop(h);
    assert_eq!(at(&path), MIGRATIONS.len() as i64);

    // Reopened: nothing migrates twice, both runs read back.
    let h = History::open(&path).expect("reopen");
    let lines = h.runs().expect("runs");
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0].published, None);
    let published = lines[1].published.as_ref().expect("recorded");
    assert!(published.contains(&(PublishedState::Mismatch, 1)));
    assert!(published.contains(&(PublishedState::Match, 0)));
    let text = render(&lines);
    assert!(text.contains("mismatch 1 of 3 (33.3%)"), "{text}");
    let by_target = h.lines_by_target().expect("all");
    let remote = &by_target["remote"];
    assert_eq!(remote.len(), 2);
    assert!(!remote[0].published_recorded() && remote[0].skipped_rules.is_empty());
    assert!(remote[1].published_recorded());
    assert_eq!(remote[1].skipped_rules, ["SEAL030", "SEAL034", "SEAL043"]);
    assert_eq!(remote[1].published, None);
    assert_eq!(h.target_lines("remote").expect("one"), *remote);
    let listed = &by_target["listed"];
    assert_eq!(listed[0].published, Some(PublishedState::Mismatch));
    assert!(listed[0].skipped_rules.is_empty());
    // The old rows are all still there, unchanged.
    assert_eq!(by_target["gone"].len(), 1);
    assert_eq!(by_target["gone"][0].state, "unreachable");
    assert_eq!(by_target["local"].len(), 2);
}

#[test]
fn a_newer_database_is_refused() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("h.sqlite");
    let c = Connection::open(&path).expect("open");
    c.pragma_update(None, "user_version", 99).expect("set");
    drop(c);
    assert!(matches!(
        History::open(&path),
        Err(HistoryError::Newer { found: 99, .. })
    ));
}
