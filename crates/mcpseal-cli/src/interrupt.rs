//! Ctrl-C (SIGINT) and SIGTERM, one mechanism for every command.
//!
//! The signals are caught from the moment the runtime starts ([`Signals::listen`]), so neither
//! ends the process by the default action. A command that speaks to a server runs inside
//! [`until_interrupted`]: when a signal arrives, the command's future is **dropped** at the
//! `.await` it is waiting in. Dropping is the cleanup: every resource of a run owns its own
//! undo in `Drop` — a connection kills its stdio server's whole process group (the client's
//! transport), the writer lock of a lock file is released and its sidecar removed
//! (`mcpseal::writer_lock`), a temporary file of the atomic writer is removed
//! (`mcpseal::atomic`) — so an interrupted run leaves what a run that never started would
//! leave, whatever it was doing. `main` then shuts the runtime down (dropping any background
//! task still holding a server), prints one `interrupted: …` line on stderr and exits 130
//! (SIGINT) or 143 (SIGTERM).
//!
//! Why the write itself cannot be torn: the atomic writer is synchronous (no `.await` between
//! its temporary file and its rename), so a signal is acted on before it starts or after it
//! ended. After it ended, the new file is complete, and undoing it would be a second write: the
//! command is left to finish (all it has left is closing its connections and printing what it
//! wrote) and exits with its own code; a second signal stops it at once, and the line then
//! names the file that had been written.
//!
//! `mcpseal serve` stops gracefully instead (it finishes the requests in flight): it takes the
//! same [`Signals`] as its stop signal and reports [`Outcome::Interrupted`] itself.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::pin;

use tokio::sync::watch;

use crate::error::{CliError, Outcome};

/// A caught signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caught {
    /// SIGINT (Ctrl-C): exit 130.
    Interrupt,
    /// SIGTERM: exit 143.
    Terminate,
}

impl Caught {
    /// The exit code: 128 + the signal number, as a shell reports a process killed by it.
    pub fn code(self) -> u8 {
        match self {
            Caught::Interrupt => 130,
            Caught::Terminate => 143,
        }
    }

    /// The signal's name.
    pub fn name(self) -> &'static str {
        match self {
            Caught::Interrupt => "SIGINT",
            Caught::Terminate => "SIGTERM",
        }
    }

    /// The signal an exit code of [`Outcome::Interrupted`] stands for.
    pub fn from_code(code: u8) -> Caught {
        if code == 143 {
            Caught::Terminate
        } else {
            Caught::Interrupt
        }
    }
}

/// The signals caught so far: how many, and the first one.
#[derive(Debug, Clone, Copy, Default)]
struct Seen {
    first: Option<Caught>,
    count: u32,
}

/// SIGINT and SIGTERM, caught for the whole run (cheap to clone).
#[derive(Debug, Clone)]
pub struct Signals {
    seen: watch::Receiver<Seen>,
}

impl Signals {
    /// Starts catching SIGINT and SIGTERM. Call inside the runtime, before the command starts.
    pub fn listen() -> Signals {
        let (tx, seen) = watch::channel(Seen::default());
        let mut source = Source::new();
        tokio::spawn(async move {
            loop {
                let caught = source.next().await;
                tx.send_modify(|s| {
                    s.first.get_or_insert(caught);
                    s.count += 1;
                });
            }
        });
        Signals { seen }
    }

    /// Completes when the `n`-th signal (counting from 1) has been caught, with the first one.
    async fn nth(&self, n: u32) -> Caught {
        let mut seen = self.seen.clone();
        // Copied out at once: the borrowed `Ref` must not live across an `.await`.
        let first = seen
            .wait_for(|s| s.count >= n)
            .await
            .map(|s| s.first.unwrap_or(Caught::Interrupt));
        match first {
            Ok(caught) => caught,
            // The listener never ends while the runtime runs; if it did, never complete.
            Err(_) => std::future::pending().await,
        }
    }

    /// Completes at the first signal, with it (`mcpseal serve`'s stop signal).
    pub async fn caught(&self) -> Caught {
        self.nth(1).await
    }
}

/// The registered signal streams. Registered once, when listening starts: from then on
/// tokio's handler replaces the default action (ending the process) for the life of the
/// process, and no signal falls between two registrations.
struct Source {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

impl Source {
    fn new() -> Source {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Source {
                interrupt: signal(SignalKind::interrupt()).ok(),
                terminate: signal(SignalKind::terminate()).ok(),
            }
        }
        #[cfg(not(unix))]
        {
            Source {}
        }
    }

    /// Waits for the next SIGINT or SIGTERM (never, for a signal that could not be
    /// registered: its default action then still applies).
    async fn next(&mut self) -> Caught {
        #[cfg(unix)]
        {
            let Source {
                interrupt,
                terminate,
            } = self;
            let interrupt = async {
                match interrupt.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            let terminate = async {
                match terminate.as_mut() {
                    Some(s) => s.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                Some(()) = interrupt => Caught::Interrupt,
                Some(()) = terminate => Caught::Terminate,
                else => std::future::pending().await,
            }
        }
        #[cfg(not(unix))]
        {
            match tokio::signal::ctrl_c().await {
                Ok(()) => Caught::Interrupt,
                Err(_) => std::future::pending().await,
            }
        }
    }
}

/// How an interruptible command ended.
#[derive(Debug)]
pub enum Ended {
    /// It ran to its end.
    Finished(Result<Outcome, CliError>),
    /// A signal stopped it; the files it had replaced by then (complete, see the module docs).
    Interrupted(Caught, Vec<PathBuf>),
}

/// Runs `command` until it ends or a signal stops it (see the module docs).
pub async fn until_interrupted<F>(signals: &Signals, command: F) -> Ended
where
    F: Future<Output = Result<Outcome, CliError>>,
{
    let mut command = pin!(command);
    let caught = tokio::select! {
        // A command that completes in the same poll as a signal has finished: its result is
        // what happened.
        biased;
        result = &mut command => return Ended::Finished(result),
        caught = signals.nth(1) => caught,
    };
    if mcpseal::atomic::replaced().is_empty() {
        return Ended::Interrupted(caught, Vec::new());
    }
    tokio::select! {
        biased;
        result = &mut command => Ended::Finished(result),
        caught = signals.nth(2) => Ended::Interrupted(caught, mcpseal::atomic::replaced()),
    }
}

/// The one stderr line of an interrupted run of `command`; `unchanged` is the file it would
/// have written (the lock of `mcpseal lock`), `written` what it had replaced already.
pub fn line(
    caught: Caught,
    command: &str,
    unchanged: Option<&Path>,
    written: &[PathBuf],
) -> String {
    if command == "serve" {
        return format!(
            "interrupted: {}; mcpseal serve stopped serving",
            caught.name()
        );
    }
    let files = if !written.is_empty() {
        let names: Vec<String> = written
            .iter()
            .map(|p| format!("`{}`", p.display()))
            .collect();
        format!("; {} had already been written in full", names.join(", "))
    } else {
        match unchanged {
            Some(p) => format!(" and left `{}` unchanged", p.display()),
            None => " and changed no file".to_owned(),
        }
    };
    format!(
        "interrupted: {}; mcpseal {command} stopped, killed the servers it started{files}",
        caught.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_case() {
        let lock = Path::new("surface.lock.json");
        assert_eq!(
            line(Caught::Interrupt, "lock", Some(lock), &[]),
            "interrupted: SIGINT; mcpseal lock stopped, killed the servers it started and left `surface.lock.json` unchanged"
        );
        assert_eq!(
            line(Caught::Terminate, "probe", None, &[]),
            "interrupted: SIGTERM; mcpseal probe stopped, killed the servers it started and changed no file"
        );
        assert_eq!(
            line(Caught::Interrupt, "lock", Some(lock), &[lock.to_owned()]),
            "interrupted: SIGINT; mcpseal lock stopped, killed the servers it started; `surface.lock.json` had already been written in full"
        );
        assert_eq!(
            line(Caught::Terminate, "serve", None, &[]),
            "interrupted: SIGTERM; mcpseal serve stopped serving"
        );
        assert_eq!(
            Caught::from_code(Caught::Terminate.code()),
            Caught::Terminate
        );
        assert_eq!(
            Caught::from_code(Caught::Interrupt.code()),
            Caught::Interrupt
        );
    }
}
