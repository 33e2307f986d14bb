use serde_json::Value;

use crate::context::ProbeContext;
use crate::removed::cut;
use crate::rule::{FindingExt, RuleResult};
use mcpseal_protocol::method;

/// The MRTR input methods 2026-07-28 allows in `inputRequests`.
const INPUT_METHODS: &[&str] = &[
    method::ELICITATION_CREATE,
    method::SAMPLING_CREATE_MESSAGE,
    method::ROOTS_LIST,
];

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
        let tool = listing.tool(&call.name);
        let problems = match result.get("resultType").and_then(Value::as_str) {
            Some("input_required") => input_required_problems(result),
            // A task of the tasks extension is not a `CallToolResult`; whether it may be sent
            // to a client that did not declare the extension is SEAL042's finding.
            Some("task") => continue,
            _ => complete_problems(result, tool.and_then(|t| t.get("outputSchema"))),
        };
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

fn complete_problems(result: &Value, output_schema: Option<&Value>) -> Vec<String> {
    let mut out = Vec::new();
    if !result.get("content").is_some_and(Value::is_array) {
        out.push(match result.get("content") {
            None => "the result has no `content` array".to_owned(),
            Some(c) => format!(
                "`content` is {} instead of an array",
                cut(&c.to_string(), 60)
            ),
        });
    }
    let is_error = match result.get("isError") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            out.push(format!("`isError` is {other} instead of a boolean"));
            false
        }
    };
    if is_error {
        return out;
    }
    let Some(schema) = output_schema else {
        return out;
    };
    let Ok(validator) = mcpseal_schema::compile(schema, mcpseal_schema::Options::default()) else {
        return out;
    };
    match result.get("structuredContent") {
        None => out.push(
            "the tool declares an `outputSchema` but the result has no `structuredContent`".into(),
        ),
        Some(sc) => {
            let v: Vec<String> = validator
                .first_violations(sc, 3)
                .iter()
                .map(ToString::to_string)
                .collect();
            if !v.is_empty() {
                out.push(format!(
                    "`structuredContent` {} does not conform to the `outputSchema`: {}",
                    cut(&sc.to_string(), 120),
                    v.join("; ")
                ));
            }
        }
    }
    out
}

fn input_required_problems(result: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let requests = result.get("inputRequests");
    let state = result.get("requestState");
    if requests.is_none() && state.is_none() {
        out.push(
            "an `input_required` result has neither `inputRequests` nor `requestState`".into(),
        );
    }
    if let Some(s) = state
        && !s.is_string()
    {
        out.push(format!(
            "`requestState` is {} instead of a string",
            cut(&s.to_string(), 60)
        ));
    }
    match requests {
        None => {}
        Some(Value::Object(map)) => {
            for (key, req) in map {
                let asked = req.get("method").and_then(Value::as_str);
                match asked {
                    Some(m) if INPUT_METHODS.contains(&m) => {}
                    Some(m) => out.push(format!(
                        "`inputRequests.{key}` asks for `{m}`, which is not an input method"
                    )),
                    None => out.push(format!("`inputRequests.{key}` has no `method`")),
                }
                if asked == Some(method::ROOTS_LIST) {
                    if req.get("params").is_some_and(|p| !p.is_object()) {
                        out.push(format!("`inputRequests.{key}.params` is not an object"));
                    }
                } else if !req.get("params").is_some_and(Value::is_object) {
                    out.push(format!("`inputRequests.{key}` has no `params` object"));
                }
            }
        }
        Some(other) => out.push(format!(
            "`inputRequests` is {} instead of an object",
            cut(&other.to_string(), 60)
        )),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_required_results_are_judged_by_shape() {
        let ok = json!({"resultType": "input_required", "inputRequests": {"a": {"method": "elicitation/create", "params": {"message": "?"}}}, "requestState": "s"});
        assert!(input_required_problems(&ok).is_empty());
        assert!(
            input_required_problems(&json!({"resultType": "input_required", "requestState": "s"}))
                .is_empty()
        );
        assert_eq!(
            input_required_problems(&json!({"resultType": "input_required"})).len(),
            1
        );
        let bad = json!({"inputRequests": {"a": {"method": "tools/call", "params": {}}}, "requestState": 7});
        assert_eq!(input_required_problems(&bad).len(), 2);
    }

    #[test]
    fn complete_results_are_judged_against_the_output_schema() {
        let schema = json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
        let good = json!({"content": [], "structuredContent": {"sum": 3}});
        assert!(complete_problems(&good, Some(&schema)).is_empty());
        let bad = json!({"content": [], "structuredContent": {"sum": "3"}});
        assert_eq!(complete_problems(&bad, Some(&schema)).len(), 1);
        let err = json!({"content": [{"type": "text", "text": "boom"}], "isError": true});
        assert!(complete_problems(&err, Some(&schema)).is_empty());
        assert_eq!(complete_problems(&json!({"isError": true}), None).len(), 1);
    }
}
