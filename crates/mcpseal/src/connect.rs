//! Opening a connection with the errors a user can act on.

use mcpseal_client::{ConnectError, Connection, Options, Target};
use mcpseal_report::{ErrorBody, ErrorKind};
use thiserror::Error;

use crate::described::Described;

/// A server could not even be contacted.
#[derive(Debug, Error)]
#[error("{source}")]
pub struct OpenError {
    /// The client's reason.
    #[from]
    pub source: ConnectError,
}

impl OpenError {
    /// A hint for people.
    pub fn hint(&self) -> &'static str {
        match self.source {
            ConnectError::Spawn { .. } => {
                "check the command after `--`: the program must exist and be executable (it is run directly, without a shell)"
            }
            ConnectError::InvalidUrl(_) => {
                "pass an http:// or https:// URL, or `-- COMMAND ARGS...`"
            }
            _ => "check the target",
        }
    }

    /// What kind of trouble, for the error document: a malformed target is a usage error, a
    /// server that cannot be started or contacted is unreachable.
    pub fn kind(&self) -> ErrorKind {
        match self.source {
            ConnectError::InvalidUrl(_) | ConnectError::EmptyCommand => ErrorKind::Usage,
            _ => ErrorKind::Unreachable,
        }
    }
}

impl Described for OpenError {
    fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint().to_owned()),
        }
    }
}

/// What to do about a server nothing could be learned from, judged from the reason the client
/// gave: an HTTP status with a body that is no MCP answer (a `Host` or `Origin` check, a
/// credential, a wrong path), an HTTP endpoint that could not be reached, or a stdio server
/// that did not answer on stdout.
pub fn unreachable_hint(reason: &str) -> &'static str {
    // Pure words over the reason: defined in the report crate, whose probe report states the
    // same hint in its error.
    mcpseal_report::unreachable_hint(reason)
}

/// Opens a connection to `target`.
pub async fn open(target: &Target, options: Options) -> Result<Connection, OpenError> {
    // Neither the command line nor the URL: a progress line is shown on a terminal that others
    // may watch, and only the report's display of a target is redacted with care.
    crate::progress::waiting(match target {
        Target::Http { .. } => "connecting to the server",
        Target::Stdio { .. } => "starting the server",
    });
    Ok(Connection::open(target, options).await?)
}
