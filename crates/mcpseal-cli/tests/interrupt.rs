//! SIGINT and SIGTERM during commands that speak to a server: a real mcpseal process is
//! signalled while its stdio server holds a request (the fixture's `--hang-on`, and its
//! `--request-log` as the readiness signal), and must exit 130 or 143 with one
//! `interrupted: …` line, its servers' process group gone, no temporary or sidecar file left,
//! and any lock byte-identical.

mod lock_support;
mod proc_support;

use lock_support::{Work, base_surface, with_new_tool};
use proc_support::{Signal, group_gone, live_members, names, spawn, spawn_args, wait_for_request};

/// The arguments that make a run wait on `tools/list` until it is signalled: a request
/// timeout far beyond the test's deadline, and a fixture that never answers `tools/list`.
const PATIENT: [&str; 2] = ["--timeout", "10m"];

fn hanging_fixture<'a>(surface: &'a str, version: &'a str, log: &'a str) -> [&'a str; 8] {
    [
        "--surface",
        surface,
        "--server-version",
        version,
        "--hang-on",
        "tools/list",
        "--request-log",
        log,
    ]
}

#[test]
fn sigint_during_lock_stops_the_server_and_leaves_the_lock_byte_identical() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let v2 = w.surface("v2.json", &with_new_tool(&base_surface(), "extra"));
    let created = w.run(
        &["lock"],
        Some(&["--surface", &v1, "--server-version", "1.0.0"]),
    );
    assert_eq!(created.code, 0, "{created:?}");
    let before = w.lock_bytes();
    let files_before = names(w.dir.path());

    let log = w.path("requests.log").to_string_lossy().into_owned();
    let run = spawn(
        w.dir.path(),
        &["lock", PATIENT[0], PATIENT[1]],
        &hanging_fixture(&v2, "2.0.0", &log),
    );
    let server = wait_for_request(std::path::Path::new(&log), "tools/list");
    // In the middle of read-decide-write: the writer lock is held.
    assert!(
        w.path("surface.lock.json.lock").exists(),
        "the writer lock's sidecar exists while lock runs"
    );
    assert!(live_members(server.pgid).contains(&server.pid));
    run.signal(Signal::SIGINT);
    let out = run.finish();

    assert_eq!(out.code, Some(130), "{out:?}");
    assert_eq!(
        out.stderr,
        "interrupted: SIGINT; mcpseal lock stopped, killed the servers it started and left `surface.lock.json` unchanged\n"
    );
    assert_eq!(out.stdout, "");
    assert_eq!(w.lock_bytes(), before, "the lock is byte-identical");
    let mut expected = files_before;
    expected.push("requests.log".to_owned());
    expected.sort();
    assert_eq!(
        names(w.dir.path()),
        expected,
        "no temporary file and no sidecar left"
    );
    assert_eq!(
        group_gone(server.pgid),
        Vec::<u32>::new(),
        "server group gone"
    );
}

#[test]
fn sigterm_during_a_first_lock_writes_nothing() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let log = w.path("requests.log").to_string_lossy().into_owned();
    let run = spawn(
        w.dir.path(),
        &["lock", PATIENT[0], PATIENT[1]],
        &hanging_fixture(&v1, "1.0.0", &log),
    );
    let server = wait_for_request(std::path::Path::new(&log), "tools/list");
    run.signal(Signal::SIGTERM);
    let out = run.finish();
    assert_eq!(out.code, Some(143), "{out:?}");
    assert_eq!(
        out.stderr,
        "interrupted: SIGTERM; mcpseal lock stopped, killed the servers it started and left `surface.lock.json` unchanged\n"
    );
    assert_eq!(names(w.dir.path()), ["requests.log", "v1.json"]);
    assert_eq!(
        group_gone(server.pgid),
        Vec::<u32>::new(),
        "server group gone"
    );
}

#[test]
fn sigterm_during_snapshot_exits_143_and_writes_no_output_file() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let log = w.path("requests.log").to_string_lossy().into_owned();
    let run = spawn(
        w.dir.path(),
        &["snapshot", "--output", "snap.json", PATIENT[0], PATIENT[1]],
        &hanging_fixture(&v1, "1.0.0", &log),
    );
    let server = wait_for_request(std::path::Path::new(&log), "tools/list");
    run.signal(Signal::SIGTERM);
    let out = run.finish();
    assert_eq!(out.code, Some(143), "{out:?}");
    assert_eq!(
        out.stderr,
        "interrupted: SIGTERM; mcpseal snapshot stopped, killed the servers it started and changed no file\n"
    );
    assert_eq!(names(w.dir.path()), ["requests.log", "v1.json"]);
    assert_eq!(
        group_gone(server.pgid),
        Vec::<u32>::new(),
        "server group gone"
    );
}

#[test]
fn sigint_during_probe_exits_130() {
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let log = w.path("requests.log").to_string_lossy().into_owned();
    let run = spawn(
        w.dir.path(),
        &["probe", PATIENT[0], PATIENT[1]],
        &hanging_fixture(&v1, "1.0.0", &log),
    );
    let server = wait_for_request(std::path::Path::new(&log), "tools/list");
    run.signal(Signal::SIGINT);
    let out = run.finish();
    assert_eq!(out.code, Some(130), "{out:?}");
    assert_eq!(
        out.stderr,
        "interrupted: SIGINT; mcpseal probe stopped, killed the servers it started and changed no file\n"
    );
    assert_eq!(out.stdout, "");
    assert_eq!(
        group_gone(server.pgid),
        Vec::<u32>::new(),
        "server group gone"
    );
}

#[test]
fn sigint_during_check_over_http_exits_130() {
    // An HTTP server is not mcpseal's to stop: the run ends, the server keeps serving.
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let created = w.run(
        &["lock"],
        Some(&["--surface", &v1, "--server-version", "1.0.0"]),
    );
    assert_eq!(created.code, 0, "{created:?}");
    let log = w.path("requests.log");
    let server = mcpseal_fixtures::HttpFixture::start(&[
        "--surface",
        &v1,
        "--hang-on",
        "tools/list",
        "--request-log",
        &log.to_string_lossy(),
    ]);
    let run = spawn_args(
        w.dir.path(),
        &[
            "check",
            "--server-version",
            "1.0.0",
            PATIENT[0],
            PATIENT[1],
            &server.url,
        ],
    );
    let request = wait_for_request(&log, "tools/list");
    run.signal(Signal::SIGINT);
    let out = run.finish();
    assert_eq!(out.code, Some(130), "{out:?}");
    assert_eq!(
        out.stderr,
        "interrupted: SIGINT; mcpseal check stopped, killed the servers it started and changed no file\n"
    );
    assert!(
        live_members(request.pgid).contains(&request.pid),
        "the HTTP server still runs"
    );
}

#[test]
fn the_signal_is_caught_from_the_start() {
    // Interrupted while the server is still starting up (its first request unanswered).
    let w = Work::new();
    let v1 = w.surface("v1.json", &base_surface());
    let log = w.path("requests.log").to_string_lossy().into_owned();
    let run = spawn(
        w.dir.path(),
        &["snapshot", PATIENT[0], PATIENT[1]],
        &[
            "--surface",
            &v1,
            "--hang-on",
            "server/discover",
            "--request-log",
            &log,
        ],
    );
    let server = wait_for_request(std::path::Path::new(&log), "server/discover");
    run.signal(Signal::SIGINT);
    let out = run.finish();
    assert_eq!(out.code, Some(130), "{out:?}");
    assert!(out.stderr.starts_with("interrupted: SIGINT;"), "{out:?}");
    assert_eq!(out.stderr.lines().count(), 1, "{out:?}");
    assert_eq!(
        group_gone(server.pgid),
        Vec::<u32>::new(),
        "server group gone"
    );
}
