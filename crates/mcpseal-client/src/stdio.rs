//! Newline-delimited JSON-RPC over a child process.
//!
//! The child is spawned directly (no shell), with its stdout read by one task that routes each
//! line: a response goes to the request waiting for its id; a notification is attached to every
//! request in flight; anything else becomes a diagnostic. When the child exits, every waiting
//! request is failed at once, so a crash costs milliseconds, not a timeout. Lines are read with a
//! hard byte limit, so a server that prints 100 MB without a newline fails the request with a
//! clear error instead of exhausting memory. Dropping the transport kills the child.

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::connection::{Diagnostics, SharedDiagnostics};
use crate::exchange::{Exchange, TransportError, TransportErrorKind as Kind, TransportKind};
use crate::target::Options;
use mcpseal_protocol::keys::META_SUBSCRIPTION_ID;
use mcpseal_protocol::{Request, Wait};

enum Outcome {
    Message(Value),
    Failed(TransportError),
}

struct Pending {
    tx: Option<oneshot::Sender<Outcome>>,
    wait: Wait,
    notifications: Vec<Value>,
}

#[derive(Default)]
struct Routing {
    pending: HashMap<String, Pending>,
    closed: Option<TransportError>,
}

type SharedRouting = Arc<Mutex<Routing>>;
type SharedStdin = Arc<tokio::sync::Mutex<Option<ChildStdin>>>;

/// A running stdio server.
pub(crate) struct StdioTransport {
    pid: Option<u32>,
    child: tokio::sync::Mutex<Child>,
    stdin: SharedStdin,
    routing: SharedRouting,
    diagnostics: SharedDiagnostics,
    tasks: Vec<JoinHandle<()>>,
    options: Options,
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        // `kill_on_drop` reaps the child itself.
    }
}

impl StdioTransport {
    pub(crate) fn spawn(
        program: &str,
        args: &[String],
        options: &Options,
        diagnostics: SharedDiagnostics,
    ) -> std::io::Result<StdioTransport> {
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
        let stdin: SharedStdin = Arc::new(tokio::sync::Mutex::new(child.stdin.take()));
        let routing: SharedRouting = Arc::new(Mutex::new(Routing::default()));
        let mut tasks = Vec::new();
        if let Some(stdout) = child.stdout.take() {
            tasks.push(tokio::spawn(read_stdout(
                BufReader::new(stdout),
                options.limits.max_message_bytes,
                routing.clone(),
                stdin.clone(),
                diagnostics.clone(),
            )));
        }
        if let Some(stderr) = child.stderr.take() {
            tasks.push(tokio::spawn(read_stderr(
                BufReader::new(stderr),
                diagnostics.clone(),
            )));
        }
        Ok(StdioTransport {
            pid: child.id(),
            child: tokio::sync::Mutex::new(child),
            stdin,
            routing,
            diagnostics,
            tasks,
            options: options.clone(),
        })
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub(crate) async fn send(&self, request: &Request, id: Value) -> Exchange {
        let message = request.to_message(&id);
        let started = Instant::now();
        let mut exchange = Exchange::sent(TransportKind::Stdio, message.clone());
        let key = id_key(&id);
        let rx = if request.notification {
            None
        } else {
            let (tx, rx) = oneshot::channel();
            let mut routing = lock(&self.routing);
            if let Some(err) = &routing.closed {
                exchange.transport_error = Some(err.clone());
                return exchange;
            }
            routing.pending.insert(
                key.clone(),
                Pending {
                    tx: Some(tx),
                    wait: request.wait,
                    notifications: Vec::new(),
                },
            );
            Some(rx)
        };
        let mut line = match serde_json::to_vec(&message) {
            Ok(l) => l,
            Err(e) => {
                exchange.transport_error = Some(TransportError::new(Kind::Protocol, e.to_string()));
                return exchange;
            }
        };
        line.push(b'\n');
        if let Err(err) = write_line(&self.stdin, &line).await {
            lock(&self.routing).pending.remove(&key);
            exchange.transport_error = Some(self.closed_error(err).await);
            exchange.duration_ms = elapsed_ms(started);
            return exchange;
        }
        let Some(rx) = rx else {
            exchange.duration_ms = elapsed_ms(started);
            return exchange;
        };
        let timeout = request.timeout.unwrap_or(self.options.timeout);
        let outcome = tokio::time::timeout(timeout, rx).await;
        let pending = lock(&self.routing).pending.remove(&key);
        if let Some(p) = pending {
            exchange.notifications = p.notifications;
        }
        match outcome {
            Ok(Ok(Outcome::Message(v))) => {
                // An acknowledgement that ended a listen is kept as a notification, the
                // response stays empty: the server never answered the request itself.
                if v.get("method").is_some() {
                    if !exchange.notifications.contains(&v) {
                        exchange.notifications.push(v);
                    }
                } else {
                    exchange.response = Some(v);
                }
            }
            Ok(Ok(Outcome::Failed(err))) => {
                exchange.transport_error = Some(if err.kind == Kind::Closed {
                    self.closed_error(err).await
                } else {
                    err
                });
            }
            Ok(Err(_)) => {
                exchange.transport_error = Some(TransportError::new(
                    Kind::Closed,
                    "the stdout reader stopped",
                ));
            }
            Err(_) => {
                exchange.transport_error = Some(TransportError::timeout(&request.method, timeout));
            }
        }
        exchange.duration_ms = elapsed_ms(started);
        exchange
    }

    /// Adds the exit status to a "closed" error, waiting briefly for the child to exit.
    async fn closed_error(&self, err: TransportError) -> TransportError {
        let mut child = self.child.lock().await;
        let status =
            tokio::time::timeout(std::time::Duration::from_millis(500), child.wait()).await;
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

    /// Closes stdin (a polite server exits on EOF), waits briefly, then kills.
    pub(crate) async fn close(&self) {
        self.stdin.lock().await.take();
        let mut child = self.child.lock().await;
        if tokio::time::timeout(std::time::Duration::from_millis(1500), child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn elapsed_ms(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The routing key of a JSON-RPC id (`1` and `"1"` are different ids).
pub(crate) fn id_key(id: &Value) -> String {
    id.to_string()
}

async fn write_line(stdin: &SharedStdin, line: &[u8]) -> Result<(), TransportError> {
    let mut guard = stdin.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(TransportError::new(Kind::Closed, "stdin is closed"));
    };
    let res = async {
        w.write_all(line).await?;
        w.flush().await
    }
    .await;
    res.map_err(|e| {
        TransportError::new(
            Kind::Closed,
            format!("could not write to the server's stdin: {e}"),
        )
    })
}

/// Fails every waiting request and refuses new ones.
fn close_all(routing: &SharedRouting, err: TransportError, permanent: bool) {
    let mut r = lock(routing);
    if permanent && r.closed.is_none() {
        r.closed = Some(err.clone());
    }
    for p in r.pending.values_mut() {
        if let Some(tx) = p.tx.take() {
            let _ = tx.send(Outcome::Failed(err.clone()));
        }
    }
}

enum Line {
    Complete(Vec<u8>),
    Oversize,
    Eof { partial: usize },
}

/// Reads one line of at most `max` bytes. After an oversize line the rest of it is skipped on
/// later calls, without buffering it.
async fn read_line<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    max: usize,
    skipping: &mut bool,
) -> std::io::Result<Line> {
    let mut buf = Vec::new();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(Line::Eof { partial: buf.len() });
        }
        let newline = available.iter().position(|&b| b == b'\n');
        let take = newline.unwrap_or(available.len());
        if *skipping {
            reader.consume(take + usize::from(newline.is_some()));
            if newline.is_some() {
                *skipping = false;
            }
            continue;
        }
        if buf.len() + take > max {
            reader.consume(take + usize::from(newline.is_some()));
            *skipping = newline.is_none();
            return Ok(Line::Oversize);
        }
        buf.extend_from_slice(&available[..take]);
        reader.consume(take + usize::from(newline.is_some()));
        if newline.is_some() {
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            return Ok(Line::Complete(buf));
        }
    }
}

async fn read_stdout<R: AsyncBufRead + Unpin>(
    mut reader: R,
    max: usize,
    routing: SharedRouting,
    stdin: SharedStdin,
    diagnostics: SharedDiagnostics,
) {
    let mut skipping = false;
    loop {
        let line = match read_line(&mut reader, max, &mut skipping).await {
            Ok(l) => l,
            Err(e) => {
                let err = TransportError::new(Kind::Closed, format!("reading stdout failed: {e}"));
                close_all(&routing, err, true);
                return;
            }
        };
        match line {
            Line::Eof { partial } => {
                let msg = if partial > 0 {
                    format!(
                        "the server closed stdout after writing an incomplete message ({partial} bytes without a newline)"
                    )
                } else {
                    "the server closed stdout (the process exited)".to_owned()
                };
                lock(&diagnostics).push(format!("[stdout] {msg}"));
                close_all(&routing, TransportError::new(Kind::Closed, msg), true);
                return;
            }
            Line::Oversize => {
                let msg = format!("the server wrote a message larger than the {max}-byte limit");
                lock(&diagnostics).push(format!("[stdout] {msg}"));
                close_all(&routing, TransportError::new(Kind::Oversize, msg), false);
            }
            Line::Complete(bytes) => {
                route_line(&bytes, &routing, &stdin, &diagnostics).await;
            }
        }
    }
}

async fn route_line(
    bytes: &[u8],
    routing: &SharedRouting,
    stdin: &SharedStdin,
    diagnostics: &SharedDiagnostics,
) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        let msg = "the server wrote a line that is not valid UTF-8".to_owned();
        lock(diagnostics).push(format!("[stdout] {msg}"));
        close_all(routing, TransportError::new(Kind::InvalidUtf8, msg), false);
        return;
    };
    if text.trim().is_empty() {
        return;
    }
    let value: Value = match serde_json::from_str(text) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            lock(diagnostics).push(format!("[non-JSON stdout] {}", Diagnostics::cut(text)));
            return;
        }
    };
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let id = value.get("id").cloned();
    match (method, id) {
        // A response.
        (None, Some(id)) => {
            let mut r = lock(routing);
            match r.pending.get_mut(&id_key(&id)).and_then(|p| p.tx.take()) {
                Some(tx) => {
                    let _ = tx.send(Outcome::Message(value));
                }
                None => {
                    drop(r);
                    lock(diagnostics).push(format!(
                        "[stray response] id {} matches no request in flight",
                        Diagnostics::cut(&id.to_string())
                    ));
                }
            }
        }
        // A server-to-client request: 2026 servers must not send these; 2025 servers may. We
        // decline it so the server does not wait on us, and keep it as evidence.
        (Some(method), Some(id)) => {
            lock(diagnostics).push(format!("[server request] {method}"));
            attach(routing, &value);
            let reply = json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "mcpseal does not serve client methods"}});
            if let Ok(mut line) = serde_json::to_vec(&reply) {
                line.push(b'\n');
                let _ = write_line(stdin, &line).await;
            }
        }
        // A notification.
        (Some(method), None) => {
            lock(diagnostics).push(format!("[notification] {method}"));
            let ack_for = (method == "notifications/subscriptions/acknowledged")
                .then(|| {
                    value
                        .pointer("/params/_meta")
                        .and_then(|m| m.get(META_SUBSCRIPTION_ID))
                        .map(id_key)
                })
                .flatten();
            attach(routing, &value);
            if let Some(key) = ack_for {
                let mut r = lock(routing);
                if let Some(p) = r.pending.get_mut(&key)
                    && p.wait == Wait::ResponseOrAcknowledgement
                    && let Some(tx) = p.tx.take()
                {
                    let _ = tx.send(Outcome::Message(value));
                }
            }
        }
        (None, None) => {
            lock(diagnostics).push(format!("[non-JSON-RPC stdout] {}", Diagnostics::cut(text)));
        }
    }
}

/// Attaches a server message to every request in flight.
fn attach(routing: &SharedRouting, value: &Value) {
    let mut r = lock(routing);
    for p in r.pending.values_mut() {
        if p.notifications.len() < 1000 {
            p.notifications.push(value.clone());
        }
    }
}

async fn read_stderr<R: AsyncBufRead + Unpin>(mut reader: R, diagnostics: SharedDiagnostics) {
    let mut skipping = false;
    loop {
        match read_line(&mut reader, 64 * 1024, &mut skipping).await {
            Ok(Line::Complete(bytes)) => {
                let text = String::from_utf8_lossy(&bytes);
                lock(&diagnostics).push_stderr(&text);
            }
            Ok(Line::Oversize) => lock(&diagnostics).push_stderr("<stderr line over 64 KiB cut>"),
            Ok(Line::Eof { .. }) | Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn lines_are_bounded_and_skipped() {
        let data: &[u8] = b"short\nthis line is far too long\nok\npartial";
        let mut reader = BufReader::with_capacity(4, data);
        let mut skip = false;
        let mut out = Vec::new();
        loop {
            match read_line(&mut reader, 8, &mut skip).await.expect("io") {
                Line::Complete(b) => out.push(String::from_utf8(b).expect("utf8")),
                Line::Oversize => out.push("<oversize>".into()),
                Line::Eof { partial } => {
                    out.push(format!("<eof {partial}>"));
                    break;
                }
            }
        }
        assert_eq!(out, ["short", "<oversize>", "ok", "<eof 7>"]);
    }
}
