//! The verified-bytes cache of a directory origin: re-validated on every request, by the file's
//! identity, instead of re-read and re-hashed.
//!
//! Every answer stays one the signed manifest vouches for: an entry holds bytes whose SHA-256
//! was computed when they were read and equalled the manifest entry, and it is used only while
//! (a) the current manifest still names that digest for the path and (b) the file the path
//! leads to *now* has the identity it had when the bytes were read below the root: device,
//! inode, size, modification and status-change times ([`crate::origin::Origin::stamp`] says why
//! one `stat` shows that). Any write to the file, a rename over it (a deploy) or a symlink
//! retargeted at another file changes one of those, and the next request reads and hashes the
//! file again, after the fetch's symlink-escape walk — so a tampered file is still an error with
//! both digests, and a changed one still triggers the manifest refetch. The status-change time
//! cannot be set from user space, so restoring the modification time does not hide a write.
//!
//! File times are coarse (a kernel tick): a write within the same tick as the read could keep
//! the identity. As git does for its index ("racily clean" entries), a file changed less than
//! [`SETTLE`] before it was read is never cached; it is read and hashed on every request until it
//! has settled. The cache is bounded ([`MAX_BYTES`] in all); past it, files are simply re-read.
//! HTTP origins are not cached (each request fetches and hashes, as the trust model says).

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

/// How long a file must have been unchanged before its verified bytes are cached.
pub const SETTLE: Duration = Duration::from_secs(2);

/// Most bytes held in all (beyond it, files are re-read per request).
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// The identity of a file at one moment (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    /// The stamp of `meta`; `None` where the platform gives no inode and status-change time.
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        Some(Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        })
    }

    /// The stamp of `meta`; `None` where the platform gives no inode and status-change time.
    #[cfg(not(unix))]
    pub fn of(_meta: &std::fs::Metadata) -> Option<Stamp> {
        None
    }

    /// Unchanged for at least [`SETTLE`] before `now`.
    fn settled(&self, now: SystemTime) -> bool {
        let Ok(now) = now.duration_since(SystemTime::UNIX_EPOCH) else {
            return false;
        };
        let settle = i64::try_from(SETTLE.as_secs()).unwrap_or(i64::MAX);
        let now = i64::try_from(now.as_secs()).unwrap_or(i64::MAX);
        // Whole seconds, rounded against caching: changed at second S counts as S + 1.
        let latest = self.mtime.0.max(self.ctime.0).saturating_add(1);
        now.saturating_sub(latest) >= settle
    }
}

struct Entry {
    stamp: Stamp,
    sha256: String,
    bytes: Arc<[u8]>,
    text: Option<Arc<str>>,
}

/// The bytes of a verified file as a JSON string literal (quotes included, escaped as
/// `serde_json` escapes), when they are UTF-8: what a text answer writes.
pub fn json_text(bytes: &[u8]) -> Option<Arc<str>> {
    let text = std::str::from_utf8(bytes).ok()?;
    serde_json::to_string(text).ok().map(Arc::from)
}

/// A cache hit: the verified bytes and, when they are UTF-8, their JSON text.
pub type Hit = (Arc<[u8]>, Option<Arc<str>>);

/// Verified bytes by manifest path.
#[derive(Default)]
pub struct Cache {
    inner: RwLock<Inner>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    bytes: usize,
}

impl std::fmt::Debug for Cache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.read();
        f.debug_struct("Cache")
            .field("entries", &inner.entries.len())
            .field("bytes", &inner.bytes)
            .finish()
    }
}

impl Cache {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The bytes verified for `path` when the file still has `stamp` and the manifest still
    /// names `expected` for it, with their JSON text ([`json_text`]) when they are UTF-8.
    pub fn get(&self, path: &str, stamp: &Stamp, expected: &str) -> Option<Hit> {
        let inner = self.read();
        let e = inner.entries.get(path)?;
        (e.stamp == *stamp && e.sha256 == expected).then(|| (Arc::clone(&e.bytes), e.text.clone()))
    }

    /// Records `bytes`, read from the file with `stamp` and hashed to `sha256` — which the
    /// caller has just found equal to the manifest entry — and their JSON text, written here
    /// once. Not recorded when the file had not settled or the cache is full (the text counts
    /// towards [`MAX_BYTES`] too).
    pub fn put(&self, path: &str, stamp: Stamp, sha256: &str, bytes: Arc<[u8]>) {
        if !stamp.settled(SystemTime::now()) {
            return;
        }
        let text = json_text(&bytes);
        let size = bytes.len() + text.as_ref().map_or(0, |t| t.len());
        let mut inner = self
            .inner
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let old = inner.entries.get(path).map_or(0, |e| {
            e.bytes.len() + e.text.as_ref().map_or(0, |t| t.len())
        });
        let total = inner.bytes - old + size;
        if total > MAX_BYTES {
            return;
        }
        inner.bytes = total;
        inner.entries.insert(
            path.to_owned(),
            Entry {
                stamp,
                sha256: sha256.to_owned(),
                bytes,
                text,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(at: i64) -> Stamp {
        Stamp {
            dev: 1,
            ino: 2,
            len: 3,
            mtime: (at, 0),
            ctime: (at, 0),
        }
    }

    #[test]
    fn a_file_changed_within_the_settle_time_is_not_cached() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        assert!(!stamp(999).settled(now));
        assert!(!stamp(998).settled(now));
        assert!(stamp(997).settled(now));
    }

    #[test]
    fn an_entry_answers_only_for_its_stamp_and_digest() {
        let cache = Cache::default();
        let s = stamp(0);
        cache.put("a.json", s, "d1", Arc::from(&b"abc"[..]));
        let (bytes, text) = cache.get("a.json", &s, "d1").unwrap_or_default();
        assert_eq!(&bytes[..], b"abc");
        assert_eq!(text.as_deref(), Some("\"abc\""));
        assert!(cache.get("a.json", &s, "d2").is_none(), "another digest");
        let moved = Stamp { ino: 9, ..s };
        assert!(cache.get("a.json", &moved, "d1").is_none(), "another file");
        let written = Stamp { ctime: (5, 1), ..s };
        assert!(
            cache.get("a.json", &written, "d1").is_none(),
            "written since"
        );
        assert!(cache.get("b.json", &s, "d1").is_none());
    }

    #[test]
    fn a_recent_file_is_never_recorded() {
        let cache = Cache::default();
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
        let s = stamp(now);
        cache.put("a.json", s, "d1", Arc::from(&b"abc"[..]));
        assert!(cache.get("a.json", &s, "d1").is_none());
    }
}
