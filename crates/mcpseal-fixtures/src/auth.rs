//! `--require-token`: an HTTP server behind OAuth-style bearer authorization, open for chosen
//! methods only.
//!
//! Every request to `/mcp` (any HTTP method) without `Authorization: Bearer TOKEN` is refused
//! the way OAuth-protected MCP servers refuse it: HTTP 401, `WWW-Authenticate: Bearer
//! resource_metadata="<origin>/.well-known/oauth-protected-resource/mcp"` and an OAuth error
//! body (`{"error":"invalid_token","error_description":…}`), which is JSON but not JSON-RPC.
//! POSTs of the methods named by `--open-method` are served without a token (what a client
//! can enumerate anonymously); `--insufficient-scope METHOD` refuses METHOD even with the
//! token, with 403 and an `insufficient_scope` challenge. The protected-resource and
//! authorization-server metadata are published (unless `--oauth` chose other metadata), so
//! the challenge's URL resolves.
//!
//! Why: an authorization-limited run must be *incomplete* (no verdict on refused probes),
//! never a list of findings about the OAuth body; and the same server with the right
//! `--header` must be judged like any other. The anonymous-access lock reuses the knobs: which
//! methods are open is exactly what it records.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use clap::Args;
use serde_json::{Value, json};

/// The knobs of this module (flattened into the fixture's flags).
#[derive(Debug, Clone, Default, Args)]
pub struct AuthKnobs {
    /// HTTP: refuse every request without `Authorization: Bearer TOKEN` with 401, a
    /// `WWW-Authenticate: Bearer resource_metadata=…` challenge and an OAuth error body
    /// (authorization-limited runs)
    #[arg(long, value_name = "TOKEN", requires = "http")]
    pub require_token: Option<String>,

    /// With --require-token: serve METHOD without a token (repeatable; e.g. `server/discover`)
    #[arg(long, value_name = "METHOD", requires = "require_token")]
    pub open_method: Vec<String>,

    /// With --require-token: refuse METHOD even with the token: 403 and an
    /// `insufficient_scope` challenge (repeatable)
    #[arg(long, value_name = "METHOD", requires = "require_token")]
    pub insufficient_scope: Vec<String>,

    /// With --require-token: also serve the endpoint on PATH (e.g. `/public/mcp`), where
    /// every method is open (a second route on the same origin, for anonymous routes)
    #[arg(long, value_name = "PATH", requires = "require_token")]
    pub public_path: Option<String>,
}

/// The metadata path of the protected resource `/mcp` (RFC 9728, path form).
pub const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource/mcp";

/// The refusal for a request, or `None` when it may be served. `method` is the JSON-RPC method
/// of a POST (`None` for GET/DELETE and unparsable bodies).
pub fn refusal(
    knobs: &AuthKnobs,
    port: u16,
    headers: &HeaderMap,
    method: Option<&str>,
) -> Option<Response> {
    let token = knobs.require_token.as_deref()?;
    let metadata = format!("http://127.0.0.1:{port}{RESOURCE_METADATA_PATH}");
    let open = method.is_some_and(|m| knobs.open_method.iter().any(|o| o == m));
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|t| t == token);
    if !presented && !open {
        return Some(oauth_error(
            StatusCode::UNAUTHORIZED,
            &format!(r#"Bearer resource_metadata="{metadata}""#),
            json!({"error": "invalid_token", "error_description": "Missing or invalid access token"}),
        ));
    }
    let scoped = method.is_some_and(|m| knobs.insufficient_scope.iter().any(|o| o == m));
    if presented && scoped {
        return Some(oauth_error(
            StatusCode::FORBIDDEN,
            &format!(
                r#"Bearer error="insufficient_scope", scope="mcp:admin", resource_metadata="{metadata}""#
            ),
            json!({"error": "insufficient_scope", "error_description": "The token lacks scope mcp:admin"}),
        ));
    }
    None
}

fn oauth_error(status: StatusCode, challenge: &str, body: Value) -> Response {
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Ok(v) = HeaderValue::from_str(challenge) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}
