//! Writing results: stdout carries data, stderr carries people's messages. The one module of
//! the binary that prints; files are written through `mcpseal::atomic`, the one writer.
#![expect(
    clippy::disallowed_methods,
    reason = "the binary's one output module: stdout for data, stderr for people"
)]

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::OnceLock;

use mcpseal::report::{ErrorDocument, Look, render_error};

use crate::args::ColorChoice;
use crate::error::CliError;
use crate::settings::{self, ColorEnv};

/// `--color`, set once at start-up ([`configure`]).
static COLOR: OnceLock<ColorChoice> = OnceLock::new();

/// Takes the run's `--color` (the one global choice every command's text follows).
pub fn configure(color: ColorChoice) {
    let _ = COLOR.set(color);
}

fn choice() -> ColorChoice {
    COLOR.get().copied().unwrap_or_default()
}

/// Whether text on stdout is coloured (renderers that colour as they build ask this).
pub fn stdout_color() -> bool {
    settings::color(choice(), ColorEnv::read(), std::io::stdout().is_terminal())
}

/// How text meets stdout: the colour decision, and the width to wrap to (`COLUMNS`, else the
/// terminal's; none for a pipe).
fn stdout_look() -> Look {
    let out = std::io::stdout();
    let width = settings::columns().or_else(|| {
        out.is_terminal()
            .then(|| terminal_size::terminal_size_of(&out).map(|(w, _)| usize::from(w.0)))
            .flatten()
    });
    Look {
        width,
        color: stdout_color(),
    }
}

/// How notes meet stderr, decided the same way for stderr.
fn stderr_look() -> Look {
    let err = std::io::stderr();
    let terminal = err.is_terminal();
    let width = settings::columns().or_else(|| {
        terminal
            .then(|| terminal_size::terminal_size_of(&err).map(|(w, _)| usize::from(w.0)))
            .flatten()
    });
    Look {
        width,
        color: settings::color(choice(), ColorEnv::read(), terminal),
    }
}

/// Writes a document for people: on stdout wrapped to the terminal and coloured with the one
/// palette (as decided for stdout); into a file `path` exactly as rendered. `text` says the
/// document is text (JSON, SARIF and Markdown are written as they are, everywhere).
pub fn emit_doc(rendered: &str, text: bool, path: Option<&Path>) -> Result<(), CliError> {
    if text && path.is_none() {
        emit(&stdout_look().apply(rendered), None)
    } else {
        emit(rendered, path)
    }
}

/// Writes `text` to `path` (atomically: readers see the old file or the new one) or stdout.
pub fn emit(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    match path {
        Some(p) => mcpseal::atomic::write_atomic(p, text.as_bytes())
            .map_err(|e| CliError::write(format!("could not write `{}`: {e}", p.display()))),
        None => stdout(text.as_bytes()),
    }
}

/// Writes `bytes` to stdout as they are (`serve --cli` prints verified file bytes).
pub fn stdout(bytes: &[u8]) -> Result<(), CliError> {
    // The result is here: the wait is over, and the display must not share the terminal.
    crate::progress::finish();
    let mut out = std::io::stdout().lock();
    // A closed pipe (`mcpseal … | head`) is not an error worth reporting.
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(CliError::write(format!("could not write to stdout: {e}")))
        }
        _ => Ok(()),
    }
}

/// A line for people, on stderr.
pub fn note(text: &str) {
    let text = stderr_look().apply(text);
    crate::progress::suspend(|| {
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "{text}");
    });
}

/// Each of `notes` on stderr.
pub fn notes(notes: &[String]) {
    for n in notes {
        note(n);
    }
}

/// A run without a verdict: the error on stderr for people and, when `json` (the command's
/// `--format json`), the error document on stdout for programs.
pub fn error(e: &CliError, json: bool) {
    note(&e.to_string());
    if json {
        json_error(e);
    }
}

/// The error document of `e` on stdout.
pub fn json_error(e: &CliError) {
    let doc = ErrorDocument::new(e.body().clone());
    let _ = emit(&render_error(&doc), None);
}
