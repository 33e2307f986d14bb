//! Publishing workflows: `registry stamp|check|verify|list` ([`registry`], [`verify`]) and
//! `card emit|check` ([`card`]). The pure rules are in `mcpseal-publish`; the documents and
//! renderers in `mcpseal_report::publish`. Fetches of public documents go through the
//! client's [`mcpseal_client::PublicClient`] (no user header, ever), registry retries through
//! `retry`.

pub mod card;
mod described;
pub mod package;
pub mod registry;
mod retry;
pub mod verify;

pub(crate) use retry::get_with_retry;
pub use retry::{MAX_WAIT, retry_after, retryable};

/// Every publishing document's schema: the command reports (`mcpseal_report::publish`) and the
/// server.json block (`mcpseal-publish`), as committed in `schemas/` at the repository root
/// (`cargo xtask generate schemas` rewrites them with every other document's; `cargo xtask check` fails when one is stale).
pub fn schemas() -> Vec<(&'static str, serde_json::Value)> {
    let mut all = mcpseal_report::publish::schemas();
    all.push((
        "registry-block.schema.json",
        mcpseal_publish::block_schema(),
    ));
    all.sort_by(|a, b| a.0.cmp(b.0));
    all
}
