//! The install cache: one directory per (source, version, artifact integrity), completed
//! atomically, shared safely between concurrent runs.
//!
//! Layout under the root (default `$XDG_CACHE_HOME/mcpseal`, else `~/.cache/mcpseal`):
//!
//! ```text
//! sources-v1/<kind>/<name>/<version>-<key16>/        the install (npm prefix, venv, checkout)
//! sources-v1/<kind>/<name>/<version>-<key16>.lock    advisory lock (flock) held while installing
//! sources-v1/<kind>/<name>/<version>-<key16>/.mcpseal-installed.json   the completion marker
//! sources-v1/npm-trees/<name>/<treekey16>/          one npm install shared by the versions
//!                                                    declaring the same dependencies (same
//!                                                    lock and marker scheme; see install::npm_tree)
//! git-v1/<name>-<key16>.git                           bare mirrors of git sources
//! ```
//!
//! `key16` is the first 16 hex digits of SHA-256 over the source id, the version, the
//! artifact's identity (npm SRI, PyPI file hashes, git commit) and whatever else changes the
//! result (build steps, the Python interpreter). Why a marker and not a rename: venvs and npm
//! prefixes embed their absolute path, so an install cannot be built elsewhere and moved in.
//! Instead the install happens in place under the lock, and the marker is written last (temp
//! file + rename); a directory without a valid marker is an interrupted install and is
//! removed and redone. The lock is a separate file because the directory itself is replaced.
//! Two installs of one key at once: the second waits for the lock, then finds the marker and
//! reuses the result.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use crate::integrity::hex;

/// The marker file written last into a completed install.
pub const MARKER: &str = ".mcpseal-installed.json";

/// The cache root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cache {
    root: PathBuf,
}

impl Cache {
    /// A cache rooted at `root` (created on first use).
    pub fn new(root: impl Into<PathBuf>) -> Cache {
        Cache { root: root.into() }
    }

    /// `$XDG_CACHE_HOME/mcpseal`, else `$HOME/.cache/mcpseal`; `None` when neither variable
    /// is set to an absolute path.
    pub fn default_root() -> Option<PathBuf> {
        let abs = |v: Option<std::ffi::OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
        abs(std::env::var_os("XDG_CACHE_HOME"))
            .map(|p| p.join("mcpseal"))
            .or_else(|| abs(std::env::var_os("HOME")).map(|h| h.join(".cache").join("mcpseal")))
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of one install.
    pub(crate) fn install_dir(&self, kind: &str, name: &str, version: &str, key: &str) -> PathBuf {
        self.root
            .join("sources-v1")
            .join(kind)
            .join(name)
            .join(format!("{}-{key}", crate::source::sanitize(version)))
    }

    /// The shared dependency tree of an npm package for one tree key.
    pub(crate) fn npm_tree_dir(&self, name: &str, key: &str) -> PathBuf {
        self.root
            .join("sources-v1")
            .join("npm-trees")
            .join(name)
            .join(key)
    }

    /// The bare mirror of a git source.
    pub(crate) fn git_mirror(&self, name: &str, key: &str) -> PathBuf {
        self.root.join("git-v1").join(format!("{name}-{key}.git"))
    }
}

/// The 16-hex-digit key over `parts` (each length-prefixed, so `("ab","c")` ≠ `("a","bc")`).
pub(crate) fn key(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    hex(&h.finalize())[..16].to_owned()
}

/// An exclusive advisory lock on `<path>.lock`, released when dropped (closing the file).
#[derive(Debug)]
pub(crate) struct Lock {
    _file: std::fs::File,
}

/// Takes the lock beside `path`, waiting for another holder (in this process or another) to
/// finish. The wait runs on the blocking pool so async tasks keep running.
pub(crate) async fn lock(path: &Path) -> std::io::Result<Lock> {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    let lock_path = PathBuf::from(name);
    if let Some(parent) = lock_path.parent() {
        tokio::fs::create_dir_all(parent).await?;
    }
    tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)?;
        // Called through the trait: std's own `File::lock` is newer than the MSRV.
        fs4::FileExt::lock(&file)?;
        Ok(Lock { _file: file })
    })
    .await
    .map_err(std::io::Error::other)?
}

/// The marker of a completed install, if it is there and reads as a `T` whose `identity`
/// matches (a marker for another artifact is as good as none).
pub(crate) fn read_marker<T: DeserializeOwned>(dir: &Path) -> Option<T> {
    let bytes = std::fs::read(dir.join(MARKER)).ok()?;
    if bytes.len() > 4 * 1024 * 1024 {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

/// Writes the marker atomically (temp file in the same directory, then rename).
pub(crate) fn write_marker<T: Serialize>(dir: &Path, value: &T) -> std::io::Result<()> {
    let bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    let tmp = dir.join(format!("{MARKER}.tmp"));
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, dir.join(MARKER))
}

/// Removes whatever an interrupted install left and creates the directory afresh.
pub(crate) fn fresh_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    std::fs::create_dir_all(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unambiguous() {
        assert_ne!(key(&["ab", "c"]), key(&["a", "bc"]));
        assert_eq!(key(&["x"]).len(), 16);
        let c = Cache::new("/c");
        assert_eq!(
            c.install_dir("npm", "_a_b", "1.0.0", "k"),
            PathBuf::from("/c/sources-v1/npm/_a_b/1.0.0-k")
        );
    }

    #[tokio::test]
    async fn lock_excludes_a_second_holder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("entry");
        let probe = || {
            let f = std::fs::OpenOptions::new()
                .write(true)
                .open(dir.path().join("entry.lock"))
                .expect("lock file exists");
            fs4::FileExt::try_lock(&f).is_ok()
        };
        let first = lock(&target).await.expect("first lock");
        // Another open of the same file, even in this process, cannot take it.
        assert!(!probe());
        let t2 = target.clone();
        let waiter = tokio::spawn(async move { lock(&t2).await.expect("second lock") });
        drop(first);
        let second = waiter.await.expect("joined");
        assert!(!probe());
        drop(second);
        assert!(probe());
    }
}
