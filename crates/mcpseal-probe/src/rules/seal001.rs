use mcpseal_report::Severity;
use serde_json::Value;

use crate::context::ProbeContext;
use crate::protocol::TARGET_REVISION;
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// `server/discover` is not implemented.
    ///
    /// 2026-07-28 deleted the `initialize` handshake (SEP-2575). Without it a client has no
    /// moment at which the server introduces itself, so the revision added one request every
    /// server MUST answer: `server/discover`, returning `supportedVersions`, `capabilities` and
    /// cache hints. A client that wants to know what a server can do asks it, on any request,
    /// without creating state. A server that does not answer it cannot be discovered by a 2026
    /// client, and a server whose `supportedVersions` lacks `2026-07-28` tells clients to fall
    /// back to a revision they may not speak.
    ///
    /// Silent when the prelude isolated another root cause (the server rejects the `_meta`
    /// envelope, SEAL013, or the routing headers, SEAL014): discover fails then for that
    /// reason, and one cause gets one finding. Identity fields at the top level of the result
    /// are not required (they moved to `_meta`; an early draft of mcp-stateless guessed the
    /// field name `protocolVersions` and failed every compliant server — the name is
    /// `supportedVersions`).
    pub static SEAL001 = {
        id: "SEAL001",
        anchor: Some("MCP001"),
        title: "server/discover is not implemented",
        severity: Error,
        remediation: Sdk,
        spec: "server/discover",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    let ex = &p.discover;
    if ex.transport_error.is_some() || p.root_cause.is_some() {
        return Ok(Vec::new());
    }
    let Some(result) = ex.result() else {
        return Ok(vec![
            SEAL001
                .finding(
                    format!("{}.", describe(ex)),
                    "Servers MUST implement `server/discover`: a result with `supportedVersions`, `capabilities`, `ttlMs`, `cacheScope` and `resultType`.",
                    "Upgrade to an MCP SDK that speaks 2026-07-28 (it registers `server/discover` for you), or answer `server/discover` with the server's supported versions and capabilities.",
                )
                .evidence([ex]),
        ]);
    };
    let versions = result.get("supportedVersions").and_then(Value::as_array);
    let observed = match versions {
        None => "the `server/discover` result has no `supportedVersions` array".to_owned(),
        Some(v) if v.is_empty() => "`supportedVersions` is empty".to_owned(),
        Some(v) if !v.iter().any(|x| x == TARGET_REVISION) => format!(
            "`supportedVersions` is {} and does not list `{TARGET_REVISION}`",
            Value::Array(v.clone())
        ),
        Some(_) => return Ok(Vec::new()),
    };
    Ok(vec![
        SEAL001
            .finding(
                format!("{observed}."),
                "`DiscoverResult.supportedVersions` is a non-empty array of the revisions the server accepts; a 2026-07-28 server lists `2026-07-28`.",
                "Return `supportedVersions` (e.g. `[\"2026-07-28\"]`) from `server/discover`.",
            )
            .titled("server/discover does not advertise 2026-07-28 in supportedVersions")
            .severity(Severity::Error)
            .evidence([ex]),
    ])
}
