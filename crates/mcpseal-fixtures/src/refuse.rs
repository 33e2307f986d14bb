//! `--unauthorized METHOD`: an HTTP server that answers METHOD with `401 Unauthorized`, a
//! `WWW-Authenticate` challenge and a body that is no JSON-RPC answer (an error without a
//! code), as a server behind an authorization gateway does. A client must report the refusal
//! and the challenge, and never record the list as "not served".

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use clap::Args;
use serde_json::{Value, json};

/// The challenge sent.
pub const CHALLENGE: &str = r#"Bearer realm="mcp", error="invalid_token""#;

/// The knobs of this module (flattened into the fixture's flags).
#[derive(Debug, Clone, Default, Args)]
pub struct RefuseKnobs {
    /// HTTP: answer METHOD with 401, a `WWW-Authenticate` challenge and a body without a
    /// JSON-RPC error code (a list that needs a credential; repeatable)
    #[arg(long, value_name = "METHOD")]
    pub unauthorized: Vec<String>,
}

/// The 401 for `msg`, when its method is refused.
pub fn http_post(knobs: &RefuseKnobs, msg: &Value) -> Option<Response> {
    let method = msg.get("method").and_then(Value::as_str)?;
    if !knobs.unauthorized.iter().any(|m| m == method) {
        return None;
    }
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"message": "Unauthorized"}});
    let mut r = Response::new(Body::from(body.to_string()));
    *r.status_mut() = StatusCode::UNAUTHORIZED;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static(CHALLENGE),
    );
    Some(r)
}
