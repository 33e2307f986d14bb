use mcpseal_client::HEADER_SESSION_ID;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The server still issues the removed `Mcp-Session-Id` header.
    ///
    /// 2025 Streamable HTTP kept a protocol session: the server minted `Mcp-Session-Id` on
    /// `initialize`, and every later request had to carry it (400 without, 404 once ended).
    /// Sessions pinned a client to one server instance and made horizontal scaling and
    /// retries hard. 2026-07-28 removed protocol sessions (SEP-2575): a modern server never
    /// mints or echoes `Mcp-Session-Id` and ignores one sent by a legacy client. Applications
    /// that need conversation state carry it explicitly in their own data.
    ///
    /// Fires when any response of the run carried the header (one finding with the count).
    pub static SEAL003 = {
        id: "SEAL003",
        anchor: Some("MCP003"),
        title: "Server still uses the removed Mcp-Session-Id header",
        severity: Error,
        remediation: Sdk,
        spec: "basic/transports/streamable-http",
        transports: [Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let transcript = ctx.transcript();
    let with: Vec<_> = transcript
        .iter()
        .filter(|e| e.response_header(HEADER_SESSION_ID).is_some())
        .collect();
    let Some(first) = with.first() else {
        return Ok(Vec::new());
    };
    Ok(vec![
        SEAL003
            .finding(
                format!(
                    "{} of {} responses carried `Mcp-Session-Id` (first on `{}`).",
                    with.len(),
                    transcript.len(),
                    first.method()
                ),
                "2026-07-28 has no protocol sessions: servers never mint or echo `Mcp-Session-Id` and ignore it on requests.",
                "Upgrade to an MCP SDK that speaks 2026-07-28 and run its HTTP handler stateless (e.g. Go `StreamableHTTPOptions.Stateless = true`); keep any application state out of the transport.",
            )
            .evidence(with.into_iter().take(2)),
    ])
}
