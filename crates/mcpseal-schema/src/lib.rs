//! JSON Schema validation for mcpseal: one place that compiles a schema, validates a value
//! against it and says why not — offline, bounded, and cached for the process.
//!
//! Two kinds of schema go through here: schemas a server hands out (a tool's `inputSchema` and
//! `outputSchema`, judged by the probe and by `call`), and the official MCP wire schemas of both
//! revisions, vendored verbatim ([`wire`]).
//!
//! Contracts:
//!
//! - **Offline.** A remote `$ref` (another document) is never fetched: [`compile`] refuses the
//!   schema with [`CompileError::RemoteRef`] before any compiler sees it, and the compiler's
//!   resolver refuses every retrieval as well (defence in depth, whatever features the
//!   `jsonschema` crate is built with). A `$ref` to a fragment the schema does not define is
//!   [`CompileError::DanglingRef`]. No network, no file access, no panic.
//! - **The dialect the schema declares.** `$schema` selects the draft (4, 6, 7, 2019-09 or
//!   2020-12, `http` or `https`, with or without the trailing `#`); a schema without `$schema`
//!   is 2020-12. A custom meta-schema cannot be resolved offline: [`CompileError::UnknownDialect`].
//! - **Formats are annotations** unless the caller opts in with [`Formats::Assert`] (JSON Schema
//!   2019-09 and 2020-12 make `format` an annotation; drafts 4–7 leave assertion optional, and
//!   mcpseal does not assert what a client is not required to).
//! - **Compiled once.** [`compile`] caches validators (and refusals) for the process, keyed by
//!   the schema's serialised bytes and the options; the official wire schemas compile one
//!   definition at a time, only when a run first validates against it ([`wire::definition`]).
//! - **Every error, located.** A [`Violation`] carries the instance path (JSON Pointer into the
//!   value), the schema path (JSON Pointer to the failing keyword in the schema document, without
//!   `$ref` hops) and the keyword; [`Schema::negative_control`] answers whether a deliberately
//!   tampered value is rejected (a `trap` when it is not).
//!
//! ```
//! use mcpseal_schema::{ControlOutcome, Options, compile};
//! use serde_json::json;
//!
//! let schema = json!({"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]});
//! let compiled = compile(&schema, Options::default()).expect("a valid schema");
//! assert!(compiled.is_valid(&json!({"sum": 3})));
//! let v = compiled.violations(&json!({"sum": "3"}));
//! assert_eq!(v[0].instance_path, "/sum");
//! assert_eq!(v[0].schema_path, "/properties/sum/type");
//! assert_eq!(v[0].keyword, "type");
//! assert!(matches!(compiled.negative_control(&json!({})), ControlOutcome::Rejected(_)));
//!
//! let remote = json!({"$ref": "https://example.com/s.json"});
//! assert!(matches!(compile(&remote, Options::default()), Err(mcpseal_schema::CompileError::RemoteRef { .. })));
//! ```
#![deny(missing_docs)]

mod cache;
mod compile;
mod dialect;
pub mod judge;
pub mod refs;
pub mod tamper;
mod violation;
pub mod wire;

pub use compile::{CompileError, Formats, Options, Schema, compile};
pub use dialect::Dialect;
pub use refs::{RefKind, SchemaRef};
pub use violation::{ControlOutcome, MAX_MESSAGE_CHARS, Violation};
