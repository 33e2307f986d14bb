use mcpseal_protocol::method;
use serde_json::json;

use crate::context::ProbeContext;
use crate::removed::judge_removed;
use crate::rule::RuleResult;

crate::rule! {
    /// The removed `logging/setLevel` method is still implemented.
    ///
    /// `logging/setLevel` changed a level stored in the session, affecting every later
    /// request — state the server may no longer keep. 2026-07-28 removed it: a client that
    /// wants log messages for one request names the level in that request's
    /// `_meta["io.modelcontextprotocol/logLevel"]`, and without it the server MUST NOT send
    /// `notifications/message` for the request. Logging as a whole is deprecated.
    ///
    /// Judged with the removed-method semantics of `removed.rs`.
    pub static SEAL007 = {
        id: "SEAL007",
        anchor: Some("MCP007"),
        title: "The removed logging/setLevel method is still implemented",
        severity: Error,
        remediation: Sdk,
        spec: "server/utilities/logging",
        transports: [Stdio, Http],
        check: check,
    };
}

/// The removed methods this rule asks (also asked of fresh processes ahead, `rules::fresh_reasks`).
pub(super) fn probes() -> Vec<(&'static str, serde_json::Value)> {
    vec![(method::LOGGING_SET_LEVEL, json!({"level": "info"}))]
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    judge_removed(
        ctx,
        &SEAL007,
        &probes(),
        "`logging/setLevel` does not exist in 2026-07-28 (-32601); the log level travels per request in `_meta[\"io.modelcontextprotocol/logLevel\"]`.",
        "Upgrade to an MCP SDK that speaks 2026-07-28; read the level from each request's `_meta` instead of a stored setting.",
    )
    .await
}
