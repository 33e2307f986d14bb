//! The stdio transport: one JSON-RPC message per line on stdin, answers on stdout.
//!
//! stdout carries protocol messages only (logs belong on stderr, which this crate never writes).
//! Lines are bounded ([`Options::max_message_bytes`](crate::Options)): a longer one is refused
//! with `-32600` and skipped without being buffered. Requests run concurrently, so a
//! `subscriptions/listen` stream or a slow call never blocks the next request; each answer is
//! one line, written whole by a single writer task, and a write that does not finish within
//! [`Options::write_timeout`](crate::Options) ends the server (the client stopped reading).
//! `notifications/cancelled` drops the named request (no answer follows). At end of input the
//! server lets running calls finish, ends listen streams gracefully, flushes and returns.

use std::collections::HashMap;
use std::time::Duration;

use mcpseal_protocol::framing::{Frame, LineFramer, encode_line};
use mcpseal_protocol::method::code;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};

use crate::error::{RpcError, ServeError};
use crate::handler::Handler;
use crate::out::Out;
use crate::server::{Handled, Server, error_response};

/// How long listen streams get to send their final result at end of input.
const LISTEN_GRACE: Duration = Duration::from_secs(2);

impl<H: Handler> Server<H> {
    /// Serves this process's stdin and stdout until stdin ends.
    ///
    /// # Errors
    /// Reading stdin failed, or writing stdout failed or stalled past the write timeout (a
    /// closed stdout is a normal end, not an error).
    pub async fn serve_stdio(&self) -> Result<(), ServeError> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serves newline-delimited JSON-RPC read from `reader`, answering on `writer`, until
    /// `reader` ends (the same transport as [`Server::serve_stdio`], on any byte streams).
    ///
    /// # Errors
    /// As [`Server::serve_stdio`].
    pub async fn serve_io<R, W>(&self, mut reader: R, writer: W) -> Result<(), ServeError>
    where
        R: AsyncRead + Unpin,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (lines, line_rx) = mpsc::channel::<Vec<u8>>(64);
        let write_timeout = self.inner.options.write_timeout;
        let mut writer_task = tokio::spawn(write_lines(writer, line_rx, write_timeout));
        let mut framer = LineFramer::new(self.inner.options.max_message_bytes);
        let mut buf = vec![0u8; 64 * 1024];
        let mut frames = Vec::new();
        let mut running: HashMap<String, AbortHandle> = HashMap::new();
        let mut calls = JoinSet::new();
        let mut listens = JoinSet::new();
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<String>();
        let read_error = loop {
            tokio::select! {
                n = reader.read(&mut buf) => match n {
                    Ok(0) => break None,
                    Ok(n) => {
                        framer.feed(&buf[..n], &mut frames);
                        for frame in frames.drain(..) {
                            let handled = match frame {
                                Frame::Line(line) => match parse(&line) {
                                    None => continue,
                                    Some(Ok(msg)) => self.handle(msg, None),
                                    Some(Err(e)) => Handled::Reply { body: error_response(&Value::Null, &e), status: 400 },
                                },
                                Frame::Oversize => {
                                    let e = RpcError::new(code::INVALID_REQUEST, format!(
                                        "Message larger than {} bytes", framer.max()
                                    ));
                                    Handled::Reply { body: error_response(&Value::Null, &e), status: 400 }
                                }
                            };
                            match handled {
                                Handled::Reply { body, .. } => {
                                    if send(&lines, &body).await.is_err() {
                                        break;
                                    }
                                }
                                Handled::Accepted { cancelled } => {
                                    if let Some(task) = cancelled.and_then(|id| running.remove(&id.to_string())) {
                                        task.abort();
                                    }
                                }
                                Handled::Running { out, work, id, listen } => {
                                    let key = id.to_string();
                                    running.insert(key.clone(), tokio::spawn(work).abort_handle());
                                    let forward = forward(out, lines.clone(), done_tx.clone(), key);
                                    if listen {
                                        listens.spawn(forward);
                                    } else {
                                        calls.spawn(forward);
                                    }
                                }
                            }
                        }
                    }
                    Err(e) => break Some(e),
                },
                Some(key) = done_rx.recv() => {
                    running.remove(&key);
                }
                w = &mut writer_task => {
                    // The writer only stops on its own when a write failed or stalled.
                    abort_all(&running);
                    return w.unwrap_or(Ok(()));
                }
            }
        };
        // End of input: running calls finish (each bounded by the request timeout), listen
        // streams end with their final result, then the writer drains.
        while calls.join_next().await.is_some() {}
        self.shutdown();
        let drained = tokio::time::timeout(LISTEN_GRACE, async {
            while listens.join_next().await.is_some() {}
        });
        if drained.await.is_err() {
            listens.abort_all();
        }
        abort_all(&running);
        drop(lines);
        drop(done_tx);
        let written = writer_task.await.unwrap_or(Ok(()));
        match read_error {
            Some(source) => Err(ServeError::Io {
                what: "stdin",
                source,
            }),
            None => written,
        }
    }
}

fn abort_all(running: &HashMap<String, AbortHandle>) {
    for task in running.values() {
        task.abort();
    }
}

/// A line as a message: `None` for a blank line, an error reply for invalid JSON or UTF-8.
fn parse(line: &[u8]) -> Option<Result<Value, RpcError>> {
    let text = line.trim_ascii();
    if text.is_empty() {
        return None;
    }
    Some(
        serde_json::from_slice(text)
            .map_err(|e| RpcError::new(code::PARSE_ERROR, format!("Parse error: {e}"))),
    )
}

async fn send(lines: &mpsc::Sender<Vec<u8>>, message: &Value) -> Result<(), ()> {
    let line = encode_line(message).map_err(|_| ())?;
    lines.send(line).await.map_err(|_| ())
}

/// Copies one request's outgoing messages to the writer, then reports the request done.
async fn forward(
    mut out: mpsc::Receiver<Out>,
    lines: mpsc::Sender<Vec<u8>>,
    done: mpsc::UnboundedSender<String>,
    key: String,
) {
    while let Some(o) = out.recv().await {
        let (line, last) = match o {
            Out::Notification(n) => match encode_line(&n) {
                Ok(line) => (line, false),
                Err(_) => break,
            },
            Out::Final { body, .. } => (body.to_vec_with(b"", b"\n"), true),
        };
        if lines.send(line).await.is_err() || last {
            break;
        }
    }
    let _ = done.send(key);
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::Receiver<Vec<u8>>,
    timeout: Duration,
) -> Result<(), ServeError> {
    while let Some(line) = lines.recv().await {
        let write = async {
            writer.write_all(&line).await?;
            writer.flush().await
        };
        match tokio::time::timeout(timeout, write).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            Ok(Err(source)) => {
                return Err(ServeError::Io {
                    what: "stdout",
                    source,
                });
            }
            Err(_) => {
                return Err(ServeError::WriteTimeout {
                    what: "stdout",
                    seconds: timeout.as_secs(),
                });
            }
        }
    }
    Ok(())
}
