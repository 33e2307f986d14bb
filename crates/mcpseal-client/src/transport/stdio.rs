//! Newline-delimited JSON-RPC over a child process.
//!
//! The child is spawned directly (no shell), as the leader of its own process group. Three
//! tasks serve it: the stdout reader (framing and judging lines, filling the inbox), the stderr
//! reader (diagnostics) and the stdin writer (whole lines, in order, each send bounded by its
//! timeout); a fourth waits for it to exit ([`ServerProcess`]). When the child exits, the inbox
//! reports it at once, so a crash costs milliseconds, not a timeout. Closing ends the whole
//! group politely (end of input, then SIGTERM, then SIGKILL); dropping the transport kills the
//! group at once.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::process::Command;
use tokio::task::JoinHandle;

use crate::diagnostics::SharedDiagnostics;
use crate::error::{TransportError, TransportErrorKind as Kind};
use crate::target::Options;
use crate::transport::message::{Inbox, Message};
use crate::transport::process::ServerProcess;
use crate::transport::reader::{read_stderr, read_stdout};
use crate::transport::reply::{Reply, ReplyBody};
use crate::transport::writer::StdinWriter;

/// How long a polite close waits for the server to exit at end of input before SIGTERM.
const EOF_GRACE: Duration = Duration::from_millis(500);
/// How long it then waits after SIGTERM before SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(300);

/// A running stdio server.
pub(crate) struct StdioTransport {
    process: Arc<ServerProcess>,
    partial: Arc<AtomicUsize>,
    writer: StdinWriter,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        self.writer.abort();
        // The reader tasks held the other handles on the process; this is the last one now,
        // and dropping it kills the group.
        self.process.kill_group();
    }
}

impl StdioTransport {
    pub(crate) fn spawn(
        program: &str,
        args: &[String],
        options: &Options,
        diagnostics: SharedDiagnostics,
    ) -> std::io::Result<(StdioTransport, Inbox)> {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own process group (0: the child's pid), so that everything it starts can be
            // ended with it, and a Ctrl-C at mcpseal's terminal reaches mcpseal, which then
            // stops the server, instead of both at once.
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = &options.cwd {
            cmd.current_dir(dir);
        }
        for (k, v) in &options.env {
            cmd.env(k, v);
        }
        for k in &options.env_unset {
            cmd.env_remove(k);
        }
        let mut child = cmd.spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let process = Arc::new(ServerProcess::start(child, diagnostics.clone()));
        let (tx, inbox) = Inbox::channel();
        let partial = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        if let Some(stdout) = stdout {
            tasks.push(tokio::spawn(read_stdout(
                stdout,
                options.limits.max_message_bytes,
                tx,
                diagnostics.clone(),
                process.clone(),
                partial.clone(),
            )));
        }
        if let Some(stderr) = stderr {
            tasks.push(tokio::spawn(read_stderr(stderr, diagnostics)));
        }
        let transport = StdioTransport {
            process,
            partial,
            writer: StdinWriter::spawn(stdin),
            tasks,
        };
        Ok((transport, inbox))
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    /// Bytes of a line the server has begun on stdout and not ended.
    pub(crate) fn partial_line(&self) -> usize {
        self.partial.load(Ordering::Acquire)
    }

    /// Writes `message` as one line within `timeout`. A closed stdin is explained with the
    /// exit status.
    pub(crate) async fn send(
        &self,
        message: &Message,
        timeout: Duration,
    ) -> Result<Reply, TransportError> {
        match self
            .writer
            .write(message.line(), &message.label(), timeout)
            .await
        {
            Ok(()) => Ok(Reply {
                status: None,
                headers: Vec::new(),
                body: ReplyBody::Inbox,
            }),
            Err(err) if err.kind == Kind::Closed => Err(self.process.explain(err).await),
            Err(err) => Err(err),
        }
    }

    /// Closes stdin (a polite server exits at end of input), waits briefly, then SIGTERM to the
    /// group, briefly again, then SIGKILL. A server still refusing a line we write cannot see
    /// the end of input: it gets SIGTERM at once.
    pub(crate) async fn close(&self) {
        let stuck = self.writer.is_stuck();
        self.writer.close();
        if stuck {
            self.writer.abort();
            self.process.stop(None, TERM_GRACE).await;
        } else {
            self.process.stop(Some(EOF_GRACE), TERM_GRACE).await;
        }
    }

    /// Kills the server's whole process group now, without a grace (an interrupted run).
    pub(crate) fn kill(&self) {
        self.writer.abort();
        self.process.kill_group();
    }
}
