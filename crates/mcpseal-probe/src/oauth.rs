//! OAuth metadata discovery (HTTP only), shared by the authorization rules.
//!
//! Follows the client discovery order of 2026-07-28: the protected-resource metadata URL from a
//! 401/403 `WWW-Authenticate: Bearer resource_metadata="…"` seen in the prelude, then
//! `/.well-known/oauth-protected-resource<endpoint path>`, then the root form; for up to five
//! `authorization_servers`, RFC 8414 and OpenID discovery URLs (path-inserted, then
//! path-appended). Documents are fetched without the user's headers (they usually carry a
//! token, and the URLs come from data the server controls), capped in size, and not counted
//! as probes: an unreachable authorization server says nothing about the MCP server.

use mcpseal_client::MetadataResponse;
use serde_json::Value;

use crate::context::ProbeContext;

/// One authorization server's metadata document.
#[derive(Debug, Clone)]
pub struct AuthServer {
    /// The issuer as listed in the protected-resource metadata.
    pub issuer: String,
    /// The fetched document.
    pub metadata: MetadataResponse,
    /// The protected-resource metadata that named it.
    pub resource_metadata: MetadataResponse,
}

/// `(scheme://authority, path)` of an absolute URL.
fn split_url(url: &str) -> Option<(String, String)> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let path = rest[end..].split(['?', '#']).next().unwrap_or("");
    Some((
        format!("{scheme}://{authority}"),
        path.trim_end_matches('/').to_owned(),
    ))
}

fn json_object(m: &MetadataResponse) -> Option<&serde_json::Map<String, Value>> {
    if m.status != Some(200) {
        return None;
    }
    m.body.as_ref()?.as_object()
}

/// Discovers the authorization servers of the endpoint. Empty when none are published.
pub async fn discover(ctx: &ProbeContext<'_>) -> Vec<AuthServer> {
    let Some(endpoint) = ctx.endpoint_url() else {
        return Vec::new();
    };
    let Some((origin, path)) = split_url(endpoint) else {
        return Vec::new();
    };
    // The prelude's answers, never the run's so far: the documents found must not depend on
    // which rule asked first.
    let mut candidates: Vec<String> = ctx
        .prelude()
        .exchanges()
        .into_iter()
        .filter(|e| matches!(e.http_status, Some(401 | 403)))
        .filter_map(|e| {
            e.response_header("www-authenticate")
                .and_then(crate::access::resource_metadata)
        })
        .collect();
    if !path.is_empty() {
        candidates.push(format!(
            "{origin}/.well-known/oauth-protected-resource{path}"
        ));
    }
    candidates.push(format!("{origin}/.well-known/oauth-protected-resource"));
    let mut prm = None;
    for url in candidates {
        let Some(m) = ctx.fetch_metadata(&url).await else {
            continue;
        };
        if json_object(&m).is_some_and(|o| o.get("authorization_servers").is_some()) {
            prm = Some(m);
            break;
        }
    }
    let Some(prm) = prm else {
        return Vec::new();
    };
    let issuers: Vec<String> = json_object(&prm)
        .and_then(|o| o.get("authorization_servers"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .take(5)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    for issuer in issuers {
        let Some((as_origin, as_path)) = split_url(&issuer) else {
            continue;
        };
        let urls = if as_path.is_empty() {
            vec![
                format!("{as_origin}/.well-known/oauth-authorization-server"),
                format!("{as_origin}/.well-known/openid-configuration"),
            ]
        } else {
            vec![
                format!("{as_origin}/.well-known/oauth-authorization-server{as_path}"),
                format!("{as_origin}/.well-known/openid-configuration{as_path}"),
                format!("{as_origin}{as_path}/.well-known/openid-configuration"),
            ]
        };
        for url in urls {
            let Some(m) = ctx.fetch_metadata(&url).await else {
                continue;
            };
            if json_object(&m).is_some() {
                out.push(AuthServer {
                    issuer: issuer.clone(),
                    metadata: m,
                    resource_metadata: prm.clone(),
                });
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_and_hints_parse() {
        assert_eq!(
            split_url("http://127.0.0.1:8080/mcp?x=1"),
            Some(("http://127.0.0.1:8080".into(), "/mcp".into()))
        );
        assert_eq!(
            split_url("https://as.example"),
            Some(("https://as.example".into(), String::new()))
        );
    }
}
