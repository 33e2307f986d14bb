//! Findings, run states and the typed report of every command.
//!
//! This crate is data and renderers only: no I/O, no async, no knowledge of transports. The probe
//! and the surface checks *produce* [`Finding`]s and [`ProbeReport`]s; the `mcpseal` facade fills
//! the command documents ([`Snapshot`], [`LockReport`], [`CheckReport`], [`VerifyReport`],
//! [`DiffReport`], [`RpcReport`], [`ErrorDocument`]); this crate renders them as text, JSON,
//! SARIF 2.1.0 or Markdown, and generates their JSON Schemas ([`schemas`]). A renderer can never
//! change a verdict: `ready`, the run state and the exit code are derived from the data before
//! any rendering happens.
//!
//! Evidence is kept as plain JSON (the serialised exchanges of `mcpseal-client`), so this crate
//! does not depend on the client and stays cheap to build, test and fuzz.
//!
//! It refuses to: write anything (renderers return `String`s; the caller picks stdout or a
//! file), decide on colour or width (the caller passes [`RenderOptions::color`] and a [`Look`]: the
//! one [`palette`] and [`wrap`]ping at word boundaries), or un-redact evidence.
//!
//! ```
//! use mcpseal_report::{Format, ProbeReport, RenderOptions, RunState, Summary, ToolInfo, render_probe};
//!
//! let summary = Summary::of(&[], 0, 0);
//! let report = ProbeReport {
//!     schema_version: 1,
//!     tool: ToolInfo { name: "mcpseal".into(), version: "0.1.0".into() },
//!     target: "http://127.0.0.1:8080/mcp".into(),
//!     transport: "http".into(),
//!     target_revision: "2026-07-28".into(),
//!     protocol_version: None,
//!     started_at: "2026-11-29T12:00:00Z".into(),
//!     duration_ms: 0,
//!     state: RunState::Unreachable,
//!     ready: ProbeReport::compute_ready(RunState::Unreachable, &summary),
//!     unreachable: Some("connection refused".into()),
//!     incomplete: None,
//!     access: None,
//!     summary,
//!     findings: vec![],
//!     crashed_rules: vec![],
//!     diagnostics: vec![],
//!     rules: vec![],
//! };
//! let format: Format = "text".parse().expect("a known format");
//! let text = render_probe(&report, format, &RenderOptions::default());
//! assert!(text.contains("UNREACHABLE — no probe was answered"));
//! assert_eq!(text.matches("connection refused").count(), 1, "the reason, once");
//! ```

#![deny(missing_docs)]

pub mod call;
mod document;
mod format;
mod model;
pub mod publish;
mod record;
mod render;
pub mod replay;
pub mod schemas;

pub use document::{
    AnonymousCheck, CheckProfilesReport, CheckReport, DiffDocument, DiffReport, DiffSide,
    ErrorBody, ErrorDocument, ErrorKind, ListItems, LockOutcome, LockRefusal, LockReport,
    ProbeDocument, ProfileCheck, ProfileOutcome, ProfileSection, ProfileVerdict, ProfileVerify,
    ProfilesReport, RefusalReason, RefusedList, RefusedMark, RpcReport, RuleList, SideKind,
    Snapshot, SnapshotItems, SurfaceObject, VerifyProfilesReport, VerifyReport,
    contradiction_warnings, drift_findings, drift_rules, rule_id, unreachable_hint,
};
pub use format::{DocFormat, Format, ParseFormatError};
pub use model::{
    AccessRefusal, CrashedRule, Finding, Incomplete, ProbeReport, Remediation, RuleInfo, RunState,
    Severity, Summary, ToolInfo, sort_findings,
};
pub use record::{
    Evidence, ExchangeRecord, HeaderRecord, OmittedMember, OmittedResult, RawHttpRecord,
    TransportErrorRecord, TransportName, TruncatedRecord,
};
pub use render::sarif::{FINGERPRINT_KEY, SARIF_SCHEMA_URI};
pub use render::{
    DriftOptions, ExecutionNotification, Look, RenderOptions, RenderProfile, SarifRun, check_notes,
    error_text, lock_notes, need_phrase, probe_notes, profiles_notes, render_changes_text,
    render_check, render_diff, render_error, render_findings_markdown, render_findings_sarif,
    render_findings_text, render_lock, render_probe, render_profiles, render_rpc, render_rule_list,
    render_snapshot, render_verify, rpc_notes, verify_notes,
};
pub use render::{palette, wrap};

/// The JSON Schema (2020-12) of the probe report's JSON form ([`ProbeDocument`],
/// `schemaVersion: 1`), as committed in `schemas/probe-report.schema.json` (generated from the
/// type; `cargo xtask check` keeps it current). The JSON renderer's output validates against
/// it (tested).
pub const PROBE_REPORT_SCHEMA: &str = include_str!("../../../schemas/probe-report.schema.json");
