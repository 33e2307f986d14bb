//! Two `mcpseal lock` runs on one lock file at once: the second waits for the first's
//! read-decide-write (the advisory writer lock) and decides against what the first wrote, or,
//! told not to wait that long, refuses naming the first. Real processes; the first one is held
//! in its capture by a fixture that answers slowly, and the test acts once the fixture's
//! request log shows that capture under way.

mod lock_support;
mod proc_support;

use lock_support::{Work, base_surface, with_new_tool};
use proc_support::{names, spawn, wait_for_request};

#[test]
fn the_second_run_waits_and_decides_against_the_first_runs_lock() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let other = w.surface("other.json", &with_new_tool(&base_surface(), "extra"));
    let log = w.path("first.log");
    let first = spawn(
        w.dir.path(),
        &["lock"],
        &[
            "--surface",
            &v1,
            "--server-version",
            "1.0.0",
            "--delay",
            "400",
            "--request-log",
            &log.to_string_lossy(),
        ],
    );
    // `tools/list` is sent inside the lock workflow, after the writer lock was taken and the
    // (absent) lock file read; the slow answers keep the first run there for seconds.
    wait_for_request(&log, "tools/list");
    assert!(w.path("surface.lock.json.lock").exists());
    let second = spawn(
        w.dir.path(),
        &["lock"],
        &["--surface", &other, "--server-version", "1.0.0"],
    );
    let first = first.finish();
    let second = second.finish();

    assert_eq!(first.code, Some(0), "{first:?}");
    assert!(
        first
            .stdout
            .starts_with("locked `surface.lock.json` at 1.0.0"),
        "{first:?}"
    );
    // Without the writer lock the second run would have read no lock file, created one for
    // its own surface and replaced the first run's: both would exit 0.
    assert_eq!(second.code, Some(1), "{second:?}");
    assert!(
        second
            .stderr
            .contains("refused: the surface changed but the version is still 1.0.0"),
        "{second:?}"
    );
    let lock = String::from_utf8(w.lock_bytes()).expect("UTF-8");
    assert!(
        !lock.contains("\"extra\""),
        "the first run's surface is locked: {lock}"
    );
    assert!(lock.contains("\"echo\""), "{lock}");
    assert_eq!(
        names(w.dir.path()),
        ["first.log", "other.json", "surface.lock.json", "v1.json"],
        "the sidecar is removed when the last writer lets go"
    );
}

#[test]
fn a_run_that_may_not_wait_refuses_naming_the_holder() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let log = w.path("first.log");
    let first = spawn(
        w.dir.path(),
        &["lock"],
        &[
            "--surface",
            &v1,
            "--server-version",
            "1.0.0",
            "--delay",
            "400",
            "--request-log",
            &log.to_string_lossy(),
        ],
    );
    wait_for_request(&log, "tools/list");
    let second = spawn(
        w.dir.path(),
        &["lock", "--lock-timeout", "100ms"],
        &["--surface", &v1, "--server-version", "1.0.0"],
    );
    let second = second.finish();
    assert_eq!(second.code, Some(2), "{second:?}");
    let mut lines = second.stderr.lines();
    let message = lines.next().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "error: `surface.lock.json` is being written by another `mcpseal lock` (pid {}, since ",
            first.pid
        )) && message.ends_with("); it did not finish within 100ms"),
        "{second:?}"
    );
    assert_eq!(
        lines.next(),
        Some(
            "hint: let the other run finish, or wait longer with `--lock-timeout`; the lock is released as soon as that process exits, however it exits"
        ),
        "{second:?}"
    );
    assert_eq!(second.stdout, "");
    let first = first.finish();
    assert_eq!(first.code, Some(0), "{first:?}");
    // The refused run touched nothing: the lock is the first run's, and nothing else is left.
    assert_eq!(
        names(w.dir.path()),
        ["first.log", "surface.lock.json", "v1.json"]
    );
}
