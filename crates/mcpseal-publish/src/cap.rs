//! The registry's 4096-byte cap on `publisher-provided`, measured as the registry measures it.
//!
//! The official registry is written in Go: it decodes `_meta` into a map and re-marshals it
//! with `encoding/json`, which writes compact JSON and escapes `<`, `>`, `&`, U+2028 and
//! U+2029 as `\u003c`-style sequences. Key order and the other escapes do not change the
//! length, so the count here is the compact JSON length plus those escapes: what the
//! registry will count, never less (a file this crate accepts is never refused at publish
//! for its size).

use serde_json::Value;

use crate::keys::MAX_PUBLISHER_PROVIDED_BYTES;

/// The bytes `value` takes as the registry marshals it (see the module docs).
pub fn marshalled_len(value: &Value) -> usize {
    let compact = mcpseal_surface::jcs(value);
    let text = String::from_utf8_lossy(&compact);
    let extra: usize = text
        .chars()
        .map(|c| match c {
            // one byte → `\u003c` (6 bytes)
            '<' | '>' | '&' => 5,
            // three bytes in UTF-8 → `\u2028` (6 bytes)
            '\u{2028}' | '\u{2029}' => 3,
            _ => 0,
        })
        .sum();
    compact.len() + extra
}

/// Whether `bytes` fits under the cap.
pub fn fits(bytes: usize) -> bool {
    bytes <= MAX_PUBLISHER_PROVIDED_BYTES
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_like_go_encoding_json() {
        // {"a":"x"} is 9 bytes; Go writes `<` as \u003c.
        assert_eq!(marshalled_len(&json!({"a": "x"})), 9);
        assert_eq!(marshalled_len(&json!({"a": "<"})), 14);
        assert_eq!(marshalled_len(&json!({"a": "\u{2028}"})), 14);
        assert_eq!(marshalled_len(&json!({"a": "é"})), 10);
        assert!(fits(4096) && !fits(4097));
    }
}
