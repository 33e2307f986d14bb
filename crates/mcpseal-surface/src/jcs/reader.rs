//! A borrowed, validating JSON reader over bytes: one pass, no allocation of its own.
//!
//! It accepts a subset of what serde_json accepts and refuses ([`Bail`]) everything else, so a
//! caller that falls back to the serde_json path on [`Bail`] gets serde_json's exact verdict and
//! error. Accepted: the JSON grammar (RFC 8259, with serde_json's whitespace: space, tab, LF,
//! CR), valid UTF-8, escapes whose surrogates come in proper pairs, numbers inside the double
//! range, at most [`MAX_DEPTH`] levels of arrays and objects counted from the reader's start
//! (serde_json's recursion limit). That is what mcpseal's validating walk accepts
//! (`mcpseal_protocol::validate_json`) and what `serde_json::from_slice::<Value>` accepts; the
//! tests and the fuzz targets pit the reader against both.
//!
//! What the reader produces goes to a [`Sink`]: a tape ([`super::tape::Tape`]) when the value
//! is to be canonicalised, or nothing ([`Validate`]) when it only has to be checked.

use super::number;

/// The fast path declines: the input is not valid JSON, or not in the subset the reader
/// handles. The caller falls back to the serde_json path, which decides and explains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bail;

/// serde_json's recursion limit: 128 levels refused, 127 accepted.
pub(crate) const MAX_DEPTH: u32 = 127;

/// Where a validated value goes.
pub(crate) trait Sink {
    /// `null`, `true`, `false`.
    fn literal(&mut self, which: Literal) -> Result<(), Bail>;
    /// A string token of `src`; `key` for an object member's name.
    fn string(&mut self, src: &[u8], token: Str, key: bool) -> Result<(), Bail>;
    /// A number at `src[start..end]`, classified.
    fn number(
        &mut self,
        src: &[u8],
        start: usize,
        end: usize,
        canonical: number::Canonical,
    ) -> Result<(), Bail>;
    /// Opens an array (`object == false`) or object; returns a handle for [`Sink::close`].
    fn open(&mut self, object: bool) -> Result<usize, Bail>;
    /// Closes the container opened as `handle`.
    fn close(&mut self, handle: usize) -> Result<(), Bail>;
}

/// The three literals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Literal {
    Null,
    True,
    False,
}

/// A sink that keeps nothing: validation only.
pub(crate) struct Validate;

impl Sink for Validate {
    fn literal(&mut self, _: Literal) -> Result<(), Bail> {
        Ok(())
    }
    fn string(&mut self, _: &[u8], _: Str, _: bool) -> Result<(), Bail> {
        Ok(())
    }
    fn number(&mut self, _: &[u8], _: usize, _: usize, _: number::Canonical) -> Result<(), Bail> {
        Ok(())
    }
    fn open(&mut self, _: bool) -> Result<usize, Bail> {
        Ok(0)
    }
    fn close(&mut self, _: usize) -> Result<(), Bail> {
        Ok(())
    }
}

/// A string token: `src[start..end]`, quotes included.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Str {
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// It holds a backslash: its decoded text differs from its inner bytes.
    pub(crate) escaped: bool,
    /// Its bytes are already its RFC 8785 form: every escape is one JCS writes the same way
    /// (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`), none is `\/` or `\u`.
    pub(crate) canonical: bool,
}

impl Str {
    /// The text between the quotes (the decoded text when not `escaped`).
    pub(crate) fn inner<'s>(&self, src: &'s [u8]) -> &'s [u8] {
        &src[self.start + 1..self.end - 1]
    }
}

/// Bytes that end a run of plain string content: `"`, `\`, controls, non-ASCII.
static STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i < 0x20 || i == b'"' as usize || i == b'\\' as usize || i >= 0x80;
        i += 1;
    }
    t
};

/// The reader: a position in `src` and the nesting depth.
pub(crate) struct Reader<'a> {
    src: &'a [u8],
    pos: usize,
    depth: u32,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `src`, at depth 0 (the first container is level 1).
    pub(crate) fn new(src: &'a [u8]) -> Self {
        Reader {
            src,
            pos: 0,
            depth: 0,
        }
    }

    /// The whole input.
    pub(crate) fn src(&self) -> &'a [u8] {
        self.src
    }

    /// The current position.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Skips JSON whitespace.
    #[inline]
    pub(crate) fn ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            if matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.src.get(self.pos).copied()
    }

    /// Consumes `b` after whitespace.
    #[inline]
    fn eat(&mut self, b: u8) -> Result<(), Bail> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(Bail)
        }
    }

    /// True when only whitespace is left.
    pub(crate) fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    fn enter(&mut self) -> Result<(), Bail> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(Bail)
        } else {
            Ok(())
        }
    }

    /// Opens a container (`open` is `[` or `{`, after whitespace); true when it is empty, and
    /// then already closed. For callers that walk a container themselves.
    pub(crate) fn open(&mut self, open: u8, close: u8) -> Result<bool, Bail> {
        self.eat(open)?;
        self.enter()?;
        if self.peek() == Some(close) {
            self.pos += 1;
            self.depth -= 1;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// After an element of a container opened with [`Reader::open`]: true when another
    /// follows (the `,` is eaten), false at `close` (eaten).
    pub(crate) fn more(&mut self, close: u8) -> Result<bool, Bail> {
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                self.depth -= 1;
                Ok(false)
            }
            _ => Err(Bail),
        }
    }

    /// A member's key and its `:`.
    pub(crate) fn key(&mut self) -> Result<Str, Bail> {
        let k = self.string()?;
        self.eat(b':')?;
        Ok(k)
    }

    /// Reads one value into `sink`.
    pub(crate) fn value<S: Sink>(&mut self, sink: &mut S) -> Result<(), Bail> {
        match self.peek() {
            Some(b'"') => {
                let s = self.string()?;
                sink.string(self.src, s, false)
            }
            Some(b'{') => {
                self.pos += 1;
                self.enter()?;
                let handle = sink.open(true)?;
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        if self.peek() != Some(b'"') {
                            return Err(Bail);
                        }
                        let k = self.string()?;
                        sink.string(self.src, k, true)?;
                        self.eat(b':')?;
                        self.value(sink)?;
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(Bail),
                        }
                    }
                }
                self.depth -= 1;
                sink.close(handle)
            }
            Some(b'[') => {
                self.pos += 1;
                self.enter()?;
                let handle = sink.open(false)?;
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.value(sink)?;
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(Bail),
                        }
                    }
                }
                self.depth -= 1;
                sink.close(handle)
            }
            Some(b't') => self.literal(b"true", Literal::True, sink),
            Some(b'f') => self.literal(b"false", Literal::False, sink),
            Some(b'n') => self.literal(b"null", Literal::Null, sink),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                self.number_grammar()?;
                let text = &self.src[start..self.pos];
                let canonical = number::canonical(text)?;
                sink.number(self.src, start, self.pos, canonical)
            }
            _ => Err(Bail),
        }
    }

    fn literal<S: Sink>(&mut self, word: &[u8], which: Literal, sink: &mut S) -> Result<(), Bail> {
        if self.src[self.pos..].starts_with(word) {
            self.pos += word.len();
            sink.literal(which)
        } else {
            Err(Bail)
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    fn number_grammar(&mut self) -> Result<(), Bail> {
        let src = self.src;
        let mut p = self.pos;
        if src.get(p) == Some(&b'-') {
            p += 1;
        }
        match src.get(p) {
            Some(b'0') => p += 1,
            Some(b'1'..=b'9') => {
                p += 1;
                while src.get(p).is_some_and(u8::is_ascii_digit) {
                    p += 1;
                }
            }
            _ => return Err(Bail),
        }
        if src.get(p) == Some(&b'.') {
            p += 1;
            if !src.get(p).is_some_and(u8::is_ascii_digit) {
                return Err(Bail);
            }
            while src.get(p).is_some_and(u8::is_ascii_digit) {
                p += 1;
            }
        }
        if matches!(src.get(p), Some(b'e' | b'E')) {
            p += 1;
            if matches!(src.get(p), Some(b'+' | b'-')) {
                p += 1;
            }
            if !src.get(p).is_some_and(u8::is_ascii_digit) {
                return Err(Bail);
            }
            while src.get(p).is_some_and(u8::is_ascii_digit) {
                p += 1;
            }
        }
        self.pos = p;
        Ok(())
    }

    /// Reads a string token (at a `"`, after whitespace), validating it.
    pub(crate) fn string(&mut self) -> Result<Str, Bail> {
        let src = self.src;
        if self.peek() != Some(b'"') {
            return Err(Bail);
        }
        let start = self.pos;
        let mut p = start + 1;
        let mut escaped = false;
        let mut canonical = true;
        let mut non_ascii = false;
        loop {
            // Plain content, eight bytes at a time while no byte can end the run.
            while let Some(chunk) = src.get(p..p + 8) {
                let w = u64::from_le_bytes([
                    chunk[0], chunk[1], chunk[2], chunk[3], chunk[4], chunk[5], chunk[6], chunk[7],
                ]);
                if stops(w) {
                    break;
                }
                p += 8;
            }
            while let Some(&b) = src.get(p) {
                if STOP[usize::from(b)] {
                    break;
                }
                p += 1;
            }
            match src.get(p) {
                Some(b'"') => {
                    p += 1;
                    break;
                }
                Some(b'\\') => {
                    escaped = true;
                    canonical &= matches!(
                        src.get(p + 1),
                        Some(b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't')
                    );
                    p = escape(src, p)?;
                }
                Some(&b) if b >= 0x80 => {
                    non_ascii = true;
                    p += 1;
                }
                // A raw control character, or the end of the input.
                _ => return Err(Bail),
            }
        }
        // Non-ASCII bytes only occur inside strings (anywhere else they break the grammar),
        // so checking each string that has some makes the whole input valid UTF-8.
        if non_ascii && std::str::from_utf8(&src[start + 1..p - 1]).is_err() {
            return Err(Bail);
        }
        self.pos = p;
        Ok(Str {
            start,
            end: p,
            escaped,
            canonical,
        })
    }
}

/// True when some byte of the eight in `w` is `"`, `\`, below 0x20 or from 0x80 (exact: the
/// classic "has zero byte" and "has byte less than" tricks, which have no false negatives and
/// whose false positives only send the caller to the byte loop).
#[inline]
fn stops(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let quote = has_zero(w ^ (ONES * u64::from(b'"')));
    let backslash = has_zero(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
    (quote | backslash | control | (w & HIGH)) != 0
}

/// Validates the escape at `src[p] == '\\'`; returns the position after it. A high surrogate
/// must be followed at once by `\u` and a low surrogate; a low one alone is refused.
fn escape(src: &[u8], p: usize) -> Result<usize, Bail> {
    match src.get(p + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(p + 2),
        Some(b'u') => {
            let cp = hex4(src, p + 2)?;
            match cp {
                0xD800..=0xDBFF => {
                    if src.get(p + 6) != Some(&b'\\') || src.get(p + 7) != Some(&b'u') {
                        return Err(Bail);
                    }
                    let low = hex4(src, p + 8)?;
                    if (0xDC00..=0xDFFF).contains(&low) {
                        Ok(p + 12)
                    } else {
                        Err(Bail)
                    }
                }
                0xDC00..=0xDFFF => Err(Bail),
                _ => Ok(p + 6),
            }
        }
        _ => Err(Bail),
    }
}

fn hex4(src: &[u8], p: usize) -> Result<u32, Bail> {
    let digits = src.get(p..p + 4).ok_or(Bail)?;
    let mut v = 0u32;
    for &d in digits {
        let x = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return Err(Bail),
        };
        v = v * 16 + u32::from(x);
    }
    Ok(v)
}

/// Appends the decoded text of a validated string's inner bytes (between the quotes) to `out`.
pub(crate) fn decode(inner: &[u8], out: &mut Vec<u8>) -> Result<(), Bail> {
    let mut run = 0;
    let mut p = 0;
    while p < inner.len() {
        if inner[p] != b'\\' {
            p += 1;
            continue;
        }
        out.extend_from_slice(&inner[run..p]);
        let (ch, next) = match inner.get(p + 1) {
            Some(b'"') => ('"', p + 2),
            Some(b'\\') => ('\\', p + 2),
            Some(b'/') => ('/', p + 2),
            Some(b'b') => ('\u{8}', p + 2),
            Some(b'f') => ('\u{c}', p + 2),
            Some(b'n') => ('\n', p + 2),
            Some(b'r') => ('\r', p + 2),
            Some(b't') => ('\t', p + 2),
            Some(b'u') => {
                let hi = hex4(inner, p + 2)?;
                if (0xD800..=0xDBFF).contains(&hi) {
                    let lo = hex4(inner, p + 8)?;
                    let cp = 0x1_0000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00) & 0x3FF);
                    (char::from_u32(cp).ok_or(Bail)?, p + 12)
                } else {
                    (char::from_u32(hi).ok_or(Bail)?, p + 6)
                }
            }
            _ => return Err(Bail),
        };
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        p = next;
        run = p;
    }
    out.extend_from_slice(&inner[run..]);
    Ok(())
}
