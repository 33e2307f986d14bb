//! The audit log (`--audit FILE`): one JSON line per block or warn decision.
//!
//! Each line is an [`AuditEntry`]: when, which server, which item, its drift classes, the
//! decision, where it was taken (a listing, a call, the server part) and the item's locked and
//! live hashes. Nothing else: no request arguments, no header values, no environment, so a
//! credential can never reach the file. A listing decision is written once per item version
//! (the same live hash and decision are not logged again on every listing); a refused call is
//! written every time, since each one is an attempt.
//!
//! The file is opened for appending and created with mode 0600 (it says which tools a user has
//! and when they changed); lines are written whole with one `write` each, so concurrent guards
//! appending to one file do not interleave inside a line.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::policy::{DriftClass, Level};

/// Where a decision was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AuditEvent {
    /// The item was listed (and hidden, or shown with a warning).
    Listing,
    /// A call, get or read of the item (refused, or forwarded with a warning).
    Call,
    /// The server part (`server/discover`, `initialize`).
    Server,
}

/// One line of the audit log. Serialised in camelCase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    /// RFC 3339 time of the decision (UTC).
    pub time: String,
    /// The server's name (from the lock).
    pub server: String,
    /// The item: `tool:NAME`, `resource:URI`, `template:URITEMPLATE`, `prompt:NAME` or `server`.
    pub item: String,
    /// Its drift classes.
    pub classes: Vec<DriftClass>,
    /// `block` or `warn`.
    pub decision: Level,
    /// `enforce` or `warn`.
    pub mode: String,
    /// Where the decision was taken.
    pub event: AuditEvent,
    /// The item's hash in the lock (`null` for a new item or the server part).
    pub locked_sha256: Option<String>,
    /// The item's hash as served (`null` for a removed item or the server part).
    pub live_sha256: Option<String>,
    /// Why, in one sentence per change.
    pub reasons: Vec<String>,
}

/// An open audit log.
#[derive(Debug)]
pub struct AuditLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl AuditLog {
    /// Opens `path` for appending, creating it with mode 0600.
    ///
    /// # Errors
    /// The file cannot be created or opened for writing.
    pub fn open(path: &Path) -> io::Result<AuditLog> {
        let mut options = OpenOptions::new();
        options.append(true).create(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let file = options.open(path)?;
        Ok(AuditLog {
            path: path.to_owned(),
            file: Mutex::new(file),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one entry as one line.
    ///
    /// # Errors
    /// The write failed (the caller reports it; a guard keeps enforcing either way).
    pub fn write(&self, entry: &AuditEntry) -> io::Result<()> {
        let mut line = serde_json::to_vec(entry).map_err(io::Error::other)?;
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        file.write_all(&line)?;
        file.flush()
    }
}

/// The current time as RFC 3339 UTC.
pub(crate) fn now() -> String {
    jiff::Timestamp::now().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_appended_and_the_file_is_private() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("audit.jsonl");
        let log = AuditLog::open(&path).expect("open");
        let entry = AuditEntry {
            time: now(),
            server: "demo".into(),
            item: "tool:echo".into(),
            classes: vec![DriftClass::Description],
            decision: Level::Block,
            mode: "enforce".into(),
            event: AuditEvent::Listing,
            locked_sha256: Some("a".repeat(64)),
            live_sha256: Some("b".repeat(64)),
            reasons: vec!["x".into()],
        };
        log.write(&entry).expect("write");
        log.write(&entry).expect("write");
        let text = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<AuditEntry> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("json line"))
            .collect();
        assert_eq!(lines, [entry.clone(), entry]);
        assert!(text.contains("\"lockedSha256\""));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
