//! The registry's data: a directory of `server.json` files, one published version each.
//!
//! Each `*.json` file (read in file-name order) is a `server.json`. An optional top-level
//! `x-fixture` object sets what the registry manages and a publisher cannot:
//! `{"status": "active|deprecated|deleted", "publishedAt": RFC 3339, "updatedAt": RFC 3339}`;
//! it is removed before the entry is served. Without it an entry is
//! `active`, published at `2026-01-01T00:MM:00Z` where MM is the file's position (so later
//! files are newer). `isLatest` marks, per name, the most recently published entry that is
//! not deleted.

use std::path::Path;

use serde_json::{Map, Value, json};

/// The registry-managed `_meta` key of a response.
pub const OFFICIAL: &str = "io.modelcontextprotocol.registry/official";

/// One published version.
#[derive(Debug, Clone)]
pub struct Stored {
    /// The `server.json`, `x-fixture` removed.
    pub server: Value,
    /// `server.name`.
    pub name: String,
    /// `server.version`.
    pub version: String,
    /// `active`, `deprecated` or `deleted`.
    pub status: String,
    /// RFC 3339.
    pub published_at: String,
    /// RFC 3339.
    pub updated_at: String,
    /// The most recent non-deleted version of its name.
    pub is_latest: bool,
}

impl Stored {
    /// The `ServerResponse` of this entry.
    pub fn response(&self) -> Value {
        let mut official = Map::new();
        official.insert("status".into(), Value::from(self.status.clone()));
        official.insert("publishedAt".into(), Value::from(self.published_at.clone()));
        official.insert("updatedAt".into(), Value::from(self.updated_at.clone()));
        official.insert("isLatest".into(), Value::from(self.is_latest));
        json!({"server": self.server, "_meta": {OFFICIAL: official}})
    }
}

/// Every entry, in listing order: by name, newest publication first within a name.
pub fn load(dir: &Path) -> anyhow::Result<Vec<Stored>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for (i, path) in files.iter().enumerate() {
        let mut server: Value = serde_json::from_str(&std::fs::read_to_string(path)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let x = server
            .as_object_mut()
            .and_then(|o| o.remove("x-fixture"))
            .unwrap_or(Value::Null);
        let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        let name = text(&server, "name")
            .ok_or_else(|| anyhow::anyhow!("{}: no string `name`", path.display()))?;
        let version = text(&server, "version")
            .ok_or_else(|| anyhow::anyhow!("{}: no string `version`", path.display()))?;
        let published_at =
            text(&x, "publishedAt").unwrap_or_else(|| format!("2026-01-01T00:{:02}:00Z", i % 60));
        out.push(Stored {
            updated_at: text(&x, "updatedAt").unwrap_or_else(|| published_at.clone()),
            published_at,
            status: text(&x, "status").unwrap_or_else(|| "active".into()),
            server,
            name,
            version,
            is_latest: false,
        });
    }
    out.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then_with(|| b.published_at.cmp(&a.published_at))
    });
    let mut seen: Vec<String> = Vec::new();
    for s in &mut out {
        if s.status != "deleted" && !seen.contains(&s.name) {
            s.is_latest = true;
            seen.push(s.name.clone());
        }
    }
    Ok(out)
}
