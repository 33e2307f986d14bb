use serde_json::Value;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The authorization server does not advertise RFC 9207 `iss` support.
    ///
    /// A client that talks to several authorization servers can be tricked into sending an
    /// authorization code from one to another (a mix-up attack). RFC 9207 closes this: the
    /// authorization server adds `iss` to the authorization response, and the client checks
    /// it. 2026-07-28 says authorization servers SHOULD send `iss` and then MUST advertise
    /// `authorization_response_iss_parameter_supported: true` in their metadata, so clients
    /// know to require it.
    ///
    /// HTTP only; silent when the endpoint publishes no OAuth metadata. One finding per
    /// authorization server.
    pub static SEAL019 = {
        id: "SEAL019",
        anchor: Some("MCP019"),
        title: "Authorization server does not advertise RFC 9207 iss support",
        severity: Warning,
        remediation: Application,
        spec: "basic/authorization",
        transports: [Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let mut out = Vec::new();
    for server in ctx.authorization_servers().await {
        let Some(doc) = server.metadata.body.as_ref() else {
            continue;
        };
        let flag = doc.get("authorization_response_iss_parameter_supported");
        if flag == Some(&Value::Bool(true)) {
            continue;
        }
        out.push(
            SEAL019
                .finding(
                    format!(
                        "The metadata of authorization server `{}` ({}) has {}.",
                        server.issuer,
                        server.metadata.url,
                        match flag {
                            None => "no `authorization_response_iss_parameter_supported`".to_owned(),
                            Some(v) => format!("`authorization_response_iss_parameter_supported: {v}`"),
                        }
                    ),
                    "Authorization servers SHOULD return `iss` in authorization responses (RFC 9207) and then MUST set `authorization_response_iss_parameter_supported: true` in their metadata.",
                    "Enable RFC 9207 issuer identification on the authorization server and advertise `authorization_response_iss_parameter_supported: true`.",
                )
                .evidence_value(serde_json::to_value(&server.resource_metadata).unwrap_or_default())
                .evidence_value(serde_json::to_value(&server.metadata).unwrap_or_default()),
        );
    }
    Ok(out)
}
