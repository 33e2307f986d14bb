//! The random capture generator shared by the differential tests (tests/differential.rs, against
//! Python) and the crate's unit tests (fast path against reference path): numbers from random bit
//! patterns, strings with controls, quotes, U+E000..U+FFFF and astral characters, random keys,
//! duplicates, missing identities, failures, malformed pages, both eras.
#![allow(dead_code, reason = "each includer uses a different subset")]

use std::fmt::Write as _;

/// xorshift64*, deterministic.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

fn string(rng: &mut Rng, out: &mut String) {
    out.push('"');
    for _ in 0..rng.below(6) {
        match rng.below(10) {
            0 => {
                let _ = write!(out, "\\u{:04x}", rng.below(0x20));
            }
            1 => out.push_str(["\\\"", "\\\\", "\\/", "\\n", "\\t", "\\b"][rng.below(6) as usize]),
            2 => out.push(char::from_u32(0xE000 + rng.below(0x1FFE) as u32).unwrap_or('x')),
            3 => out.push(char::from_u32(0x1F600 + rng.below(0x50) as u32).unwrap_or('x')),
            4 => out.push_str("\\ud83d\\ude00"),
            5 => out.push(['é', 'Ç', '\u{2028}', '\u{7f}', 'ﬁ'][rng.below(5) as usize]),
            6 => out.push(char::from(b'0' + rng.below(10) as u8)),
            _ => out.push(char::from(b'a' + rng.below(26) as u8)),
        }
    }
    out.push('"');
}

fn number(rng: &mut Rng, out: &mut String) {
    match rng.below(6) {
        0 => {
            let _ = write!(out, "{}", rng.next());
        }
        1 => {
            let _ = write!(out, "{}", rng.next() as i64);
        }
        2 => {
            let _ = write!(out, "{}", rng.below(2000) as i64 - 1000);
        }
        3 | 4 => {
            let mut f = f64::from_bits(rng.next());
            while !f.is_finite() {
                f = f64::from_bits(rng.next());
            }
            if rng.chance(50) {
                let _ = write!(out, "{f:e}");
            } else {
                let _ = write!(out, "{f:?}");
            }
        }
        _ => out.push_str(
            ["1.0", "-0", "1E2", "1e21", "1e-7", "0.000001", "2.50"][rng.below(7) as usize],
        ),
    }
}

/// One random JSON value (`depth` levels of nesting at most).
pub fn value(rng: &mut Rng, depth: u32, out: &mut String) {
    let kind = if depth == 0 {
        rng.below(4)
    } else {
        rng.below(6)
    };
    match kind {
        0 => out.push_str(["null", "true", "false"][rng.below(3) as usize]),
        1 => number(rng, out),
        2 | 3 => string(rng, out),
        4 => {
            out.push('[');
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                value(rng, depth - 1, out);
            }
            out.push(']');
        }
        _ => {
            out.push('{');
            for i in 0..rng.below(5) {
                if i > 0 {
                    out.push(',');
                }
                string(rng, out);
                out.push(':');
                value(rng, depth - 1, out);
            }
            out.push('}');
        }
    }
}

fn item(rng: &mut Rng, id_key: &str, names: &[&str], out: &mut String) {
    out.push('{');
    if !rng.chance(3) {
        let _ = write!(out, "\"{id_key}\":");
        if rng.chance(3) {
            out.push('5');
        } else {
            let _ = write!(out, "\"{}\"", names[rng.below(names.len() as u64) as usize]);
        }
        out.push(',');
    }
    out.push_str("\"description\":");
    if rng.chance(80) {
        string(rng, out);
    } else {
        value(rng, 1, out);
    }
    out.push_str(",\"inputSchema\":");
    value(rng, 3, out);
    out.push('}');
}

/// One random capture document.
pub fn capture(rng: &mut Rng) -> String {
    let names = [
        "a",
        "b",
        "B",
        "_",
        "0",
        "ﬁ",
        "😀",
        "\\ud83d\\ude01",
        "é",
        "10",
        "9",
    ];
    let mut out = String::new();
    let era = if rng.chance(50) {
        "2025-11-25"
    } else {
        "2026-07-28"
    };
    let _ = write!(out, "{{\"era\":\"{era}\",\"server\":");
    if rng.chance(10) {
        out.push_str("null");
    } else {
        out.push_str("{\"capabilities\":");
        value(rng, 2, &mut out);
        out.push_str(",\"protocolVersion\":\"2025-11-25\",\"supportedVersions\":[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\"]");
        if rng.chance(50) {
            out.push_str(",\"instructions\":");
            string(rng, &mut out);
        }
        if rng.chance(50) {
            out.push_str(",\"serverInfo\":{\"name\":\"body\",\"version\":\"1\"}");
        }
        if rng.chance(50) {
            out.push_str(",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":");
            string(rng, &mut out);
            out.push_str(",\"version\":\"2\"}}");
        }
        out.push('}');
    }
    out.push_str(",\"lists\":{");
    let lists = [
        ("tools", "name"),
        ("resources", "uri"),
        ("resourceTemplates", "uriTemplate"),
        ("prompts", "name"),
    ];
    let mut first = true;
    for (key, id_key) in lists {
        if rng.chance(10) {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        let _ = write!(out, "\"{key}\":{{\"pages\":[");
        for p in 0..1 + rng.below(3) {
            if p > 0 {
                out.push(',');
            }
            if rng.chance(4) {
                out.push_str("{\"nextCursor\":\"x\"}");
                continue;
            }
            let _ = write!(out, "{{\"{key}\":[");
            for i in 0..rng.below(4) {
                if i > 0 {
                    out.push(',');
                }
                item(rng, id_key, &names, &mut out);
            }
            out.push_str("],\"ttlMs\":");
            number(rng, &mut out);
            out.push('}');
        }
        out.push(']');
        if rng.chance(10) {
            let kind = ["error", "transport", "pageCap", "cursorLoop"][rng.below(4) as usize];
            let _ = write!(
                out,
                ",\"failure\":{{\"kind\":\"{kind}\",\"message\":\"m\"}}"
            );
        }
        out.push('}');
    }
    out.push_str("}}");
    out
}
