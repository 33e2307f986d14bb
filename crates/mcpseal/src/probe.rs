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
    CallParseError, ProbeOptions, ToolCall, UnknownRules, UnknownTools, parse_call, parse_rule_ids,
    rule_infos,
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
}

impl ProbeError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            ProbeError::Open(e) => e.hint(),
            ProbeError::UnknownTools(_) => {
                "`--call` names must match a tool in the server's `tools/list`"
            }
        }
    }

    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ProbeError::Open(e) => e.kind(),
            ProbeError::UnknownTools(_) => ErrorKind::Usage,
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

/// Probes `target`: the prelude, then every applicable rule selected by `probe`. Tools named
/// in `probe.calls` are checked against the server's `tools/list` first: an unknown one is an
/// error and nothing is called.
pub async fn run(
    target: &Target,
    options: Options,
    probe: &ProbeOptions,
) -> Result<ProbeReport, ProbeError> {
    let transport = match target {
        Target::Http { .. } => "http",
        Target::Stdio { .. } => "stdio",
    };
    let conn = match mcpseal_client::Connection::open(target, options).await {
        Ok(c) => c,
        Err(e @ ConnectError::Spawn { .. }) => {
            let mut report =
                mcpseal_probe::unreachable_report(&target.display(), transport, &e.to_string());
            report.diagnostics.push(format!("[spawn] {e}"));
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
