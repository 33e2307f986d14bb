//! RFC 8785 (JCS) serialisation, written by hand so that every byte is ours to explain.
//!
//! Why not a crate: the rules are short (keys by UTF-16 code units, ECMAScript numbers,
//! `JSON.stringify` escaping, no whitespace), the hot path (10 000-tool surfaces) wants a
//! writer that appends to one buffer without intermediate allocations, and pinning the exact
//! behaviour in this file protects the fingerprint from upstream drift. The RFC 8785 number
//! vectors and the mcp-surface anchor vectors are tests of this module.
//!
//! Two writers share these rules: [`write_jcs`] serialises a `serde_json::Value` (the public
//! API, used by the lock and diff code, and the reference the fast path is tested against), and
//! [`tape`] writes the canonical bytes straight from JSON text through a borrowed, validating
//! reader ([`reader`]), the hot path of every surface item. [`number`] turns a number's text
//! into its canonical text, without a double where the digits alone decide.
//!
//! Invariants:
//! * output is always valid UTF-8 JSON that parses back to an equal value;
//! * `jcs(parse(jcs(v))) == jcs(v)` (idempotence, property-tested);
//! * numbers are written as ECMAScript `Number.prototype.toString` writes the nearest IEEE-754
//!   double, so integers beyond 2^53 are rounded exactly as JavaScript rounds them.

use std::cmp::Ordering;
use std::fmt::Write as _;

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

pub(crate) mod number;
pub(crate) mod reader;
pub(crate) mod tape;

/// Serialises `value` with RFC 8785 (JCS) and returns the UTF-8 bytes.
///
/// Why public: the lock and diff code hash sub-documents (sections, profiles) with exactly the
/// same rules as the surface. Never fails: a `serde_json::Value` cannot hold NaN or infinities,
/// and Rust strings cannot hold lone surrogates, which are the only inputs RFC 8785 refuses.
pub fn jcs(value: &Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    write_jcs(value, &mut out);
    out
}

/// Appends the RFC 8785 serialisation of `value` to `out` (same rules as [`jcs`]).
///
/// Why: lets callers build a larger canonical document in one buffer without copies.
pub fn write_jcs(value: &Value, out: &mut Vec<u8>) {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_jcs(item, out);
            }
            out.push(b']');
        }
        Value::Object(map) => write_object(map, out),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut Vec<u8>) {
    out.push(b'{');
    // serde_json's default map iterates in UTF-8 byte order, which equals UTF-16 order unless
    // a key holds both a character >= U+10000 and one in U+E000..=U+FFFF at the same place.
    // Check the cheap case first and only sort when the order actually differs (or when a
    // crate in the graph enabled `preserve_order`).
    let mut sorted = true;
    let mut prev: Option<&str> = None;
    for key in map.keys() {
        if let Some(p) = prev
            && utf16_cmp(p, key) == Ordering::Greater
        {
            sorted = false;
            break;
        }
        prev = Some(key);
    }
    let mut first = true;
    let mut emit = |k: &str, v: &Value, out: &mut Vec<u8>| {
        if !first {
            out.push(b',');
        }
        first = false;
        write_string(k, out);
        out.push(b':');
        write_jcs(v, out);
    };
    if sorted {
        for (k, v) in map {
            emit(k, v, out);
        }
    } else {
        let mut entries: Vec<(&String, &Value)> = map.iter().collect();
        entries.sort_by(|a, b| utf16_cmp(a.0, b.0));
        for (k, v) in entries {
            emit(k, v, out);
        }
    }
    out.push(b'}');
}

/// Compares two strings by their UTF-16 code units, as JavaScript's `<` and default `sort` do.
///
/// Why: RFC 8785 orders keys this way, and mcpseal orders list items this way, so that a
/// JavaScript or Python implementation (`key=lambda s: s.encode("utf-16-be")`) agrees. Differs
/// from `str::cmp` (code points) only between U+E000..=U+FFFF and characters >= U+10000.
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    utf16_cmp_bytes(a.as_bytes(), b.as_bytes())
}

/// [`utf16_cmp`] on the UTF-8 bytes of two strings (keys straight from JSON text).
///
/// Why it works on bytes: UTF-8 byte order is code point order, which is UTF-16 order except
/// that characters >= U+10000 (lead bytes F0..=F4, high surrogates in UTF-16) sort before
/// U+E000..=U+FFFF (lead bytes EE, EF). At the first differing byte, either both bytes continue
/// a character with the same lead byte (same class: byte order holds), or both are lead bytes:
/// ranking F0..=F4 between ED and EE gives UTF-16 order. Both inputs must be valid UTF-8.
pub(crate) fn utf16_cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let Some(i) = a.iter().zip(b.iter()).position(|(x, y)| x != y) else {
        return a.len().cmp(&b.len());
    };
    let rank = |c: u8| {
        let c = u16::from(c);
        if c >= 0xF0 {
            0xED * 16 + 8 + (c - 0xF0)
        } else {
            c * 16
        }
    };
    rank(a[i]).cmp(&rank(b[i]))
}

/// Writes a string as ECMAScript `JSON.stringify` does (RFC 8785 §3.2.2.2).
///
/// `"` and `\` escaped; U+0008, U+0009, U+000A, U+000C, U+000D as `\b \t \n \f \r`; other
/// controls below U+0020 as `\u00xx` with lowercase hex; everything else (including `/`,
/// U+007F, U+2028 and all non-ASCII) written raw as UTF-8.
pub(crate) fn write_string(s: &str, out: &mut Vec<u8>) {
    write_string_bytes(s.as_bytes(), out);
}

/// [`write_string`] on the UTF-8 bytes of a decoded string.
pub(crate) fn write_string_bytes(bytes: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b >= 0x20 && b != b'"' && b != b'\\' {
            continue;
        }
        out.extend_from_slice(&bytes[run..i]);
        run = i + 1;
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x09 => out.extend_from_slice(b"\\t"),
            0x0a => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            0x0d => out.extend_from_slice(b"\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
        }
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

const TWO_53: u64 = 1 << 53;

pub(crate) fn write_number(n: &Number, out: &mut Vec<u8>) {
    if let Some(u) = n.as_u64() {
        if u <= TWO_53 {
            push_display(u, out);
        } else {
            // u64 -> f64 rounds to nearest, ties to even: the same double JavaScript's parser
            // picks for the decimal literal, since the literal is an exact integer.
            #[expect(clippy::cast_precision_loss, reason = "JS rounds the same way")]
            write_f64(u as f64, out);
        }
    } else if let Some(i) = n.as_i64() {
        if i >= -(TWO_53 as i64) {
            push_display(i, out);
        } else {
            #[expect(clippy::cast_precision_loss, reason = "JS rounds the same way")]
            write_f64(i as f64, out);
        }
    } else {
        write_f64(n.as_f64().unwrap_or(0.0), out);
    }
}

fn push_display(v: impl std::fmt::Display, out: &mut Vec<u8>) {
    let mut buf = StackBuf::default();
    let _ = write!(buf, "{v}");
    out.extend_from_slice(buf.as_bytes());
}

/// Formats a finite double as ECMAScript `Number::toString(x)` (ECMA-262 §6.1.6.1.20), the
/// number format RFC 8785 requires. Public inside the crate for the compatibility sort key.
pub(crate) fn write_f64(x: f64, out: &mut Vec<u8>) {
    if x == 0.0 || !x.is_finite() {
        // -0 prints as 0; non-finite values cannot come from serde_json.
        out.push(b'0');
        return;
    }
    let x = if x < 0.0 {
        out.push(b'-');
        -x
    } else {
        x
    };
    // Rust's `{:e}` prints the shortest digit string that round-trips (like JS and Python's
    // repr), as `d[.ddd]e[-]N`. Take the digits and the exponent, then lay them out by the
    // ECMAScript rules.
    let mut buf = StackBuf::default();
    let _ = write!(buf, "{x:e}");
    let text = buf.as_bytes();
    let e_pos = text.iter().position(|&c| c == b'e').unwrap_or(text.len());
    let mut digits = [0u8; 24];
    let mut k = 0usize;
    for &c in &text[..e_pos] {
        if c.is_ascii_digit() && k < digits.len() {
            digits[k] = c;
            k += 1;
        }
    }
    let exp: i32 = std::str::from_utf8(&text[(e_pos + 1).min(text.len())..])
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    // value = 0.d1d2...dk × 10^n
    layout(&digits[..k], exp + 1, out);
}

/// Lays out the shortest digits `d1..dk` (no leading or trailing zero) of a positive number
/// `0.d1d2...dk × 10^n` as ECMAScript `Number::toString` does (the sign is written already):
/// positional when -6 < n <= 21, `d[.ddd]e±x` otherwise.
pub(crate) fn layout(digits: &[u8], n: i32, out: &mut Vec<u8>) {
    let k = digits.len();
    let Some(&first) = digits.first() else {
        out.push(b'0');
        return;
    };
    let k_i = i32::try_from(k).unwrap_or(i32::MAX);
    if k_i <= n && n <= 21 {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(
            b'0',
            usize::try_from(n - k_i).unwrap_or(0),
        ));
    } else if 0 < n && n <= 21 {
        let split = usize::try_from(n).unwrap_or(0);
        out.extend_from_slice(&digits[..split]);
        out.push(b'.');
        out.extend_from_slice(&digits[split..]);
    } else if -6 < n && n <= 0 {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', usize::try_from(-n).unwrap_or(0)));
        out.extend_from_slice(digits);
    } else {
        out.push(first);
        if k > 1 {
            out.push(b'.');
            out.extend_from_slice(&digits[1..]);
        }
        out.push(b'e');
        out.push(if n - 1 < 0 { b'-' } else { b'+' });
        push_display((n - 1).unsigned_abs(), out);
    }
}

/// Fixed buffer for number formatting: avoids an allocation per number.
struct StackBuf {
    buf: [u8; 48],
    len: usize,
}

impl Default for StackBuf {
    fn default() -> Self {
        Self {
            buf: [0; 48],
            len: 0,
        }
    }
}

impl StackBuf {
    fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }
}

impl std::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.buf.len() {
            return Err(std::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Lowercase hexadecimal SHA-256 of `bytes` (64 characters).
///
/// Why: sha2 0.11 digests have no `LowerHex`; every fingerprint in mcpseal (surface, item,
/// description, lock sections) is written this way, with no prefix and no trailing newline.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

pub(crate) fn hex(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(digest.len() * 2);
    for &b in digest {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> String {
        let v: Value = serde_json::from_str(text).expect("valid test JSON");
        String::from_utf8(jcs(&v)).expect("utf-8")
    }

    #[test]
    fn ecmascript_numbers() {
        let cases = [
            ("1.0", "1"),
            ("1e21", "1e+21"),
            ("1e20", "100000000000000000000"),
            ("1e-7", "1e-7"),
            ("0.000001", "0.000001"),
            ("1e-6", "0.000001"),
            ("-0", "0"),
            ("-0.0", "0"),
            ("123456789012345678", "123456789012345680"),
            ("9007199254740993", "9007199254740992"),
            ("18446744073709551615", "18446744073709552000"),
            ("-9007199254740993", "-9007199254740992"),
            ("1.5e300", "1.5e+300"),
            ("0.1", "0.1"),
            ("-1.25e-10", "-1.25e-10"),
            ("123.456", "123.456"),
            ("5e-324", "5e-324"),
            ("1.7976931348623157e308", "1.7976931348623157e+308"),
            ("333333333.3333332", "333333333.3333332"),
            ("295147905179352830000", "295147905179352830000"),
            ("4.5", "4.5"),
            ("2e-3", "0.002"),
            ("0.000001234", "0.000001234"),
            ("1234567890123456789012", "1.2345678901234568e+21"),
        ];
        for (input, want) in cases {
            assert_eq!(canon(input), want, "input {input}");
        }
    }

    #[test]
    fn rfc8785_appendix_b_doubles() {
        // RFC 8785 Appendix B: IEEE-754 bit patterns and their expected output.
        let cases: [(u64, &str); 16] = [
            (0x0000_0000_0000_0000, "0"),
            (0x8000_0000_0000_0000, "0"),
            (0x0000_0000_0000_0001, "5e-324"),
            (0x8000_0000_0000_0001, "-5e-324"),
            (0x7fef_ffff_ffff_ffff, "1.7976931348623157e+308"),
            (0xffef_ffff_ffff_ffff, "-1.7976931348623157e+308"),
            (0x4340_0000_0000_0000, "9007199254740992"),
            (0xc340_0000_0000_0000, "-9007199254740992"),
            (0x4430_0000_0000_0000, "295147905179352830000"),
            (0x44b5_2d02_c7e1_4af5, "9.999999999999997e+22"),
            (0x44b5_2d02_c7e1_4af6, "1e+23"),
            (0x44b5_2d02_c7e1_4af7, "1.0000000000000001e+23"),
            (0x444b_1ae4_d6e2_ef4e, "999999999999999700000"),
            (0x444b_1ae4_d6e2_ef4f, "999999999999999900000"),
            (0x444b_1ae4_d6e2_ef50, "1e+21"),
            (0x3eb0_c6f7_a0b5_ed8c, "9.999999999999997e-7"),
        ];
        for (bits, want) in cases {
            let mut out = Vec::new();
            write_f64(f64::from_bits(bits), &mut out);
            assert_eq!(
                String::from_utf8(out).expect("utf-8"),
                want,
                "bits {bits:#x}"
            );
        }
        let more: [(u64, &str); 4] = [
            (0x3eb0_c6f7_a0b5_ed8d, "0.000001"),
            (0x41b3_de43_5555_5553, "333333333.3333332"),
            (0x41b3_de43_5555_5554, "333333333.33333325"),
            (0x41b3_de43_5555_5555, "333333333.3333333"),
        ];
        for (bits, want) in more {
            let mut out = Vec::new();
            write_f64(f64::from_bits(bits), &mut out);
            assert_eq!(
                String::from_utf8(out).expect("utf-8"),
                want,
                "bits {bits:#x}"
            );
        }
    }

    #[test]
    fn keys_by_utf16_code_units() {
        assert_eq!(
            canon(r#"{"\ufb01":1,"\ud83d\ude00":2,"z":3,"10":4,"9":5}"#),
            "{\"10\":4,\"9\":5,\"z\":3,\"\u{1f600}\":2,\"\u{fb01}\":1}"
        );
        assert_eq!(utf16_cmp("\u{1f600}", "\u{fb01}"), Ordering::Less);
        assert_eq!(utf16_cmp("a", "ab"), Ordering::Less);
        assert_eq!(utf16_cmp("\u{1f600}", "\u{1f601}"), Ordering::Less);
        assert_eq!(utf16_cmp("\u{d7ff}", "\u{1f600}"), Ordering::Less);
        assert_eq!(utf16_cmp("é", "e"), Ordering::Greater);
    }

    #[test]
    fn escapes_like_json_stringify() {
        assert_eq!(
            canon(r#""\u0001\u001f\b\f\n\r\t\"\\/\u007f\u2028é""#),
            "\"\\u0001\\u001f\\b\\f\\n\\r\\t\\\"\\\\/\u{7f}\u{2028}é\""
        );
    }

    #[test]
    fn hex_is_lowercase() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
