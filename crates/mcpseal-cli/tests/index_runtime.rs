//! `mcpseal index run --jobs N` sizes its async runtime from N: at most N worker threads (and
//! never more than the cores), counted in `/proc/PID/task` while the run waits on a hanging
//! fixture server.
#![cfg(target_os = "linux")]
#![expect(
    clippy::disallowed_methods,
    reason = "the test writes its inputs and starts the program it checks"
)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Worker threads of the running process `pid` (tokio names them `tokio-rt-worker`; older
/// versions `tokio-runtime-worker`, which `comm` cuts to 15 bytes).
fn workers(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .map(|tasks| {
            tasks
                .filter_map(Result::ok)
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|c| matches!(c.trim(), "tokio-rt-worker" | "tokio-runtime-w"))
                })
                .count()
        })
        .unwrap_or(0)
}

fn workers_with_jobs(dir: &Path, jobs: usize) -> usize {
    let log = dir.join(format!("requests-{jobs}.log"));
    let fixture = mcpseal_fixtures::binary();
    let cohort = dir.join(format!("cohort-{jobs}.toml"));
    std::fs::write(
        &cohort,
        format!(
            "[[target]]\nid = \"hung\"\ninstall = \"cmd:{}\"\nargs = [\"--hang-on\", \"server/discover\", \"--hang-on\", \"initialize\", \"--request-log\", \"{}\"]\nbudget-seconds = 120\nrequest-timeout-seconds = 60\n",
            fixture.display(),
            log.display()
        ),
    )
    .expect("cohort");
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpseal"))
        .args(["index", "run"])
        .arg(&cohort)
        .arg("--out")
        .arg(dir.join(format!("out-{jobs}")))
        .args(["--jobs", &jobs.to_string()])
        .env_remove("MCPSEAL_WORKER_THREADS")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // Wait until the server holds a request: the run is then inside its runtime.
    let deadline = Instant::now() + Duration::from_secs(120);
    while !std::fs::read_to_string(&log).is_ok_and(|l| !l.is_empty()) {
        assert!(Instant::now() < deadline, "the fixture never got a request");
        std::thread::sleep(Duration::from_millis(50));
    }
    let n = workers(child.id());
    let _ = child.kill();
    let _ = child.wait();
    n
}

#[test]
fn the_runtime_is_sized_from_jobs() {
    let work = tempfile::tempdir().expect("work");
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(workers_with_jobs(work.path(), 1), 1);
    assert_eq!(workers_with_jobs(work.path(), 2), 2.min(cores));
    assert_eq!(workers_with_jobs(work.path(), 64), cores.min(64));
}
