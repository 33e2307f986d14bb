//! Writing results: stdout carries data, stderr carries people's messages. The one module of
//! the binary that prints; files are written through `mcpseal::atomic`, the one writer.
#![expect(
    clippy::disallowed_methods,
    reason = "the binary's one output module: stdout for data, stderr for people"
)]

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::sync::OnceLock;

use mcpseal::report::{
    CheckReport, DriftOptions, ErrorDocument, Format, LockReport, Look, ProfilesReport,
    RenderProfile, ToolInfo, VerifyReport, check_notes, lock_notes, profiles_notes, render_check,
    render_error, render_lock, render_profiles, render_verify, verify_notes,
};

use crate::args::{ColorChoice, OutputArgs};
use crate::error::{CliError, Outcome};
use crate::lock_args::ReportArgs;
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

/// A report of `lock`, `check` or `verify` (one surface or every profile): how it renders, the
/// lines it adds on stderr, and the exit code it gives (from the report, not the rendering).
pub trait Report {
    /// The report in `format`.
    fn render(&self, format: Format, tool: &ToolInfo, options: &DriftOptions) -> String;
    /// Its lines for stderr.
    fn notes(&self) -> Vec<String>;
    /// How the command ends.
    fn outcome(&self) -> Outcome;
}

impl Report for LockReport {
    fn render(&self, format: Format, tool: &ToolInfo, options: &DriftOptions) -> String {
        render_lock(self, format, tool, options)
    }
    fn notes(&self) -> Vec<String> {
        lock_notes(self)
    }
    fn outcome(&self) -> Outcome {
        Outcome::of_lock(self)
    }
}

impl Report for CheckReport {
    fn render(&self, format: Format, tool: &ToolInfo, options: &DriftOptions) -> String {
        render_check(self, format, tool, options)
    }
    fn notes(&self) -> Vec<String> {
        check_notes(self)
    }
    fn outcome(&self) -> Outcome {
        Outcome::of_check(self)
    }
}

impl Report for VerifyReport {
    fn render(&self, format: Format, tool: &ToolInfo, options: &DriftOptions) -> String {
        render_verify(self, format, tool, options)
    }
    fn notes(&self) -> Vec<String> {
        verify_notes(self)
    }
    fn outcome(&self) -> Outcome {
        Outcome::of_verify(self)
    }
}

impl<R: RenderProfile> Report for ProfilesReport<R> {
    fn render(&self, format: Format, tool: &ToolInfo, options: &DriftOptions) -> String {
        render_profiles(self, format, tool, options)
    }
    fn notes(&self) -> Vec<String> {
        profiles_notes(self)
    }
    fn outcome(&self) -> Outcome {
        Outcome::of_profiles(self.verdict())
    }
}

/// The end of `lock`, `check` and `verify`: `report` in `--format` (with `--full`) on stdout or
/// into `-o FILE`, then its notes on stderr; returns how the command ends.
pub fn report(
    report: &impl Report,
    args: &ReportArgs,
    output: &OutputArgs,
) -> Result<Outcome, CliError> {
    let rendered = report.render(
        args.format,
        &mcpseal::tool_info(),
        &settings::drift_options(args.full),
    );
    emit_doc(
        &rendered,
        args.format == Format::Text,
        output.output.as_deref(),
    )?;
    notes(&report.notes());
    Ok(report.outcome())
}
