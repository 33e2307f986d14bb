//! A redirect loop: `307 Temporary Redirect` back to the endpoint itself (a 307 keeps the
//! POST and its body, so a client that follows redirects follows it forever, re-sending the
//! user's headers each time).

use super::head;

/// The response.
pub fn response() -> Vec<u8> {
    head(
        307,
        "text/plain",
        &["Location: /mcp".to_owned(), "Content-Length: 0".to_owned()],
    )
}
