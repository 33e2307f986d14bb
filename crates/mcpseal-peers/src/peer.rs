//! The entries of `tests/peers/peers.json` and where the repository is.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// `tests/peers/` (absolute).
///
/// # Panics
/// When the repository has no `tests/peers` (test support only).
pub fn peers_dir() -> PathBuf {
    repo_root().join("tests/peers")
}

/// The repository root (absolute).
///
/// # Panics
/// When it cannot be resolved (test support only).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repository root exists")
}

/// One entry of `peers.json` (fields the suite uses; see `tests/peers/PEERS.md`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[expect(
    missing_docs,
    reason = "the fields are documented in tests/peers/PEERS.md"
)]
pub struct Peer {
    pub id: String,
    pub package: String,
    pub version: String,
    pub sdk: String,
    pub era: String,
    pub transport: String,
    pub command: Vec<String>,
    pub cwd: String,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub needs: Option<String>,
    pub ready: Ready,
    #[serde(default)]
    pub url: Option<String>,
    pub server_info: ServerInfo,
}

/// `ready` of a peer: how to tell it has started.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[expect(
    missing_docs,
    reason = "the fields are documented in tests/peers/PEERS.md"
)]
pub struct Ready {
    pub kind: String,
    pub timeout_ms: u64,
    #[serde(default)]
    pub text: Option<String>,
}

/// `server_info` of a peer: what it reports.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ServerInfo {
    /// `serverInfo.name`.
    pub name: String,
    /// `serverInfo.version` (differs from the package version for some npm servers).
    pub version: String,
}

/// Reads `peers.json`.
///
/// # Errors
/// A message naming the file when it cannot be read or parsed.
pub fn read_peers() -> Result<Vec<Peer>, String> {
    let path = peers_dir().join("peers.json");
    let text =
        std::fs::read_to_string(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("parsing {}: {e}", path.display()))
}

/// Every entry of `peers.json`, in file order (read once).
///
/// # Panics
/// When `peers.json` cannot be read (test support only).
pub fn all_peers() -> &'static [Peer] {
    static PEERS: OnceLock<Vec<Peer>> = OnceLock::new();
    PEERS.get_or_init(|| read_peers().unwrap_or_else(|e| panic!("{e}")))
}

/// The entry `id` of `peers.json`.
///
/// # Panics
/// When there is no such peer.
pub fn peer(id: &str) -> &'static Peer {
    all_peers()
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no peer `{id}` in tests/peers/peers.json"))
}
