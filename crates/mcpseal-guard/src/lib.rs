//! A pinning proxy between an MCP host and a server: the host sees and calls only what the lock
//! approves.
//!
//! A rug pull is a server that changes a tool after it was approved: a description rewritten
//! to inject instructions, a read-only tool turned destructive, a schema widened. A [`Guard`]
//! sits between the host and the real server (stdio or Streamable HTTP, either era, the upstream's
//! era passed through) and compares what the server lists with the lock (`surface.lock.json`,
//! through the one lock comparison of `mcpseal-surface`), item by item:
//!
//! * lists (all four) show only items the policy lets through: unchanged ones, and changes whose
//!   drift class is `allow` or `warn` ([`policy`]); a blocked item is hidden, and a call, get or
//!   read of it is refused with a JSON-RPC error naming it, its class and the commands to review
//!   and approve it ([`Refusal`]);
//! * the `server/discover` / `initialize` answer is checked too: blocked instructions are
//!   removed, capabilities the lock never had are hidden, a server with another name than the
//!   lock's gets nothing through;
//! * the upstream is re-read on a list request or a `list_changed`, never per call; lists are
//!   paginated again after filtering;
//! * everything else is forwarded untouched, both ways: server-to-client requests (sampling,
//!   elicitation, roots in 2025; MRTR `input_required` results in 2026), notifications, progress,
//!   cancellation, request-scoped event streams, `subscriptions/listen` streams, the host's
//!   headers (to the upstream's origin only).
//!
//! What it refuses to do: forward anything it could not verify (a missing or foreign lock, a
//! listing that fails: [`Refusal::Unverifiable`]), let a renamed item inherit the old name's
//! approval, or read a credential into its audit log.
//!
//! The fronts: [`serve_stdio`] (the host starts the guard as the server command; the guard starts
//! the real server, or talks to an HTTP upstream) and [`serve_http`] (an HTTP endpoint in front of
//! an HTTP upstream), both on the plumbing of `mcpseal-server`.

pub mod audit;
pub mod dress;
pub mod drift;
mod front;
pub mod hostconfig;
pub mod intercept;
pub mod lists;
pub mod live;
pub mod policy;
pub mod prose;
mod refusal;
mod state;
pub mod upstream;
pub mod uri;

pub use audit::{AuditEntry, AuditEvent, AuditLog};
pub use front::http::{HttpFront, serve_http};
pub use front::stdio::{StdioEnd, serve_stdio};
pub use policy::{DriftClass, ItemRef, Level, Mode, Policy, PolicyError};
pub use refusal::{Refusal, ReviewHint};
pub use state::{Decision, Guard, GuardOptions, LockUnusable, Notes, ServerVerdict, Verdict};
pub use upstream::Upstream;
