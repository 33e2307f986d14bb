//! Where the signed static site lives: a local directory or an HTTP(S) base URL. Every fetch is
//! bounded in bytes (`max_bytes`) and time (`fetch_timeout`) and stays inside the origin: no
//! redirect to another origin is followed, and a directory path that resolves (through a
//! symlink) outside the site directory is refused.

use std::path::{Path, PathBuf};
use std::time::Duration;

use reqwest::Url;

use crate::error::FetchError;
use crate::path::encode_path;
use crate::recheck::Stamp;

/// The origin of a site.
#[derive(Debug, Clone)]
pub enum Origin {
    /// A local directory (canonical path).
    Dir {
        /// The site root.
        root: PathBuf,
        /// Fetch bounds.
        limits: Limits,
    },
    /// An `http://` or `https://` base URL (ending in `/`).
    Http {
        /// The base.
        base: Url,
        /// The client (redirects limited to the same origin, timeout set).
        client: reqwest::Client,
        /// Fetch bounds.
        limits: Limits,
    },
}

/// Fetch bounds.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest one fetch may take.
    pub timeout: Duration,
    /// Largest body accepted.
    pub max_bytes: u64,
}

fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

impl Origin {
    /// The origin named by `base_url`: a URL when it starts with `http://` or `https://`, else a
    /// directory relative to `dir`.
    ///
    /// # Errors
    /// A message when the URL is malformed or the directory does not exist.
    pub fn new(base_url: &str, dir: &Path, limits: Limits) -> Result<Origin, String> {
        if base_url.starts_with("http://") || base_url.starts_with("https://") {
            let with_slash = if base_url.ends_with('/') {
                base_url.to_owned()
            } else {
                format!("{base_url}/")
            };
            let base = Url::parse(&with_slash)
                .map_err(|e| format!("`{base_url}` is not a valid URL: {e}"))?;
            if base.query().is_some()
                || base.fragment().is_some()
                || !base.username().is_empty()
                || base.password().is_some()
            {
                return Err(format!(
                    "`{base_url}` must be a plain base URL (no query, fragment or credentials)"
                ));
            }
            let policy_base = base.clone();
            let policy = reqwest::redirect::Policy::custom(move |attempt| {
                if attempt.previous().len() >= 5 {
                    attempt.error("more than 5 redirects")
                } else if same_origin(attempt.url(), &policy_base) {
                    attempt.follow()
                } else {
                    let to = attempt.url().to_string();
                    attempt.error(format!("redirect to another origin: {to}"))
                }
            });
            let mut builder = reqwest::Client::builder()
                .redirect(policy)
                .timeout(limits.timeout)
                .connect_timeout(limits.timeout)
                .user_agent(concat!("mcpseal-serve/", env!("CARGO_PKG_VERSION")));
            let loopback = match base.host_str() {
                Some("localhost") => true,
                Some(h) => h
                    .trim_matches(['[', ']'])
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback()),
                None => false,
            };
            if loopback {
                // A proxy from the environment must not sit between the server and a local origin.
                builder = builder.no_proxy();
            }
            let client = builder
                .build()
                .map_err(|e| format!("could not build the HTTP client: {e}"))?;
            return Ok(Origin::Http {
                base,
                client,
                limits,
            });
        }
        let root = dir.join(base_url);
        let root = root.canonicalize().map_err(|e| {
            format!(
                "the site directory `{}` cannot be opened: {e}",
                root.display()
            )
        })?;
        if !root.is_dir() {
            return Err(format!("`{}` is not a directory", root.display()));
        }
        Ok(Origin::Dir { root, limits })
    }

    /// Where `path` is fetched from (a URL, or the file's path), for reports and `_meta`.
    pub fn location(&self, path: &str) -> String {
        match self {
            Origin::Dir { root, .. } => root.join(path).display().to_string(),
            Origin::Http { base, .. } => base
                .join(&encode_path(path))
                .map_or_else(|_| format!("{base}{path}"), |u| u.to_string()),
        }
    }

    /// The origin itself (base URL or directory).
    pub fn base(&self) -> String {
        match self {
            Origin::Dir { root, .. } => root.display().to_string(),
            Origin::Http { base, .. } => base.to_string(),
        }
    }

    /// Fetches `path` (a manifest-relative path), bounded.
    ///
    /// # Errors
    /// [`FetchError`] for a timeout, an oversize body, a failed fetch or an escape.
    pub async fn fetch(&self, path: &str) -> Result<Vec<u8>, FetchError> {
        self.fetch_stamped(path).await.map(|(bytes, _)| bytes)
    }

    /// [`Origin::fetch`], with the identity the file had when it was opened (directory origins
    /// on unix; `None` otherwise): what [`crate::recheck`] keys verified bytes by.
    ///
    /// # Errors
    /// As [`Origin::fetch`].
    pub async fn fetch_stamped(&self, path: &str) -> Result<(Vec<u8>, Option<Stamp>), FetchError> {
        match self {
            Origin::Dir { root, limits } => {
                let file = root.join(path);
                let url = file.display().to_string();
                let read = read_file(root, path, limits.max_bytes, &url);
                tokio::time::timeout(limits.timeout, read)
                    .await
                    .unwrap_or_else(|_| Err(timeout(url.clone(), *limits)))
            }
            Origin::Http {
                base,
                client,
                limits,
            } => {
                let url = base
                    .join(&encode_path(path))
                    .map_err(|e| FetchError::Failed {
                        url: format!("{base}{path}"),
                        why: e.to_string(),
                    })?;
                if !url.as_str().starts_with(base.as_str()) {
                    return Err(FetchError::Escape {
                        url: url.to_string(),
                        why: "the path leaves the base URL".into(),
                    });
                }
                let shown = url.to_string();
                // reqwest's own timeout covers the body too; this one is the same bound kept
                // in this crate's hands.
                tokio::time::timeout(limits.timeout, fetch_http(client, url, *limits))
                    .await
                    .unwrap_or_else(|_| Err(timeout(shown, *limits)))
                    .map(|bytes| (bytes, None))
            }
        }
    }

    /// The identity of the file `path` leads to now, for comparing with the [`Stamp`] a fetch
    /// took when it read verified bytes (directory origins on unix; `None` for HTTP origins,
    /// which are never cached). A path that cannot be resolved is `None` too: the fetch that
    /// follows reports why.
    ///
    /// A path of plain names takes one `stat`, links followed, instead of the fetch's walk of
    /// one `lstat` per component (two `statx` calls were 6 % of a cached call's CPU in the
    /// benchmark). One is enough for the comparison: equal device, inode and status-change time
    /// mean the very file the fetch opened below the root, with no write, rename, link or unlink
    /// of it since (each sets the status-change time), so the bytes served are the verified ones
    /// and no byte from outside the root is read or shown. Any other file, a copy outside the
    /// root included, has another identity, and the fetch that follows walks and refuses the
    /// escape. (A directory above the file moved out of the root and replaced by a link to it
    /// keeps serving the cached, signed bytes until the file changes.)
    ///
    /// # Errors
    /// [`FetchError::Escape`] when a path that is not plain names resolves outside the site
    /// directory.
    pub fn stamp(&self, path: &str) -> Result<Option<Stamp>, FetchError> {
        let Origin::Dir { root, .. } = self else {
            return Ok(None);
        };
        let plain = Path::new(path)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if plain {
            return Ok(std::fs::metadata(root.join(path))
                .ok()
                .filter(std::fs::Metadata::is_file)
                .as_ref()
                .and_then(Stamp::of));
        }
        match resolve(root, path) {
            Err(_) => Ok(None),
            Ok(Resolved::Outside(real)) => Err(FetchError::Escape {
                url: root.join(path).display().to_string(),
                why: format!("it resolves to `{}`", real.display()),
            }),
            Ok(Resolved::Inside(_, meta)) => Ok(Some(meta)
                .filter(std::fs::Metadata::is_file)
                .as_ref()
                .and_then(Stamp::of)),
        }
    }
}

/// Where a site path leads.
#[derive(Debug)]
enum Resolved {
    /// A real path below the root, and its metadata (of the file itself, links followed).
    Inside(PathBuf, std::fs::Metadata),
    /// A real path that is not below the root.
    Outside(PathBuf),
}

/// Resolves `path` (manifest-relative) below `root` (canonical): one `lstat` per component; a
/// component that is a symlink is resolved whole (`canonicalize`, links within links included)
/// and must still be below the root, and resolution goes on from its real path. What the walk
/// cannot take component by component (`..`, an absolute path) is canonicalised whole, as
/// before: the result is the same as `root.join(path).canonicalize()` followed by the
/// below-the-root check, at a fraction of the system calls (that resolves every component of
/// the root again, from `/`, on every request).
fn resolve(root: &Path, path: &str) -> std::io::Result<Resolved> {
    use std::path::Component;
    let whole = || -> std::io::Result<Resolved> {
        let real = root.join(path).canonicalize()?;
        if !real.starts_with(root) {
            return Ok(Resolved::Outside(real));
        }
        let meta = std::fs::metadata(&real)?;
        Ok(Resolved::Inside(real, meta))
    };
    let mut cur = root.to_path_buf();
    let mut meta = None;
    for c in Path::new(path).components() {
        let name = match c {
            Component::Normal(name) => name,
            Component::CurDir => continue,
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return whole(),
        };
        cur.push(name);
        let m = std::fs::symlink_metadata(&cur)?;
        if m.file_type().is_symlink() {
            let real = cur.canonicalize()?;
            if !real.starts_with(root) {
                return Ok(Resolved::Outside(real));
            }
            cur = real;
            meta = None;
        } else {
            meta = Some(m);
        }
    }
    let meta = match meta {
        Some(m) => m,
        None => std::fs::metadata(&cur)?,
    };
    Ok(Resolved::Inside(cur, meta))
}

/// Files up to this size are read on the calling task; larger ones on the blocking pool.
const INLINE_READ: u64 = 256 * 1024;

/// Reads one file of the site. A site directory is local, and its small files sit in the page
/// cache, so resolving, checking, opening and reading one costs a few microseconds of system
/// calls; a hop to the blocking pool (a thread wake-up each way) costs more than that, and was
/// most of the time of a verified call in the benchmark. Large files go to the blocking pool so
/// a runtime thread is never held for long.
async fn read_file(
    root: &Path,
    rel: &str,
    max: u64,
    url: &str,
) -> Result<(Vec<u8>, Option<Stamp>), FetchError> {
    use std::io::Read;
    let failed = |e: std::io::Error| FetchError::Failed {
        url: url.to_owned(),
        why: e.to_string(),
    };
    let real = match resolve(root, rel).map_err(failed)? {
        Resolved::Inside(real, _) => real,
        Resolved::Outside(real) => {
            return Err(FetchError::Escape {
                url: url.to_owned(),
                why: format!("it resolves to `{}`", real.display()),
            });
        }
    };
    // The metadata of the file opened, not of the path: the stamp is of the bytes read.
    let f = std::fs::File::open(&real).map_err(failed)?;
    let meta = f.metadata().map_err(failed)?;
    if !meta.is_file() {
        return Err(FetchError::Failed {
            url: url.to_owned(),
            why: "not a regular file".into(),
        });
    }
    let len = meta.len();
    // Taken before the read: bytes cached under it were read after it (see `recheck`).
    let stamp = Stamp::of(&meta);
    if len > max {
        return Err(FetchError::Oversize {
            url: url.to_owned(),
            max,
        });
    }
    let read = move || -> std::io::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
        f.take(max + 1).read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    let bytes = if len <= INLINE_READ {
        read()
    } else {
        tokio::task::spawn_blocking(read)
            .await
            .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
    }
    .map_err(failed)?;
    // The file may have grown since `metadata`: the bound holds whatever happened.
    if bytes.len() as u64 > max {
        return Err(FetchError::Oversize {
            url: url.to_owned(),
            max,
        });
    }
    Ok((bytes, stamp))
}

fn timeout(url: String, limits: Limits) -> FetchError {
    FetchError::Timeout {
        url,
        seconds: limits.timeout.as_secs().max(1),
    }
}

async fn fetch_http(
    client: &reqwest::Client,
    url: Url,
    limits: Limits,
) -> Result<Vec<u8>, FetchError> {
    let shown = url.to_string();
    let max = limits.max_bytes;
    let classify = |e: reqwest::Error| {
        if e.is_timeout() {
            timeout(shown.clone(), limits)
        } else if e.is_redirect() {
            FetchError::Escape {
                url: shown.clone(),
                why: std::error::Error::source(&e)
                    .map_or_else(|| e.to_string(), ToString::to_string),
            }
        } else {
            FetchError::Failed {
                url: shown.clone(),
                why: e.to_string(),
            }
        }
    };
    let mut resp = client.get(url.clone()).send().await.map_err(classify)?;
    if !resp.status().is_success() {
        return Err(FetchError::Failed {
            url: shown,
            why: format!("HTTP {}", resp.status()),
        });
    }
    if resp.content_length().is_some_and(|l| l > max) {
        return Err(FetchError::Oversize { url: shown, max });
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(classify)? {
        if (bytes.len() + chunk.len()) as u64 > max {
            return Err(FetchError::Oversize { url: shown, max });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}
