//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs on stderr.
//!
//! Deliberately synchronous (plain `std::io`): one message at a time in arrival order, so
//! `--delay` and `--hang-on` are exact and easy to reason about. stdout carries only
//! JSON-RPC unless `--noise`/`--noise-json`; the process exits 0 at stdin EOF (spec: servers SHOULD).

use std::io::{self, BufRead, Write};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::handler::{Handler, Incoming, Transport};
use crate::jsonrpc::{self, Outcome, PARSE_ERROR, RpcError};

/// How much `--flood` writes.
pub const FLOOD_BYTES: usize = 100 * 1024 * 1024;

/// The bytes `--flood` writes, in 1 MiB chunks: a JSON prefix, then padding, never a newline.
pub fn flood_chunks() -> impl Iterator<Item = Vec<u8>> {
    const CHUNK: usize = 1024 * 1024;
    let head = br#"{"jsonrpc":"2.0","id":1,"result":{"pad":""#;
    (0..FLOOD_BYTES / CHUNK).map(move |i| {
        let mut c = vec![b'a'; CHUNK];
        if i == 0 {
            c[..head.len()].copy_from_slice(head);
        }
        c
    })
}

/// The first half of a serialized response (`--half-message`).
pub fn half_of(v: &Value) -> Vec<u8> {
    let s = v.to_string().into_bytes();
    s[..s.len() / 2].to_vec()
}

/// Serve stdin until EOF.
pub fn serve(handler: Arc<Handler>) -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut line = Vec::new();
    let mut flood: Option<std::thread::JoinHandle<()>> = None;
    let mut ask = crate::ask::StdioAsk::default();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            // A flood in progress is finished (or fails on a closed pipe) before exiting.
            if let Some(writer) = flood {
                let _ = writer.join();
            }
            return Ok(());
        }
        let flooding = flood.is_some();
        let text = line.trim_ascii();
        if text.is_empty() || flooding {
            continue;
        }
        let outcome = match serde_json::from_slice::<Value>(text) {
            Ok(msg) if ask.intercept(&handler.knobs, &msg, &mut input)? => continue,
            Ok(msg) => match crate::envgate::refusal(&handler.knobs.envgate, &msg) {
                Some(refused) => refused,
                None => handler.handle(Incoming {
                    msg: &msg,
                    transport: Transport::Stdio,
                    session: None,
                    version_header: None,
                }),
            },
            Err(e) => Outcome::Reply {
                body: jsonrpc::error(
                    &Value::Null,
                    &RpcError::new(PARSE_ERROR, format!("Parse error: {e}")),
                ),
                status: 400,
                session: None,
            },
        };
        if handler.knobs.delay > 0 && !matches!(outcome, Outcome::Accepted | Outcome::Hang) {
            std::thread::sleep(Duration::from_millis(handler.knobs.delay));
        }
        flood = emit(&handler, outcome)?;
    }
}

/// Write one outcome. Returns the flood writer once `--flood` started: then all further
/// input is ignored.
fn emit(handler: &Handler, outcome: Outcome) -> io::Result<Option<std::thread::JoinHandle<()>>> {
    let mut out = io::stdout().lock();
    let noise = |out: &mut io::StdoutLock<'_>| -> io::Result<()> {
        if handler.knobs.noise {
            out.write_all(b"server starting...\n")?;
        }
        if handler.knobs.noise_json {
            out.write_all(b"{\"level\":\"info\",\"msg\":\"handling a request\"}\n")?;
        }
        Ok(())
    };
    match outcome {
        Outcome::Reply { body, .. } => {
            noise(&mut out)?;
            writeln!(out, "{body}")?;
            let (legacy, listens) = {
                let st = handler.state();
                let legacy =
                    handler.knobs.mode == crate::knobs::Mode::Legacy || st.stdio_initialized;
                (legacy, st.listens.iter().cloned().collect::<Vec<_>>())
            };
            for note in
                crate::rugpull::take_notifications(legacy, handler.knobs.list_changed, &listens)
            {
                writeln!(out, "{note}")?;
            }
        }
        Outcome::Listen { before, ack } => {
            noise(&mut out)?;
            for m in before {
                writeln!(out, "{m}")?;
            }
            writeln!(out, "{ack}")?;
        }
        Outcome::Accepted | Outcome::Hang | Outcome::Endless => {}
        Outcome::Crash => {
            log("crash-after reached: exiting with code 3");
            std::process::exit(3);
        }
        Outcome::Flood => {
            drop(out);
            // A writer thread, so stdin EOF still ends the process while the pipe is full.
            return Ok(Some(std::thread::spawn(|| {
                let mut out = io::stdout().lock();
                for chunk in flood_chunks() {
                    if out.write_all(&chunk).and_then(|()| out.flush()).is_err() {
                        return;
                    }
                }
            })));
        }
        Outcome::InvalidUtf8(id) => {
            noise(&mut out)?;
            out.write_all(&jsonrpc::invalid_utf8_bytes(&id))?;
            out.write_all(b"\n")?;
        }
        Outcome::HalfMessage(body) => {
            out.write_all(&half_of(&body))?;
            out.flush()?;
            log("half-message: exiting with code 1");
            std::process::exit(1);
        }
        Outcome::ReplyThenExit(body) => {
            writeln!(out, "{body}")?;
            out.flush()?;
            log("exit-after-discover: exiting with code 0");
            std::process::exit(0);
        }
    }
    out.flush()?;
    Ok(None)
}

/// One log line on stderr (never stdout).
pub fn log(msg: &str) {
    let _ = writeln!(io::stderr(), "mcpseal-fixture: {msg}");
}
