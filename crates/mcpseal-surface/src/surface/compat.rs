//! What the `mcp-surface/1` compatibility form needs beyond mcpseal's strict path: hashing a
//! capture without the fail-closed identity checks, and JavaScript's `String(v)` as the sort key
//! of a missing or non-string identity, as `@sbissoli/mcp-surface` computes it.

use serde_json::Value;

use super::{Form, Surface, SurfaceError, validate_raw};
use crate::jcs::write_jcs;
use mcpseal_protocol::RawCapture;

/// `mcp-surface/1` canonical bytes WITHOUT mcpseal's fail-closed identity checks.
///
/// Why: mcp-surface itself hashes surfaces with duplicate or missing identities (missing sorts
/// as `"undefined"`, non-strings are stringified the JavaScript way, ties keep capture order),
/// and its published vectors include such a surface. mcpseal refuses those surfaces
/// ([`Surface::from_capture`]); this function exists so the compatibility form can be checked
/// against every upstream vector. For any capture [`Surface::from_capture`] accepts, the bytes
/// are identical to `canonical_bytes(Form::McpSurface1)`. Lone surrogates still fail.
///
/// # Errors
/// [`SurfaceError::LoneSurrogate`] and [`SurfaceError::InvalidJson`] only.
pub fn mcp_surface_1_bytes_unchecked(capture: &RawCapture) -> Result<Vec<u8>, SurfaceError> {
    validate_raw(capture)?;
    Ok(Surface::build(capture, false)?.canonical_bytes(Form::McpSurface1))
}

/// JavaScript `String(v)` for the compatibility sort key (`undefined` when absent).
pub(super) fn js_string(v: Option<&Value>) -> String {
    fn go(v: &Value, out: &mut String) {
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(_) => {
                let mut buf = Vec::new();
                write_jcs(v, &mut buf);
                out.push_str(&String::from_utf8_lossy(&buf));
            }
            Value::String(s) => out.push_str(s),
            Value::Array(a) => {
                for (i, e) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    // Array.prototype.join writes null and undefined as "".
                    if !e.is_null() {
                        go(e, out);
                    }
                }
            }
            Value::Object(_) => out.push_str("[object Object]"),
        }
    }
    let mut out = String::new();
    match v {
        None => out.push_str("undefined"),
        Some(v) => go(v, &mut out),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn js_string_matches_javascript() {
        let v = |s: &str| serde_json::from_str::<Value>(s).expect("json");
        assert_eq!(js_string(None), "undefined");
        assert_eq!(js_string(Some(&v("5"))), "5");
        assert_eq!(js_string(Some(&v("1e21"))), "1e+21");
        assert_eq!(
            js_string(Some(&v("[1,null,[2,3],{}]"))),
            "1,,2,3,[object Object]"
        );
        assert_eq!(js_string(Some(&v("true"))), "true");
        assert_eq!(js_string(Some(&v("null"))), "null");
    }
}
