use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};
use mcpseal_protocol::method;

crate::rule! {
    /// The server declares the deprecated `logging` capability.
    ///
    /// 2026-07-28 deprecated Logging (with Roots, Sampling and Dynamic Client Registration):
    /// `logging/setLevel` is gone, a client asks for log messages per request through
    /// `_meta["io.modelcontextprotocol/logLevel"]`, and the feature may be removed after
    /// 2027-07-28. Declaring it tells clients to build on something scheduled to disappear.
    ///
    /// Only `logging` is judged: Roots and Sampling are *client* capabilities, which a server
    /// never declares (mcp-stateless also looked for them in server capabilities, where they
    /// cannot meaningfully appear). Capabilities come from `server/discover`, or from the
    /// `initialize` result of a 2025 server.
    pub static SEAL015 = {
        id: "SEAL015",
        anchor: Some("MCP015"),
        title: "Server declares the deprecated logging capability",
        severity: Warning,
        remediation: Application,
        spec: "deprecated",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    let Some(caps) = p.capabilities() else {
        return Ok(Vec::new());
    };
    let Some(logging) = caps.get("logging") else {
        return Ok(Vec::new());
    };
    let (source, ex) = if p.capabilities_from_discover() {
        (method::SERVER_DISCOVER, &p.discover)
    } else {
        (method::INITIALIZE, &p.initialize)
    };
    Ok(vec![
        SEAL015
            .finding(
                format!("`{source}` declares `capabilities.logging: {logging}`."),
                "Logging is deprecated in 2026-07-28 (earliest removal 2027-07-28); log levels travel per request in `_meta`.",
                "Stop declaring `logging` unless clients still depend on it; send log messages only for requests that ask for a level in `_meta`.",
            )
            .evidence([ex]),
    ])
}
