//! An npm package tarball read in memory (after its SRI check) and unpacked the way npm's
//! pacote unpacks it, so that a version can be laid over a shared dependency tree
//! ([`super::npm_tree`]) without running npm for it.
//!
//! What pacote does, and so what this does: strip the first path component (`package/`),
//! keep regular files only (directory entries are not created, links are dropped), ignore
//! ownership and mtimes, give files `(mode | 0o666) & !umask | 0o600` plus `0o111` for the
//! package's `bin` targets and directories `0o777 & !umask`, and rename a `.gitignore` to
//! `.npmignore` unless a `.npmignore` came first (then the `.gitignore` is dropped).
//!
//! Anything unusual is an `Err` (the reason) rather than a guess: a link or special file, a
//! path that climbs out (`..`, absolute), a bundled `node_modules`, `bundleDependencies`,
//! `directories.bin`, a bin name or path npm would rewrite, a manifest that is not JSON, or more
//! than the bounds below. Such a version is installed by npm itself, as before.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

/// npm's default umask (the process umask is not read: a cache entry must not depend on it).
const UMASK: u32 = 0o022;
/// At most this many bytes unpacked from one tarball (beyond: npm installs it).
const MAX_UNPACKED_BYTES: u64 = 512 * 1024 * 1024;
/// At most this many entries in one tarball.
const MAX_ENTRIES: usize = 100_000;

/// One file of the package, path relative to the package root.
#[derive(Debug)]
pub(crate) struct PackageFile {
    pub path: PathBuf,
    pub mode: u32,
    pub bytes: Vec<u8>,
}

/// A package tarball read for laying over a shared tree.
#[derive(Debug)]
pub(crate) struct Package {
    /// `package.json` as the tarball holds it (what npm reads for a `./package.tgz` install).
    pub manifest: Value,
    /// The files, in tarball order, modes as pacote sets them.
    pub files: Vec<PackageFile>,
    /// `(bin name, path in the package)`, as npm links them into `node_modules/.bin`.
    pub bins: Vec<(String, String)>,
}

/// Reads a gzipped npm tarball that can be laid over a shared tree; `Err` says why it cannot
/// (then npm installs it, as before).
pub(crate) fn read(gz: &[u8]) -> Result<Package, String> {
    let decoder = flate2::read::GzDecoder::new(gz).take(MAX_UNPACKED_BYTES);
    let mut archive = tar::Archive::new(decoder);
    let mut raw: Vec<(PathBuf, u32, Vec<u8>)> = Vec::new();
    let mut total: u64 = 0;
    for (n, entry) in archive.entries().map_err(|e| e.to_string())?.enumerate() {
        if n >= MAX_ENTRIES {
            return Err("too many entries".into());
        }
        let mut entry = entry.map_err(|e| e.to_string())?;
        let kind = entry.header().entry_type();
        let path = strip_first(&entry.path().map_err(|e| e.to_string())?)?;
        if kind.is_dir() {
            // pacote creates only the directories files need.
            continue;
        }
        if !(kind.is_file() || kind.is_contiguous()) {
            return Err(format!("entry of type {kind:?}"));
        }
        let Some(path) = path else { continue };
        if path.components().next() == Some(Component::Normal("node_modules".as_ref())) {
            return Err("bundled node_modules".into());
        }
        let mode = entry.header().mode().map_err(|e| e.to_string())?;
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).map_err(|e| e.to_string())?;
        total += bytes.len() as u64;
        if total >= MAX_UNPACKED_BYTES {
            return Err("too large".into());
        }
        raw.push((path, mode, bytes));
    }
    let manifest_bytes = raw
        .iter()
        .rev()
        .find(|(p, _, _)| p == Path::new("package.json"))
        .map(|(_, _, b)| b)
        .ok_or("no package.json")?;
    let manifest: Value =
        serde_json::from_slice(manifest_bytes).map_err(|e| format!("package.json: {e}"))?;
    for field in ["bundleDependencies", "bundledDependencies"] {
        match manifest.get(field) {
            None | Some(Value::Null | Value::Bool(false)) => {}
            Some(Value::Array(a)) if a.is_empty() => {}
            Some(_) => return Err(format!("`{field}`")),
        }
    }
    if manifest.pointer("/directories/bin").is_some() {
        return Err("`directories.bin`".into());
    }
    let bins = bins(&manifest)?;
    let bin_paths: Vec<PathBuf> = bins.iter().map(|(_, p)| PathBuf::from(p)).collect();
    let mut files = Vec::with_capacity(raw.len());
    let mut saw_npmignore = std::collections::HashSet::new();
    for (path, mode, bytes) in raw {
        let mut path = path;
        if path.file_name() == Some(".npmignore".as_ref()) {
            saw_npmignore.insert(path.clone());
        } else if path.file_name() == Some(".gitignore".as_ref()) {
            let renamed = path.with_file_name(".npmignore");
            if saw_npmignore.contains(&renamed) {
                continue;
            }
            path = renamed;
        }
        let exe = if bin_paths.contains(&path) { 0o111 } else { 0 };
        let mode = ((mode | 0o666) & !UMASK & 0o7777) | exe | 0o600;
        files.push(PackageFile { path, mode, bytes });
    }
    Ok(Package {
        manifest,
        files,
        bins,
    })
}

/// The path without its first component; `None` for the top directory itself; an error for a
/// path npm's tar would refuse or rewrite.
fn strip_first(path: &Path) -> Result<Option<PathBuf>, String> {
    let mut out = PathBuf::new();
    for (i, c) in path.components().enumerate() {
        match c {
            Component::Normal(s) if i > 0 => {
                let s = s.to_str().ok_or("a path that is not UTF-8")?;
                if s.contains('\\') || s.contains(':') {
                    return Err(format!("path `{}`", path.display()));
                }
                out.push(s);
            }
            Component::Normal(_) => {}
            Component::CurDir if i == 0 => return Err("`./` prefix".into()),
            _ => return Err(format!("path `{}`", path.display())),
        }
    }
    Ok((!out.as_os_str().is_empty()).then_some(out))
}

/// The `bin` links npm makes for the package: a string is one bin named after the package
/// (scope dropped), an object names each. Anything npm's bin normalisation would rewrite or
/// drop (odd names, paths leaving the package) makes the package unshareable.
fn bins(manifest: &Value) -> Result<Vec<(String, String)>, String> {
    let name = manifest.get("name").and_then(Value::as_str).unwrap_or("");
    let pairs: Vec<(String, String)> = match manifest.get("bin") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(p)) => {
            let short = name.rsplit('/').next().unwrap_or(name);
            vec![(short.to_owned(), p.clone())]
        }
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                v.as_str()
                    .map(|p| (k.clone(), p.to_owned()))
                    .ok_or_else(|| format!("bin `{k}` is not a string"))
            })
            .collect::<Result<_, _>>()?,
        Some(_) => return Err("`bin` is neither a string nor an object".into()),
    };
    let mut out = Vec::with_capacity(pairs.len());
    for (bin, path) in pairs {
        let plain = |s: &str| {
            !s.is_empty()
                && !s.starts_with('.')
                && !s.contains(['/', '\\', ':'])
                && s.chars().all(|c| !c.is_control())
        };
        if !plain(&bin) {
            return Err(format!("bin name `{bin}`"));
        }
        let rel = path.strip_prefix("./").unwrap_or(&path);
        let ok = !rel.is_empty()
            && !rel.contains('\\')
            && Path::new(rel)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        if !ok {
            return Err(format!("bin path `{path}`"));
        }
        out.push((bin, rel.to_owned()));
    }
    Ok(out)
}

/// Writes the package's files under `root` (which must not exist yet), parents `0o755`.
#[cfg(unix)]
pub(crate) fn unpack(package: &Package, root: &Path) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    let mut dirs = std::fs::DirBuilder::new();
    dirs.recursive(true).mode(0o777 & !UMASK);
    dirs.create(root)?;
    for f in &package.files {
        let path = root.join(&f.path);
        if let Some(parent) = path.parent() {
            dirs.create(parent)?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(f.mode)
            .open(&path)?;
        out.write_all(&f.bytes)?;
        // A later duplicate entry keeps the file; its mode is set explicitly either way.
        out.set_permissions(std::fs::Permissions::from_mode(f.mode))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tgz(entries: &[(&str, tar::EntryType, u32, &[u8])]) -> Vec<u8> {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut b = tar::Builder::new(gz);
        for (path, kind, mode, bytes) in entries {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(*kind);
            h.set_mode(*mode);
            h.set_size(bytes.len() as u64);
            if *kind == tar::EntryType::Symlink {
                h.set_link_name("x").expect("link");
            }
            b.append_data(&mut h, path, *bytes).expect("append");
        }
        b.into_inner().expect("tar").finish().expect("gz")
    }

    const MANIFEST: &[u8] = br#"{"name":"@s/p","version":"1.0.0","bin":{"p":"./bin/p.js"}}"#;

    #[test]
    fn unpacks_like_pacote() {
        let r = tgz(&[
            (
                "package/package.json",
                tar::EntryType::Regular,
                0o644,
                MANIFEST,
            ),
            (
                "package/bin/p.js",
                tar::EntryType::Regular,
                0o644,
                b"#!/usr/bin/env node\n",
            ),
            ("package/lib", tar::EntryType::Directory, 0o700, b""),
            ("package/lib/a.js", tar::EntryType::Regular, 0o600, b"a"),
            ("package/.gitignore", tar::EntryType::Regular, 0o644, b"x"),
        ]);
        let p = read(&r).expect("shareable");
        assert_eq!(p.bins, [("p".to_owned(), "bin/p.js".to_owned())]);
        let modes: Vec<(String, u32)> = p
            .files
            .iter()
            .map(|f| (f.path.to_string_lossy().into_owned(), f.mode))
            .collect();
        assert_eq!(
            modes,
            [
                ("package.json".to_owned(), 0o644),
                ("bin/p.js".to_owned(), 0o755),
                ("lib/a.js".to_owned(), 0o644),
                (".npmignore".to_owned(), 0o644),
            ]
        );
    }

    #[test]
    fn unusual_tarballs_are_left_to_npm() {
        let plain = (
            "package/package.json",
            tar::EntryType::Regular,
            0o644,
            MANIFEST,
        );
        for bad in [
            tgz(&[plain, ("package/l", tar::EntryType::Symlink, 0o777, b"")]),
            tgz(&[
                plain,
                (
                    "package/node_modules/x/i.js",
                    tar::EntryType::Regular,
                    0o644,
                    b"",
                ),
            ]),
            tgz(&[(
                "package/package.json",
                tar::EntryType::Regular,
                0o644,
                br#"{"name":"p","bundleDependencies":["x"]}"#,
            )]),
            tgz(&[(
                "package/package.json",
                tar::EntryType::Regular,
                0o644,
                br#"{"name":"p","bin":{"x":"../../etc/passwd"}}"#,
            )]),
            tgz(&[("package/index.js", tar::EntryType::Regular, 0o644, b"")]),
            b"not gzip".to_vec(),
        ] {
            assert!(read(&bad).is_err());
        }
    }
}
