use crate::context::ProbeContext;
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};
use crate::rules::modern_http::modern_http;

crate::rule! {
    /// Every JSON-RPC error is sent with HTTP 200.
    ///
    /// Over Streamable HTTP the status of an error answer is part of the protocol in
    /// 2026-07-28: an unknown method is 404 (the body tells a modern server from an HTTP+SSE
    /// one), a malformed request — a missing `_meta` key, a header mismatch, an unsupported
    /// version, a missing client capability — is 400, a foreign `Origin` 403. Gateways, load
    /// balancers and clients route on the status before they read a body. A transport that
    /// answers every error with 200 breaks all of them at once, for one reason, with one fix.
    ///
    /// HTTP, servers whose `server/discover` works: the run's two error-status probes (an
    /// unknown method, which must be 404, and `server/discover` without the REQUIRED
    /// `clientCapabilities`, which must be 400). Fires when both come back as JSON-RPC errors
    /// with HTTP 200; the rules that judge one error's status (SEAL023, SEAL024, SEAL030,
    /// SEAL031, SEAL035, SEAL042) then stay silent about statuses: one cause, one finding.
    pub static SEAL044 = {
        id: "SEAL044",
        anchor: None,
        title: "Every JSON-RPC error is sent with HTTP 200",
        severity: Error,
        remediation: Sdk,
        spec: "basic/transports/streamable-http",
        transports: [Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    if !modern_http(ctx) || !ctx.errors_always_200().await {
        return Ok(Vec::new());
    }
    let probes = ctx.error_statuses().await;
    Ok(vec![
        SEAL044
            .finding(
                format!(
                    "An unknown method and a request missing `io.modelcontextprotocol/clientCapabilities` were both answered with HTTP 200: {}.",
                    probes.iter().map(describe).collect::<Vec<_>>().join("; ")
                ),
                "JSON-RPC errors carry their HTTP status: an unknown method 404 (with the -32601 body), a malformed request (missing `_meta` key, header mismatch, unsupported version, missing client capability) 400, a foreign `Origin` 403.",
                "Map JSON-RPC errors to their HTTP status in the transport (-32601 → 404; -32602, -32020, -32021, -32022 → 400), as SDKs that speak 2026-07-28 do; never answer an error with 200.",
            )
            .evidence(probes.iter()),
    ])
}
