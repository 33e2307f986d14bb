//! Opening a connection with the errors a user can act on.

use mcpseal_client::{ConnectError, Connection, Options, Target};
use thiserror::Error;

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
}

/// Opens a connection to `target`.
pub async fn open(target: &Target, options: Options) -> Result<Connection, OpenError> {
    Ok(Connection::open(target, options).await?)
}
