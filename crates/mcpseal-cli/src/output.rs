//! Writing results: stdout carries data, stderr carries people's messages. The one module of
//! the binary that prints; files are written through `mcpseal::atomic`, the one writer.
#![expect(
    clippy::disallowed_methods,
    reason = "the binary's one output module: stdout for data, stderr for people"
)]

use std::io::Write;
use std::path::Path;

use mcpseal::report::{ErrorDocument, render_error};

use crate::error::CliError;

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
