//! The edge: errors for people (and, with `--format json`, the error document), and how every
//! command's result maps to an exit code — in this one place.

use std::fmt;

use mcpseal::Described;
use mcpseal::report::{
    CheckReport, DiffReport, ErrorBody, ErrorKind, LockReport, ProbeReport, ProfileVerdict,
    RpcReport, RunState, Severity, VerifyReport, error_text,
};

use crate::args::FailOn;

/// An error for people, with an optional `hint:` line, and its kind for the error document.
/// Always exit 2.
#[derive(Debug)]
pub struct CliError {
    body: ErrorBody,
}

impl CliError {
    /// A usage or input error.
    pub fn usage(message: impl Into<String>) -> CliError {
        CliError {
            body: ErrorBody {
                kind: ErrorKind::Usage,
                message: message.into(),
                hint: None,
            },
        }
    }

    /// An output file that could not be written.
    pub fn write(message: impl Into<String>) -> CliError {
        CliError {
            body: ErrorBody {
                kind: ErrorKind::Write,
                ..CliError::usage(message).body
            },
        }
    }

    /// Adds the `hint:` line.
    pub fn hint(mut self, hint: impl Into<String>) -> CliError {
        self.body.hint = Some(hint.into());
        self
    }

    /// The error as the document states it.
    pub fn body(&self) -> &ErrorBody {
        &self.body
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&error_text(&self.body))
    }
}

impl<E: Described> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError { body: e.body() }
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

    /// 0 found nothing, 1 found something.
    fn found(found: bool) -> Outcome {
        if found { Outcome::Found } else { Outcome::Ok }
    }

    /// `lock`: 1 when refused by a rule or for a volatile surface.
    pub fn of_lock(r: &LockReport) -> Outcome {
        Outcome::found(r.outcome.refused())
    }

    /// `check`: 1 when the surface is not the locked one, or (`--strict-version`) the server
    /// reports a version below the lock's.
    pub fn of_check(r: &CheckReport) -> Outcome {
        Outcome::found(!r.passed())
    }

    /// `verify`: 1 when the endpoint drifted.
    pub fn of_verify(r: &VerifyReport) -> Outcome {
        Outcome::found(!r.matches)
    }

    /// `check`/`verify` of every profile: the worst profile's (drift 1, no verdict 2).
    pub fn of_profiles(worst: ProfileVerdict) -> Outcome {
        match worst {
            ProfileVerdict::Passed => Outcome::Ok,
            ProfileVerdict::Failed => Outcome::Found,
            ProfileVerdict::NoVerdict => Outcome::NoVerdict,
        }
    }

    /// `diff`: 1 when there is any change.
    pub fn of_diff(r: &DiffReport) -> Outcome {
        Outcome::found(!r.diff.is_empty())
    }

    /// `rpc`: 2 when the request got no answer.
    pub fn of_rpc(r: &RpcReport) -> Outcome {
        if r.error.is_some() {
            Outcome::NoVerdict
        } else {
            Outcome::Ok
        }
    }

    /// `probe`: 2 unless measured, else 1 with findings at or above `--fail-on`.
    pub fn of_probe(report: &ProbeReport, fail_on: FailOn) -> Outcome {
        if report.state != RunState::Measured {
            return Outcome::NoVerdict;
        }
        let counts = |s: Severity| report.findings.iter().filter(|f| f.severity == s).count();
        let failing = match fail_on {
            FailOn::Error => counts(Severity::Error),
            FailOn::Warning => counts(Severity::Error) + counts(Severity::Warning),
            FailOn::Never => 0,
        };
        Outcome::found(failing > 0)
    }
}
