use crate::context::ProbeContext;
use crate::prelude::RootCause;
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The server rejects requests carrying the `_meta` protocol envelope.
    ///
    /// With no handshake, 2026-07-28 moved what `initialize` used to negotiate into every
    /// request: `params._meta` carries `io.modelcontextprotocol/protocolVersion`,
    /// `…/clientCapabilities` and `…/clientInfo`, and `_meta` is REQUIRED on every request. A
    /// server whose parameter validation refuses unknown properties (a strict schema, an
    /// `additionalProperties: false` generated from 2025 types) rejects every 2026 request —
    /// discover, listings, everything — for this one reason.
    ///
    /// Root-cause rule: fires when nothing worked with `_meta` and the same `tools/list`
    /// without it succeeded. Because it explains every other failure, the rules that would
    /// otherwise also fire on it (discover missing, removed methods "still registered") stay
    /// silent: one cause, one finding. Remediation is `application` (usually a hand-written
    /// validator), though an old SDK's schema can be the cause.
    pub static SEAL013 = {
        id: "SEAL013",
        anchor: Some("MCP013"),
        title: "Server rejects requests carrying the _meta protocol envelope",
        severity: Error,
        remediation: Application,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    if p.root_cause != Some(RootCause::RejectsEnvelope) {
        return Ok(Vec::new());
    }
    let Some(free) = &p.envelope_free_listing else {
        return Ok(Vec::new());
    };
    Ok(vec![
        SEAL013
            .finding(
                format!(
                    "With `_meta`: {}; {}. Without `_meta`: {}.",
                    describe(&p.discover),
                    describe(&p.bare_listing),
                    describe(free)
                ),
                "Every 2026-07-28 request carries `params._meta` with `io.modelcontextprotocol/protocolVersion`, `…/clientCapabilities` and `…/clientInfo`; servers read it and never reject it as an unknown property.",
                "Allow `_meta` in every request's params (remove `additionalProperties: false` or the strict-params check that rejects it) and read the protocol version from it.",
            )
            .evidence([&p.discover, &p.bare_listing, free]),
    ])
}
