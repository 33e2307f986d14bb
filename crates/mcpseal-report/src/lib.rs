//! Findings, run states and the reports that carry them.
//!
//! This crate is data and renderers only: no I/O, no async, no knowledge of transports. The probe
//! and the surface checks *produce* [`Finding`]s and [`ProbeReport`]s; this crate renders them as
//! text, JSON, SARIF 2.1.0 or Markdown. A renderer can never change a verdict: `ready`, the run
//! state and the exit code are derived from the data before any rendering happens.
//!
//! Evidence is kept as plain JSON (the serialised exchanges of `mcpseal-client`), so this crate
//! does not depend on the client and stays cheap to build, test and fuzz.

#![deny(missing_docs)]

mod model;

pub use model::{
    CrashedRule, Finding, Incomplete, ProbeReport, Remediation, RuleInfo, RunState, Severity,
    Summary, ToolInfo,
};
