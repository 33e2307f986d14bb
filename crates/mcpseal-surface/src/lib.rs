//! Pure surface model: raw capture → canonical form → fingerprints.
//!
//! A server's *surface* is what a client sees before calling anything: its capabilities,
//! instructions, identity, supported versions and the four lists (tools, resources, resource
//! templates, prompts). This crate turns a [`RawCapture`] (what `mcpseal-client` recorded) into
//! a [`Surface`], serialises it in a canonical form ([`Form::McpSeal1`], or the compatible
//! [`Form::McpSurface1`]) with RFC 8785 (JCS), and hashes it with SHA-256. `SPEC.md` at the
//! repository root specifies the bytes; `tools/fingerprint.py` is an independent second
//! implementation that the tests hold this one to.
//!
//! What it refuses to do: any I/O, async or clock reading (so it can be fuzzed and
//! property-tested cheaply), and hashing an ambiguous surface: duplicate identities, missing
//! identities and lone UTF-16 surrogates are errors ([`SurfaceError`]), not guesses.
//!
//! ```
//! use mcpseal_surface::{Form, Surface};
//!
//! let capture = br#"{"era":"2025-11-25",
//!   "server":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},
//!             "serverInfo":{"name":"demo","version":"1.0.0"}},
//!   "lists":{"tools":{"pages":[{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}]}}}"#;
//! let surface = Surface::from_slice(capture)?;
//! let fp = surface.fingerprint(Form::McpSeal1);
//! assert_eq!(fp.sha256.len(), 64);
//! assert_eq!(surface.server_name(), Some("demo"));
//! # Ok::<(), mcpseal_surface::SurfaceError>(())
//! ```
#![deny(missing_docs)]

pub mod diff;
#[cfg(any(test, feature = "differential"))]
#[doc(hidden)]
pub mod differential;
mod jcs;
pub mod lock;
mod surface;

pub use diff::{Bump, Change, ChangeClass, Summary, SurfaceDiff, diff};
pub use jcs::{jcs, sha256_hex, utf16_cmp, write_jcs};
pub use mcpseal_protocol::{
    CaptureError, Era, FailureCause, FailureKind, ListCapture, ListFailure, ListKind, RawCapture,
    RawLists, server_info, server_name, server_version,
};
pub use surface::{
    CanonicalObject, Failed, FailedKind, Fingerprint, Form, Item, ItemHash, Items, ListState,
    NotServed, NotServedKind, SERVER_INFO_META_KEY, Surface, SurfaceError, UnknownForm,
    mcp_surface_1_bytes_unchecked, parse_capture,
};
