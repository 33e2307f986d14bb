use mcpseal_client::META_SUBSCRIPTION_ID;
use mcpseal_protocol::method::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED;
use mcpseal_report::Severity;
use serde_json::Value;

use crate::context::ProbeContext;
use crate::protocol::METHOD_NOT_FOUND;
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// `subscriptions/listen` is missing although the server advertises `listChanged`.
    ///
    /// In 2025 a server pushed `notifications/*/list_changed` over the session's stream (the
    /// HTTP GET stream, or stdout). 2026-07-28 removed both the sessions and the GET stream,
    /// and gave change notifications one explicit home: the client opens
    /// `subscriptions/listen` with a filter, the server first sends
    /// `notifications/subscriptions/acknowledged` (tagged with the listen request's id) and
    /// then the notifications asked for. A server that advertises `listChanged` but does not
    /// serve `subscriptions/listen` promises notifications no 2026 client can receive.
    ///
    /// Only probed when `tools`, `prompts` or `resources` advertise `listChanged: true`; the
    /// filter asks only for what is advertised (the run's one listen stream, shared with
    /// SEAL026 and SEAL027). The acknowledgement counts as the answer. Silence is never a pass
    /// (mcp-stateless 0.1.5 counted its timeout as one): an unanswered listen makes the run
    /// incomplete.
    pub static SEAL009 = {
        id: "SEAL009",
        anchor: Some("MCP009"),
        title: "subscriptions/listen is missing despite advertised listChanged capabilities",
        severity: Error,
        remediation: Sdk,
        spec: "basic/patterns/subscriptions",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let filter = ctx.prelude().listen_filter();
    let advertised = filter.keys().cloned().collect::<Vec<_>>().join(", ");
    let Some(ex) = ctx.subscription().await else {
        return Ok(Vec::new());
    };
    if ex.transport_error.is_some() {
        return Ok(Vec::new());
    }
    let id = ex.request.get("id").cloned().unwrap_or(Value::Null);
    let acknowledged = ex.notifications.iter().any(|n| {
        n.get("method").and_then(Value::as_str) == Some(NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED)
            && n.pointer("/params/_meta")
                .and_then(|m| m.get(META_SUBSCRIPTION_ID))
                == Some(&id)
    });
    if acknowledged {
        return Ok(Vec::new());
    }
    if ex.result().is_some() {
        return Ok(Vec::new());
    }
    let severity = if ex.error_code() == Some(METHOD_NOT_FOUND) {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut finding = SEAL009
        .finding(
            format!("The server advertises listChanged ({advertised}), but {}.", describe(ex)),
            "A server advertising `listChanged` serves `subscriptions/listen`: it first sends `notifications/subscriptions/acknowledged` with `_meta[\"io.modelcontextprotocol/subscriptionId\"]` = the listen request id, then the requested notifications.",
            "Upgrade to an MCP SDK that speaks 2026-07-28 (it serves `subscriptions/listen`); if you do not send change notifications, stop advertising `listChanged`.",
        )
        .severity(severity)
        .evidence([ex]);
    if severity == Severity::Warning {
        finding = finding.titled(
            "subscriptions/listen was rejected despite advertised listChanged capabilities",
        );
    }
    Ok(vec![finding])
}
