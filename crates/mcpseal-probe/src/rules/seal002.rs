use mcpseal_report::Severity;

use crate::context::ProbeContext;
use crate::prelude::ObservedEra;
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The server still requires (or accepts) the `initialize` handshake.
    ///
    /// In 2025 a client opened every conversation with `initialize`/`notifications/initialized`
    /// and the server kept the negotiated version and capabilities in a session. 2026-07-28
    /// made the protocol stateless (SEP-2575): every request carries its version, client
    /// capabilities and client identity in `params._meta`, and servers MUST NOT derive them
    /// from earlier requests. A server that answers nothing until `initialize` has happened
    /// does not work with a 2026 client at all (error). A server that merely still *accepts*
    /// `initialize` next to `server/discover` is a dual-era server, which the spec allows for
    /// backward compatibility (advisory). A server that accepts `initialize`, serves requests
    /// without it and has no `server/discover` is still a 2025 server (error), and is told so
    /// in those words, not that it "requires" the handshake: the title says "requires" only
    /// when a 2025-dressed `tools/list` sent before any handshake was refused too (a stateless
    /// 2025 server may refuse a 2026 request for its version header and still serve 2025 ones).
    ///
    /// The code a modern-only server uses to refuse `initialize` is implementation-defined
    /// (stdio: realistically -32601 or -32602; HTTP: 400 via header validation): any JSON-RPC
    /// error is accepted, unlike mcp-stateless, which warned on codes other than
    /// -32601/-32600/-32022. On stdio, when listing works without a handshake, `initialize` is
    /// sent as the first message of a fresh process: dual-era SDKs pin the era from the first
    /// message, so asking it after `server/discover` would hide them (mcp-stateless's stdio
    /// blind spot), and a handshake in the probed process would change what later rules see.
    pub static SEAL002 = {
        id: "SEAL002",
        anchor: Some("MCP002"),
        title: "Server still requires the initialize handshake",
        severity: Error,
        remediation: Sdk,
        spec: "basic/versioning",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    let mut evidence = vec![&p.discover, &p.bare_listing, &p.initialize];
    let finding = match p.era() {
        ObservedEra::Stateful => {
            if let Some(l) = &p.post_handshake_listing {
                evidence.push(l);
            }
            SEAL002.finding(
                format!(
                    "Before the handshake {}; `initialize` succeeded; after it {}.",
                    describe(&p.bare_listing),
                    p.post_handshake_listing
                        .as_ref()
                        .map(describe)
                        .unwrap_or_default()
                ),
                "No handshake: each request is served on its own, with version, client capabilities and client info read from `params._meta`; servers MUST NOT derive them from earlier requests.",
                "Upgrade to an MCP SDK that speaks 2026-07-28 and serve requests statelessly; remove any \"not initialized\" gate.",
            )
        }
        ObservedEra::Dual => SEAL002
            .finding(
                "`initialize` succeeded and `server/discover` also works: the server serves both eras.".into(),
                "A dual-era server is allowed during the deprecation window; 2026-only servers reject `initialize`.",
                "Nothing is broken; when 2025 clients no longer matter, drop legacy support (e.g. TypeScript SDK `createMcpHandler({legacy: 'reject'})`).",
            )
            .titled("Server still accepts the legacy initialize handshake (dual-era)")
            .severity(Severity::Warning),
        ObservedEra::Legacy => SEAL002
            .finding(
                match p.legacy_bare_listing.as_ref() {
                    // 2026 requests fail, 2025 ones are served without a handshake.
                    Some(l) if p.serves_legacy_without_handshake() => {
                        evidence.push(l);
                        format!(
                            "`initialize` succeeded but is not needed: without a handshake {}, while {} and {}.",
                            describe(l),
                            describe(&p.bare_listing),
                            describe(&p.discover)
                        )
                    }
                    _ => format!(
                        "`initialize` succeeded, `tools/list` is served without a handshake, and {}.",
                        describe(&p.discover)
                    ),
                },
                "A 2026-07-28 server answers `server/discover`; `initialize` exists only on dual-era servers for 2025 clients.",
                "Upgrade to an MCP SDK that speaks 2026-07-28; it replaces the handshake with `server/discover` and per-request `_meta`.",
            )
            .titled("Server still speaks the 2025 initialize handshake instead of server/discover"),
        ObservedEra::Modern | ObservedEra::Unknown => return Ok(Vec::new()),
    };
    Ok(vec![finding.evidence(evidence)])
}
