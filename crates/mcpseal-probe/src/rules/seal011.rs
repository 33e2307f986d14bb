use mcpseal_protocol::method;
use serde_json::json;

use crate::context::ProbeContext;
use crate::protocol::{BOGUS_URI, OLD_RESOURCE_NOT_FOUND};
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// Resource-not-found still uses the retired -32002 error code.
    ///
    /// 2025 defined one implementation-range code, -32002, for "resource not found". 2026-07-28
    /// reserved `-32020…-32099` for the spec and retired -32002: a missing resource is
    /// "invalid params" (-32602, with the URI in `data`) like every other bad argument, so
    /// clients need one error path instead of a special case. Clients SHOULD still accept
    /// -32002 from old servers, but a 2026 server MUST NOT send it.
    ///
    /// Sends `resources/read` for a made-up URI on the client path; fires on -32002 exactly.
    pub static SEAL011 = {
        id: "SEAL011",
        anchor: Some("MCP011"),
        title: "Resource-not-found still returns the retired -32002 error code",
        severity: Error,
        remediation: Sdk,
        spec: "server/resources",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let Some(ex) = ctx
        .call_client(method::RESOURCES_READ, json!({"uri": BOGUS_URI}))
        .await
    else {
        return Ok(Vec::new());
    };
    if ex.error_code() != Some(OLD_RESOURCE_NOT_FOUND) {
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL011
            .finding(
                format!("{}.", describe(&ex)),
                "A missing resource is -32602 Invalid params (e.g. `data: {\"uri\": …}`); -32002 is retired and MUST NOT be sent.",
                "Change the resource-not-found error code from -32002 to -32602 (an SDK that speaks 2026-07-28 does this).",
            )
            .evidence([&ex]),
    ])
}
