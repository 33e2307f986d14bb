use crate::context::ProbeContext;
use crate::protocol::{METHOD_NOT_FOUND, UNKNOWN_METHOD};
use crate::rule::{FindingExt, RuleResult};
use crate::rules::modern_http::{answer, modern_http};

crate::rule! {
    /// An unknown method is not answered with HTTP 404 and -32601.
    ///
    /// A 2026 client that meets a server it does not know sends a modern request and reads
    /// the answer to decide the era: a 404 that carries JSON-RPC -32601 is a modern server
    /// saying "no such method", while a bare 404 is what an old HTTP+SSE-only server answers
    /// to a POST it has no route for. 2026-07-28 therefore pairs "method not found" with HTTP
    /// 404 *and* the -32601 body; a 200, a 400 or an empty 404 sends era detection down the
    /// wrong path.
    ///
    /// HTTP, servers whose `server/discover` works: sends `mcpseal/no-such-method` with the
    /// full envelope and routing headers (the run's shared error-status probe); fires on a
    /// result, a code other than -32601, a status other than 404, or a 404 without a JSON-RPC
    /// body. A -32601 with HTTP 200 from a server that sends every error with 200 is SEAL044's
    /// one finding, not this rule's. A 401/403 is an authorization refusal, never judged.
    /// Removed methods (`ping`, `logging/setLevel`…) are judged by SEAL006–SEAL008, not here.
    pub static SEAL031 = {
        id: "SEAL031",
        anchor: None,
        title: "Unknown method is not answered with HTTP 404 and -32601",
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
    let Some(ex) = ctx.error_statuses().await.first() else {
        return Ok(Vec::new());
    };
    // A 401/403 is an authorization refusal, not the server's answer to the method.
    let Some(status) = ex.http_status.filter(|_| !ctx.refused(ex)) else {
        return Ok(Vec::new());
    };
    let code = ex.error_code();
    if code == Some(METHOD_NOT_FOUND) && (status == 404 || ctx.errors_always_200().await) {
        return Ok(Vec::new());
    }
    let observed = match code {
        Some(METHOD_NOT_FOUND) => format!("-32601 came with HTTP {status} instead of 404"),
        _ => answer(ex),
    };
    Ok(vec![
        SEAL031
            .finding(
                format!("`{UNKNOWN_METHOD}`: {observed}."),
                "An unknown method gets HTTP 404 with a JSON-RPC -32601 (Method not found) body; the body is what tells a 2026 server from an HTTP+SSE-only one.",
                "Upgrade to an MCP SDK that speaks 2026-07-28; in a hand-written transport, map -32601 to HTTP 404 and always send the JSON-RPC error body.",
            )
            .evidence([ex]),
    ])
}
