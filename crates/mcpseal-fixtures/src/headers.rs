//! Streamable HTTP header rules, per mode.
//!
//! * dual: a 2025 request (no `_meta` version, no 2026 version header) has no header rules.
//! * modern/dual: `Mcp-Method` must equal the body method, `MCP-Protocol-Version` must
//!   equal the `_meta` version, `Mcp-Name` must equal `params.name`/`params.uri` on
//!   `tools/call`, `prompts/get`, `resources/read` → else 400 + -32020 (-32001 with
//!   `--old-error-codes`). Values in the `=?base64?…?=` form are decoded first.
//! * legacy: only a *disagreeing* `Mcp-Method` is refused, with the RC-era -32001 (MCP012);
//!   with `--stateless-legacy` an unknown `MCP-Protocol-Version` is refused with 400 + -32000.
//! * strict-headers: the mere presence of `Mcp-Method` is refused with 400 + -32600 (MCP014).
//! * liar, strict-params: no header rules.
//!
//! A foreign `Origin` (not `http://127.0.0.1[:port]` / `http://localhost[:port]`) gets 403
//! in every mode unless `--no-origin-check` (DNS-rebinding protection rule).

use axum::http::HeaderMap;
use serde_json::{Value, json};

use crate::jsonrpc::{
    HEADER_MISMATCH, INVALID_REQUEST, META_VERSION, MODERN_VERSION, RC_HEADER_MISMATCH, RpcError,
    UNSUPPORTED_VERSION,
};
use crate::knobs::{Knobs, Mode};

/// The revisions a 2025 server knows (`--stateless-legacy` refuses any other header value).
const KNOWN_2025: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Header value as a string, decoding the `=?base64?…?=` form.
pub fn get(headers: &HeaderMap, name: &str) -> Option<String> {
    let raw = headers.get(name)?.to_str().ok()?;
    match raw
        .strip_prefix("=?base64?")
        .and_then(|r| r.strip_suffix("?="))
    {
        Some(b64) => base64_decode(b64).and_then(|b| String::from_utf8(b).ok()),
        None => Some(raw.to_owned()),
    }
}

/// Is this `Origin` acceptable (loopback over plain HTTP)?
pub fn origin_ok(origin: &str) -> bool {
    ["http://127.0.0.1", "http://localhost"].iter().any(|base| {
        origin.strip_prefix(base).is_some_and(|rest| {
            rest.is_empty()
                || rest
                    .strip_prefix(':')
                    .is_some_and(|p| p.parse::<u16>().is_ok())
        })
    })
}

/// Check the routing headers of a POST carrying request `msg` (`legacy_request`: it carries
/// no 2026 version, in `_meta` or the header). `None` = acceptable.
pub fn check(
    knobs: &Knobs,
    headers: &HeaderMap,
    msg: &Value,
    legacy_request: bool,
) -> Option<RpcError> {
    let method = msg.get("method").and_then(Value::as_str)?;
    msg.get("id")?; // header rules for notifications are undefined in 2026-07-28
    let mcp_method = get(headers, "mcp-method");
    match knobs.mode {
        Mode::Liar | Mode::StrictParams => None,
        Mode::StrictHeaders => mcp_method.map(|_| {
            RpcError::new(INVALID_REQUEST, "unexpected header Mcp-Method")
                .data(json!({"header": "Mcp-Method"}))
        }),
        Mode::Legacy
            if knobs.stateless_legacy
                && get(headers, "mcp-protocol-version")
                    .is_some_and(|v| !KNOWN_2025.contains(&v.as_str())) =>
        {
            Some(RpcError::new(
                -32000,
                "Bad Request: Unsupported protocol version (supported versions: 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05)",
            ))
        }
        Mode::Legacy => mcp_method.filter(|m| m != method).map(|m| {
            RpcError::new(
                RC_HEADER_MISMATCH,
                "Mcp-Method header does not match the body",
            )
            .data(json!({"header": "Mcp-Method", "value": m, "expected": method}))
        }),
        // A 2025 client sends no `Mcp-Method`: a dual-era server serves its requests.
        Mode::Dual if method == "initialize" || legacy_request => None,
        Mode::Modern | Mode::Dual if knobs.lenient_headers => None,
        Mode::Modern | Mode::Dual => modern(knobs, headers, msg, method, mcp_method),
    }
}

fn modern(
    knobs: &Knobs,
    headers: &HeaderMap,
    msg: &Value,
    method: &str,
    mcp_method: Option<String>,
) -> Option<RpcError> {
    let code = if knobs.old_error_codes {
        RC_HEADER_MISMATCH
    } else {
        knobs.header_mismatch_code.unwrap_or(HEADER_MISMATCH)
    };
    let mismatch = |header: &str, value: Option<String>, expected: &Value| {
        let why = if value.is_some() {
            "does not match the body"
        } else {
            "is missing"
        };
        RpcError::new(code, format!("Header mismatch: {header} {why}"))
            .data(json!({"header": header, "value": value, "expected": expected}))
    };
    if mcp_method.as_deref() != Some(method) {
        return Some(mismatch("Mcp-Method", mcp_method, &json!(method)));
    }
    let params = msg.get("params").unwrap_or(&Value::Null);
    if knobs.versionless_unsupported
        && params
            .pointer("/_meta")
            .and_then(|m| m.get(META_VERSION))
            .is_none()
        && get(headers, "mcp-protocol-version").is_none()
    {
        return Some(
            RpcError::new(
                UNSUPPORTED_VERSION,
                "Unsupported protocol version: the request did not name a protocol version",
            )
            .data(json!({"supported": [MODERN_VERSION]})),
        );
    }
    // With no `_meta` version the handler answers -32602; the header is compared only to a real value.
    if let Some(version) = params
        .pointer("/_meta")
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str)
    {
        let header = get(headers, "mcp-protocol-version");
        let tolerated = header.is_none() && knobs.serve_without_version_header;
        if header.as_deref() != Some(version) && !tolerated {
            return Some(mismatch("MCP-Protocol-Version", header, &json!(version)));
        }
    }
    let name_key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    let expected = params.get(name_key).cloned().unwrap_or(Value::Null);
    let name = get(headers, "mcp-name");
    (expected.as_str() != name.as_deref() || name.is_none())
        .then(|| mismatch("Mcp-Name", name, &expected))
}

/// Standard base64 (with or without padding); `None` on any invalid character.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    fn val(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let s = s.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in s {
        acc = (acc << 6) | val(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64_headers_and_judges_origins() {
        assert_eq!(
            base64_decode("aMOpbGxv").as_deref(),
            Some("héllo".as_bytes())
        );
        assert_eq!(base64_decode("YQ==").as_deref(), Some(&b"a"[..]));
        assert!(base64_decode("a*b").is_none());
        assert!(origin_ok("http://127.0.0.1:8080") && origin_ok("http://localhost"));
        assert!(!origin_ok("http://evil.example") && !origin_ok("http://localhost.evil.example"));
    }
}
