use mcpseal_client::Exchange;
use mcpseal_protocol::method;
use serde_json::{Value, json};

use crate::context::ProbeContext;
use crate::protocol::{INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_CAPABILITY};
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};
use crate::rules::modern_http::modern_http;

crate::rule! {
    /// JSON-RPC error responses do not carry the id of the request they answer.
    ///
    /// JSON-RPC 2.0 answers a request with its own `id`, errors included; `id: null` is only
    /// for a request whose id could not be read (a parse error, an invalid request). MCP
    /// keeps that rule, and 2026-07-28 leans on it harder: a client cancels and retries
    /// requests by id (MRTR retries get a new id each time), and an event-stream reader picks
    /// its response out of the stream by id. An error with a null or foreign id is, for the
    /// client, no answer at all.
    ///
    /// HTTP, servers whose `server/discover` works. Judged on errors that prove the body was
    /// parsed — -32601 (the method was read), -32602 and -32021 (the params were read) — to
    /// requests carrying the 2026 envelope: the run's error-status probes (an unknown method,
    /// `server/discover` without `clientCapabilities`), an unknown tool sent here,
    /// plus every such error of the prelude (never what other rules sent: the verdict is the
    /// same whichever rules run). Errors that may come before parsing (a
    /// rejected `Origin`, a header-only refusal, a notification) are never judged.
    pub static SEAL034 = {
        id: "SEAL034",
        anchor: None,
        title: "JSON-RPC error responses do not carry the request id",
        severity: Error,
        remediation: Sdk,
        spec: "basic/index",
        transports: [Http],
        check: check,
    };
}

fn parsed_error_lost_id(ex: &Exchange) -> bool {
    let modern = ex
        .request
        .pointer("/params/_meta")
        .is_some_and(Value::is_object);
    let Some(id) = ex.request.get("id") else {
        return false;
    };
    modern
        && matches!(
            ex.error_code(),
            Some(METHOD_NOT_FOUND | INVALID_PARAMS | MISSING_CAPABILITY)
        )
        && ex.response.as_ref().and_then(|r| r.get("id")) != Some(id)
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    if !modern_http(ctx) {
        return Ok(Vec::new());
    }
    // The run's shared error-status probes: an unknown method and a missing `_meta` key.
    let statuses = ctx.error_statuses().await;
    let unknown_tool = ctx
        .call(
            method::TOOLS_CALL,
            json!({"name": "mcpseal-probe-no-such-tool", "arguments": {}}),
        )
        .await;
    let prelude = ctx.prelude().exchanges();
    let lost: Vec<&Exchange> = prelude
        .into_iter()
        .chain(statuses.iter())
        .chain([&unknown_tool])
        .filter(|e| parsed_error_lost_id(e))
        .collect();
    let Some(first) = lost.first() else {
        return Ok(Vec::new());
    };
    // What came back instead, never the ids themselves (they depend on what was sent before).
    let got = match first.response.as_ref().and_then(|r| r.get("id")) {
        None => "no `id`",
        Some(Value::Null) => "`id: null`",
        Some(_) => "another request's `id`",
    };
    Ok(vec![
        SEAL034
            .finding(
                format!(
                    "{} parsed-request error(s) lost their request id; first: {} came back with {got}.",
                    lost.len(),
                    describe(first)
                ),
                "An error response to a request whose body was parsed carries that request's `id` (JSON-RPC 2.0); `id: null` is only for unreadable requests.",
                "Upgrade to an MCP SDK that speaks 2026-07-28; in a hand-written transport, build error responses from the parsed request so its `id` is echoed.",
            )
            .evidence(lost.iter().copied().take(2)),
    ])
}
