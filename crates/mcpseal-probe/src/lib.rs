//! The conformance probe for MCP revision 2026-07-28 (the stateless one).
//!
//! Point it at a live server (through an open [`mcpseal_client::Connection`]); it runs a fixed
//! [prelude] once, then every applicable rule, and returns a
//! [`ProbeReport`](mcpseal_report::ProbeReport): findings with the exchanges that prove them,
//! and a run state — *measured*, *unreachable* (nothing answered: zero findings, no rule run)
//! or *incomplete* (some probes went unanswered, or a rule crashed: never ready).
//!
//! What it refuses to do: read source, trust version strings, call a tool nobody named (only
//! [`ProbeOptions::calls`], `--call` at the CLI, after checking each name against `tools/list`),
//! fetch a schema's remote `$ref`, print, or judge a server on an unanswered probe. Where the spec allows two behaviours it says nothing; one root
//! cause gives one finding (a server that rejects `_meta` is told so once, not also that
//! `server/discover` is missing and `ping` "still implemented").
//!
//! Adding a rule: write `src/rules/sealNNN.rs` with the [`rule!`] macro (its doc comment is the
//! rationale shown in `--list-rules` and `docs/rules/`), add one line to
//! [`rules::REGISTRY`], teach the fixture the bad behaviour if needed, test both directions, and
//! regenerate the docs (`cargo xtask generate rules`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcpseal_client::ConnectError> {
//! use mcpseal_client::{Connection, Options, Target};
//! let conn = Connection::open(&Target::stdio(["node", "server.js"]), Options::default()).await?;
//! let report = mcpseal_probe::probe(&conn, &mcpseal_probe::ProbeOptions::default()).await;
//! assert!(report.ready || !report.findings.is_empty() || report.state != mcpseal_report::RunState::Measured);
//! # Ok(()) }
//! ```

#![warn(missing_docs)]

pub mod access;
pub mod calls;
pub mod context;
pub mod docs;
mod engine;
pub mod oauth;
pub mod prelude;
pub mod protocol;
pub mod quote;
mod recorder;
pub mod removed;
pub mod rule;
pub mod rules;
pub mod tools;

pub use calls::{CallParseError, ToolCall, UnknownTools, parse_call};
pub use context::ProbeContext;
pub use engine::{
    NothingToRun, ProbeOptions, ProbeStep, UnknownRules, default_jobs, parse_rule_ids, probe,
    probe_checked, probe_observed, probe_with, selection_for, unreachable_report,
};
pub use rule::{FindingExt, Rule, RuleError, RuleResult};

/// The static description of every registered rule, in id order.
pub fn rule_infos() -> Vec<mcpseal_report::RuleInfo> {
    rules::REGISTRY.iter().map(|r| r.info()).collect()
}
