use serde_json::Value;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// Results lack the required `resultType` field.
    ///
    /// Multi Round-Trip Requests (SEP-2322) let `tools/call`, `prompts/get` and
    /// `resources/read` answer "I need input first" (`resultType: "input_required"`) instead
    /// of sending a server-to-client request over a session that no longer exists. So that a
    /// client can tell a final result from such an interim one without guessing from fields,
    /// 2026-07-28 made `resultType` REQUIRED on every result (`"complete"`,
    /// `"input_required"`, or an extension value such as `"task"`). Clients treat a missing
    /// field as `"complete"` only for legacy servers.
    ///
    /// Judges every cacheable result a client fetched (discover, the four lists, one
    /// `resources/read`); one finding names every result without a valid value.
    pub static SEAL004 = {
        id: "SEAL004",
        anchor: Some("MCP004"),
        title: "Results are missing the required resultType field",
        severity: Error,
        remediation: Sdk,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let results = ctx.cacheable_results().await;
    let mut bad = Vec::new();
    let mut evidence = Vec::new();
    for ex in results {
        let Some(result) = ex.result() else { continue };
        match result.get("resultType") {
            Some(Value::String(s)) if s == "complete" || s == "input_required" => {}
            None => {
                bad.push(format!("`{}` has no `resultType`", ex.method()));
                evidence.push(ex);
            }
            Some(other) => {
                bad.push(format!("`{}` has `resultType: {other}`", ex.method()));
                evidence.push(ex);
            }
        }
    }
    if bad.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL004
            .finding(
                format!("{}.", bad.join("; ")),
                "Every result carries `resultType`: `\"complete\"` for a final result, `\"input_required\"` for a Multi Round-Trip interim result.",
                "Upgrade to an MCP SDK that speaks 2026-07-28 (it adds `resultType: \"complete\"`), or add it to every result you build by hand.",
            )
            .evidence(evidence),
    ])
}
