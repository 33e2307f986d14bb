//! The JSON report: the [`ProbeReport`] serialised as it is (`schemaVersion: 1`, camelCase),
//! evidence included, plus `error` when the run has no verdict ([`crate::ProbeDocument`]),
//! pretty-printed, newline-terminated.
//!
//! The shape is a public contract, described by `schemas/probe-report.schema.json`
//! ([`crate::PROBE_REPORT_SCHEMA`]); it only grows. Output is sorted before it is written:
//! findings in [`crate::Finding::report_order`], crashed rules and the rule catalogue by id.
//! Evidence and diagnostics keep their order (it is the order things happened in).

use crate::model::ProbeReport;

/// `report` as pretty JSON plus a newline, with findings, crashed rules and rules sorted.
pub(crate) fn render_probe(report: &ProbeReport) -> String {
    let mut sorted = report.clone();
    crate::model::sort_findings(&mut sorted.findings);
    sorted
        .crashed_rules
        .sort_by(|a, b| a.rule_id.cmp(&b.rule_id));
    sorted.rules.sort_by(|a, b| a.id.cmp(&b.id));
    // Cannot fail: every key is a string and every value plain data. Should it ever, the output
    // is still JSON, and says so.
    let mut out = serde_json::to_string_pretty(&crate::document::ProbeDocument::of(sorted))
        .unwrap_or_else(|e| {
            serde_json::json!({ "error": format!("cannot serialise the report: {e}") }).to_string()
        });
    out.push('\n');
    out
}
