//! Diagnostics: what a server said outside the protocol (stderr, non-JSON output,
//! notifications, its exit status), kept bounded for reports.
//!
//! Written by the transports (framing-level entries) and by the connection (routing-level
//! ones) through one shared handle; a leaf module, so neither imports the other for it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Diagnostics kept while speaking to a server: what it said outside the protocol.
#[derive(Debug, Default)]
pub struct Diagnostics {
    entries: Vec<String>,
    stderr: VecDeque<String>,
    max_stderr: usize,
    dropped: usize,
}

/// The handle the transports and the connection share.
pub(crate) type SharedDiagnostics = Arc<Mutex<Diagnostics>>;

/// Entries kept besides stderr; later ones are counted, not kept.
const MAX_ENTRIES: usize = 2000;

impl Diagnostics {
    /// A shared, empty set keeping the newest `max_stderr` stderr lines.
    pub(crate) fn shared(max_stderr: usize) -> SharedDiagnostics {
        Arc::new(Mutex::new(Diagnostics {
            max_stderr,
            ..Diagnostics::default()
        }))
    }

    /// Cuts a line for display (at most 300 characters).
    pub fn cut(text: &str) -> String {
        let mut out: String = text.chars().take(300).collect();
        if out.len() < text.len() {
            out.push('…');
        }
        out
    }

    pub(crate) fn push(&mut self, entry: String) {
        if self.entries.len() < MAX_ENTRIES {
            self.entries.push(entry);
        } else {
            self.dropped += 1;
        }
    }

    pub(crate) fn push_stderr(&mut self, line: &str) {
        if self.stderr.len() >= self.max_stderr.max(1) {
            self.stderr.pop_front();
        }
        self.stderr.push_back(Self::cut(line));
    }

    pub(crate) fn record_exit(&mut self, status: &str) {
        let entry = format!("[exit] {status}");
        if !self.entries.contains(&entry) {
            self.push(entry);
        }
    }

    pub(crate) fn last_stderr(&self) -> Option<String> {
        self.stderr
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .cloned()
    }

    /// All diagnostics as lines: `[stderr] …`, `[notification] …`, `[non-JSON stdout] …`,
    /// `[exit] …`, `[spawn] …`.
    pub fn lines(&self) -> Vec<String> {
        let mut out = self.entries.clone();
        out.extend(self.stderr.iter().map(|l| format!("[stderr] {l}")));
        if self.dropped > 0 {
            out.push(format!(
                "[diagnostics] {} more entries dropped",
                self.dropped
            ));
        }
        out
    }
}
