//! `mcpseal probe`: open a connection, run the conformance probe, close.
//!
//! A server command that cannot be started is not a usage error: it is the clearest case of an
//! *unreachable* server, so it yields an unreachable report (zero findings, exit 2 at the CLI),
//! the same as a server that starts and never answers. Only targets that are malformed (an
//! empty command, a URL that is not `http(s)://`) are errors.

use mcpseal_client::{ConnectError, Options, Target};
use mcpseal_report::{ErrorBody, ErrorKind, ProbeReport};

use crate::connect::OpenError;
use crate::described::Described;

pub use mcpseal_probe::{
    CallParseError, NothingToRun, ProbeOptions, ToolCall, UnknownRules, UnknownTools, default_jobs,
    parse_call, parse_rule_ids, rule_infos,
};

/// Why a probe could not run.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The target is malformed.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// A `--call` names a tool the server does not list (checked before any tool is called).
    #[error(transparent)]
    UnknownTools(#[from] UnknownTools),
    /// `--only`/`--skip` select no rule that applies to the target's transport.
    #[error(transparent)]
    NothingToRun(#[from] NothingToRun),
}

impl ProbeError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            ProbeError::Open(e) => e.hint(),
            ProbeError::UnknownTools(_) => {
                "`--call` names must match a tool in the server's `tools/list`"
            }
            ProbeError::NothingToRun(_) => {
                "`mcpseal probe --list-rules` shows each rule's transports; select one that applies, or probe the server over the other transport"
            }
        }
    }

    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ProbeError::Open(e) => e.kind(),
            ProbeError::UnknownTools(_) | ProbeError::NothingToRun(_) => ErrorKind::Usage,
        }
    }
}

impl Described for ProbeError {
    fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint().to_owned()),
        }
    }
}

/// Probes `target`: the prelude, then every applicable rule selected by `probe`; a selection
/// with no rule applicable to the target's transport is [`ProbeError::NothingToRun`], found
/// before the server starts. Tools named
/// in `probe.calls` are checked against the server's `tools/list` first: an unknown one is an
/// error and nothing is called.
pub async fn run(
    target: &Target,
    options: Options,
    probe: &ProbeOptions,
) -> Result<ProbeReport, ProbeError> {
    let kind = match target {
        Target::Http { .. } => mcpseal_client::TransportKind::Http,
        Target::Stdio { .. } => mcpseal_client::TransportKind::Stdio,
    };
    let transport = kind.as_str();
    // Before a server starts: a selection that runs nothing would pass as "ready".
    mcpseal_probe::selection_for(probe, kind)?;
    let conn = match mcpseal_client::Connection::open(target, options).await {
        Ok(c) => c,
        Err(e @ ConnectError::Spawn { .. }) => {
            // The reason is the report's `unreachable`; it is not something the server said, so
            // it is not a diagnostic ("1 diagnostic from the server" for a missing binary).
            let report =
                mcpseal_probe::unreachable_report(&target.display(), transport, &e.to_string());
            return Ok(report);
        }
        Err(e) => return Err(OpenError::from(e).into()),
    };
    let report = mcpseal_probe::probe_observed(&conn, probe, &|step| match step {
        mcpseal_probe::ProbeStep::Prelude => {
            crate::progress::waiting("discovering the server (handshake and lists)");
        }
        mcpseal_probe::ProbeStep::Rule {
            index,
            total,
            id,
            title,
        } => crate::progress::emit(crate::progress::Event::Step {
            job: "probing",
            done: index,
            total,
            item: format!("{id} ({title})"),
        }),
    })
    .await;
    conn.close().await;
    Ok(report?)
}
