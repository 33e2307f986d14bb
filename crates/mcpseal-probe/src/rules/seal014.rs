use crate::context::ProbeContext;
use crate::prelude::RootCause;
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The server rejects the required `Mcp-Method` / `Mcp-Name` / `MCP-Protocol-Version`
    /// headers.
    ///
    /// 2026-07-28 repeats the method, the target name and the protocol version of every
    /// Streamable HTTP POST in headers, so gateways, load balancers and WAFs can route and
    /// authorise without parsing JSON bodies. Clients MUST send them; a server (or a proxy in
    /// front of it) that refuses requests carrying them rejects every 2026 client.
    ///
    /// Root-cause rule (HTTP): fires when nothing worked with the headers and the same
    /// `tools/list` without them succeeded; the rules that would otherwise also fire on it
    /// stay silent.
    pub static SEAL014 = {
        id: "SEAL014",
        anchor: Some("MCP014"),
        title: "Server rejects the required Mcp-Method and Mcp-Name headers",
        severity: Error,
        remediation: Sdk,
        spec: "basic/transports/streamable-http",
        transports: [Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    if p.root_cause != Some(RootCause::RejectsHeaders) {
        return Ok(Vec::new());
    }
    let Some(headerless) = &p.headerless_listing else {
        return Ok(Vec::new());
    };
    Ok(vec![
        SEAL014
            .finding(
                format!(
                    "With the routing headers: {}; {}. Without them: {}.",
                    describe(&p.discover),
                    describe(&p.bare_listing),
                    describe(headerless)
                ),
                "Every 2026 POST carries `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`, `prompts/get`, `resources/read`) `Mcp-Name`; servers validate them against the body (-32020 on mismatch), never reject their presence.",
                "Upgrade to an MCP SDK that speaks 2026-07-28; check that proxies and WAFs in front of the server let the `Mcp-*` headers through.",
            )
            .evidence([&p.discover, &p.bare_listing, headerless]),
    ])
}
