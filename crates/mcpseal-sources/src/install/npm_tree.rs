//! Shared npm dependency trees: versions of a package that declare the same dependencies get
//! one `npm install` between them.
//!
//! Why: with npm's cache warm, one `npm install` still costs 5–9 s of CPU (arborist building
//! the tree, then extracting thousands of files), and consecutive releases of a server mostly
//! declare the same dependencies (20 releases of `@upstash/context7-mcp`: 5 distinct sets).
//!
//! How: the **tree key** is SHA-256 over the registry, the package name and every manifest
//! field npm reads from a dependency to build the tree under it (`dependencies`,
//! `optionalDependencies`, `peerDependencies`, `peerDependenciesMeta`, `os`, `cpu`, `libc`,
//! `engines`), taken from the verified tarball's own `package.json` — what npm reads for a
//! `./package.tgz` install. The first version with a key is installed by npm exactly as before,
//! into `sources-v1/npm-trees/<name>/<key16>/`; every version with that key (the first too) then
//! gets its install directory by linking that tree's `node_modules` (hard links, a copy where
//! the filesystem refuses) minus the package itself and the lockfiles, with its own verified
//! tarball unpacked as pacote would (see [`super::npm_tarball`]) and its own `.bin` links.
//!
//! Why the key is exact: npm resolves the tree below the root from those fields and the
//! registry alone — except when something in the tree depends on the package itself (then
//! the package's version decides what npm nests). A tree where any package names the root
//! package as a dependency or peer is marked unshareable, and each version is then installed
//! by npm on its own, as are tarballs [`super::npm_tarball::read`] refuses.
//!
//! Why hard links are safe: the tree's files are made read-only (no write bit) before any link
//! is made, and the sandbox's Landlock ruleset allows a server only read/execute beneath its
//! install directory (and refuses linking a file to where it would gain write access). Without
//! Landlock a server can write wherever the user can — other cache entries included — with or
//! without shared inodes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::npm_tarball::{self, Package};

/// The version of the tree marker's format.
const TREE_VERSION: u32 = 1;

/// The manifest fields that shape the tree npm builds below a package.
const TREE_FIELDS: &[&str] = &[
    "dependencies",
    "optionalDependencies",
    "peerDependencies",
    "peerDependenciesMeta",
    "os",
    "cpu",
    "libc",
    "engines",
];

/// The tree's completion marker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TreeRecord {
    pub schema_version: u32,
    /// The key's inputs, as hashed (for a reader of the cache).
    pub key_input: String,
    /// The version whose `npm install` made the tree.
    pub installed_from: String,
    /// Whether other versions may use it (false: something in it depends on the package).
    pub shareable: bool,
}

impl TreeRecord {
    pub(crate) fn new(key_input: String, installed_from: &str, shareable: bool) -> TreeRecord {
        TreeRecord {
            schema_version: TREE_VERSION,
            key_input,
            installed_from: installed_from.to_owned(),
            shareable,
        }
    }

    /// Whether a marker read from disk is one for `key_input`.
    pub(crate) fn matches(&self, key_input: &str) -> bool {
        self.schema_version == TREE_VERSION && self.key_input == key_input
    }
}

/// The canonical text the tree key is made from (keys sorted at every level).
pub(crate) fn key_input(registry: &str, name: &str, manifest: &Value) -> String {
    let mut fields = serde_json::Map::new();
    for f in TREE_FIELDS {
        if let Some(v) = manifest.get(*f) {
            fields.insert((*f).to_owned(), sorted(v));
        }
    }
    let doc = serde_json::json!({
        "registry": registry,
        "name": name,
        "fields": Value::Object(fields),
    });
    sorted(&doc).to_string()
}

/// `v` with every object's members in key order (whatever serde_json's map type does).
fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = serde_json::Map::new();
            for k in keys {
                out.insert(k.clone(), sorted(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Whether the tree npm installed in `dir` can serve other versions of `name`: its hidden
/// lockfile reads, and no package in it names `name` as a dependency of any kind. Fails
/// closed (unreadable lockfile: not shareable).
pub(crate) fn shareable(dir: &Path, name: &str) -> bool {
    let lock = dir.join("node_modules").join(".package-lock.json");
    let Some(doc) = std::fs::read(&lock)
        .ok()
        .filter(|b| b.len() <= 64 * 1024 * 1024)
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
    else {
        return false;
    };
    let Some(packages) = doc.get("packages").and_then(Value::as_object) else {
        return false;
    };
    let own = format!("node_modules/{name}");
    packages.iter().all(|(path, entry)| {
        if path == &own {
            return true;
        }
        let nested_copy = path.ends_with(&format!("/{own}"));
        let names_it = ["dependencies", "optionalDependencies", "peerDependencies"]
            .iter()
            .any(|f| {
                entry
                    .get(*f)
                    .and_then(Value::as_object)
                    .is_some_and(|m| m.contains_key(name))
            });
        !nested_copy && !names_it
    })
}

/// Removes the write bits of every file in the tree's `node_modules` (before anything is
/// linked to them).
#[cfg(unix)]
pub(crate) fn seal(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    walk(&dir.join("node_modules"), &mut |path, meta| {
        if meta.file_type().is_file() {
            let mode = meta.permissions().mode() & !0o222;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
        }
        Ok(())
    })
}

/// Lays out version `package` of `name` in `dir` (empty) from the tree in `tree`.
#[cfg(unix)]
pub(crate) fn derive(
    tree: &Path,
    dir: &Path,
    name: &str,
    package: &Package,
) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let from = tree.join("node_modules");
    let to = dir.join("node_modules");
    let own = PathBuf::from(name);
    let own_nested = own.join("node_modules");
    let bin_dir = Path::new(".bin");
    let own_target = Path::new("..").join(name);
    let mut dirs = std::fs::DirBuilder::new();
    dirs.recursive(true).mode(0o755);
    dirs.create(&to)?;
    let mut failed_link = false;
    walk(&from, &mut |path, meta| {
        let rel = path.strip_prefix(&from).map_err(std::io::Error::other)?;
        // The package's own files come from its own tarball; what npm nested below it is
        // part of the dependency tree and is kept.
        if rel == Path::new(".package-lock.json")
            || (rel.starts_with(&own) && !rel.starts_with(&own_nested))
        {
            return Ok(());
        }
        let target = to.join(rel);
        let kind = meta.file_type();
        if kind.is_dir() {
            dirs.create(&target)?;
            std::fs::set_permissions(
                &target,
                std::fs::Permissions::from_mode(meta.permissions().mode() & 0o7777),
            )?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(path)?;
            if rel.parent() == Some(bin_dir) && link.starts_with(&own_target) {
                return Ok(());
            }
            std::os::unix::fs::symlink(link, &target)?;
        } else if kind.is_file() && (failed_link || std::fs::hard_link(path, &target).is_err()) {
            // Another filesystem, a link limit: a copy (mode kept, so read-only too).
            failed_link = true;
            std::fs::copy(path, &target)?;
        }
        Ok(())
    })?;
    npm_tarball::unpack(package, &to.join(name))?;
    if !package.bins.is_empty() {
        let bins = to.join(".bin");
        dirs.create(&bins)?;
        for (bin, path) in &package.bins {
            let link = bins.join(bin);
            match std::fs::remove_file(&link) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            std::os::unix::fs::symlink(own_target.join(path), link)?;
        }
    }
    Ok(())
}

/// Every entry below `root` (not `root` itself), parents before children, symlinks not
/// followed.
fn walk(
    root: &Path,
    f: &mut dyn FnMut(&Path, &std::fs::Metadata) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(root)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for e in entries {
        let path = e.path();
        let meta = std::fs::symlink_metadata(&path)?;
        f(&path, &meta)?;
        if meta.file_type().is_dir() {
            walk(&path, f)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_input_is_canonical_and_covers_the_tree_fields() {
        let a = serde_json::json!({"name": "p", "version": "1.0.0",
            "dependencies": {"b": "^1", "a": "^2"}, "description": "one"});
        let b = serde_json::json!({"version": "1.1.0", "name": "p",
            "dependencies": {"a": "^2", "b": "^1"}, "description": "two"});
        assert_eq!(key_input("r/", "p", &a), key_input("r/", "p", &b));
        for changed in [
            serde_json::json!({"dependencies": {"a": "^2"}}),
            serde_json::json!({"dependencies": {"a": "^2", "b": "^1"}, "peerDependencies": {"c": "*"}}),
            serde_json::json!({"dependencies": {"a": "^2", "b": "^1"}, "os": ["linux"]}),
        ] {
            assert_ne!(key_input("r/", "p", &a), key_input("r/", "p", &changed));
        }
        assert_ne!(key_input("r/", "p", &a), key_input("s/", "p", &a));
        assert_ne!(key_input("r/", "p", &a), key_input("r/", "q", &a));
    }

    #[test]
    fn a_tree_that_depends_on_the_package_is_not_shared() {
        let dir = tempfile::tempdir().expect("dir");
        assert!(!shareable(dir.path(), "p"), "no lockfile: not shareable");
        let nm = dir.path().join("node_modules");
        std::fs::create_dir_all(&nm).expect("nm");
        let write = |doc: Value| {
            std::fs::write(nm.join(".package-lock.json"), doc.to_string()).expect("lock");
        };
        write(serde_json::json!({"packages": {
            "node_modules/p": {"dependencies": {"a": "^1"}},
            "node_modules/a": {"dependencies": {"b": "^1"}}}}));
        assert!(shareable(dir.path(), "p"));
        write(serde_json::json!({"packages": {
            "node_modules/p": {"dependencies": {"a": "^1"}},
            "node_modules/a": {"peerDependencies": {"p": "^1"}}}}));
        assert!(!shareable(dir.path(), "p"));
        write(serde_json::json!({"packages": {
            "node_modules/a/node_modules/p": {}}}));
        assert!(!shareable(dir.path(), "p"));
    }
}
