//! Publishing workflows: `registry stamp|check|verify|list` ([`registry`], [`verify`]) and
//! `card emit|check` ([`card`]). The pure rules are in `mcpseal-publish`; the documents and
//! renderers in `mcpseal_report::publish`. Fetches of public documents go through
//! [`fetch`] (no user header, ever), registry retries through `retry`.

pub mod card;
pub mod fetch;
pub mod registry;
mod retry;
pub mod verify;

pub use retry::{MAX_WAIT, retry_after, retryable};
