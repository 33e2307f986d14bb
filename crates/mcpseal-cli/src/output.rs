//! Writing results: stdout carries data, stderr carries people's messages.

use std::io::Write;
use std::path::Path;

use crate::error::CliError;

/// Writes `text` to `path` (atomically, via a temporary file in the same directory) or stdout.
pub fn emit(text: &str, path: Option<&Path>) -> Result<(), CliError> {
    match path {
        // The one atomic writer (temporary file, fsync, rename), so an interrupted run never
        // leaves half a file or a temporary one.
        Some(p) => mcpseal::atomic::write_atomic(p, text.as_bytes())
            .map_err(|e| CliError::usage(format!("could not write `{}`: {e}", p.display()))),
        None => {
            let mut out = std::io::stdout().lock();
            // A closed pipe (`mcpseal … | head`) is not an error worth reporting.
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
                _ => Ok(()),
            }
        }
    }
}

/// A line for people, on stderr.
pub fn note(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}
