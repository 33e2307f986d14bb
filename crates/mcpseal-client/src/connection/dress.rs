//! The HTTP headers of one POST: the transport's base headers, the era's standard headers (the
//! 2026 routing headers, or a 2025 session's id and negotiated version), then the request's own
//! edits, which may remove or replace any of them (the probe sends deliberately wrong ones).

use mcpseal_protocol::keys::{HEADER_PROTOCOL_VERSION, HEADER_SESSION_ID};
use mcpseal_protocol::{HeaderEdit, Request};

use crate::headers::set_header;

/// What legacy requests carry once a 2025 handshake happened.
#[derive(Debug, Default, Clone)]
pub(crate) struct LegacySession {
    /// The `Mcp-Session-Id` the server issued.
    pub(crate) session_id: Option<String>,
    /// The protocol version it negotiated.
    pub(crate) protocol_version: Option<String>,
}

impl LegacySession {
    fn dress(&self, list: &mut Vec<(String, String)>) {
        if let Some(v) = &self.protocol_version {
            set_header(list, HEADER_PROTOCOL_VERSION, v.clone());
        }
        if let Some(sid) = &self.session_id {
            set_header(list, HEADER_SESSION_ID, sid.clone());
        }
    }
}

/// The headers of the POST carrying `request`.
pub(crate) fn request_headers(
    mut list: Vec<(String, String)>,
    request: &Request,
    session: &LegacySession,
) -> Vec<(String, String)> {
    if request.standard_headers {
        if request.is_modern() {
            for (n, v) in request.modern_headers() {
                set_header(&mut list, &n, v);
            }
        } else {
            session.dress(&mut list);
        }
    }
    for edit in &request.header_edits {
        match edit {
            HeaderEdit::Set(n, v) => set_header(&mut list, n, v.clone()),
            HeaderEdit::Remove(n) => list.retain(|(x, _)| !x.eq_ignore_ascii_case(n)),
        }
    }
    list
}

/// The headers of the POST answering a server request: the base headers and the session's
/// (only 2025 servers send requests to clients).
pub(crate) fn answer_headers(
    mut list: Vec<(String, String)>,
    session: &LegacySession,
) -> Vec<(String, String)> {
    session.dress(&mut list);
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Vec<(String, String)> {
        vec![
            ("Content-Type".into(), "application/json".into()),
            ("Authorization".into(), "Bearer t".into()),
        ]
    }

    fn get<'a>(list: &'a [(String, String)], name: &str) -> Option<&'a str> {
        list.iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    #[test]
    fn modern_requests_carry_routing_headers_and_never_the_session() {
        let session = LegacySession {
            session_id: Some("s1".into()),
            protocol_version: Some("2025-11-25".into()),
        };
        let h = request_headers(base(), &Request::modern("tools/list", None), &session);
        assert_eq!(get(&h, "mcp-method"), Some("tools/list"));
        assert_eq!(get(&h, "mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(get(&h, "mcp-session-id"), None);
        let legacy = request_headers(base(), &Request::legacy("tools/list", None), &session);
        assert_eq!(get(&legacy, "mcp-session-id"), Some("s1"));
        assert_eq!(get(&legacy, "mcp-protocol-version"), Some("2025-11-25"));
        assert_eq!(
            get(&answer_headers(base(), &session), "mcp-session-id"),
            Some("s1")
        );
    }

    #[test]
    fn edits_come_last_and_can_remove_user_headers() {
        let request = Request::modern("tools/list", None)
            .without_header("authorization")
            .header("Mcp-Method", "other");
        let h = request_headers(base(), &request, &LegacySession::default());
        assert_eq!(get(&h, "authorization"), None);
        assert_eq!(get(&h, "mcp-method"), Some("other"));
        let bare = request_headers(
            base(),
            &Request::modern("tools/list", None).without_standard_headers(),
            &LegacySession::default(),
        );
        assert_eq!(get(&bare, "mcp-method"), None);
    }
}
