use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The removed HTTP `GET` stream endpoint is still served.
    ///
    /// 2025 Streamable HTTP let a client open a standalone SSE stream with `GET` on the MCP
    /// endpoint, over which the server pushed notifications and its own requests, tied to
    /// the session. 2026-07-28 removed server-to-client requests, sessions and this stream:
    /// the endpoint is POST-only, notifications arrive on the response stream of the request
    /// they belong to or on `subscriptions/listen`, and a modern server SHOULD answer `GET`
    /// with 405.
    ///
    /// Fires when `GET` (with `Accept: text/event-stream`, the user's headers and a legacy
    /// session id if the prelude got one) returns 200 with an event stream. 404/405/400/401
    /// pass. A stream that announces `event: endpoint` is the old HTTP+SSE transport instead
    /// and is reported once, by SEAL016. Silent on a dual-era server (SEAL002 advisory): a
    /// `GET` has no body and no version, so a server that still serves 2025 clients cannot
    /// tell their `GET` from anyone else's and rightly keeps serving it.
    pub static SEAL010 = {
        id: "SEAL010",
        anchor: Some("MCP010"),
        title: "The removed HTTP GET stream endpoint is still served",
        severity: Error,
        remediation: Sdk,
        spec: "basic/transports/streamable-http",
        transports: [Http],
        check: check,
    };
}

/// Whether a raw response is an open event stream.
pub(crate) fn is_event_stream(raw: &mcpseal_client::RawResponse) -> bool {
    raw.status == Some(200)
        && raw
            .header("content-type")
            .is_some_and(|c| c.to_ascii_lowercase().contains("text/event-stream"))
}

/// Whether the stream announces the HTTP+SSE `endpoint` event.
pub(crate) fn announces_endpoint(raw: &mcpseal_client::RawResponse) -> bool {
    raw.body_preview
        .lines()
        .any(|l| l.trim_end() == "event: endpoint" || l.trim_end() == "event:endpoint")
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let Some(raw) = ctx.event_stream_get().await else {
        return Ok(Vec::new());
    };
    if !is_event_stream(raw) || announces_endpoint(raw) {
        return Ok(Vec::new());
    }
    if ctx.prelude().era() == crate::prelude::ObservedEra::Dual {
        // A GET carries no body and no version: a dual-era server cannot tell a 2025 client's
        // GET from anyone else's, and must serve it to keep 2025 clients working.
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL010
            .finding(
                format!(
                    "`GET {}` returned HTTP 200 with `content-type: {}`.",
                    raw.url,
                    raw.header("content-type").unwrap_or("")
                ),
                "The 2026-07-28 endpoint is POST-only; a server SHOULD answer `GET` (and `DELETE`) with 405 Method Not Allowed.",
                "Upgrade to an MCP SDK that speaks 2026-07-28 and stop serving the standalone GET stream; push change notifications through `subscriptions/listen`.",
            )
            .evidence_value(serde_json::to_value(raw).unwrap_or_default()),
    ])
}
