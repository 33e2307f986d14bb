use mcpseal_protocol::method;
use serde_json::{Value, json};

use crate::context::ProbeContext;
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

/// A tool name no server lists (so calling it runs nothing).
pub(crate) const NO_SUCH_TOOL: &str = "mcpseal-probe-no-such-tool";

crate::rule! {
    /// `tools/call` of an unknown tool is answered with a result instead of a JSON-RPC error.
    ///
    /// The tools page separates two kinds of failure: protocol errors — an unknown tool, a
    /// request that does not fit the `CallToolRequest` schema — "are returned as standard
    /// JSON-RPC errors" (its example: -32602 "Unknown tool: invalid_tool_name"), while tool
    /// execution errors (an API failure, invalid input values, business logic) are results
    /// with `isError: true`, meant for the model to read and retry. A client routes the two
    /// differently: a JSON-RPC error tells it the tool does not exist (its tool list is stale);
    /// an `isError` result is handed to the model as if the tool had run. The official
    /// conformance suite's content checks even pass on such an answer (a call of a missing
    /// tool "succeeds").
    ///
    /// Both transports, on the client path, when `tools/list` answered: one `tools/call` of
    /// `mcpseal-probe-no-such-tool`, a name no server lists, so nothing runs. Fires when the
    /// answer is a result (with or without `isError`). The text describes rather than uses a
    /// MUST or SHOULD, hence a warning; any JSON-RPC error code passes (-32602 is the example,
    /// not a requirement).
    pub static SEAL043 = {
        id: "SEAL043",
        anchor: None,
        title: "tools/call of an unknown tool is answered with a result, not a JSON-RPC error",
        severity: Warning,
        remediation: Sdk,
        spec: "server/tools",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    if ctx.prelude().effective_listing().is_none() {
        return Ok(Vec::new());
    }
    let Some(ex) = ctx
        .call_client(
            method::TOOLS_CALL,
            json!({"name": NO_SUCH_TOOL, "arguments": {}}),
        )
        .await
    else {
        return Ok(Vec::new());
    };
    let Some(result) = ex.result() else {
        return Ok(Vec::new());
    };
    let what = if result.get("isError") == Some(&Value::Bool(true)) {
        "an `isError: true` result"
    } else {
        "a result that does not even say it failed"
    };
    Ok(vec![
        SEAL043
            .finding(
                format!("`tools/call` of `{NO_SUCH_TOOL}` (not listed) got {what}: {}.", describe(&ex)),
                "An unknown tool is a protocol error, returned as a JSON-RPC error (the spec's example: -32602 \"Unknown tool: …\"); `isError: true` results are for errors of a tool that ran.",
                "Answer `tools/call` of a name the server does not list with a JSON-RPC error (-32602, the name in `data`), before looking for a handler; keep `isError` results for failures inside a tool.",
            )
            .evidence([&ex]),
    ])
}
