//! One writer per lock file: an advisory lock around `mcpseal lock`'s read-decide-write.
//!
//! Two `mcpseal lock` runs on one file at once would both read the old lock, both decide
//! against it and both write: the second rename silently wins and the first run's decision is
//! lost (or both create a lock, each for its own surface). So every run takes an exclusive
//! advisory lock (`flock` through `fs4`) before it reads the lock file and keeps it until it
//! has written it or decided not to; a second run waits for it, bounded, then refuses.
//!
//! The advisory lock is on a **sidecar** file, `<lock>.lock` beside the lock file, not on the
//! lock file itself: the atomic writer replaces the lock file's inode by a rename, so a lock on
//! it would be a lock on a file that is no longer there. The sidecar records who holds it (pid,
//! command, since when: never the command line, which may carry credentials), so the refusal
//! can name the other run.
//!
//! The holder removes the sidecar when it lets go, so a repository is not left with a stray
//! file. That is safe because a run that obtains the lock checks that the file it locked is
//! still the one at the sidecar's path (same device and inode); when it is not (the previous
//! holder removed it meanwhile), it opens the path again. The lock itself is the kernel's:
//! it is released when the holder exits, however it exits, so a crash never leaves a stale
//! lock behind — at worst a sidecar file, which the next run takes over.
//!
//! Readers (`check`, `verify`, `diff`) take no lock: the atomic writer means they see the old
//! bytes or the new ones, never a torn file.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// How long the first retry waits; later ones back off to [`MAX_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(10);
/// The longest pause between two tries.
const MAX_PAUSE: Duration = Duration::from_millis(200);
/// Most bytes of the sidecar read to name its holder.
const HOLDER_BYTES: u64 = 4096;

/// Who holds a writer lock, as its sidecar says.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Holder {
    /// The process id.
    pub pid: u32,
    /// The command, without its arguments (`mcpseal lock`).
    pub command: String,
    /// When it took the lock (RFC 3339, UTC).
    pub since: String,
}

/// Why the writer lock could not be taken.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WriterLockError {
    /// Another run held it for the whole wait.
    #[error(
        "`{lock}` is being written by {}; it did not finish within {}",
        holder_phrase(.holder.as_ref()),
        mcpseal_client::format_duration(*.waited)
    )]
    Busy {
        /// The lock file.
        lock: PathBuf,
        /// Who holds it, when the sidecar says.
        holder: Option<Holder>,
        /// How long this run was allowed to wait (`--lock-timeout`): the message names the
        /// setting the user can change, not the few milliseconds of scheduling past it.
        waited: Duration,
    },
    /// The sidecar could not be created, opened or locked.
    #[error("cannot lock `{path}`: {source}")]
    Io {
        /// The sidecar file.
        path: PathBuf,
        /// Why.
        #[source]
        source: io::Error,
    },
}

impl WriterLockError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            WriterLockError::Busy { .. } => {
                "let the other run finish, or wait longer with `--lock-timeout`; the lock is released as soon as that process exits, however it exits"
            }
            WriterLockError::Io { .. } => {
                "mcpseal writes `<lock>.lock` beside the lock file while it decides: check that the directory exists and is writable"
            }
        }
    }
}

fn holder_phrase(holder: Option<&Holder>) -> String {
    match holder {
        Some(h) => format!("another `{}` (pid {}, since {})", h.command, h.pid, h.since),
        None => "another process".to_owned(),
    }
}

/// The sidecar of `lock`: `<lock>.lock` (`surface.lock.json.lock`).
pub fn sidecar(lock: &Path) -> PathBuf {
    let mut name = lock.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// The exclusive right to read, decide and write one lock file; released (and its sidecar
/// removed) when dropped.
#[derive(Debug)]
pub struct WriterLock {
    file: File,
    path: PathBuf,
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // Removed while still locked, so no other run can have locked this inode as the
        // current sidecar (see the module docs); then closing the file releases the lock.
        #[cfg(unix)]
        {
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = fs4::FileExt::unlock(&self.file);
    }
}

/// Takes the writer lock of `lock` for `command` (`mcpseal lock`), waiting up to `wait` for
/// another holder, in this process or another, to let go.
///
/// # Errors
/// [`WriterLockError::Busy`] when the wait runs out (naming the holder when its sidecar says
/// who it is), [`WriterLockError::Io`] when the sidecar cannot be created or locked.
pub async fn acquire(
    lock: &Path,
    command: &str,
    wait: Duration,
) -> Result<WriterLock, WriterLockError> {
    let path = sidecar(lock);
    let io_error = |source| WriterLockError::Io {
        path: path.clone(),
        source,
    };
    let started = tokio::time::Instant::now();
    let mut pause = FIRST_PAUSE;
    loop {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io_error)?;
        match fs4::FileExt::try_lock(&file) {
            Ok(()) => {
                if !still_linked(&file, &path) {
                    // The holder before us removed this sidecar as it let go: try the path
                    // again (a fresh file, or the next run's).
                    continue;
                }
                let holder = Holder {
                    pid: std::process::id(),
                    command: command.to_owned(),
                    since: jiff::Timestamp::now()
                        .round(jiff::Unit::Second)
                        .unwrap_or_else(|_| jiff::Timestamp::now())
                        .to_string(),
                };
                // Only for the message of a waiting run: a failure to record it is no reason
                // to refuse the lock.
                let _ = record(&mut file, &holder);
                return Ok(WriterLock { file, path });
            }
            Err(fs4::TryLockError::WouldBlock) => {}
            Err(fs4::TryLockError::Error(source)) => return Err(io_error(source)),
        }
        let waited = started.elapsed();
        if waited >= wait {
            return Err(WriterLockError::Busy {
                lock: lock.to_owned(),
                holder: read_holder(&mut file),
                waited: wait,
            });
        }
        let holder = read_holder(&mut file);
        drop(file);
        crate::progress::waiting(match holder {
            Some(h) => format!(
                "waiting for `{}`: held by `{}` (pid {})",
                lock.display(),
                h.command,
                h.pid
            ),
            None => format!("waiting for `{}`: another run writes it", lock.display()),
        });
        tokio::time::sleep(pause.min(wait - waited)).await;
        pause = (pause * 2).min(MAX_PAUSE);
    }
}

/// Whether `file` is still the file at `path` (not removed by a holder that let go).
#[cfg(unix)]
fn still_linked(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn still_linked(_file: &File, _path: &Path) -> bool {
    // The sidecar is never removed where removing an open file is not allowed.
    true
}

fn record(file: &mut File, holder: &Holder) -> io::Result<()> {
    let mut text = serde_json::to_vec(holder).map_err(io::Error::other)?;
    text.push(b'\n');
    file.set_len(0)?;
    file.write_all(&text)
}

fn read_holder(file: &mut File) -> Option<Holder> {
    let mut text = Vec::new();
    file.take(HOLDER_BYTES).read_to_end(&mut text).ok()?;
    serde_json::from_slice(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_second_holder_waits_then_is_refused_by_name() -> Result<(), WriterLockError> {
        let dir = tempfile::tempdir().map_err(|source| WriterLockError::Io {
            path: PathBuf::from("tempdir"),
            source,
        })?;
        let lock = dir.path().join("surface.lock.json");
        let first = acquire(&lock, "mcpseal lock", Duration::ZERO).await?;
        assert!(sidecar(&lock).exists());
        match acquire(&lock, "mcpseal lock", Duration::from_millis(50)).await {
            Err(WriterLockError::Busy { holder, .. }) => {
                let holder = holder.expect("the sidecar names its holder");
                assert_eq!(holder.pid, std::process::id());
                assert_eq!(holder.command, "mcpseal lock");
            }
            other => panic!("expected Busy, got {other:?}"),
        }
        let waiter = tokio::spawn({
            let lock = lock.clone();
            async move { acquire(&lock, "mcpseal lock", Duration::from_secs(60)).await }
        });
        drop(first);
        let second = waiter.await.expect("joined")?;
        assert!(sidecar(&lock).exists());
        drop(second);
        // Released and removed: the repository keeps no stray file.
        assert!(!sidecar(&lock).exists());
        let _third = acquire(&lock, "mcpseal lock", Duration::ZERO).await?;
        Ok(())
    }
}
