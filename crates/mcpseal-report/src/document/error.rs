//! The error document: what every command prints on stdout with `--format json` when it exits
//! 2, so that CI can read why there is no verdict.
//!
//! ```json
//! {"schemaVersion": 1,
//!  "error": {"kind": "noLock", "message": "no lock file at `surface.lock.json`",
//!            "hint": "run `mcpseal lock TARGET` to write it (or pass `--lock FILE`)"}}
//! ```
//!
//! When the command's own report explains the failure (an unreachable or incomplete probe, an
//! `rpc` request that got no answer), that report is printed instead, with the same `error`
//! object added to it: `.error` is where CI looks either way.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of trouble ended a command without a verdict (exit 2). An open set: new kinds are
/// added, existing names never change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ErrorKind {
    /// The command line is wrong (a flag value, a missing or doubled target).
    Usage,
    /// The server could not be started or reached, or answered nothing.
    Unreachable,
    /// The server answered, but what it said cannot be trusted (it answers a method that cannot
    /// exist, did not describe itself, pages that never end, ambiguous identities).
    Untrustworthy,
    /// Some probes went unanswered: the findings are partial.
    Incomplete,
    /// The one request of `rpc` got no valid answer.
    NoAnswer,
    /// There is no lock file.
    NoLock,
    /// The lock file cannot be used (unreadable, not JSON, newer, conflict markers, edited by
    /// hand).
    BadLock,
    /// An input file is not what it should be (a diff side, a manifest), or two inputs do not
    /// fit together.
    BadInput,
    /// No usable server version.
    Version,
    /// An output file could not be written.
    Write,
}

impl ErrorKind {
    /// The serialised name (`usage`, `unreachable`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Usage => "usage",
            ErrorKind::Unreachable => "unreachable",
            ErrorKind::Untrustworthy => "untrustworthy",
            ErrorKind::Incomplete => "incomplete",
            ErrorKind::NoAnswer => "noAnswer",
            ErrorKind::NoLock => "noLock",
            ErrorKind::BadLock => "badLock",
            ErrorKind::BadInput => "badInput",
            ErrorKind::Version => "version",
            ErrorKind::Write => "write",
        }
    }
}

/// Why there is no verdict: a kind for machines, the message and the hint people read on
/// stderr (`error: …` / `hint: …`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// What kind of trouble.
    pub kind: ErrorKind,
    /// What was wrong (no `error:` prefix).
    pub message: String,
    /// What to do about it; `null` when there is nothing to suggest.
    pub hint: Option<String>,
}

/// The error document (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal error document",
    description = "What `mcpseal COMMAND --format json` prints on stdout when it exits 2 (no verdict). schemaVersion 1; additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/error.schema.json")
)]
pub struct ErrorDocument {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// Why.
    pub error: ErrorBody,
}

impl ErrorDocument {
    /// The document of `error`.
    pub fn new(error: ErrorBody) -> ErrorDocument {
        ErrorDocument {
            schema_version: 1,
            error,
        }
    }
}

/// The `hint:` for a server that could not be reached, from the reason the client gave: an
/// HTTP status with a body that is no MCP answer (a `Host` or `Origin` check, a credential, a
/// wrong path), an HTTP endpoint that could not be reached, or a stdio server that did not
/// answer on stdout.
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
