//! Running mcpseal as a real background process the test can signal, and looking at processes
//! through `/proc`: for the interrupt and concurrent-writer tests.
//!
//! Synchronisation is by readiness signals, never by sleeping: the fixture's `--request-log`
//! line says a request is in flight; the polls below only wait for such a state with a
//! generous deadline (the machine may be loaded).
#![allow(
    clippy::disallowed_methods,
    reason = "ps/kill helpers start programs; not every binary uses them"
)]
#![allow(dead_code, reason = "each test binary uses a different subset")]

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mcpseal_fixtures::stdio_argv;
pub use nix::sys::signal::Signal;

/// How long any state a test waits for may take to appear on a loaded machine.
pub const DEADLINE: Duration = Duration::from_secs(90);
/// How often the polls look.
const POLL: Duration = Duration::from_millis(20);

/// How a run ended.
#[derive(Debug)]
pub struct Out {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// A running `mcpseal`, leader of its own process group (as a shell job is), so that a
/// signal to it reaches nothing the test did not mean.
pub struct Running {
    child: Child,
    pub pid: u32,
    stdout: Option<JoinHandle<String>>,
    stderr: Option<JoinHandle<String>>,
}

fn drain(mut r: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = r.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Starts `mcpseal ARGS -- <fixture FIXTURE…>` in `dir`.
pub fn spawn(dir: &Path, args: &[&str], fixture: &[&str]) -> Running {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("mcpseal"));
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .arg("--")
        .args(stdio_argv(fixture))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    spawn_command(cmd)
}

/// Starts `mcpseal ARGS -- <fixture FIXTURE…>` in `dir` with a pipe on its stdin (a host in
/// front of `mcpseal guard`), returned beside it.
pub fn spawn_piped(
    dir: &Path,
    args: &[&str],
    fixture: &[&str],
) -> (Running, std::process::ChildStdin) {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("mcpseal"));
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .arg("--")
        .args(stdio_argv(fixture))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut running = spawn_command(cmd);
    let stdin = running.child.stdin.take().expect("stdin piped");
    (running, stdin)
}

/// Every request in the fixture's request log at `log`, in order.
pub fn requests(log: &Path) -> Vec<Request> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let mut words = line.split(' ');
            Some(Request {
                pid: words.next()?.parse().ok()?,
                pgid: words.next()?.parse().ok()?,
                method: words.next()?.to_owned(),
            })
        })
        .collect()
}

/// Waits until `pred` holds for the fixture's request log at `log` (within [`DEADLINE`]).
pub fn wait_for_log(log: &Path, what: &str, pred: impl Fn(&[Request]) -> bool) -> Vec<Request> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let seen = requests(log);
        if pred(&seen) {
            return seen;
        }
        assert!(
            Instant::now() < deadline,
            "the request log never showed {what}: {seen:?}"
        );
        std::thread::sleep(POLL);
    }
}

/// Starts `mcpseal ARGS` (an HTTP target in the arguments) in `dir`.
pub fn spawn_args(dir: &Path, args: &[&str]) -> Running {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("mcpseal"));
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    spawn_command(cmd)
}

fn spawn_command(mut cmd: Command) -> Running {
    let mut child = cmd.spawn().expect("mcpseal starts");
    let pid = child.id();
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    Running {
        child,
        pid,
        stdout,
        stderr,
    }
}

impl Running {
    /// Sends `signal` to mcpseal alone (as `kill -INT PID` does).
    pub fn signal(&self, signal: Signal) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.pid).expect("pid fits"));
        nix::sys::signal::kill(pid, signal).expect("signal sent");
    }

    /// Sends `signal` to mcpseal's whole process group, as a terminal sends Ctrl-C to its
    /// foreground job.
    pub fn signal_group(&self, signal: Signal) {
        let pid = nix::unistd::Pid::from_raw(i32::try_from(self.pid).expect("pid fits"));
        nix::sys::signal::killpg(pid, signal).expect("signal sent");
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Waits for it to exit (within [`DEADLINE`]; past it, it is killed and the test fails).
    pub fn finish(mut self) -> Out {
        let deadline = Instant::now() + DEADLINE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "mcpseal (pid {}) did not exit within {DEADLINE:?}; stderr: {}",
                    self.pid,
                    self.stderr
                        .take()
                        .map(|h| h.join().unwrap_or_default())
                        .unwrap_or_default()
                );
            }
            std::thread::sleep(POLL);
        };
        let join = |h: Option<JoinHandle<String>>| {
            h.map(|h| h.join().unwrap_or_default()).unwrap_or_default()
        };
        Out {
            code: status.code(),
            stdout: join(self.stdout.take()),
            stderr: join(self.stderr.take()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One line of a fixture's `--request-log`: the server's pid, its process group, the method.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub pid: u32,
    pub pgid: u32,
    pub method: String,
}

/// Waits until the fixture's request log at `log` holds a request for `method`; returns it.
pub fn wait_for_request(log: &Path, method: &str) -> Request {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let found = text.lines().find_map(|line| {
            let mut words = line.split(' ');
            let pid = words.next()?.parse().ok()?;
            let pgid = words.next()?.parse().ok()?;
            let m = words.next()?;
            (m == method).then(|| Request {
                pid,
                pgid,
                method: m.to_owned(),
            })
        });
        if let Some(r) = found {
            return r;
        }
        assert!(
            Instant::now() < deadline,
            "no `{method}` request in {} within {DEADLINE:?}; log: {text:?}",
            log.display()
        );
        std::thread::sleep(POLL);
    }
}

/// Processes of process group `pgid` that are alive (zombies, which hold no resources and only
/// wait for their parent to reap them, do not count).
pub fn live_members(pgid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            // Fields after the parenthesised command name: state, ppid, pgrp, …
            let Some((_, after)) = stat.rsplit_once(')') else {
                return false;
            };
            let mut fields = after.split_whitespace();
            let state = fields.next().unwrap_or("");
            let group = fields.nth(1).and_then(|g| g.parse::<u32>().ok());
            group == Some(pgid) && state != "Z" && state != "X"
        })
        .collect()
}

/// Waits (within [`DEADLINE`]) until no process of group `pgid` is alive; returns those
/// still alive at the deadline (empty when the group is gone).
pub fn group_gone(pgid: u32) -> Vec<u32> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let live = live_members(pgid);
        if live.is_empty() || Instant::now() > deadline {
            return live;
        }
        std::thread::sleep(POLL);
    }
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}
