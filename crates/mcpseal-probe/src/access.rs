//! Authorization refusals: an HTTP 401, or a 403, is not an answer to the method.
//!
//! A server behind OAuth refuses a request without (or with the wrong) credential before any
//! MCP handler runs: HTTP 401 with `WWW-Authenticate: Bearer resource_metadata="…"` and an
//! OAuth error body such as `{"error":"invalid_token"}` — JSON, but no JSON-RPC message. A
//! 403 is a refusal of the same kind (insufficient scope, a gateway's allow-list, a `Host`
//! check). Judging such an answer as the method's would report "ping still implemented",
//! "unknown method not 404" and schema errors about the OAuth body; so every probe refused this
//! way is recorded as *unanswered* (the run becomes incomplete, with the challenge and the
//! protected-resource metadata URL in the reason), its body is never validated as JSON-RPC,
//! and the engine refuses any finding that quotes one. The only probe for which a 403 *is* the
//! answer (a foreign `Origin`, SEAL035) says so when it is sent.

use mcpseal_client::{Exchange, Header, RawResponse, TransportError, TransportErrorKind};

use crate::removed::cut;

/// Whether an HTTP status (with the response headers) is an authorization refusal: 401, or
/// 403 (`forbidden_ok`: the probe expects a 403, so only a 401 refuses it).
pub fn is_refusal(status: Option<u16>, forbidden_ok: bool) -> bool {
    match status {
        Some(401) => true,
        Some(403) => !forbidden_ok,
        _ => false,
    }
}

/// The `WWW-Authenticate` challenge among `headers`, if any.
pub fn challenge(headers: &[Header]) -> Option<&str> {
    headers
        .iter()
        .find(|h| h.name.eq_ignore_ascii_case("www-authenticate"))
        .map(|h| h.value.as_str())
}

/// Whether `ex` was refused for authorization (it then carries a transport error and no
/// response: it is no evidence of anything but the refusal).
pub fn refused(ex: &Exchange) -> bool {
    ex.response.is_none()
        && ex
            .transport_error
            .as_ref()
            .is_some_and(|e| e.message.starts_with(REFUSED_PREFIX))
}

/// Whether a raw request (`GET`, `DELETE`) was refused for authorization.
pub fn refused_raw(raw: &RawResponse) -> bool {
    is_refusal(raw.status, false)
}

/// How every refusal's transport error starts (the one wording, so [`refused`] can tell).
const REFUSED_PREFIX: &str = "refused with HTTP ";

/// Whether a refused exchange was refused for a credential: a 401, or a 403 with a
/// `WWW-Authenticate` challenge (a bare 403 may be a `Host` or allow-list check).
pub fn credential_refusal(ex: &Exchange) -> bool {
    refused(ex) && (ex.http_status == Some(401) || challenge(&ex.response_headers).is_some())
}

/// Rewrites a refused exchange: the response (an OAuth body, or a JSON-RPC error the server
/// sent with its 401) is dropped from the judged fields and quoted in the transport error
/// instead; status and headers stay as evidence of the refusal.
pub(crate) fn neutralise(ex: &mut Exchange) {
    let Some(status) = ex.http_status else {
        return;
    };
    let challenge = challenge(&ex.response_headers)
        .map(|c| format!(" (WWW-Authenticate: {})", cut(c, 200)))
        .unwrap_or_default();
    let message = match (&ex.response, &ex.transport_error) {
        (Some(r), _) => format!("{status}{challenge}: {}", cut(&r.to_string(), 200)),
        // The client's own words already start with the status ("HTTP 403 with no JSON-RPC
        // response in the body …").
        (None, Some(e)) => {
            let rest = e
                .message
                .strip_prefix(&format!("HTTP {status}"))
                .unwrap_or(&e.message);
            format!("{status}{challenge}{}", cut(rest, 240))
        }
        (None, None) => format!("{status}{challenge}"),
    };
    ex.response = None;
    ex.transport_error = Some(TransportError {
        kind: TransportErrorKind::Protocol,
        message: format!("{REFUSED_PREFIX}{message}"),
    });
}

/// The `resource_metadata` URL of a Bearer challenge.
pub fn resource_metadata(challenge: &str) -> Option<String> {
    let start = challenge.find("resource_metadata=")? + "resource_metadata=".len();
    let rest = &challenge[start..];
    let value = if let Some(stripped) = rest.strip_prefix('"') {
        stripped.split('"').next()?
    } else {
        rest.split([',', ' ']).next()?
    };
    (!value.is_empty()).then(|| value.to_owned())
}

/// Whether an evidence item (a serialised [`Exchange`] or [`RawResponse`]) is a refusal: the
/// engine refuses any finding that quotes one.
pub(crate) fn evidence_is_refusal(item: &serde_json::Value) -> bool {
    use serde_json::Value;
    if item.get("request").is_some() {
        // An exchange: refused ones carry the rewritten transport error (a 403 answering a
        // foreign `Origin` is an answer and is not rewritten).
        return item
            .pointer("/transportError/message")
            .and_then(Value::as_str)
            .is_some_and(|m| m.starts_with(REFUSED_PREFIX));
    }
    let status = item.get("status").and_then(Value::as_u64);
    item.get("bodyPreview").is_some() && matches!(status, Some(401 | 403))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_name_their_metadata() {
        assert_eq!(
            resource_metadata(r#"Bearer resource_metadata="https://a/.well-known/x""#).as_deref(),
            Some("https://a/.well-known/x")
        );
        assert_eq!(
            resource_metadata(
                r#"Bearer error="insufficient_scope", resource_metadata=https://b/m, scope="x""#
            )
            .as_deref(),
            Some("https://b/m")
        );
        assert_eq!(resource_metadata("Bearer realm=\"x\""), None);
        assert!(is_refusal(Some(401), true) && is_refusal(Some(403), false));
        assert!(!is_refusal(Some(403), true) && !is_refusal(Some(400), false));
    }
}
