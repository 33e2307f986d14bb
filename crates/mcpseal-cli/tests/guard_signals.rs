//! `mcpseal guard` and its lock writer under signals and other writers, with real processes:
//! the proxy stops on SIGINT/SIGTERM like every command (130/143, one `interrupted: …` line,
//! the servers it started gone — during its start-up listing too); `guard approve` is a writer
//! of the lock file like `mcpseal lock` (it takes the writer lock, waits for it bounded and is
//! interrupted like `lock`); and it refuses to approve into a lock written for another server
//! name unless `--allow-rename`.
//!
//! Synchronisation is the fixture's `--request-log` (a request in flight), never a sleep.

mod lock_support;
mod proc_support;

use std::io::Write as _;

use lock_support::{Work, base_surface, with_new_tool};
use proc_support::{
    Signal, group_gone, live_members, names, spawn, spawn_piped, wait_for_log, wait_for_request,
};
use serde_json::json;

/// A request timeout far beyond the tests' deadline: only a signal ends a hung run.
const PATIENT: [&str; 2] = ["--timeout", "10m"];

fn locked(w: &Work, surface: &serde_json::Value) -> Vec<u8> {
    let v1 = w.surface("v1.json", surface);
    let created = w.run(
        &["lock"],
        Some(&["--surface", &v1, "--server-version", "1.0.0"]),
    );
    assert_eq!(created.code, 0, "{created:?}");
    w.lock_bytes()
}

#[test]
fn a_signal_during_the_guards_start_up_listing_stops_it_and_its_server() {
    let w = Work::new();
    locked(&w, &base_surface());
    let v1 = w.path("v1.json").to_string_lossy().into_owned();
    let log = w.path("requests.log").to_string_lossy().into_owned();
    // The host keeps stdin open: only the signal can end this guard.
    let (run, _stdin) = spawn_piped(
        w.dir.path(),
        &["guard", PATIENT[0], PATIENT[1]],
        &[
            "--surface",
            &v1,
            "--hang-on",
            "tools/list",
            "--request-log",
            &log,
        ],
    );
    let server = wait_for_request(std::path::Path::new(&log), "tools/list");
    assert!(live_members(server.pgid).contains(&server.pid));
    run.signal(Signal::SIGTERM);
    let out = run.finish();
    // Before the guard took the shared signals, this signal was caught and never acted on: the
    // guard's own handler was registered only once the listing had ended.
    assert_eq!(out.code, Some(143), "{out:?}");
    assert_eq!(
        out.stderr.lines().last(),
        Some(
            "interrupted: SIGTERM; mcpseal guard stopped, killed the servers it started and changed no file"
        ),
        "{out:?}"
    );
    assert_eq!(out.stdout, "", "nothing was served");
    assert_eq!(
        group_gone(server.pgid),
        Vec::<u32>::new(),
        "server group gone"
    );
}

#[test]
fn a_signal_while_the_guard_serves_stops_it_and_its_upstream() {
    let w = Work::new();
    locked(&w, &base_surface());
    let v1 = w.path("v1.json").to_string_lossy().into_owned();
    let log = w.path("requests.log");
    let (run, mut stdin) = spawn_piped(
        w.dir.path(),
        &["guard"],
        &["--surface", &v1, "--request-log", &log.to_string_lossy()],
    );
    // The start-up listing ran on a process of its own; the served upstream is the second one.
    let first = wait_for_request(&log, "tools/list");
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    writeln!(stdin, "{request}").expect("write");
    stdin.flush().expect("flush");
    let seen = wait_for_log(&log, "a request to the served upstream", |r| {
        r.iter().any(|r| r.pid != first.pid)
    });
    let upstream = seen
        .iter()
        .find(|r| r.pid != first.pid)
        .expect("the served upstream")
        .clone();
    assert!(live_members(upstream.pgid).contains(&upstream.pid));
    run.signal(Signal::SIGINT);
    let out = run.finish();
    assert_eq!(out.code, Some(130), "{out:?}");
    assert_eq!(
        out.stderr.lines().last(),
        Some(
            "interrupted: SIGINT; mcpseal guard stopped, killed the servers it started and changed no file"
        ),
        "{out:?}"
    );
    assert_eq!(
        group_gone(upstream.pgid),
        Vec::<u32>::new(),
        "the upstream's group is gone"
    );
    assert_eq!(group_gone(first.pgid), Vec::<u32>::new());
}

#[test]
fn approve_holds_the_writer_lock_and_a_sigint_leaves_the_lock_unchanged() {
    let w = Work::new();
    let before = locked(&w, &base_surface());
    let v2 = w.surface("v2.json", &with_new_tool(&base_surface(), "extra"));
    let log = w.path("requests.log").to_string_lossy().into_owned();
    let approve = spawn(
        w.dir.path(),
        &["guard", "approve", "--all", PATIENT[0], PATIENT[1]],
        &[
            "--surface",
            &v2,
            "--server-version",
            "2.0.0",
            "--hang-on",
            "tools/list",
            "--request-log",
            &log,
        ],
    );
    let server = wait_for_request(std::path::Path::new(&log), "tools/list");
    assert!(
        w.path("surface.lock.json.lock").exists(),
        "approve holds the writer lock while it lists"
    );
    // Another writer is refused, naming approve.
    let v1 = w.path("v1.json").to_string_lossy().into_owned();
    let other = w.run(
        &["lock", "--lock-timeout", "100ms"],
        Some(&["--surface", &v1, "--server-version", "1.0.0"]),
    );
    assert_eq!(other.code, 2, "{other:?}");
    assert!(
        other.stderr.starts_with(&format!(
            "error: `surface.lock.json` is being written by another `mcpseal guard approve` (pid {}, since ",
            approve.pid
        )),
        "{other:?}"
    );
    approve.signal(Signal::SIGINT);
    let out = approve.finish();
    assert_eq!(out.code, Some(130), "{out:?}");
    assert_eq!(
        out.stderr,
        "interrupted: SIGINT; mcpseal guard stopped, killed the servers it started and left `surface.lock.json` unchanged\n"
    );
    assert_eq!(w.lock_bytes(), before, "the lock is byte-identical");
    assert_eq!(
        names(w.dir.path()),
        ["requests.log", "surface.lock.json", "v1.json", "v2.json"],
        "no temporary file and no sidecar left"
    );
    assert_eq!(
        group_gone(server.pgid),
        Vec::<u32>::new(),
        "server group gone"
    );
}

#[test]
fn approve_waits_for_another_writer_and_refuses_when_it_may_not_wait() {
    let w = Work::new();
    let before = locked(&w, &base_surface());
    let v1 = w.path("v1.json").to_string_lossy().into_owned();
    let v2 = w.surface("v2.json", &with_new_tool(&base_surface(), "extra"));
    let log = w.path("lock.log").to_string_lossy().into_owned();
    // A `mcpseal lock` holds the writer lock (its server never answers tools/list).
    let holder = spawn(
        w.dir.path(),
        &["lock", PATIENT[0], PATIENT[1]],
        &[
            "--surface",
            &v1,
            "--server-version",
            "1.0.0",
            "--hang-on",
            "tools/list",
            "--request-log",
            &log,
        ],
    );
    wait_for_request(std::path::Path::new(&log), "tools/list");
    let refused = w.run(
        &["guard", "approve", "--all", "--lock-timeout", "100ms"],
        Some(&["--surface", &v2, "--server-version", "2.0.0"]),
    );
    assert_eq!(refused.code, 2, "{refused:?}");
    let mut lines = refused.stderr.lines();
    let message = lines.next().unwrap_or_default();
    assert!(
        message.starts_with(&format!(
            "error: `surface.lock.json` is being written by another `mcpseal lock` (pid {}, since ",
            holder.pid
        )) && message.ends_with("); it did not finish within 100ms"),
        "{refused:?}"
    );
    assert!(
        lines
            .next()
            .is_some_and(|l| l.starts_with("hint: let the other run finish")),
        "{refused:?}"
    );
    assert_eq!(w.lock_bytes(), before);
    holder.signal(Signal::SIGINT);
    assert_eq!(holder.finish().code, Some(130));
    // Once the other writer is gone, the same approval goes through.
    let approved = w.run(
        &["guard", "approve", "--all", "--lock-timeout", "100ms"],
        Some(&["--surface", &v2, "--server-version", "2.0.0"]),
    );
    assert_eq!(approved.code, 0, "{approved:?}");
    assert!(
        String::from_utf8_lossy(&w.lock_bytes()).contains("\"extra\""),
        "the approval was written"
    );
}

#[test]
fn approve_refuses_a_lock_written_for_another_server_name_unless_allow_rename() {
    let w = Work::new();
    let before = locked(&w, &base_surface());
    let mut renamed = with_new_tool(&base_surface(), "extra");
    renamed["serverInfo"]["name"] = json!("other-server");
    let v2 = w.surface("v2.json", &renamed);
    let fixture = ["--surface", v2.as_str(), "--server-version", "2.0.0"];

    // review says it plainly, and counts it as pending.
    let review = w.run(&["guard", "review"], Some(&fixture));
    assert_eq!(review.code, 1, "{review:?}");
    assert!(
        review.stdout.starts_with(
            "this lock was written for `seal-test`; the server says `other-server`: the guard refuses everything it serves\n"
        ),
        "{review:?}"
    );

    for args in [
        &["guard", "approve", "--all"][..],
        &["guard", "approve", "tools/extra"][..],
    ] {
        let refused = w.run(args, Some(&fixture));
        assert_eq!(refused.code, 2, "{args:?}: {refused:?}");
        assert_eq!(
            refused.stderr,
            "error: this lock was written for `seal-test`; the server says `other-server`: nothing was written\n\
             hint: point `--lock` at this server's own lock; if the server was renamed on purpose, pass `--allow-rename` to approve under its new name\n",
            "{args:?}"
        );
        assert_eq!(w.lock_bytes(), before, "nothing written");
    }

    let approved = w.run(
        &["guard", "approve", "tools/extra", "--allow-rename"],
        Some(&fixture),
    );
    assert_eq!(approved.code, 0, "{approved:?}");
    assert!(
        approved.stdout.starts_with(
            "approved server name `seal-test` → `other-server`\napproved tool:extra\n"
        ),
        "{approved:?}"
    );
    let lock: serde_json::Value =
        serde_json::from_slice(&w.lock_bytes()).expect("the lock is JSON");
    let text = lock.to_string();
    assert!(text.contains("\"other-server\""), "{text}");
    assert!(!text.contains("\"seal-test\""), "{text}");
    // The lock now pins the renamed server: nothing is pending.
    let review = w.run(&["guard", "review"], Some(&fixture));
    assert_eq!(review.code, 0, "{review:?}");
}
