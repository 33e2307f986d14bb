//! The stdin writer: one task owns the child's stdin and writes queued lines, whole and in
//! order.
//!
//! Why a task and not a lock around stdin: a caller whose time runs out (or whose future is
//! dropped) while its line is half written would otherwise leave half a message in the pipe,
//! and every later message would be glued to it. Here the caller stops *waiting* at its
//! deadline and gets a timeout naming its method; the line itself is still written whole if
//! the server ever reads, so the framing stays intact. And nothing that reads the server's
//! stdout ever waits for stdin: answers to server requests are queued like any other line.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::ChildStdin;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::error::{TransportError, TransportErrorKind as Kind};
use crate::support::lock;

/// Lines queued behind the one being written before writers wait for room.
const QUEUE: usize = 16;

struct Job {
    line: Vec<u8>,
    done: oneshot::Sender<Result<(), TransportError>>,
}

/// The handle on the writer task.
pub(crate) struct StdinWriter {
    tx: Mutex<Option<mpsc::Sender<Job>>>,
    writing: Arc<AtomicBool>,
    task: JoinHandle<()>,
}

fn closed() -> TransportError {
    TransportError::new(Kind::Closed, "stdin is closed")
}

impl StdinWriter {
    /// Starts the writer task over `stdin`.
    pub(crate) fn spawn(stdin: Option<ChildStdin>) -> StdinWriter {
        let (tx, rx) = mpsc::channel(QUEUE);
        let writing = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn(run(stdin, rx, writing.clone()));
        StdinWriter {
            tx: Mutex::new(Some(tx)),
            writing,
            task,
        }
    }

    /// Queues `line` and waits until it is written, at most `timeout` in all (waiting for room
    /// in the queue included). `what` names the message in the timeout error.
    pub(crate) async fn write(
        &self,
        line: Vec<u8>,
        what: &str,
        timeout: Duration,
    ) -> Result<(), TransportError> {
        let deadline = tokio::time::Instant::now() + timeout;
        let Some(tx) = lock(&self.tx).clone() else {
            return Err(closed());
        };
        let (done, written) = oneshot::channel();
        match tokio::time::timeout_at(deadline, tx.send(Job { line, done })).await {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return Err(closed()),
            Err(_) => return Err(TransportError::write_timeout(what, timeout)),
        }
        drop(tx);
        match tokio::time::timeout_at(deadline, written).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(closed()),
            Err(_) => Err(TransportError::write_timeout(what, timeout)),
        }
    }

    /// True while a line is being written and the server has not taken it all: a server in
    /// that state cannot see an end of input, so closing it politely is pointless.
    pub(crate) fn is_stuck(&self) -> bool {
        self.writing.load(Ordering::Acquire)
    }

    /// Accepts no more lines; stdin is closed (EOF for the server) once the queue is written.
    pub(crate) fn close(&self) {
        lock(&self.tx).take();
    }

    /// Stops the task at once, dropping stdin and whatever is queued.
    pub(crate) fn abort(&self) {
        lock(&self.tx).take();
        self.task.abort();
    }
}

async fn run(mut stdin: Option<ChildStdin>, mut rx: mpsc::Receiver<Job>, writing: Arc<AtomicBool>) {
    let mut failed: Option<TransportError> = None;
    while let Some(job) = rx.recv().await {
        let result = match (&failed, stdin.as_mut()) {
            (Some(err), _) => Err(err.clone()),
            (None, None) => Err(closed()),
            (None, Some(w)) => {
                writing.store(true, Ordering::Release);
                let res = async {
                    w.write_all(&job.line).await?;
                    w.flush().await
                }
                .await;
                writing.store(false, Ordering::Release);
                res.map_err(|e| {
                    TransportError::new(
                        Kind::Closed,
                        format!("could not write to the server's stdin: {e}"),
                    )
                })
            }
        };
        if let Err(err) = &result
            && failed.is_none()
        {
            failed = Some(err.clone());
            stdin = None;
        }
        let _ = job.done.send(result);
    }
    // Every handle is gone: dropping stdin here is the server's end of input.
}
