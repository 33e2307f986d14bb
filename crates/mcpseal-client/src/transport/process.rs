//! The server's process: its exit status, how a closed pipe is explained, and how it is
//! stopped.

use std::time::Duration;

use tokio::process::Child;

use crate::diagnostics::SharedDiagnostics;
use crate::error::TransportError;
use crate::support::lock;

/// How long a closed pipe waits for the exit status it reports.
const EXIT_WAIT: Duration = Duration::from_millis(500);

/// A spawned server process (killed when the last handle is dropped: `kill_on_drop`).
pub(crate) struct ServerProcess {
    child: tokio::sync::Mutex<Child>,
    pid: Option<u32>,
    diagnostics: SharedDiagnostics,
}

impl ServerProcess {
    pub(crate) fn new(child: Child, diagnostics: SharedDiagnostics) -> ServerProcess {
        ServerProcess {
            pid: child.id(),
            child: tokio::sync::Mutex::new(child),
            diagnostics,
        }
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Adds the exit status (waiting briefly for it, and recording it as a diagnostic) and the
    /// last stderr line to the error of a closed pipe.
    pub(crate) async fn explain(&self, err: TransportError) -> TransportError {
        let status = {
            let mut child = self.child.lock().await;
            tokio::time::timeout(EXIT_WAIT, child.wait()).await
        };
        let mut message = err.message;
        if let Ok(Ok(status)) = status {
            let text = match status.code() {
                Some(code) => format!("exit code {code}"),
                None => format!("{status}"),
            };
            lock(&self.diagnostics).record_exit(&text);
            message = format!("{message} ({text})");
        }
        if let Some(last) = lock(&self.diagnostics).last_stderr() {
            message = format!("{message}; last stderr line: {last}");
        }
        TransportError::new(err.kind, message)
    }

    /// Waits up to `grace` for the process to exit, then kills it.
    pub(crate) async fn stop(&self, grace: Duration) {
        let mut child = self.child.lock().await;
        if tokio::time::timeout(grace, child.wait()).await.is_err() {
            let _ = child.kill().await;
        }
    }

    /// Starts killing the process without waiting (for `Drop`); a no-op while someone else
    /// holds the process (they are waiting for its exit and finish soon).
    pub(crate) fn start_kill(&self) {
        if let Ok(mut child) = self.child.try_lock() {
            let _ = child.start_kill();
        }
    }
}
