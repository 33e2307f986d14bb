//! The SSE parser (`mcpseal_protocol::sse::SseParser`) on arbitrary bytes, fed whole, in
//! chunks the input chooses, and one byte at a time: the same items every way; the byte bound
//! (no event's data or name larger than the limit, never more than the limit held for the
//! unfinished line and event, `Oversize` at most once and last); and, when the limit is not
//! reached, exactly the events of a whole-input reading of the WHATWG grammar.
//!
//! Input layout: byte 0 picks the limit (bit 7 set: 1 MiB, so the reference comparison runs;
//! else 0..=127), byte 1 how many split points follow (0..=7), then the split points, then the
//! stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_protocol::sse::{SseEvent, SseItem, SseParser};

fn feed(chunks: &[&[u8]], max: usize) -> Vec<SseItem> {
    let mut parser = SseParser::new(max);
    let mut items = Vec::new();
    for chunk in chunks {
        items.extend(parser.feed(chunk));
        assert!(
            parser.buffered() <= max,
            "holds {} bytes > limit {max}",
            parser.buffered()
        );
    }
    items
}

/// The WHATWG event-stream interpretation of the whole input, without limits: lines end at
/// CRLF, CR or LF (an unterminated last line is not processed), a blank line dispatches, `data`
/// lines are joined with LF, `:` lines are comments, one space after the colon is dropped.
fn reference(data: &[u8]) -> Vec<SseEvent> {
    let mut lines = Vec::new();
    let mut current = Vec::new();
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'\r' => {
                lines.push(std::mem::take(&mut current));
                if data.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
            }
            b'\n' => lines.push(std::mem::take(&mut current)),
            b => current.push(b),
        }
        i += 1;
    }
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut events = Vec::new();
    let mut buffer = String::new();
    let mut event = None;
    for line in lines {
        if line.is_empty() {
            if buffer.is_empty() {
                event = None;
                continue;
            }
            buffer.pop(); // the LF after the last data line
            events.push(SseEvent {
                event: event.take(),
                data: std::mem::take(&mut buffer),
            });
            continue;
        }
        if line[0] == b':' {
            continue;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (&line[..], &[][..]),
        };
        match field {
            b"data" => {
                buffer.push_str(&lossy(value));
                buffer.push('\n');
            }
            b"event" => event = Some(lossy(value)),
            _ => {}
        }
    }
    events
}

fuzz_target!(|input: &[u8]| {
    let [limit, splits, rest @ ..] = input else {
        return;
    };
    let max = if limit & 0x80 != 0 {
        1 << 20
    } else {
        usize::from(*limit)
    };
    let count = usize::from(splits % 8).min(rest.len());
    let (points, data) = rest.split_at(count);

    let whole = feed(&[data], max);
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
    assert_eq!(feed(&chunks, max), whole, "fed in chunks at {chunks:?}");
    let bytes: Vec<&[u8]> = data.chunks(1).collect();
    assert_eq!(feed(&bytes, max), whole, "fed byte by byte");

    let oversize = whole.iter().position(|i| *i == SseItem::Oversize);
    if let Some(at) = oversize {
        assert_eq!(at, whole.len() - 1, "nothing after Oversize");
    }
    let events: Vec<SseEvent> = whole
        .into_iter()
        .filter_map(|item| match item {
            SseItem::Event(e) => Some(e),
            SseItem::Oversize => None,
        })
        .collect();
    for e in &events {
        assert!(e.data.len() <= max, "event data {} > {max}", e.data.len());
        assert!(e.event.as_ref().is_none_or(|n| n.len() <= max));
    }
    if oversize.is_none() {
        assert_eq!(events, reference(data), "differs from the WHATWG reading");
    }
});
