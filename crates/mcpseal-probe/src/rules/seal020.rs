use serde_json::Value;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The authorization server offers only the deprecated Dynamic Client Registration.
    ///
    /// Dynamic Client Registration (RFC 7591) let any client register itself on the fly,
    /// which left authorization servers with unbounded, unverifiable client records.
    /// 2026-07-28 deprecated it in favour of Client ID Metadata Documents: the client id is an
    /// HTTPS URL whose document describes the client, verifiable and cacheable. An
    /// authorization server that offers a `registration_endpoint` but does not advertise
    /// `client_id_metadata_document_supported: true` leaves 2026 clients only the deprecated
    /// path. Pre-registration (neither) is fine.
    ///
    /// HTTP only; silent when no OAuth metadata is published. One finding per authorization
    /// server.
    pub static SEAL020 = {
        id: "SEAL020",
        anchor: Some("MCP020"),
        title: "Authorization server offers only deprecated Dynamic Client Registration",
        severity: Warning,
        remediation: Application,
        spec: "basic/authorization/client-registration",
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
        let Some(reg) = doc.get("registration_endpoint") else {
            continue;
        };
        if doc.get("client_id_metadata_document_supported") == Some(&Value::Bool(true)) {
            continue;
        }
        out.push(
            SEAL020
                .finding(
                    format!(
                        "Authorization server `{}` offers `registration_endpoint: {reg}` and does not advertise `client_id_metadata_document_supported: true`.",
                        server.issuer
                    ),
                    "Dynamic Client Registration is deprecated; authorization servers support Client ID Metadata Documents (`client_id_metadata_document_supported: true`).",
                    "Support Client ID Metadata Documents on the authorization server and advertise `client_id_metadata_document_supported: true`; keep DCR only for old clients.",
                )
                .evidence_value(serde_json::to_value(&server.metadata).unwrap_or_default()),
        );
    }
    Ok(out)
}
