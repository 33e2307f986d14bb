//! The pinned peer cohort (`tests/peers/`) as data: the entries of `peers.json`, the committed
//! expectations of each peer, and `docs/peers.md` rendered from the two.
//!
//! Test support and generator input only (never published): the CLI's peer tests start the
//! peers and hold them to their expectations; the xtask writes `docs/peers.md` from the same
//! files with [`render_doc`], so the page changes exactly when the expectations do, and no test
//! ever rewrites a file.

mod expect;
mod peer;

pub use expect::{
    Counts, Expectations, FindingExpect, LockExpect, ProbeExpect, SnapshotExpect, doc_path,
    expectations_dir, load, read_expectations, render_doc,
};
pub use peer::{Peer, Ready, ServerInfo, all_peers, peer, peers_dir, read_peers, repo_root};
