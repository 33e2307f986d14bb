use mcpseal_protocol::method;
use serde_json::json;

use crate::context::ProbeContext;
use crate::protocol::BOGUS_URI;
use crate::removed::judge_removed;
use crate::rule::RuleResult;

crate::rule! {
    /// The removed `resources/subscribe` / `resources/unsubscribe` methods are still
    /// implemented.
    ///
    /// A 2025 subscription lived in the session: subscribe once, receive
    /// `notifications/resources/updated` on the session's stream. With no session to attach
    /// it to, 2026-07-28 replaced both methods with one long-lived request,
    /// `subscriptions/listen`, whose filter names the resources
    /// (`resourceSubscriptions: [uri…]`); the `resources.subscribe` capability now means that
    /// filter is honoured.
    ///
    /// Both methods are probed with a made-up URI under the removed-method semantics of
    /// `removed.rs`; one finding covers both (one root cause: the 2025 subscription
    /// mechanism is still served).
    pub static SEAL008 = {
        id: "SEAL008",
        anchor: Some("MCP008"),
        title: "The removed resources/subscribe methods are still implemented",
        severity: Error,
        remediation: Sdk,
        spec: "server/resources",
        transports: [Stdio, Http],
        check: check,
    };
}

/// The removed methods this rule asks (also asked of fresh processes ahead, `rules::fresh_reasks`).
pub(super) fn probes() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (method::RESOURCES_SUBSCRIBE, json!({"uri": BOGUS_URI})),
        (method::RESOURCES_UNSUBSCRIBE, json!({"uri": BOGUS_URI})),
    ]
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    judge_removed(
        ctx,
        &SEAL008,
        &probes(),
        "`resources/subscribe` and `resources/unsubscribe` do not exist in 2026-07-28 (-32601); resource updates are requested with `subscriptions/listen` and `notifications.resourceSubscriptions`.",
        "Upgrade to an MCP SDK that speaks 2026-07-28 and serve resource updates through `subscriptions/listen`.",
    )
    .await
}
