//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, pinned in
//! `tests/peers/conformance/`) side by side with `mcpseal probe`, as data.
//!
//! * [`ScenarioMap`] (`tests/conformance/scenarios.json`, hand-written): for every server
//!   scenario of the suite's `--requirements 2026-07-28` run, what it needs of a server to apply
//!   (a capability, the suite's own fixture tools …) and, check by check, the SEAL rules that
//!   cover it — or why none does ("not covered", "out of mcpseal's scope") — plus the
//!   explanations of disagreements, each quoting the spec;
//! * [`ServerRecord`] (`tests/conformance/servers/<id>.json`): what both tools said about one
//!   server — every check's outcome in the suite's `checks.json`, the probe's findings — and
//!   which explanation covers each disagreement;
//! * [`compare`]: scenario applicability, check by check side by side, the disagreements;
//! * [`render_doc`]: `docs/conformance.md`, from those files only, so it changes exactly when
//!   they do.
//!
//! Test support and generator input only (never published). The CLI's conformance test runs
//! the suite and the probe against each server and holds them to its record; this crate's own
//! test keeps the page current and refuses a disagreement without an explanation (or an
//! explanation without a disagreement).

mod compare;
mod doc;
mod map;
mod record;
mod suite;

pub use compare::{
    CheckRow, Comparison, Disagreement, ScenarioRow, Side, WIRE_SCHEMA, compare, unrun_scenarios,
    worst,
};
pub use doc::{doc_path, render_doc};
pub use map::{Coverage, Explanation, ExplanationKind, Fixed, Needs, ScenarioEntry, ScenarioMap};
pub use record::{
    CheckRecord, Finding, ProbeRecord, ServerRecord, Surface, read_records, records_dir,
};
pub use suite::{CheckOutcome, SuiteRun, read_suite_output};

use std::path::{Path, PathBuf};

/// The repository root (absolute).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tests/conformance/` (absolute).
pub fn conformance_dir() -> PathBuf {
    repo_root().join("tests/conformance")
}
