use mcpseal_protocol::method;
use serde_json::json;

use crate::context::ProbeContext;
use crate::removed::judge_removed;
use crate::rule::RuleResult;

crate::rule! {
    /// The removed `ping` method is still implemented.
    ///
    /// `ping` checked that a session was still alive. Without sessions there is nothing to
    /// keep alive: a stdio client sees the process, an HTTP client sees each request succeed
    /// or fail. 2026-07-28 removed `ping`; a server answers it with -32601 (HTTP 404).
    ///
    /// Judged with the removed-method semantics of `removed.rs`: a result on the 2026 path, or
    /// on the 2025 path after the handshake (session echoed), is a live handler; an error
    /// other than method-not-found on both paths is an advisory; -32600 is accepted as "gone"
    /// only when it is not a handshake gate.
    pub static SEAL006 = {
        id: "SEAL006",
        anchor: Some("MCP006"),
        title: "The removed ping method is still implemented",
        severity: Error,
        remediation: Sdk,
        spec: "changelog",
        transports: [Stdio, Http],
        check: check,
    };
}

/// The removed methods this rule asks (also asked of fresh processes ahead, `rules::fresh_reasks`).
pub(super) fn probes() -> Vec<(&'static str, serde_json::Value)> {
    vec![(method::PING, json!({}))]
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    judge_removed(
        ctx,
        &SEAL006,
        &probes(),
        "`ping` does not exist in 2026-07-28: unknown methods get -32601 Method not found (HTTP 404).",
        "Upgrade to an MCP SDK that speaks 2026-07-28 (it no longer registers `ping`); remove any hand-written `ping` handler.",
    )
    .await
}
