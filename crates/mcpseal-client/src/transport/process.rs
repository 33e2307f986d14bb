//! The server's process group: its leader's exit status, how a closed pipe is explained, and
//! how the whole group is stopped.
//!
//! The server is spawned as the leader of its own process group, so whatever it starts (a
//! launcher's real server, helpers, grandchildren that inherited its stdout) can be ended with
//! it: one signal to the group reaches them all, and nothing the server left behind outlives
//! mcpseal. A task owns the child and waits for the leader; when the leader exits, the rest
//! of its group is killed at once, which also lets a stdout that a grandchild kept open reach
//! EOF, so a dead server is reported as soon as its last bytes are read, never by a timeout.
//!
//! Signals go through `nix` (`killpg`), the workspace's one wrapper of the process APIs (the
//! sandbox already uses it): sending a signal to a group has no safe std API, and `unsafe` is
//! forbidden workspace-wide.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::Child;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::diagnostics::SharedDiagnostics;
use crate::error::TransportError;
use crate::support::lock;

/// How long a closed pipe waits for the exit status it reports.
const EXIT_WAIT: Duration = Duration::from_millis(500);
/// How long the leader may take to be reaped after a SIGKILL.
const REAP_WAIT: Duration = Duration::from_secs(1);
/// How long the rest of the group may take to disappear after a SIGKILL before we stop
/// looking (a killed process is gone within milliseconds; zombies count as members until
/// their new parent reaps them, which we cannot hurry).
const GROUP_WAIT: Duration = Duration::from_millis(200);
/// How often the group is looked at while it disappears.
const REAP_POLL: Duration = Duration::from_millis(10);

/// A spawned server, leader of its own process group (killed, with its group, when the last
/// handle is dropped).
pub(crate) struct ServerProcess {
    pid: Option<u32>,
    group: Option<Arc<Group>>,
    exit: watch::Receiver<Option<String>>,
    waiter: JoinHandle<()>,
    diagnostics: SharedDiagnostics,
}

/// The process group of the server, and whether it is known to be gone (after which it is
/// never signalled again: its id could in principle be reused).
struct Group {
    id: Pid,
    gone: AtomicBool,
}

impl Group {
    /// Sends `signal` to every process of the group; false when the group is gone.
    fn signal(&self, signal: Signal) -> bool {
        if self.gone.load(Ordering::Acquire) {
            return false;
        }
        match killpg(self.id, signal) {
            Err(Errno::ESRCH) => {
                self.gone.store(true, Ordering::Release);
                false
            }
            // EPERM (a member changed its credentials) and the like: nothing more we can do.
            _ => true,
        }
    }

    /// True while some process is left in the group (zombies included, as the kernel counts
    /// them).
    fn alive(&self) -> bool {
        if self.gone.load(Ordering::Acquire) {
            return false;
        }
        match killpg(self.id, None) {
            Err(Errno::ESRCH) => {
                self.gone.store(true, Ordering::Release);
                false
            }
            _ => true,
        }
    }

    /// Waits (polling) up to `within` for the group to disappear.
    async fn gone_within(&self, within: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        while self.alive() {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(REAP_POLL).await;
        }
        true
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // The impolite end (a dropped connection, an interrupted run): no grace, the whole
        // group at once. The waiter owns the child; aborting it drops the child, and
        // `kill_on_drop` has tokio reap it.
        if let Some(group) = &self.group {
            group.signal(Signal::SIGKILL);
        }
        self.waiter.abort();
    }
}

impl ServerProcess {
    /// Takes over a child spawned as the leader of its own process group.
    pub(crate) fn start(child: Child, diagnostics: SharedDiagnostics) -> ServerProcess {
        let pid = child.id();
        let group = pid.and_then(|p| i32::try_from(p).ok()).map(|p| {
            Arc::new(Group {
                id: Pid::from_raw(p),
                gone: AtomicBool::new(false),
            })
        });
        let (tx, exit) = watch::channel(None);
        let waiter = tokio::spawn(wait_for_leader(
            child,
            group.clone(),
            tx,
            diagnostics.clone(),
        ));
        ServerProcess {
            pid,
            group,
            exit,
            waiter,
            diagnostics,
        }
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The leader's exit status as text (`exit code 3`, `signal: 9 (SIGKILL)`), waiting up to
    /// `within` for it; `None` while it still runs.
    async fn exit_within(&self, within: Duration) -> Option<String> {
        let mut rx = self.exit.clone();
        match tokio::time::timeout(within, rx.wait_for(Option::is_some)).await {
            Ok(Ok(status)) => status.clone(),
            _ => None,
        }
    }

    /// Adds the exit status (waiting briefly for it) and the last stderr line to the error of
    /// a closed pipe.
    pub(crate) async fn explain(&self, err: TransportError) -> TransportError {
        let mut message = err.message;
        if let Some(status) = self.exit_within(EXIT_WAIT).await {
            message = format!("{message} ({status})");
        }
        if let Some(last) = lock(&self.diagnostics).last_stderr() {
            message = format!("{message}; last stderr line: {last}");
        }
        TransportError::new(err.kind, message)
    }

    /// Stops the server: waits up to `eof_grace` for it to exit on its own (its stdin was just
    /// closed; `None` when it cannot see that, e.g. it does not read its stdin), then sends
    /// SIGTERM to its whole group and waits up to `term_grace`, then SIGKILL. Returns once the
    /// leader has exited and its group is gone (or a second after the SIGKILL at most).
    pub(crate) async fn stop(&self, eof_grace: Option<Duration>, term_grace: Duration) {
        let exited = match eof_grace {
            Some(grace) => self.exit_within(grace).await.is_some(),
            None => false,
        };
        if !exited && let Some(group) = &self.group {
            group.signal(Signal::SIGTERM);
            if self.exit_within(term_grace).await.is_none() {
                group.signal(Signal::SIGKILL);
            }
        }
        self.exit_within(REAP_WAIT).await;
        if let Some(group) = &self.group {
            // The waiter killed what the leader left behind; give it a moment to go.
            group.gone_within(GROUP_WAIT).await;
        }
    }

    /// Kills the whole group now (SIGKILL), without waiting: for an interrupted run.
    pub(crate) fn kill_group(&self) {
        if let Some(group) = &self.group {
            group.signal(Signal::SIGKILL);
        }
    }
}

/// Owns the child: waits for the leader, records its exit, then kills what is left of its
/// group (processes that inherited its stdout would otherwise keep the pipe open and the
/// server "alive" after it died) and publishes the exit.
async fn wait_for_leader(
    mut child: Child,
    group: Option<Arc<Group>>,
    tx: watch::Sender<Option<String>>,
    diagnostics: SharedDiagnostics,
) {
    let text = match child.wait().await {
        Ok(status) => match status.code() {
            Some(code) => format!("exit code {code}"),
            None => format!("{status}"),
        },
        Err(e) => format!("its exit status could not be read: {e}"),
    };
    lock(&diagnostics).record_exit(&text);
    let _ = tx.send(Some(text));
    if let Some(group) = &group {
        group.signal(Signal::SIGKILL);
    }
}
