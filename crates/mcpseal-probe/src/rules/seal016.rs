use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};
use crate::rules::seal010::{announces_endpoint, is_event_stream};

crate::rule! {
    /// The deprecated HTTP+SSE transport is still served on the MCP endpoint.
    ///
    /// The 2024-11-05 HTTP+SSE transport used two endpoints: a `GET` event stream whose first
    /// event (`event: endpoint`) named a second URL to POST to, with every answer coming back
    /// on the long-lived stream. Streamable HTTP replaced it in 2025, and 2026-07-28 lists it
    /// as deprecated (earliest removal 2027-07-28). It still works for old clients, so this is
    /// an advisory; on the MCP endpoint it also means the removed GET stream is served
    /// (reported here only, not also as SEAL010: one stream, one finding).
    pub static SEAL016 = {
        id: "SEAL016",
        anchor: Some("MCP016"),
        title: "Deprecated HTTP+SSE transport detected",
        severity: Warning,
        remediation: Sdk,
        spec: "deprecated",
        transports: [Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let Some(raw) = ctx.event_stream_get().await else {
        return Ok(Vec::new());
    };
    if !is_event_stream(raw) || !announces_endpoint(raw) {
        return Ok(Vec::new());
    }
    // The query of the announced endpoint carries a session id minted per connection: quoted,
    // it would give the same finding a new fingerprint on every run (it is in the evidence).
    let first = raw
        .body_preview
        .lines()
        .take(2)
        .map(without_query)
        .collect::<Vec<_>>()
        .join(" | ");
    Ok(vec![
        SEAL016
            .finding(
                format!("`GET {}` opened an event stream starting `{first}`.", raw.url),
                "HTTP+SSE is deprecated in 2026-07-28; the MCP endpoint is POST-only and answers `GET` with 405.",
                "Serve 2026 clients over Streamable HTTP only; if old HTTP+SSE clients still matter, move that transport to its own endpoint and plan its removal.",
            )
            .evidence_value(serde_json::to_value(raw).unwrap_or_default()),
    ])
}

/// `data: /messages?sessionId=…` → `data: /messages?…`; other lines unchanged.
fn without_query(line: &str) -> String {
    match line.split_once('?') {
        Some((path, _)) if line.starts_with("data:") => format!("{path}?…"),
        _ => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_query;

    #[test]
    fn the_endpoint_query_is_not_quoted() {
        assert_eq!(
            without_query("data: /mcp?sessionId=050413f2"),
            "data: /mcp?…"
        );
        assert_eq!(without_query("data: /messages"), "data: /messages");
        assert_eq!(without_query("event: endpoint"), "event: endpoint");
    }
}
