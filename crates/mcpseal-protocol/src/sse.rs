//! An incremental, bounded Server-Sent Events parser.
//!
//! Streamable HTTP answers may be event streams that carry notifications before the response
//! and that a misbehaving server never ends. Crates that parse SSE buffer events without a limit,
//! so this ~100-line parser exists to bound every event by bytes: a stream can be read frame by
//! frame forever (until the caller's timeout) without its memory growing.
//!
//! Grammar (WHATWG): lines end in `\n`, `\r\n` or `\r`; a blank line dispatches the event; the
//! `data` field lines of one event are joined with `\n`; lines starting with `:` are comments.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, if any.
    pub event: Option<String>,
    /// The `data:` lines joined by `\n`.
    pub data: String,
}

/// What feeding bytes produced.
#[derive(Debug, PartialEq, Eq)]
pub enum SseItem {
    /// A complete event.
    Event(SseEvent),
    /// An event or line grew past the limit; the parser stops.
    Oversize,
}

/// Incremental parser state. It holds at most `max_event_bytes` between two bytes of input:
/// the unfinished line, the event's data so far and its `event:` name all count
/// ([`SseParser::buffered`]), and the moment they would exceed the limit the parser reports
/// [`SseItem::Oversize`], drops them and stops. The fuzz target `sse` checks that, that any
/// split of the input into feeds gives the same items, and that below the limit the events are
/// the WHATWG grammar's.
#[derive(Debug)]
pub struct SseParser {
    max_event_bytes: usize,
    line: Vec<u8>,
    pending_cr: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    failed: bool,
}

impl SseParser {
    /// A parser that refuses events (or lines) larger than `max_event_bytes` (data, name and the
    /// line being read together).
    pub fn new(max_event_bytes: usize) -> Self {
        SseParser {
            max_event_bytes,
            line: Vec::new(),
            pending_cr: false,
            data: String::new(),
            has_data: false,
            event: None,
            failed: false,
        }
    }

    /// Feeds bytes and returns the items they completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseItem> {
        let mut out = Vec::new();
        if self.failed {
            return out;
        }
        for &b in bytes {
            if self.pending_cr {
                self.pending_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.pending_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(ev) = self.process_line(&line) {
                        out.push(SseItem::Event(ev));
                    }
                }
                _ => self.line.push(b),
            }
            if self.buffered() > self.max_event_bytes {
                self.failed = true;
                // Nothing more is parsed: let the memory go now.
                self.line = Vec::new();
                self.data = String::new();
                self.event = None;
                out.push(SseItem::Oversize);
                return out;
            }
        }
        out
    }

    /// Bytes held for the unfinished line and event (what the limit bounds).
    pub fn buffered(&self) -> usize {
        self.line.len() + self.data.len() + self.event.as_ref().map_or(0, String::len)
    }

    fn process_line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            if !self.has_data {
                self.event = None;
                return None;
            }
            self.has_data = false;
            return Some(SseEvent {
                event: self.event.take(),
                data: std::mem::take(&mut self.data),
            });
        }
        if line[0] == b':' {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (text.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(items: Vec<SseItem>) -> Vec<SseEvent> {
        items
            .into_iter()
            .filter_map(|i| match i {
                SseItem::Event(e) => Some(e),
                SseItem::Oversize => None,
            })
            .collect()
    }

    #[test]
    fn data_lines_of_one_event_are_joined() {
        let mut p = SseParser::new(1024);
        let evs = events(p.feed(b": keep-alive\n\nevent: message\ndata: {\"a\":\ndata: 1}\n\n"));
        assert_eq!(
            evs,
            vec![SseEvent {
                event: Some("message".into()),
                data: "{\"a\":\n1}".into()
            }]
        );
    }

    #[test]
    fn events_split_across_feeds_and_crlf() {
        let mut p = SseParser::new(1024);
        assert!(p.feed(b"data: he").is_empty());
        assert!(p.feed(b"llo\r").is_empty());
        let evs = events(p.feed(b"\n\r\n"));
        assert_eq!(evs[0].data, "hello");
    }

    #[test]
    fn oversize_events_stop_the_parser() {
        let mut p = SseParser::new(16);
        let items = p.feed(&[b'x'; 64]);
        assert_eq!(items, vec![SseItem::Oversize]);
        assert!(p.feed(b"\n\n").is_empty());
        assert_eq!(p.buffered(), 0);
    }

    #[test]
    fn the_event_name_counts_toward_the_limit() {
        // Before: only the line and the data counted, so a 24-byte limit held a 14-byte name
        // and then a 16-byte data line (found writing the `sse` fuzz target's bound).
        let mut p = SseParser::new(24);
        assert!(p.feed(b"event: abcdefghijklmn\n").is_empty());
        assert_eq!(p.buffered(), 14);
        assert_eq!(p.feed(b"data: 0123456789"), vec![SseItem::Oversize]);
        let mut p = SseParser::new(16);
        let items = p.feed(b"event: abc\ndata: xyz\n\n");
        assert_eq!(
            events(items),
            vec![SseEvent {
                event: Some("abc".into()),
                data: "xyz".into()
            }]
        );
    }

    #[test]
    fn invalid_utf8_cannot_grow_an_event_past_the_limit() {
        // Each invalid byte becomes U+FFFD (three bytes): 10 raw bytes fit a 16-byte limit as
        // a line, not as 30 bytes of data.
        let mut p = SseParser::new(16);
        let mut input = b"data:".to_vec();
        input.extend([0xff; 10]);
        input.extend(b"\n\n");
        assert_eq!(p.feed(&input), vec![SseItem::Oversize]);
        assert_eq!(p.buffered(), 0);
    }
}
