//! The stdio line framer (`mcpseal_protocol::framing::LineFramer`) on arbitrary bytes, fed
//! whole, in chunks the input chooses, and one byte at a time: the same frames, the same
//! unfinished-line count and skipping state every way, and exactly what a one-pass model of the
//! grammar says (lines split at `\n`, one `\r` before it dropped, a line longer than the limit
//! reported once as `Oversize` and never buffered). A JSON value read from the input also
//! round-trips through `encode_line` as exactly one frame.
//!
//! Input layout: byte 0 picks the limit (0..=63), byte 1 how many split points follow (0..=7),
//! then that many bytes of split points, then the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_protocol::framing::{Frame, LineFramer, encode_line};

/// What the framer must produce for `data` fed in any way: frames, pending bytes, skipping.
fn model(data: &[u8], max: usize) -> (Vec<Frame>, usize, bool) {
    let mut frames = Vec::new();
    let mut segments = data.split(|&b| b == b'\n').peekable();
    while let Some(segment) = segments.next() {
        let complete = segments.peek().is_some();
        if segment.len() > max {
            frames.push(Frame::Oversize);
            if !complete {
                return (frames, 0, true);
            }
            continue;
        }
        if !complete {
            return (frames, segment.len(), false);
        }
        let line = segment.strip_suffix(b"\r").unwrap_or(segment);
        frames.push(Frame::Line(line.to_vec()));
    }
    (frames, 0, false)
}

fn feed(chunks: &[&[u8]], max: usize) -> (Vec<Frame>, usize, bool) {
    let mut framer = LineFramer::new(max);
    let mut out = Vec::new();
    for chunk in chunks {
        framer.feed(chunk, &mut out);
        // The bound: never more than `max` bytes of an unfinished line held.
        assert!(framer.pending() <= max, "holds {} > {max}", framer.pending());
    }
    (out, framer.pending(), framer.skipping())
}

fuzz_target!(|input: &[u8]| {
    let [limit, splits, rest @ ..] = input else {
        return;
    };
    let max = usize::from(limit % 64);
    let count = usize::from(splits % 8).min(rest.len());
    let (points, data) = rest.split_at(count);
    let expected = model(data, max);
    for frame in &expected.0 {
        if let Frame::Line(line) = frame {
            assert!(line.len() <= max && !line.contains(&b'\n'));
        }
    }

    assert_eq!(feed(&[data], max), expected, "fed whole");
    let mut cuts: Vec<usize> = points
        .iter()
        .map(|&p| usize::from(p) % (data.len() + 1))
        .collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut at = 0;
    for cut in cuts {
        chunks.push(&data[at..cut]);
        at = cut;
    }
    chunks.push(&data[at..]);
    assert_eq!(feed(&chunks, max), expected, "fed in chunks at {chunks:?}");
    let bytes: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(feed(&bytes, max), expected, "fed byte by byte");

    // A message written by `encode_line` is one frame holding its compact JSON.
    if let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) {
        let line = encode_line(&value).expect("a Value serialises");
        let mut framer = LineFramer::new(line.len());
        let mut out = Vec::new();
        framer.feed(&line, &mut out);
        let compact = serde_json::to_vec(&value).expect("a Value serialises");
        assert_eq!(out, [Frame::Line(compact)], "encode_line is one frame");
        assert_eq!(framer.pending(), 0);
    }
});
