//! Lock workflows through the library: schema, integrity, crash safety, the rules against the
//! fixture server.

use std::path::{Path, PathBuf};

use mcpseal::atomic::{FailPoint, write_atomic_failing};
use mcpseal::client::{Options, Target};
use mcpseal::lock::{LockOptions, LockOutcome, WorkflowError, lock, read_lock};
use mcpseal::surface::lock::{LOCK_SCHEMA, LockError, LockFile, RuleOptions, Version};
use mcpseal::version_source::{SourcedVersion, VersionRequest};
use mcpseal_fixtures::stdio_argv;
use serde_json::Value;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn version(v: &str) -> VersionRequest {
    VersionRequest::Given(SourcedVersion {
        version: Version::parse(v).expect("valid version"),
        source: "test".into(),
    })
}

async fn lock_fixture(
    path: &Path,
    v: &str,
    fixture: &[&str],
) -> Result<mcpseal::lock::LockReport, WorkflowError> {
    let target = Target::stdio(stdio_argv(fixture));
    let conn = mcpseal::open(&target, Options::default())
        .await
        .expect("fixture starts");
    let r = lock(
        &conn,
        async || mcpseal::open(&target, Options::default()).await,
        &LockOptions {
            path: path.to_owned(),
            form: None,
            page_cap: 100,
            exclude: None,
            rules: RuleOptions::default(),
            version: version(v),
            allow_rename: false,
            lock_wait: std::time::Duration::from_secs(60),
            anonymous: None,
            profile: None,
        },
    )
    .await;
    conn.close().await;
    r
}

#[test]
fn committed_locks_and_fresh_ones_validate_against_the_schema() {
    let schema: Value = serde_json::from_str(LOCK_SCHEMA).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    for name in [
        "server-filesystem-2025.3.28.lock.json",
        "server-filesystem-2026.8.31.lock.json",
    ] {
        let text = std::fs::read_to_string(data(name)).expect("test data");
        let doc: Value = serde_json::from_str(&text).expect("JSON");
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        // And the integrity rule, which a schema cannot say.
        let lock = LockFile::parse(&text).expect("integrity holds");
        assert_eq!(lock.render(), text, "{name}: bytes are stable");
    }
    let mut bad: Value = serde_json::from_str(
        &std::fs::read_to_string(data("server-filesystem-2026.8.31.lock.json")).expect("data"),
    )
    .expect("JSON");
    bad["declared"]["sha256"] = Value::from("XYZ");
    assert!(!validator.is_valid(&bad));
    bad["declared"]["sha256"] = Value::from("0".repeat(64));
    bad["schemaVersion"] = Value::from(2);
    assert!(!validator.is_valid(&bad));
}

#[tokio::test]
#[expect(
    clippy::disallowed_methods,
    reason = "a test edits the lock by hand, as a person would"
)]
async fn fresh_lock_validates_and_hand_edits_are_detected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("surface.lock.json");
    let r = lock_fixture(&path, "1.0.0", &[]).await.expect("locks");
    assert_eq!(r.outcome, LockOutcome::Created);
    let text = std::fs::read_to_string(&path).expect("written");
    let schema: Value = serde_json::from_str(LOCK_SCHEMA).expect("schema");
    let doc: Value = serde_json::from_str(&text).expect("JSON");
    assert!(jsonschema::is_valid(&schema, &doc));
    assert!(read_lock(&path).expect("reads").is_some());
    // A hand edit of the stored surface.
    std::fs::write(
        &path,
        text.replace("Echo a message back", "Echo a message back, and mail it"),
    )
    .expect("edit");
    let err = read_lock(&path).expect_err("edited by hand");
    assert!(
        matches!(
            err,
            WorkflowError::Lock {
                source: LockError::EditedByHand { .. },
                ..
            }
        ),
        "{err}"
    );
    // The lock workflow refuses to go on from it, and leaves it alone.
    let before = std::fs::read(&path).expect("read");
    assert!(lock_fixture(&path, "2.0.0", &[]).await.is_err());
    assert_eq!(std::fs::read(&path).expect("read"), before);
}

#[tokio::test]
async fn a_crash_mid_write_leaves_the_old_file_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("surface.lock.json");
    lock_fixture(&path, "1.0.0", &[]).await.expect("locks");
    let old = std::fs::read(&path).expect("read");
    let new_text = old
        .iter()
        .map(|&b| if b == b'1' { b'2' } else { b })
        .collect::<Vec<u8>>();
    for fail in [FailPoint::MidWrite, FailPoint::BeforeRename] {
        assert!(write_atomic_failing(&path, &new_text, fail).is_err());
        assert_eq!(
            std::fs::read(&path).expect("read"),
            old,
            "{fail:?}: old bytes"
        );
        assert!(read_lock(&path).is_ok(), "{fail:?}: still a valid lock");
    }
    // The crash left temp files behind (as a killed process would); they are never read, and
    // the next lock succeeds next to them.
    let leftovers = std::fs::read_dir(dir.path())
        .expect("dir")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .count();
    assert_eq!(leftovers, 2);
    let r = lock_fixture(&path, "1.1.0", &[]).await.expect("re-stamps");
    assert_eq!(r.outcome, LockOutcome::Restamped);
    let lock = read_lock(&path).expect("reads").expect("exists");
    assert_eq!(lock.declared.version, "1.1.0");
}

#[tokio::test]
async fn volatile_surface_is_refused_and_the_file_untouched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("surface.lock.json");
    lock_fixture(&path, "1.0.0", &[]).await.expect("locks");
    let old = std::fs::read(&path).expect("read");
    let r = lock_fixture(&path, "2.0.0", &["--volatile-description", "clock"])
        .await
        .expect("runs");
    assert_eq!(r.outcome, LockOutcome::Volatile);
    assert_eq!(r.diff.changes[0].path, "/tools/name=clock/description");
    assert_eq!(std::fs::read(&path).expect("read"), old);
}
