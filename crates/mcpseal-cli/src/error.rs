//! Errors at the edge: what was wrong, what to do, and the exit code it means.

use std::fmt;

/// An error for people, with an optional `hint:` line. Always exit 2.
#[derive(Debug)]
pub struct CliError {
    message: String,
    hint: Option<String>,
}

impl CliError {
    /// A usage or input error.
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            message: message.into(),
            hint: None,
        }
    }

    /// Adds the `hint:` line.
    pub fn hint(mut self, hint: impl Into<String>) -> CliError {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error: {}", self.message)?;
        if let Some(h) = &self.hint {
            write!(f, "\nhint: {h}")?;
        }
        Ok(())
    }
}

impl From<std::io::Error> for CliError {
    fn from(e: std::io::Error) -> Self {
        CliError::usage(e.to_string())
    }
}

impl From<mcpseal::OpenError> for CliError {
    fn from(e: mcpseal::OpenError) -> Self {
        let hint = e.hint();
        CliError::usage(e.to_string()).hint(hint)
    }
}

impl From<mcpseal::probe::ProbeError> for CliError {
    fn from(e: mcpseal::probe::ProbeError) -> Self {
        match e {
            mcpseal::probe::ProbeError::Open(e) => e.into(),
            mcpseal::probe::ProbeError::UnknownTools(e) => CliError::usage(e.to_string())
                .hint("`--call` names must match a tool in the server's `tools/list`"),
        }
    }
}

impl From<mcpseal::serve::ServeError> for CliError {
    fn from(e: mcpseal::serve::ServeError) -> Self {
        let hint = e.hint();
        CliError::usage(e.to_string()).hint(hint)
    }
}

impl From<mcpseal::guard::GuardError> for CliError {
    fn from(e: mcpseal::guard::GuardError) -> Self {
        let hint = e.hint();
        CliError::usage(e.to_string()).hint(hint)
    }
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Ok,
    /// Exit 1: the check found something.
    Found,
    /// Exit 2: no verdict (unreachable, incomplete, …) — the reason was already printed.
    NoVerdict,
    /// Exit 130 (SIGINT) or 143 (SIGTERM): stopped by a signal, cleanly.
    Interrupted(u8),
}

impl Outcome {
    /// The process exit code.
    pub fn code(self) -> u8 {
        match self {
            Outcome::Ok => 0,
            Outcome::Found => 1,
            Outcome::NoVerdict => 2,
            Outcome::Interrupted(code) => code,
        }
    }
}
