use mcpseal_client::HEADER_SESSION_ID;

use crate::context::ProbeContext;
use crate::prelude::ObservedEra;
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
    /// Judged on the prelude's exchanges. Fires when a response to a 2026 request carried the
    /// header, or, on a server that does not serve 2026 requests at all, when any response did
    /// (one finding with the count). A dual-era server that keeps sessions for its 2025
    /// clients only (e.g. rmcp's `legacy_session_mode`) is not faulted: that is what dual-era
    /// means.
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
    // The prelude's exchanges: the same for every selection of rules.
    let exchanges = ctx.prelude().exchanges();
    // A dual-era server may keep sessions for 2025 clients: only answers to 2026 requests
    // count, unless the server does not serve 2026 requests at all.
    let unmigrated = matches!(
        ctx.prelude().era(),
        ObservedEra::Stateful | ObservedEra::Legacy
    );
    let with: Vec<_> = exchanges
        .iter()
        .copied()
        .filter(|e| e.response_header(HEADER_SESSION_ID).is_some())
        .filter(|e| unmigrated || is_modern_request(e))
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
                    exchanges.len(),
                    first.method()
                ),
                "2026-07-28 has no protocol sessions: servers never mint or echo `Mcp-Session-Id` and ignore it on requests.",
                "Upgrade to an MCP SDK that speaks 2026-07-28 and run its HTTP handler stateless (e.g. Go `StreamableHTTPOptions.Stateless = true`); keep any application state out of the transport.",
            )
            .evidence(with.iter().copied().take(2)),
    ])
}

/// A request sent in 2026 dress (`params._meta` carrying a protocol version).
fn is_modern_request(e: &mcpseal_client::Exchange) -> bool {
    e.request
        .pointer("/params/_meta")
        .and_then(|m| m.get(mcpseal_client::META_PROTOCOL_VERSION))
        .is_some()
}
