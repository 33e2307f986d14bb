//! Why `call` could not run: every case a usage or input problem the user can fix, refused
//! before the tool is called (the arguments, the name, the contract) or before an answer is
//! sent (a malformed answer). Trouble on the wire is not an error: it is a report with no
//! verdict (`state` other than `judged`).

use thiserror::Error;

use crate::OpenError;

/// Why `call` could not run (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CallError {
    /// The target is malformed.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// The server lists no tool by that name (nothing was called).
    #[error("the server lists no tool named `{name}`{}", listing(.near, .listed))]
    UnknownTool {
        /// The name asked for.
        name: String,
        /// Listed names close to it.
        near: Vec<String>,
        /// How many tools the server lists.
        listed: usize,
    },
    /// The server lists no prompt by that name.
    #[error("the server lists no prompt named `{name}`{}", listing(.near, .listed))]
    UnknownPrompt {
        /// The name asked for.
        name: String,
        /// Listed names close to it.
        near: Vec<String>,
        /// How many prompts the server lists.
        listed: usize,
    },
    /// `--negative-controls` for a tool that declares no `outputSchema` (nothing was called).
    #[error(
        "`{tool}` declares no `outputSchema`: there is no contract to prove, so there are no negative controls"
    )]
    NoContract {
        /// The tool.
        tool: String,
    },
    /// The arguments break the tool's `inputSchema` or the prompt's arguments (nothing was
    /// sent).
    #[error("the arguments do not fit {what}: {}", .problems.join("; "))]
    InvalidArguments {
        /// `` `forecast`'s inputSchema ``.
        what: String,
        /// Each problem, located.
        problems: Vec<String>,
        /// True for a tool (whose check `--no-input-check` turns off).
        tool: bool,
    },
    /// `--args` is not a JSON object (or its file cannot be read).
    #[error("`--args`: {0}")]
    BadArgs(String),
    /// An `--answer` is malformed, or does not answer what the server asked.
    #[error("the answer `{key}`: {reason}")]
    BadAnswer {
        /// The key.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// The list the name is checked against could not be read.
    #[error("`{method}` could not be read, so `{name}` cannot be checked: {reason}")]
    Listing {
        /// `tools/list` or `prompts/list`.
        method: &'static str,
        /// The name asked for.
        name: String,
        /// Why.
        reason: String,
    },
    /// The blocking runner could not start its runtime.
    #[error("cannot start the runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

fn listing(near: &[String], listed: &usize) -> String {
    if near.is_empty() {
        format!(" (it lists {listed})")
    } else {
        format!(
            " (did you mean {}?)",
            near.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl CallError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            CallError::Open(e) => e.hint().to_owned(),
            CallError::UnknownTool { .. } => {
                "check the name (case matters); `mcpseal rpc tools/list TARGET` shows every tool".into()
            }
            CallError::UnknownPrompt { .. } => {
                "check the name (case matters); `mcpseal rpc prompts/list TARGET` shows every prompt".into()
            }
            CallError::NoContract { .. } => {
                "drop `--negative-controls`, or give the tool an `outputSchema`".into()
            }
            CallError::InvalidArguments { tool: true, .. } => {
                "fix `--args`, or pass `--no-input-check` to send them anyway (to test the server's own validation)".into()
            }
            CallError::InvalidArguments { tool: false, .. } => {
                "a prompt's arguments are a JSON object of strings; give every required one".into()
            }
            CallError::BadArgs(_) => {
                "pass a JSON object, e.g. `--args '{\"city\":\"Lisbon\"}'`, or `--args @FILE`".into()
            }
            CallError::BadAnswer { .. } => {
                "an answer is the whole result to send back, e.g. `--answer KEY='{\"action\":\"accept\",\"content\":{…}}'` for a form".into()
            }
            CallError::Listing { .. } => {
                "`mcpseal rpc` shows the raw exchange; a slow server may need a longer `--timeout`".into()
            }
            CallError::Runtime(_) => "this is a bug in mcpseal or the host".into(),
        }
    }
}
