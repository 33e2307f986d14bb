use mcpseal_protocol::method;
use serde_json::json;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};
use crate::rules::modern_http::modern_http;

crate::rule! {
    /// An accepted notification is not answered with HTTP 202 and no body.
    ///
    /// In 2026-07-28 each Streamable HTTP POST carries one message. A request gets a JSON or
    /// event-stream response; a notification has nothing to answer, so an accepted one gets
    /// `202 Accepted` with no body, and a rejected one a 4xx (whose body MAY be a JSON-RPC
    /// error without `id`). Clients, proxies and SDK transports rely on that split: a 200, a
    /// body, or a server error leaves a client waiting for, or misreading, a response that
    /// cannot exist.
    ///
    /// HTTP, servers whose `server/discover` works: sends `notifications/cancelled` for a
    /// request id that never existed (on HTTP a client cancels by closing the stream, so the
    /// server may just as well refuse it: any 4xx passes). Fires on any other status, or on a
    /// 202 that carries a body.
    pub static SEAL032 = {
        id: "SEAL032",
        anchor: None,
        title: "Accepted notification is not answered with HTTP 202 and no body",
        severity: Error,
        remediation: Sdk,
        spec: "basic/transports/streamable-http",
        transports: [Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    if !modern_http(ctx) {
        return Ok(Vec::new());
    }
    let ex = ctx
        .notify(
            method::NOTIFICATION_CANCELLED,
            json!({"requestId": "mcpseal-probe-no-such-request", "reason": "mcpseal probe"}),
        )
        .await;
    let Some(status) = ex.http_status.filter(|_| !ctx.refused(&ex)) else {
        return Ok(Vec::new());
    };
    if (400..500).contains(&status) {
        return Ok(Vec::new());
    }
    let length = ex
        .response_header("content-length")
        .and_then(|l| l.trim().parse::<u64>().ok());
    let has_body =
        ex.response.is_some() || !ex.notifications.is_empty() || length.is_some_and(|l| l > 0);
    if status == 202 && !has_body {
        return Ok(Vec::new());
    }
    let body = if let Some(r) = &ex.response {
        format!(" and the body {r}")
    } else if has_body {
        format!(
            " and a body ({})",
            ex.response_header("content-type")
                .unwrap_or("no content-type")
        )
    } else {
        String::new()
    };
    Ok(vec![
        SEAL032
            .finding(
                format!("`notifications/cancelled` was answered with HTTP {status}{body}."),
                "An accepted notification gets HTTP 202 with no body; a rejected one a 4xx (optionally with a JSON-RPC error without `id`).",
                "Upgrade to an MCP SDK that speaks 2026-07-28; in a hand-written transport, answer every notification POST with an empty 202 (or a 4xx when refusing it).",
            )
            .evidence([&ex]),
    ])
}
