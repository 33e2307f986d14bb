//! The index's files: run documents and the content-addressed evidence beside them
//! (`evidence/sha256/AB/HEX.json`, see `mcpseal_index::document::evidence_path`).
//!
//! Evidence is written once (an address that exists is not rewritten) and every read is
//! bounded and checked against its address, so a tampered or truncated file is refused, never
//! compared.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use mcpseal_index::document::{IndexRun, Row, evidence_path};
use mcpseal_surface::{Form, RawCapture, Surface};
use serde_json::Value;

use super::IndexError;

/// Largest run document read.
const MAX_DOCUMENT_BYTES: usize = 256 * 1024 * 1024;
/// Largest evidence file read.
const MAX_EVIDENCE_BYTES: usize = 64 * 1024 * 1024;

/// Reads at most `limit` bytes of `path` (more is an error).
pub(super) fn read_bounded(path: &Path, limit: usize) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(limit as u64 + 1).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(std::io::Error::other(format!(
            "larger than the {limit} bytes read"
        )));
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` atomically, creating its directory.
pub(super) fn write(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    let fail = |source| IndexError::Write {
        path: path.to_owned(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    crate::atomic::write_atomic(path, bytes).map_err(fail)
}

/// Stores one evidence file under `out` (once).
pub(super) fn put(out: &Path, address: &str, bytes: &[u8]) -> Result<(), IndexError> {
    let Some(rel) = evidence_path(address) else {
        return Err(IndexError::Write {
            path: out.to_owned(),
            source: std::io::Error::other(format!("`{address}` is not a content address")),
        });
    };
    let path = out.join(rel);
    if path.exists() {
        return Ok(());
    }
    write(&path, bytes)
}

/// Reads one evidence file under `base`, checked against its address.
pub(super) fn get(base: &Path, address: &str) -> Result<Vec<u8>, String> {
    let rel = evidence_path(address).ok_or_else(|| format!("`{address}` is not an address"))?;
    let path = base.join(rel);
    let bytes = read_bounded(&path, MAX_EVIDENCE_BYTES)
        .map_err(|e| format!("`{}`: {e}", path.display()))?;
    if mcpseal_index::sha256_tagged(&bytes) != address {
        return Err(format!(
            "`{}` does not hash to its address (changed or truncated)",
            path.display()
        ));
    }
    Ok(bytes)
}

/// Copies one evidence file from `from` to `to` (checked; skipped when `to` has it).
pub(super) fn copy_evidence(from: &Path, to: &Path, address: &str) -> Result<(), IndexError> {
    let bytes = get(from, address).map_err(|why| IndexError::Document {
        path: from.to_owned(),
        why: format!("evidence {address}: {why}"),
    })?;
    put(to, address, &bytes)
}

/// Reads one run document.
pub(super) fn document(path: &Path) -> Result<IndexRun, IndexError> {
    let fail = |why: String| IndexError::Document {
        path: path.to_owned(),
        why,
    };
    let bytes = read_bounded(path, MAX_DOCUMENT_BYTES).map_err(|e| fail(e.to_string()))?;
    let doc: IndexRun = serde_json::from_slice(&bytes).map_err(|e| fail(e.to_string()))?;
    if doc.schema_version != mcpseal_index::document::INDEX_SCHEMA_VERSION {
        return Err(fail(format!(
            "schemaVersion {} is not {}",
            doc.schema_version,
            mcpseal_index::document::INDEX_SCHEMA_VERSION
        )));
    }
    Ok(doc)
}

/// The run documents of `path`: the file itself, or a directory's `index.json` and
/// `shard-*.json` files (sorted by name).
pub(super) fn documents_in(path: &Path) -> Result<Vec<(PathBuf, IndexRun)>, IndexError> {
    if path.is_file() {
        return Ok(vec![(path.to_owned(), document(path)?)]);
    }
    let entries = std::fs::read_dir(path).map_err(|e| IndexError::Document {
        path: path.to_owned(),
        why: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n == "index.json" || (n.starts_with("shard-") && n.ends_with(".json"))
            })
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(IndexError::Document {
            path: path.to_owned(),
            why: "no index.json or shard-*.json in it".into(),
        });
    }
    files
        .into_iter()
        .map(|f| document(&f).map(|d| (f, d)))
        .collect()
}

/// The previous run: its rows by id, and where its evidence is.
pub(super) struct Previous {
    pub run_id: String,
    pub rows: BTreeMap<String, Row>,
    base: PathBuf,
}

impl Previous {
    /// Loads a document file or a directory (`index.json`, else its shards).
    pub(super) fn load(path: &Path) -> Result<Previous, IndexError> {
        let docs = documents_in(path)?;
        let base = if path.is_file() {
            path.parent().map(Path::to_owned).unwrap_or_default()
        } else {
            path.to_owned()
        };
        let run_id = docs
            .first()
            .map(|(_, d)| d.run_id.clone())
            .unwrap_or_default();
        let rows = docs
            .into_iter()
            .flat_map(|(_, d)| d.rows)
            .map(|r| (r.id.clone(), r))
            .collect();
        Ok(Previous { run_id, rows, base })
    }

    /// The previous row's canonical surface, when its capture is in the evidence store and
    /// still hashes to its address.
    pub(super) fn canonical(&self, row: &Row) -> Option<Value> {
        let bytes = get(&self.base, row.evidence.capture.as_deref()?).ok()?;
        let raw: RawCapture = serde_json::from_slice(&bytes).ok()?;
        let surface = Surface::from_capture(&raw).ok()?;
        Some(surface.canonical_value(Form::McpSeal1))
    }
}
