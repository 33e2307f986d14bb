use mcpseal_client::Request;
use mcpseal_protocol::method;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};
use crate::rules::modern_http::{answer, modern_http};

/// An origin no browser page of the user's would have.
const FOREIGN_ORIGIN: &str = "http://mcpseal-probe.invalid";

crate::rule! {
    /// A request with a foreign `Origin` is not refused with HTTP 403.
    ///
    /// A web page can make a user's browser POST to a server on `localhost` or the local
    /// network; with DNS rebinding it can even read the answers. The only thing that gives
    /// such a request away is its `Origin` header, so Streamable HTTP servers MUST validate
    /// `Origin` and answer one that is present and not allowed with 403 Forbidden (the body
    /// MAY be a JSON-RPC error without `id`). Unchanged in 2026-07-28; a server that serves a
    /// foreign origin can be driven by any web page its user opens.
    ///
    /// HTTP, servers whose `server/discover` works: sends `server/discover` with
    /// `Origin: http://mcpseal-probe.invalid`. Fires when it is served, or refused with a
    /// status other than 403 (a refusal at 200 from a server that sends every error with 200
    /// is SEAL044's finding; a 401 refused the credential, not the origin). A warning: servers reachable only with credentials a page cannot
    /// obtain are not exposed the same way, but the check is a MUST.
    pub static SEAL035 = {
        id: "SEAL035",
        anchor: None,
        title: "Request with a foreign Origin is not refused with HTTP 403",
        severity: Warning,
        remediation: Application,
        spec: "basic/transports/streamable-http",
        transports: [Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    if !modern_http(ctx) {
        return Ok(Vec::new());
    }
    let ex = ctx
        .call_origin_probe(
            Request::modern(method::SERVER_DISCOVER, None).header("Origin", FOREIGN_ORIGIN),
        )
        .await;
    // A 401 refused the request for its missing credential: the `Origin` was never judged.
    let Some(status) = ex.http_status.filter(|_| !ctx.refused(&ex)) else {
        return Ok(Vec::new());
    };
    if status == 403 {
        return Ok(Vec::new());
    }
    // Refused with a JSON-RPC error at 200 by a server that sends every error with 200: the
    // origin check works, the status is SEAL044's one finding.
    if ex.error().is_some() && status == 200 && ctx.errors_always_200().await {
        return Ok(Vec::new());
    }
    let (observed, title) = if ex.result().is_some() {
        (
            format!("With `Origin: {FOREIGN_ORIGIN}`, {} (served).", answer(&ex)),
            None,
        )
    } else {
        (
            format!(
                "With `Origin: {FOREIGN_ORIGIN}`, {} instead of 403.",
                answer(&ex)
            ),
            Some("Request with a foreign Origin is refused, but not with HTTP 403"),
        )
    };
    let mut finding = SEAL035
        .finding(
            observed,
            "Servers validate `Origin` on every request; one that is present and not allowed gets HTTP 403 Forbidden.",
            "Validate `Origin` against an allow-list (for a local server: `http://localhost`/`http://127.0.0.1` with any port) and answer others with 403 — e.g. TypeScript `localhostOriginValidation()`, Python `TransportSecuritySettings`, or a reverse-proxy rule.",
        )
        .evidence([&ex]);
    if let Some(t) = title {
        finding = finding.titled(t);
    }
    Ok(vec![finding])
}
