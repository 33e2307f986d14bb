//! The answers of a site's tools and resources, built from verified bytes. Every result carries
//! how its bytes were verified in `_meta` ([`META_VERIFICATION`]); a JSON artifact's text is
//! written from its cached escaped form ([`Verified::json_text`]), so a popular artifact is not
//! escaped again on every call.

use mcpseal_server::{Answer, Raw};
use serde_json::{Value, json};

use crate::trust::Verified;

/// The `_meta` key of the verification facts on every result (the name static-mcp uses, so its
/// clients read mcpseal's results too).
pub const META_VERIFICATION: &str = "verification";

/// The tool result for arguments that do not satisfy the verb's input schema: a tool-input
/// error is a tool result the model can read (SEP-1303), not a protocol error.
pub(crate) fn invalid_arguments(errors: &[String]) -> Answer {
    json!({"content": [{"type": "text", "text": format!("Invalid arguments: {}", errors.join("; "))}], "isError": true}).into()
}

/// The tool result of a verb: text content (a JSON artifact's escaped text as it is kept with
/// the verified bytes), or an embedded resource for any other artifact.
pub(crate) fn tool_result(v: &Verified, mime: Option<&String>) -> Answer {
    let answer = meta_only(v);
    let content = match v.json_text() {
        Some(text) => Raw::array([Raw::object([
            ("text", Raw::new().shared(text)),
            ("type", Raw::new().text("\"text\"")),
        ])]),
        None => {
            let resource = contents(&v.url, mime, &v.bytes);
            Raw::new().value(&json!([{"type": "resource", "resource": resource}]))
        }
    };
    answer.with_raw("content", content)
}

/// The result of reading resource `uri`: its one content (a JSON artifact's escaped text as it
/// is kept with the verified bytes).
pub(crate) fn resource_result(uri: &str, mime: Option<&String>, v: &Verified) -> Answer {
    let answer = meta_only(v);
    let contents = match v.json_text() {
        Some(text) => {
            let mut members = vec![
                ("text", Raw::new().shared(text)),
                ("uri", Raw::new().value(&uri)),
            ];
            if let Some(m) = mime {
                members.push(("mimeType", Raw::new().value(m)));
            }
            Raw::array([Raw::object(members)])
        }
        None => Raw::new().value(&json!([contents(uri, mime, &v.bytes)])),
    };
    answer.with_raw("contents", contents)
}

/// Standard base64 with padding (RFC 4648 section 4) of a `blob` content: a few lines, not a
/// dependency.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            out.push(if i <= c.len() {
                char::from(A[((n >> (18 - 6 * i)) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

/// A result holding only the verification `_meta`, pre-written (the content is added
/// pre-written too).
fn meta_only(v: &Verified) -> Answer {
    Answer::default().with_raw_meta(META_VERIFICATION, Raw::new().owned(v.facts_json()))
}

/// Text contents when the bytes are UTF-8, else a base64 blob.
fn contents(uri: &str, mime: Option<&String>, bytes: &[u8]) -> Value {
    let mut c = match std::str::from_utf8(bytes) {
        Ok(text) => json!({"uri": uri, "text": text}),
        Err(_) => json!({"uri": uri, "blob": base64(bytes)}),
    };
    if let Some(m) = mime {
        c["mimeType"] = json!(m);
    }
    c
}
