//! Replacing a file so that readers see the old bytes or the new ones, never a torn file.
//!
//! The lock file is the one file mcpseal owns; a crash, a full disk or a refused write must
//! leave it byte-identical. Steps: write a uniquely named temporary file in the **same
//! directory** (so the rename cannot cross file systems), `fsync` it, `rename` it over the
//! target (atomic on POSIX), then `fsync` the directory so the rename itself survives a power
//! cut. On any failure the temporary file is removed and the target is untouched.
//!
//! A crash between the first and the third step leaves a `.NAME.mcpseal-*.tmp` file behind and
//! the old target intact; such leftovers are never read and are safe to delete. Short of a
//! crash the temporary file never outlives the write: it is removed by a guard's `Drop` on
//! every path that does not rename it (an error, a panic).
//!
//! The write is synchronous on purpose: there is no `.await` between the temporary file and
//! the rename, so an async caller cancelled by Ctrl-C (its future dropped) is cancelled before
//! the write or after it, never in the middle. [`replaced`] lists the files this process has
//! replaced, so an interrupted command can say that a file had been written in full before the
//! signal.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// The files replaced so far by this process (see [`replaced`]).
static REPLACED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The files this process has replaced through [`write_atomic`], in order (each once).
pub fn replaced() -> Vec<PathBuf> {
    REPLACED.lock().map(|r| r.clone()).unwrap_or_default()
}

fn record_replaced(path: &Path) {
    if let Ok(mut r) = REPLACED.lock()
        && !r.iter().any(|p| p == path)
    {
        r.push(path.to_owned());
    }
}

/// Removes the temporary file when dropped, unless it was renamed (or a simulated crash
/// leaves it, as a real one would).
struct TempFile {
    path: PathBuf,
    keep: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Where to simulate a crash (tests only): the write stops there with an error, leaving what a
/// crash at that point would leave.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailPoint {
    /// After half the bytes reached the temporary file (nothing renamed; the temp file is
    /// left behind, as a killed process would leave it).
    MidWrite,
    /// After the temporary file is complete and synced, before the rename.
    BeforeRename,
}

/// Replaces `path` with `bytes` atomically (see the module docs).
///
/// # Errors
/// Any I/O error; the target is then as it was.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write(path, bytes, None)
}

/// [`write_atomic`] that stops at `fail` like a crash would (tests of the crash guarantees).
#[doc(hidden)]
pub fn write_atomic_failing(path: &Path, bytes: &[u8], fail: FailPoint) -> io::Result<()> {
    write(path, bytes, Some(fail))
}

fn temp_path(path: &Path) -> (PathBuf, PathBuf) {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "lock".into());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.mcpseal-{}-{n}.tmp", std::process::id()));
    (dir, tmp)
}

fn write(path: &Path, bytes: &[u8], fail: Option<FailPoint>) -> io::Result<()> {
    let (dir, tmp) = temp_path(path);
    let crash = |what: &str| io::Error::other(format!("simulated crash {what}"));
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let mut guard = TempFile {
        path: tmp,
        keep: false,
    };
    if fail == Some(FailPoint::MidWrite) {
        file.write_all(&bytes[..bytes.len() / 2])?;
        guard.keep = true;
        return Err(crash("mid-write"));
    }
    file.write_all(bytes)?;
    file.sync_all()?;
    if fail == Some(FailPoint::BeforeRename) {
        guard.keep = true;
        return Err(crash("before the rename"));
    }
    drop(file);
    std::fs::rename(&guard.path, path)?;
    guard.keep = true;
    record_replaced(path);
    sync_dir(&dir)
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_or_new_never_torn() -> io::Result<()> {
        let dir = std::env::temp_dir().join(format!("mcpseal-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("surface.lock.json");
        write_atomic(&path, b"old")?;
        for fail in [FailPoint::MidWrite, FailPoint::BeforeRename] {
            assert!(write_atomic_failing(&path, b"new bytes", fail).is_err());
            assert_eq!(std::fs::read(&path)?, b"old");
        }
        write_atomic(&path, b"new")?;
        assert_eq!(std::fs::read(&path)?, b"new");
        assert!(replaced().contains(&path));
        std::fs::remove_dir_all(&dir)
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() -> io::Result<()> {
        let dir = std::env::temp_dir().join(format!("mcpseal-atomic-fail-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        // The target is a directory: the rename fails after the temporary file is complete.
        let target = dir.join("taken");
        std::fs::create_dir_all(target.join("inside"))?;
        assert!(write_atomic(&target, b"bytes").is_err());
        let left: Vec<_> = std::fs::read_dir(&dir)?
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, ["taken"]);
        assert!(!replaced().contains(&target));
        std::fs::remove_dir_all(&dir)
    }
}
