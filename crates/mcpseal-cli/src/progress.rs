//! The progress display: the library's [`mcpseal::progress`] events drawn as one spinner or bar
//! on stderr (indicatif), so a 30-second probe does not leave the terminal blank.
//!
//! Shown only when stderr is a terminal and `--quiet` is not given, whatever goes to stdout:
//! the display lives on stderr alone and is erased before any result is written, so
//! `mcpseal probe --format json | jq` on a terminal still shows what it waits for while the
//! JSON stays clean, and in CI (stderr not a terminal) nothing is drawn at all. Only commands
//! that wait on servers or installs take part ([`shows_progress`]); `serve` and `guard` run
//! for as long as they are wanted, and `call` may ask questions at the terminal.
//!
//! Every write of the output module goes through here first: stdout output ends the display
//! (the wait is over), a note on stderr is written with the display suspended, so lines never
//! tear.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mcpseal::progress::{Event, Progress};

use crate::args::Command;
use crate::publish_args::{CardCommand, RegistryCommand};

/// The display of this run, while it is drawn.
static ACTIVE: Mutex<Option<ProgressBar>> = Mutex::new(None);

fn active() -> MutexGuard<'static, Option<ProgressBar>> {
    ACTIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `command` waits long enough to show progress.
pub fn shows_progress(command: &Command) -> bool {
    match command {
        Command::Snapshot(_)
        | Command::Probe(_)
        | Command::Lock(_)
        | Command::Check(_)
        | Command::Verify(_)
        | Command::Diff(_)
        | Command::Replay(_) => true,
        Command::Registry(a) => matches!(a.command, RegistryCommand::Verify(_)),
        Command::Card(a) => matches!(a.command, CardCommand::Check(_)),
        _ => false,
    }
}

/// Runs `future` with the progress display of `command` (named `name`) when it should be
/// shown; otherwise runs it as it is.
pub async fn scoped<F: Future>(name: &'static str, show: bool, future: F) -> F::Output {
    let target = ProgressDrawTarget::stderr();
    if !show || target.is_hidden() {
        return future.await;
    }
    let bar = ProgressBar::with_draw_target(None, target);
    bar.set_style(spinner_style());
    bar.set_prefix(name);
    bar.set_message("starting");
    bar.enable_steady_tick(Duration::from_millis(120));
    *active() = Some(bar.clone());
    let sink = Arc::new(Display {
        bar,
        counting: Mutex::new(false),
    });
    let out = mcpseal::progress::scope(sink, future).await;
    finish();
    out
}

/// Erases the display for good (the result is about to be written).
pub fn finish() {
    if let Some(bar) = active().take() {
        bar.finish_and_clear();
    }
}

/// Runs `write` with the display hidden, then draws it again.
pub fn suspend<R>(write: impl FnOnce() -> R) -> R {
    let bar = active().clone();
    match bar {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {prefix}: {wide_msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {prefix}: {wide_msg} {pos}/{len}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

/// The sink the workflows tell.
struct Display {
    bar: ProgressBar,
    /// Once a counted job started, its steps say more than the waits inside it.
    counting: Mutex<bool>,
}

impl Progress for Display {
    fn event(&self, event: &Event) {
        let mut counting = self.counting.lock().unwrap_or_else(PoisonError::into_inner);
        match event {
            Event::Waiting { what } if !*counting => self.bar.set_message(printable(what)),
            Event::Waiting { .. } => {}
            Event::Step {
                job,
                done,
                total,
                item,
            } => {
                // Counts, then the style, then the item: each call may draw a frame, and
                // this order never shows an item under the wrong prefix.
                self.bar.set_length(*total as u64);
                self.bar.set_position(*done as u64);
                if !*counting {
                    *counting = true;
                    self.bar.set_prefix(*job);
                    self.bar.set_style(bar_style());
                }
                self.bar.set_message(printable(item));
            }
            _ => {}
        }
    }
}

/// `text` with control characters shown as `\u{..}`: an event may quote a file or a server.
fn printable(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            if c.is_control() {
                c.escape_unicode().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_cannot_draw_on_the_terminal() {
        assert_eq!(printable("a\u{1b}[2Jb\n"), "a\\u{1b}[2Jb\\u{a}");
        assert_eq!(printable("SEAL023 (x)"), "SEAL023 (x)");
    }
}
