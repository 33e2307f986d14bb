//! A JSON number's text → its RFC 8785 text, with exactly the semantics of parsing it into a
//! `serde_json::Number` (`float_roundtrip`) and writing that with [`super::write_number`].
//!
//! Most numbers in MCP surfaces are short integers (`0`, `1000000`) or short decimals (`1.5`,
//! `2.5e-7`). For those the digits alone decide the output, so no double is built:
//!
//! * an integer of at most 15 digits is already canonical (JSON forbids leading zeros; below
//!   2^53 the number is exact): it is copied, except `-0`, which is `0`;
//! * a decimal with at most 15 significant digits whose value lies in [1e-300, 1e15): the nearest
//!   double of such a decimal round-trips to the same 15 digits (DBL_DIG is 15 for normal
//!   doubles), so no other decimal of 15 digits or fewer maps to that double, and the shortest
//!   round-trip digits ECMAScript prints are the decimal's own significant digits. Below 2^53
//!   no such decimal lies half-way between two doubles (a decimal fraction that is a dyadic
//!   rational has at most 50 significant bits; an integer below 2^53 is exact), so no
//!   tie-breaking rule can pick another string. Only the layout remains ([`super::layout`]).
//!
//! Everything else (long digit strings, huge or tiny exponents, integers from 2^53 up) goes
//! through serde_json itself, so the rounding of `9007199254740993` or `1e23` is by
//! construction what the `Value` path does. The unit tests check both paths against it.

use super::reader::Bail;
use super::{layout, write_number};

/// How a number is written.
pub(crate) enum Canonical {
    /// Its source text is canonical already.
    Verbatim,
    /// It is zero (`-0`, `0.0`, `0e5`): written `0`.
    Zero,
    /// Significant digits (1 to 15, no leading or trailing zero) and the decimal exponent `n` of
    /// `0.d1d2…dk × 10^n`, with the sign.
    Digits {
        negative: bool,
        digits: Digits,
        n: i32,
    },
    /// Parsed by serde_json (the reference semantics).
    Parsed(serde_json::Number),
}

/// Up to 15 significant digits, inline.
pub(crate) struct Digits {
    buf: [u8; 15],
    len: u8,
}

impl Digits {
    fn as_slice(&self) -> &[u8] {
        &self.buf[..usize::from(self.len)]
    }
}

/// Classifies the number `text` (whose JSON grammar the reader has checked).
///
/// # Errors
/// [`Bail`] when serde_json refuses the number (beyond the double range).
pub(crate) fn canonical(text: &[u8]) -> Result<Canonical, Bail> {
    let (negative, body) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let int_len = body
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(body.len());
    let int = &body[..int_len];
    let rest = &body[int_len..];
    if rest.is_empty() && int.len() <= 15 {
        return Ok(if int == b"0" {
            Canonical::Zero
        } else {
            Canonical::Verbatim
        });
    }
    let (frac, exp_text) = match rest.split_first() {
        Some((b'.', r)) => {
            let f = r
                .iter()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(r.len());
            (&r[..f], &r[f..])
        }
        _ => (&rest[..0], rest),
    };
    if let Some(c) = short_decimal(negative, int, frac, exp_text) {
        return Ok(c);
    }
    parsed(text)
}

/// The digits-only path; `None` when the number is outside its domain.
fn short_decimal(negative: bool, int: &[u8], frac: &[u8], exp_text: &[u8]) -> Option<Canonical> {
    let exp: i64 = match exp_text.split_first() {
        None => 0,
        Some((b'e' | b'E', e)) => {
            let (sign, digits) = match e.split_first() {
                Some((b'-', d)) => (-1, d),
                Some((b'+', d)) => (1, d),
                _ => (1, e),
            };
            if digits.is_empty() || digits.len() > 6 {
                return None;
            }
            let mut v: i64 = 0;
            for &d in digits {
                v = v * 10 + i64::from(d - b'0');
            }
            sign * v
        }
        _ => return None,
    };
    let all = int.iter().chain(frac.iter());
    let Some(first) = all.clone().position(|&c| c != b'0') else {
        return Some(Canonical::Zero);
    };
    let total = int.len() + frac.len();
    let last = total - 1 - all.rev().position(|&c| c != b'0')?;
    let k = last - first + 1;
    if k > 15 {
        return None;
    }
    let n = i64::try_from(int.len()).ok()? - i64::try_from(first).ok()? + exp;
    if !(-299..=15).contains(&n) {
        return None;
    }
    let mut digits = Digits {
        buf: [0; 15],
        len: u8::try_from(k).ok()?,
    };
    for (slot, i) in digits.buf.iter_mut().zip(first..=last) {
        *slot = if i < int.len() {
            int[i]
        } else {
            frac[i - int.len()]
        };
    }
    Some(Canonical::Digits {
        negative,
        digits,
        n: i32::try_from(n).ok()?,
    })
}

fn parsed(text: &[u8]) -> Result<Canonical, Bail> {
    serde_json::from_slice::<serde_json::Number>(text)
        .map(Canonical::Parsed)
        .map_err(|_| Bail)
}

impl Canonical {
    /// Appends the canonical text; `source` is the number's own text (for [`Verbatim`]).
    ///
    /// [`Verbatim`]: Canonical::Verbatim
    pub(crate) fn write(&self, source: &[u8], out: &mut Vec<u8>) {
        match self {
            Canonical::Verbatim => out.extend_from_slice(source),
            Canonical::Zero => out.push(b'0'),
            Canonical::Digits {
                negative,
                digits,
                n,
            } => {
                if *negative {
                    out.push(b'-');
                }
                layout(digits.as_slice(), *n, out);
            }
            Canonical::Parsed(number) => write_number(number, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference: serde_json's `Number` written by the `Value` writer.
    fn reference(text: &str) -> Option<String> {
        let n: serde_json::Number = serde_json::from_str(text).ok()?;
        let mut out = Vec::new();
        write_number(&n, &mut out);
        String::from_utf8(out).ok()
    }

    fn fast(text: &str) -> Option<String> {
        let c = canonical(text.as_bytes()).ok()?;
        let mut out = Vec::new();
        c.write(text.as_bytes(), &mut out);
        String::from_utf8(out).ok()
    }

    fn is_digits_path(text: &str) -> bool {
        matches!(
            canonical(text.as_bytes()),
            Ok(Canonical::Digits { .. } | Canonical::Verbatim | Canonical::Zero)
        )
    }

    #[test]
    fn edge_numbers_agree_with_serde_json() {
        for text in [
            "0",
            "-0",
            "0.0",
            "-0.0",
            "0e0",
            "-0e-5",
            "0E+400",
            "0.000e99999999999999999999",
            "1",
            "-1",
            "1.0",
            "1E2",
            "1e+2",
            "2.50",
            "1e21",
            "1e20",
            "1e-7",
            "1e-6",
            "0.000001",
            "1.5e300",
            "5e-324",
            "2.5e-7",
            "4.9e-324",
            "2e-324",
            "1e-400",
            "-1e-400",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "9007199254740992",
            "9007199254740993",
            "-9007199254740993",
            "123456789012345",
            "999999999999999",
            "1000000000000000",
            "9999999999999999",
            "123456789012345678",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "295147905179352830000",
            "1e23",
            "9.999999999999999e22",
            "0.1",
            "0.30000000000000004",
            "123.456",
            "333333333.3333332",
            "99999999999999.9",
            "999999999999999.9",
            "0.999999999999999",
            "0.9999999999999999",
            "1.00000000000000000000000000000000000001",
            "100000000000000000000000000000000000000000000000e-40",
            "0.0000000000000000000000000000001e31",
            "1e-299",
            "1e-300",
            "1.23456789012345e-299",
            "12345678901234.5e1",
            "1e15",
            "1e14",
            "9.99999999999999e14",
        ] {
            assert_eq!(fast(text), reference(text), "{text}");
        }
        // 1e400 is refused by both.
        assert!(fast("1e400").is_none() && reference("1e400").is_none());
        assert!(fast("-1e99999999999").is_none() && reference("-1e99999999999").is_none());
        // The common shapes take the digits path.
        for text in [
            "0", "-0", "1000000", "1.5", "1.0", "2.5e-7", "-12.25", "0.000001",
        ] {
            assert!(is_digits_path(text), "{text}");
        }
    }

    /// xorshift64* for deterministic random digit strings.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[test]
    fn random_decimals_agree_with_serde_json() {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut text = String::new();
        let mut digits_path = 0;
        for _ in 0..50_000 {
            text.clear();
            if rng.below(2) == 0 {
                text.push('-');
            }
            let int_digits = rng.below(18);
            if int_digits == 0 {
                text.push('0');
            } else {
                text.push(char::from(b'1' + rng.below(9) as u8));
                for _ in 1..int_digits {
                    text.push(char::from(b'0' + rng.below(10) as u8));
                }
            }
            if rng.below(3) > 0 {
                text.push('.');
                // Runs of zeros and nines: near powers of ten and near halfway points.
                let style = rng.below(4);
                for _ in 0..1 + rng.below(20) {
                    let d = match style {
                        0 => b'0',
                        1 => b'9',
                        _ => b'0' + rng.below(10) as u8,
                    };
                    text.push(char::from(d));
                }
                if rng.below(4) == 0 {
                    text.push(char::from(b'1' + rng.below(9) as u8));
                }
            }
            if rng.below(2) == 0 {
                text.push(['e', 'E'][rng.below(2) as usize]);
                match rng.below(3) {
                    0 => text.push('-'),
                    1 => text.push('+'),
                    _ => {}
                }
                let wide = rng.below(4) == 0;
                let e = rng.below(if wide { 340 } else { 25 });
                text.push_str(&e.to_string());
            }
            assert_eq!(fast(&text), reference(&text), "{text}");
            if is_digits_path(&text) {
                digits_path += 1;
            }
        }
        assert!(
            digits_path > 12_000,
            "digits path taken {digits_path} times"
        );
    }

    #[test]
    fn random_doubles_agree_with_serde_json() {
        // Every double's shortest text, its 15- and 17-digit texts: the hard cases for rounding.
        let mut rng = Rng(0x0bad_cafe_f00d_d00d);
        for _ in 0..30_000 {
            let x = f64::from_bits(rng.next());
            if !x.is_finite() {
                continue;
            }
            for text in [format!("{x:e}"), format!("{x:.14e}"), format!("{x:.16e}")] {
                assert_eq!(fast(&text), reference(&text), "{text}");
            }
        }
    }
}
