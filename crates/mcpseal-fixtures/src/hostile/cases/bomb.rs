//! Decompression bombs: a body that is small on the wire (~6.5 MiB) and 1 GiB of zeros once
//! decoded, sent with `Content-Encoding: gzip` (RFC 1952) or `deflate` (zlib, RFC 1950),
//! although the client asked for no encoding. A client that decodes it pays a gigabyte; one
//! that bounds the decoded size still pays the decoding; mcpseal does neither.
//!
//! The DEFLATE stream is written by hand with the fixed Huffman code (RFC 1951 §3.2.6): a
//! literal zero, then back-references of length 258 at distance 1, 13 bits for 258 bytes.
//! The trailers are real (CRC-32 of the zeros, Adler-32), so the stream is what a victim
//! would inflate.

use std::sync::OnceLock;

use super::head;

/// The decoded size: one literal and 258-byte copies, about 1 GiB.
const COPIES: u64 = 4_161_791;

/// Which container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// gzip.
    Gzip,
    /// zlib ("deflate" in HTTP).
    Deflate,
}

/// The decoded length.
pub fn decoded_len() -> u64 {
    1 + 258 * COPIES
}

struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    /// Appends `len` bits of `value`, least significant first (DEFLATE's packing order).
    fn put(&mut self, value: u64, len: u32) {
        self.acc |= value << self.n;
        self.n += len;
        while self.n >= 8 {
            self.out.push((self.acc & 0xff) as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// Appends a Huffman code of `len` bits, most significant bit first.
    fn code(&mut self, code: u64, len: u32) {
        let mut reversed = 0;
        for i in 0..len {
            reversed |= ((code >> i) & 1) << (len - 1 - i);
        }
        self.put(reversed, len);
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push((self.acc & 0xff) as u8);
        }
        self.out
    }
}

/// The raw DEFLATE stream.
pub fn deflate() -> Vec<u8> {
    let mut b = Bits {
        out: Vec::with_capacity(7 * 1024 * 1024),
        acc: 0,
        n: 0,
    };
    b.put(1, 1); // BFINAL
    b.put(1, 2); // BTYPE = 01, fixed Huffman
    b.code(0x30, 8); // literal 0
    for _ in 0..COPIES {
        b.code(0b1100_0101, 8); // length 258 (symbol 285)
        b.code(0, 5); // distance 1 (code 0)
    }
    b.code(0, 7); // end of block (256)
    b.finish()
}

/// The body in `encoding`.
pub fn body(encoding: Encoding) -> Vec<u8> {
    let n = decoded_len();
    let mut out = Vec::new();
    match encoding {
        Encoding::Gzip => {
            out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
            out.extend(deflate());
            out.extend_from_slice(&crc32_of_zeros(n).to_le_bytes());
            out.extend_from_slice(&((n & 0xffff_ffff) as u32).to_le_bytes());
        }
        Encoding::Deflate => {
            out.extend_from_slice(&[0x78, 0x01]);
            out.extend(deflate());
            // Adler-32 of zeros: a stays 1, b adds it once per byte.
            let adler = (((n % 65521) as u32) << 16) | 1;
            out.extend_from_slice(&adler.to_be_bytes());
        }
    }
    out
}

/// The whole response. Built once per process and encoding: writing the 6.5 MiB stream bit by
/// bit costs about a second of this fixture's CPU in a debug build, and a client that sends
/// several requests (the probe) would otherwise be timed on the fixture's work, not its own.
pub fn response(encoding: Encoding) -> Vec<u8> {
    static GZIP: OnceLock<Vec<u8>> = OnceLock::new();
    static DEFLATE: OnceLock<Vec<u8>> = OnceLock::new();
    let cell = match encoding {
        Encoding::Gzip => &GZIP,
        Encoding::Deflate => &DEFLATE,
    };
    cell.get_or_init(|| build_response(encoding)).clone()
}

fn build_response(encoding: Encoding) -> Vec<u8> {
    let body = body(encoding);
    let name = match encoding {
        Encoding::Gzip => "gzip",
        Encoding::Deflate => "deflate",
    };
    let mut r = head(
        200,
        "application/json",
        &[
            format!("Content-Encoding: {name}"),
            format!("Content-Length: {}", body.len()),
        ],
    );
    r.extend(body);
    r
}

/// CRC-32 (IEEE, reflected) of `len` zero bytes, by squaring the zero-byte operator (as zlib's
/// `crc32_combine` does) instead of running a gigabyte through the register.
fn crc32_of_zeros(mut len: u64) -> u32 {
    fn times(mat: &[u32; 32], mut vec: u32) -> u32 {
        let mut sum = 0;
        let mut i = 0;
        while vec != 0 {
            if vec & 1 != 0 {
                sum ^= mat[i];
            }
            vec >>= 1;
            i += 1;
        }
        sum
    }
    fn square(mat: &[u32; 32]) -> [u32; 32] {
        let mut out = [0; 32];
        for (n, row) in out.iter_mut().enumerate() {
            *row = times(mat, mat[n]);
        }
        out
    }
    // The operator of one zero bit on the register.
    let mut odd = [0u32; 32];
    odd[0] = 0xedb8_8320;
    for (n, row) in odd.iter_mut().enumerate().skip(1) {
        *row = 1 << (n - 1);
    }
    let even = square(&odd); // two bits
    let mut op = square(&even); // four bits
    let mut reg = 0xffff_ffff;
    while len > 0 {
        op = square(&op); // 8, 16, 32 … bits: 1, 2, 4 … bytes
        if len & 1 == 1 {
            reg = times(&op, reg);
        }
        len >>= 1;
    }
    reg ^ 0xffff_ffff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc_of_zeros_matches_known_values() {
        assert_eq!(crc32_of_zeros(0), 0);
        assert_eq!(crc32_of_zeros(1), 0xd202_ef8d);
        assert_eq!(crc32_of_zeros(4), 0x2144_df1c);
    }

    #[test]
    fn the_bomb_is_small_on_the_wire_and_a_gigabyte_decoded() {
        let d = deflate();
        assert!(d.len() < 7 * 1024 * 1024, "{}", d.len());
        assert!(decoded_len() > 1 << 30);
        // The first byte: BFINAL 1, BTYPE 01, then the literal's code starts.
        assert_eq!(d[0] & 0b111, 0b011);
        let z = body(Encoding::Deflate);
        assert_eq!(&z[..2], &[0x78, 0x01]);
        assert_eq!(&body(Encoding::Gzip)[..3], &[0x1f, 0x8b, 8]);
    }
}
