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

/// What to do about a server nothing could be learned from, judged from the reason the client
/// gave: an HTTP status with a body that is no MCP answer (a `Host` or `Origin` check, a
/// credential, a wrong path), an HTTP endpoint that could not be reached, or a stdio server
/// that did not answer on stdout.
pub fn unreachable_hint(reason: &str) -> &'static str {
    let http_answer = reason.starts_with("HTTP ")
        || reason.starts_with("refused with HTTP ")
        || reason.contains("HTTP 4")
        || reason.contains("HTTP 5");
    if http_answer {
        "the endpoint answered over HTTP, but not with MCP (status and body above): check the URL's path; a 401/403 usually wants a credential (`--header 'Authorization: Bearer …'`), and a server that checks `Host` against DNS rebinding may accept only `localhost`: try the URL with `localhost` instead of `127.0.0.1`"
    } else if reason.contains("error sending request") || reason.contains("url (http") {
        "check that the server is running and listening at that URL (host, port and path); `mcpseal rpc server/discover URL` shows the raw exchange"
    } else if reason.contains("no answer to") {
        "the server did not answer in time: a server that starts slowly (an interpreter under load) needs a longer `--startup-timeout` (stdio, default 30s) or `--timeout`; otherwise check that it speaks MCP on stdout"
    } else {
        "check that the server starts and speaks MCP on stdout (or that the URL is right); `mcpseal rpc server/discover TARGET` shows the raw exchange"
    }
}

/// Opens a connection to `target`.
pub async fn open(target: &Target, options: Options) -> Result<Connection, OpenError> {
    Ok(Connection::open(target, options).await?)
}
