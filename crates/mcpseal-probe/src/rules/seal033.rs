use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};
use crate::rules::modern_http::modern_only_http;
use crate::rules::seal010::is_event_stream;

crate::rule! {
    /// `GET` or `DELETE` on the endpoint of a modern-only server is not answered with 405.
    ///
    /// 2025 Streamable HTTP used `GET` for a standalone event stream and `DELETE` to end a
    /// session. 2026-07-28 has neither: the endpoint is POST-only, and a server that does not
    /// serve 2025 clients SHOULD answer `GET` and `DELETE` with 405 Method Not Allowed. That
    /// status is how a 2025 client (and the HTTP+SSE fallback) learns quickly and
    /// unambiguously that it must not wait for a stream or a session here.
    ///
    /// HTTP, modern-only servers (discover works, `initialize` is refused): a dual-era server
    /// may still serve 2025 GETs and DELETEs, so it is never judged. A `GET` that opens an
    /// event stream is SEAL010's (or SEAL016's) finding, not this one's: one stream, one
    /// finding. A warning (SHOULD).
    pub static SEAL033 = {
        id: "SEAL033",
        anchor: None,
        title: "GET or DELETE on a modern-only endpoint is not answered with 405",
        severity: Warning,
        remediation: Sdk,
        spec: "basic/transports/streamable-http",
        transports: [Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    if !modern_only_http(ctx) {
        return Ok(Vec::new());
    }
    let mut facts = Vec::new();
    let mut evidence = Vec::new();
    if let Some(get) = ctx.event_stream_get().await
        && let Some(status) = get.status
        && status != 405
        && !crate::access::refused_raw(get)
        && !is_event_stream(get)
    {
        facts.push(format!("`GET` → HTTP {status}"));
        evidence.push(serde_json::to_value(get).unwrap_or_default());
    }
    if let Some(delete) = ctx.raw("DELETE", &[]).await
        && let Some(status) = delete.status
        && status != 405
        && !crate::access::refused_raw(&delete)
    {
        facts.push(format!("`DELETE` → HTTP {status}"));
        evidence.push(serde_json::to_value(&delete).unwrap_or_default());
    }
    if facts.is_empty() {
        return Ok(Vec::new());
    }
    let mut finding = SEAL033.finding(
        format!("On `{}`: {}.", ctx.endpoint_url().unwrap_or(""), facts.join("; ")),
        "The 2026-07-28 endpoint is POST-only: a server that does not serve 2025 clients SHOULD answer `GET` and `DELETE` with 405 Method Not Allowed.",
        "Answer `GET` and `DELETE` on the MCP endpoint with 405 (SDKs that speak 2026-07-28 do in their stateless/modern-only mode, e.g. Go `StreamableHTTPOptions.Stateless`).",
    );
    for e in evidence {
        finding = finding.evidence_value(e);
    }
    Ok(vec![finding])
}
