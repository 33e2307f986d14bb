//! Artifact integrity: npm's Subresource Integrity strings and PyPI's SHA-256 hex digests.
//!
//! An SRI string may list several `algo-base64` entries; the artifact passes when the
//! strongest algorithm listed that mcpseal knows (sha512, then sha256, then sha1) matches one
//! of its entries. An SRI with no known algorithm is refused (fail closed), never skipped.

use sha1::Sha1;
use sha2::{Digest, Sha256, Sha512};

/// The outcome of checking bytes against an expected integrity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Check {
    /// It matches.
    Ok,
    /// It does not: what the bytes hash to, in the same notation.
    Mismatch { actual: String },
    /// The expected value names no algorithm mcpseal knows.
    Unusable,
}

/// Checks `bytes` against an npm SRI string (`sha512-…`, possibly several, space separated).
pub(crate) fn check_sri(bytes: &[u8], sri: &str) -> Check {
    let entries: Vec<(&str, &str)> = sri
        .split_whitespace()
        .filter_map(|e| e.split_once('-'))
        .map(|(a, d)| (a, d.split('?').next().unwrap_or(d)))
        .collect();
    for algo in ["sha512", "sha256", "sha1"] {
        let wanted: Vec<&str> = entries
            .iter()
            .filter(|(a, _)| a.eq_ignore_ascii_case(algo))
            .map(|(_, d)| *d)
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let actual = base64(&digest(algo, bytes));
        return if wanted.contains(&actual.as_str()) {
            Check::Ok
        } else {
            Check::Mismatch {
                actual: format!("{algo}-{actual}"),
            }
        };
    }
    Check::Unusable
}

/// Checks `bytes` against a SHA-256 given as `sha256:HEX`, `sha256=HEX` or bare hex.
pub(crate) fn check_sha256(bytes: &[u8], expected: &str) -> Check {
    let hex = expected
        .strip_prefix("sha256:")
        .or_else(|| expected.strip_prefix("sha256="))
        .unwrap_or(expected)
        .to_ascii_lowercase();
    if hex.len() != 64 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return Check::Unusable;
    }
    let actual = sha256_hex(bytes);
    if actual == hex {
        Check::Ok
    } else {
        Check::Mismatch { actual }
    }
}

/// Lower-case hex SHA-256.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// An npm SRI built from the legacy hex `shasum` (sha1).
pub(crate) fn sri_from_shasum(shasum: &str) -> Option<String> {
    let bytes = unhex(shasum)?;
    (bytes.len() == 20).then(|| format!("sha1-{}", base64(&bytes)))
}

fn digest(algo: &str, bytes: &[u8]) -> Vec<u8> {
    match algo {
        "sha512" => Sha512::digest(bytes).to_vec(),
        "sha256" => Sha256::digest(bytes).to_vec(),
        _ => Sha1::digest(bytes).to_vec(),
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Standard base64 with padding (what SRI uses).
fn base64(bytes: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(T[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_vectors() {
        // RFC 4648 §10.
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    #[test]
    fn sri() {
        // `printf abc | openssl dgst -sha512 -binary | base64`
        let abc512 = "sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw==";
        assert_eq!(check_sri(b"abc", abc512), Check::Ok);
        assert!(matches!(check_sri(b"abd", abc512), Check::Mismatch { .. }));
        // sha512 wins over a (wrong) sha1 entry listed with it.
        assert_eq!(check_sri(b"abc", &format!("sha1-AAAA {abc512}")), Check::Ok);
        assert_eq!(check_sri(b"abc", "md5-xyz"), Check::Unusable);
        let sha1 = sri_from_shasum("a9993e364706816aba3e25717850c26c9cd0d89d").expect("hex");
        assert_eq!(check_sri(b"abc", &sha1), Check::Ok);
        let h = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(check_sha256(b"abc", h), Check::Ok);
        assert_eq!(check_sha256(b"abc", &format!("sha256:{h}")), Check::Ok);
        assert!(matches!(check_sha256(b"abd", h), Check::Mismatch { .. }));
        assert_eq!(check_sha256(b"abc", "nope"), Check::Unusable);
    }
}
