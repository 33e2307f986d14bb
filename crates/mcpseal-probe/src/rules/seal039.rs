use mcpseal_protocol::Era;
use mcpseal_schema::judge::{self, Check};
use serde_json::Value;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// A tool call asked for with `--call` returned a malformed result.
    ///
    /// A tool result is read by programs, not only by models: `content` is REQUIRED (an error
    /// result explains itself there, with `isError: true`), a tool that declares an
    /// `outputSchema` MUST return `structuredContent` that conforms to it, and in 2026-07-28 a
    /// call may instead come back `resultType: "input_required"` (multi round-trip requests,
    /// MRTR) with `inputRequests` — a map of `{method, params}` limited to
    /// `elicitation/create`, `sampling/createMessage` and `roots/list` — and/or an opaque
    /// string `requestState`, at least one of the two. A client cannot act on a result that
    /// breaks these. A task (`resultType: "task"`, the tasks extension) is not judged here.
    ///
    /// Runs only the calls named with `--call NAME=JSON` (never any by default: a call may
    /// have side effects), each once, on the client path; the name was checked against
    /// `tools/list` before. JSON-RPC errors are not judged (the arguments are the user's).
    /// `structuredContent` is validated with `mcpseal-schema` (2020-12 unless the schema's
    /// `$schema` names another draft; remote `$ref`s never fetched), not for
    /// `isError` results, and not when the schema itself is broken (SEAL036/037/038). Whether
    /// an `inputRequests` method matches a declared client capability is SEAL042's finding. Each
    /// call is sent once per run and shared with SEAL042.
    pub static SEAL039 = {
        id: "SEAL039",
        anchor: None,
        title: "Tool call returned a malformed result",
        severity: Error,
        remediation: Application,
        spec: "server/tools",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let calls = ctx.tool_calls();
    if calls.is_empty() {
        return Ok(Vec::new());
    }
    let Some(listing) = ctx.tool_listing().await else {
        return Ok(Vec::new());
    };
    let mut findings = Vec::new();
    for (call, ex) in calls.iter().zip(ctx.user_calls().await) {
        let Some(result) = ex.result() else {
            continue;
        };
        // A task of the tasks extension is not a `CallToolResult`; whether it may be sent to a
        // client that did not declare the extension is SEAL042's finding.
        if result.get("resultType").and_then(Value::as_str) == Some("task") {
            continue;
        }
        let problems = problems(result, listing.tool(&call.name));
        if problems.is_empty() {
            continue;
        }
        findings.push(
            SEAL039
                .finding(
                    format!("`tools/call` of `{}`: {}.", call.name, problems.join("; ")),
                    "A `CallToolResult` has a `content` array (also when `isError: true`) and, when the tool declares an `outputSchema`, `structuredContent` conforming to it; an `input_required` result has `inputRequests` (a map of `{method, params}` with method `elicitation/create`, `sampling/createMessage` or `roots/list`) and/or a string `requestState`.",
                    "Fix the tool's result: always return `content`; return `structuredContent` matching the declared `outputSchema` (or change the schema); build `input_required` results with the SDK's MRTR helpers.",
                )
                .evidence([ex]),
        );
    }
    Ok(findings)
}

/// The checks of the shared judgement (`mcpseal_schema::judge`) this rule reports: the ones a
/// client cannot get past. The result's wider shape, content blocks and the text mirror are
/// `mcpseal call`'s to report; a broken `outputSchema` is SEAL036/037/038's.
const CHECKS: &[Check] = &[
    Check::NotAnObject,
    Check::Content,
    Check::IsError,
    Check::MissingStructured,
    Check::Structured,
    Check::InputRequired,
];

/// The problems of `result` this rule reports, as sentences.
fn problems(result: &Value, tool: Option<&Value>) -> Vec<String> {
    judge::tool_result(Era::Modern, result, tool)
        .into_iter()
        .filter(|p| CHECKS.contains(&p.check))
        .map(|p| p.message)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_required_results_are_judged_by_shape() {
        let ok = json!({"resultType": "input_required", "inputRequests": {"a": {"method": "elicitation/create", "params": {"message": "?"}}}, "requestState": "s"});
        assert!(problems(&ok, None).is_empty());
        assert!(
            problems(
                &json!({"resultType": "input_required", "requestState": "s"}),
                None
            )
            .is_empty()
        );
        assert_eq!(
            problems(&json!({"resultType": "input_required"}), None).len(),
            1
        );
        let bad = json!({"resultType": "input_required", "inputRequests": {"a": {"method": "tools/call", "params": {}}}, "requestState": 7});
        assert_eq!(problems(&bad, None).len(), 2);
    }

    #[test]
    fn complete_results_are_judged_against_the_output_schema() {
        let tool = json!({"name": "add", "inputSchema": {"type": "object"}, "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}});
        let good =
            json!({"resultType": "complete", "content": [], "structuredContent": {"sum": 3}});
        assert!(problems(&good, Some(&tool)).is_empty());
        let bad =
            json!({"resultType": "complete", "content": [], "structuredContent": {"sum": "3"}});
        assert_eq!(problems(&bad, Some(&tool)).len(), 1);
        let err = json!({"resultType": "complete", "content": [{"type": "text", "text": "boom"}], "isError": true});
        assert!(problems(&err, Some(&tool)).is_empty());
        assert_eq!(problems(&json!({"isError": true}), None).len(), 1);
    }
}
