//! The server messages kept with one exchange, bounded.
//!
//! A server may send notifications without end while a request waits (a flood, a listen
//! stream, an SSE reply that never answers). They are evidence, so the first ones are kept;
//! but each is a parsed tree several times the size of its text, so an exchange keeps at most
//! [`MAX_ATTACHED`] of them and [`MAX_ATTACHED_BYTES`] of their text, and counts the rest.

use serde_json::Value;

/// Server messages kept per exchange at most.
pub(crate) const MAX_ATTACHED: usize = 1000;
/// Bytes of server-message text kept per exchange at most.
pub(crate) const MAX_ATTACHED_BYTES: usize = 1024 * 1024;

/// How much was kept so far, and how many were not kept. The messages themselves go straight
/// into the caller's list (an HTTP read cut off by its timeout keeps what it had), with one
/// note saying how many were left out, updated in place.
#[derive(Debug, Default)]
pub(crate) struct Attached {
    count: usize,
    bytes: usize,
    dropped: usize,
    note: Option<usize>,
}

impl Attached {
    /// How many messages were not kept: more than [`MAX_ATTACHED`] (or
    /// [`MAX_ATTACHED_BYTES`]) arrived while the request waited.
    pub(crate) fn dropped(&self) -> usize {
        self.dropped
    }

    /// Appends `value` (whose text is `size` bytes) to `out` if there is room, else counts it
    /// in the note.
    pub(crate) fn push(&mut self, out: &mut Vec<Value>, value: Value, size: usize) {
        if self.count < MAX_ATTACHED && self.bytes + size <= MAX_ATTACHED_BYTES {
            self.count += 1;
            self.bytes += size;
            out.push(value);
            return;
        }
        self.dropped += 1;
        let note = Value::String(format!(
            "[{} more server messages not kept: over {MAX_ATTACHED} messages or {MAX_ATTACHED_BYTES} bytes]",
            self.dropped
        ));
        match self.note.and_then(|i| out.get_mut(i)) {
            Some(slot) => *slot = note,
            None => {
                self.note = Some(out.len());
                out.push(note);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_kept_up_to_the_bounds_and_the_rest_counted() {
        let mut a = Attached::default();
        let mut v = Vec::new();
        for i in 0..MAX_ATTACHED + 5 {
            a.push(&mut v, Value::from(i), 1);
        }
        assert_eq!(v.len(), MAX_ATTACHED + 1);
        assert_eq!(
            v.last().and_then(Value::as_str),
            Some("[5 more server messages not kept: over 1000 messages or 1048576 bytes]")
        );
        let mut b = Attached::default();
        let mut v = Vec::new();
        b.push(&mut v, Value::from(1), MAX_ATTACHED_BYTES);
        b.push(&mut v, Value::from(2), 1);
        assert_eq!(v.len(), 2, "one kept, one counted");
    }
}
