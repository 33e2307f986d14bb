//! A stdio server runs in its own process group, and nothing of that group outlives the
//! connection: not the grandchildren that keep its stdout open, not a server that blocks
//! SIGTERM and ignores the end of its input, not one that closed its stdout and runs on;
//! whether the connection is closed, dropped or killed. Checked through `/proc`.

use std::path::Path;
use std::time::{Duration, Instant};

use mcpseal_client::{Connection, Options, Request, Target, TransportErrorKind};
use mcpseal_fixtures::group::{alive_in_group, recorded};
use mcpseal_fixtures::hostile_argv;

const DEADLINE: Duration = Duration::from_secs(30);

fn options() -> Options {
    Options {
        timeout: Duration::from_secs(5),
        ..Options::default()
    }
}

/// Opens the hostile server with `case` and a pid file, and waits until `processes` of it
/// have recorded themselves; returns the connection and the group id.
async fn open(case: &str, pid_file: &Path, processes: usize) -> (Connection, u32) {
    let file = pid_file.to_str().expect("utf-8");
    let conn = Connection::open(
        &Target::stdio(hostile_argv(&["--case", case, "--pid-file", file])),
        options(),
    )
    .await
    .expect("starts");
    // The first answer means the server runs (and its grandchildren were started).
    let ex = conn.send(Request::modern("server/discover", None)).await;
    assert!(ex.result().is_some(), "{ex:?}");
    let leader = conn.process_id().expect("a pid");
    let started = Instant::now();
    while recorded(pid_file).len() < processes {
        assert!(started.elapsed() < DEADLINE, "{:?}", recorded(pid_file));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Every process of the server is in the group the server leads.
    for (pid, pgid) in recorded(pid_file) {
        assert_eq!(pgid, leader, "process {pid} is in the server's own group");
    }
    (conn, leader)
}

/// Waits (bounded) until no live process is left in `group`.
async fn gone(group: u32) {
    let started = Instant::now();
    loop {
        let left = alive_in_group(group);
        if left.is_empty() {
            return;
        }
        assert!(started.elapsed() < DEADLINE, "still alive: {left:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn grandchildren_holding_stdout_do_not_hide_a_dead_server_nor_outlive_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let pids = dir.path().join("pids");
    let (conn, group) = open("grandchildren", &pids, 3).await;
    assert_eq!(alive_in_group(group).len(), 3);
    // The server exits at `tools/list`; its grandchildren still hold stdout open, yet the
    // death is reported at once (their group is killed, stdout reaches EOF), not by a timeout.
    let started = Instant::now();
    let ex = conn.send(Request::modern("tools/list", None)).await;
    let err = ex.transport_error.expect("no answer");
    assert_eq!(err.kind, TransportErrorKind::Closed, "{err:?}");
    assert!(err.message.contains("exit code 3"), "{err:?}");
    assert!(
        started.elapsed() < options().timeout,
        "{:?}",
        started.elapsed()
    );
    conn.close().await;
    gone(group).await;
}

#[tokio::test]
async fn closing_ends_the_whole_group_even_when_sigterm_is_blocked() {
    let dir = tempfile::tempdir().expect("tmp");
    let pids = dir.path().join("pids");
    let (conn, group) = open("ignore-sigterm", &pids, 1).await;
    // End of input is ignored and SIGTERM blocked: only the SIGKILL after the grace ends it.
    let started = Instant::now();
    tokio::time::timeout(DEADLINE, conn.close())
        .await
        .expect("close returns");
    assert!(
        alive_in_group(group).is_empty(),
        "{:?}",
        alive_in_group(group)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn dropping_or_killing_the_connection_kills_the_group() {
    let dir = tempfile::tempdir().expect("tmp");
    let (conn, group) = open("grandchildren", &dir.path().join("a"), 3).await;
    drop(conn);
    gone(group).await;
    let (conn, group) = open("grandchildren", &dir.path().join("b"), 3).await;
    conn.kill();
    gone(group).await;
    let later = conn.send(Request::modern("tools/list", None)).await;
    assert!(later.transport_error.is_some(), "{later:?}");
}

#[tokio::test]
async fn a_half_closed_stdout_is_the_end_and_the_process_is_stopped() {
    let dir = tempfile::tempdir().expect("tmp");
    let pids = dir.path().join("pids");
    let (conn, group) = open("half-close", &pids, 1).await;
    let started = Instant::now();
    let ex = conn.send(Request::modern("tools/list", None)).await;
    let err = ex.transport_error.expect("no answer");
    assert_eq!(err.kind, TransportErrorKind::Closed, "{err:?}");
    assert!(
        started.elapsed() < options().timeout,
        "{:?}",
        started.elapsed()
    );
    // Still running (it ignores end of input): close must stop it.
    assert!(!alive_in_group(group).is_empty());
    conn.close().await;
    gone(group).await;
}
