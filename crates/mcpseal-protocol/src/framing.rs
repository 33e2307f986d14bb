//! Newline-delimited JSON-RPC framing of the stdio transport, as pure code.
//!
//! The stdio transport says each message is one line of UTF-8 JSON, ended by `\n`, with no
//! embedded newline. A server may write a line of any length, so the framer holds at most
//! `max` bytes of an unfinished line: a longer one is reported once as [`Frame::Oversize`] and the
//! rest of it is skipped without being buffered, so a 100 MB line costs `max` bytes of memory, not
//! 100 MB. Fed chunk by chunk, it gives the same frames whatever the chunk boundaries (the fuzz
//! target `framing` checks that).

/// One result of feeding bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A complete line, without its `\n` (and without a `\r` before it).
    Line(Vec<u8>),
    /// A line grew past the limit; its bytes were dropped, the rest of it will be skipped.
    Oversize,
}

/// Incremental, bounded line framer.
#[derive(Debug, Clone)]
pub struct LineFramer {
    max: usize,
    line: Vec<u8>,
    skipping: bool,
}

impl LineFramer {
    /// A framer that refuses lines longer than `max` bytes (the newline not counted).
    pub fn new(max: usize) -> LineFramer {
        LineFramer {
            max,
            line: Vec::new(),
            skipping: false,
        }
    }

    /// The limit.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Feeds bytes, appending every frame they complete to `out`.
    pub fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<Frame>) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(bytes.len());
            let chunk = &bytes[..take];
            bytes = &bytes[(take + usize::from(newline.is_some())).min(bytes.len())..];
            if self.skipping {
                if newline.is_some() {
                    self.skipping = false;
                }
                continue;
            }
            if self.line.len() + chunk.len() > self.max {
                self.line = Vec::new();
                self.skipping = newline.is_none();
                out.push(Frame::Oversize);
                continue;
            }
            self.line.extend_from_slice(chunk);
            if newline.is_some() {
                let mut line = std::mem::take(&mut self.line);
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                out.push(Frame::Line(line));
            }
        }
    }

    /// Bytes of an unfinished line held (what an end of stream would cut).
    pub fn pending(&self) -> usize {
        self.line.len()
    }

    /// True while the rest of an oversize line is being skipped.
    pub fn skipping(&self) -> bool {
        self.skipping
    }
}

/// One message as a stdio line: compact JSON and `\n`. serde_json never writes a raw newline
/// inside a string (it escapes it), so the line is one frame.
///
/// # Errors
/// Only if serde_json fails to write, which it does not for a [`serde_json::Value`].
pub fn encode_line(message: &serde_json::Value) -> Result<Vec<u8>, serde_json::Error> {
    let mut line = serde_json::to_vec(message)?;
    line.push(b'\n');
    Ok(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(chunks: &[&[u8]], max: usize) -> (Vec<Frame>, usize) {
        let mut f = LineFramer::new(max);
        let mut out = Vec::new();
        for c in chunks {
            f.feed(c, &mut out);
        }
        (out, f.pending())
    }

    #[test]
    fn lines_are_bounded_and_skipped() {
        let data: &[u8] = b"short\nthis line is far too long\nok\r\npartial";
        let (out, pending) = frames(&[data], 8);
        assert_eq!(
            out,
            [
                Frame::Line(b"short".to_vec()),
                Frame::Oversize,
                Frame::Line(b"ok".to_vec())
            ]
        );
        assert_eq!(pending, 7);
    }

    #[test]
    fn chunk_boundaries_do_not_matter() {
        let data: &[u8] = b"a\nbbbbbbbbbbbbbbbbbbbb\n\ncc\r\nd";
        let whole = frames(&[data], 4);
        for split in 0..data.len() {
            let (a, b) = data.split_at(split);
            assert_eq!(frames(&[a, b], 4), whole, "split at {split}");
        }
        let bytes: Vec<&[u8]> = data.chunks(1).collect();
        assert_eq!(frames(&bytes, 4), whole);
    }

    #[test]
    fn an_oversize_line_is_reported_once() {
        let big = vec![b'x'; 100];
        let (out, _) = frames(&[&big, &big, b"\nok\n"], 10);
        assert_eq!(out, [Frame::Oversize, Frame::Line(b"ok".to_vec())]);
    }
}
