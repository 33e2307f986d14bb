//! Newline-delimited JSON-RPC over a child process.
//!
//! The child is spawned directly (no shell). Three tasks serve it: the stdout reader (framing
//! and judging lines, filling the inbox), the stderr reader (diagnostics) and the stdin writer
//! (whole lines, in order, each send bounded by its timeout). When the child exits, the inbox
//! reports it at once, so a crash costs milliseconds, not a timeout. Dropping the transport
//! kills the child.

use std::process::Stdio;
use std::sync::Arc;
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

/// How long a polite close waits for the server to exit at end of input.
const CLOSE_GRACE: Duration = Duration::from_millis(1500);

/// A running stdio server.
pub(crate) struct StdioTransport {
    process: Arc<ServerProcess>,
    writer: StdinWriter,
    tasks: Vec<JoinHandle<()>>,
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        self.writer.abort();
        // `kill_on_drop` reaps the child once the last handle is gone; start now.
        self.process.start_kill();
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
            .kill_on_drop(true);
        if let Some(dir) = &options.cwd {
            cmd.current_dir(dir);
        }
        for (k, v) in &options.env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn()?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let process = Arc::new(ServerProcess::new(child, diagnostics.clone()));
        let (tx, inbox) = Inbox::channel();
        let mut tasks = Vec::new();
        if let Some(stdout) = stdout {
            tasks.push(tokio::spawn(read_stdout(
                stdout,
                options.limits.max_message_bytes,
                tx,
                diagnostics.clone(),
                process.clone(),
            )));
        }
        if let Some(stderr) = stderr {
            tasks.push(tokio::spawn(read_stderr(stderr, diagnostics)));
        }
        let transport = StdioTransport {
            process,
            writer: StdinWriter::spawn(stdin),
            tasks,
        };
        Ok((transport, inbox))
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.process.pid()
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

    /// Closes stdin (a polite server exits at end of input), waits briefly, then kills. A
    /// server still refusing a line we write cannot see the end of input: it is killed at once.
    pub(crate) async fn close(&self) {
        let stuck = self.writer.is_stuck();
        self.writer.close();
        if stuck {
            self.writer.abort();
            self.process.stop(Duration::ZERO).await;
        } else {
            self.process.stop(CLOSE_GRACE).await;
        }
    }
}
