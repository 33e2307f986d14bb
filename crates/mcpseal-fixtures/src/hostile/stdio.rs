//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, answers in order; the
//! trigger's act may take over stdout from a thread. Exits at stdin EOF, unless the case
//! ignores it (then it sleeps until killed).

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use crate::Args;
use crate::cases::{self, Case, StdioAct};
use crate::server;

/// stdout, shared with the act threads; `wedged` once an act owns it for good.
struct Out {
    lock: Mutex<()>,
    wedged: AtomicBool,
}

impl Out {
    fn write(&self, bytes: &[u8]) -> io::Result<()> {
        let _guard = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if self.wedged.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut out = io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()
    }

    fn line(&self, mut bytes: Vec<u8>) -> io::Result<()> {
        bytes.push(b'\n');
        self.write(&bytes)
    }
}

/// Serves stdin until EOF.
pub fn serve(args: &Args) -> io::Result<()> {
    let out = Arc::new(Out {
        lock: Mutex::new(()),
        wedged: AtomicBool::new(false),
    });
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let Ok(msg) = serde_json::from_slice::<Value>(line.trim_ascii()) else {
            continue;
        };
        if msg.get("id").is_none() {
            continue; // a notification
        }
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let act = if method == args.on {
            cases::stdio(args, &msg)
        } else {
            None
        };
        match act {
            None => {
                let (answer, _) = if args.case == Case::EchoSecrets {
                    cases::echo::answer(&msg)
                } else {
                    server::answer(&msg)
                };
                out.line(answer.to_string().into_bytes())?;
            }
            Some(act) => run(act, &out)?,
        }
    }
    if args.case.ignores_eof() {
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    Ok(())
}

fn run(act: StdioAct, out: &Arc<Out>) -> io::Result<()> {
    match act {
        StdioAct::Line(bytes) => out.line(bytes)?,
        StdioAct::Hang => {}
        StdioAct::Exit(code) => {
            crate::log(&format!("exiting with code {code} at the trigger"));
            std::process::exit(code);
        }
        StdioAct::HalfClose => {
            // Take stdout for good, then close it.
            let _guard = out
                .lock
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            out.wedged.store(true, Ordering::Release);
            cases::half_close::close_stdout()?;
            crate::log("stdout closed; running on");
        }
        StdioAct::Wedge { chunks, pace } => {
            let out = out.clone();
            std::thread::spawn(move || {
                // Whatever is half written must not be followed by other answers.
                let guard = out
                    .lock
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                out.wedged.store(true, Ordering::Release);
                let mut stdout = io::stdout().lock();
                for chunk in chunks {
                    if let Some(p) = pace {
                        std::thread::sleep(p);
                    }
                    if stdout
                        .write_all(&chunk)
                        .and_then(|()| stdout.flush())
                        .is_err()
                    {
                        return;
                    }
                }
                drop(guard);
            });
        }
        StdioAct::Forever(lines) => {
            let out = out.clone();
            std::thread::spawn(move || {
                for chunk in lines {
                    if out.line(chunk).is_err() {
                        return;
                    }
                }
            });
        }
    }
    Ok(())
}
