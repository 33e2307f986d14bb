//! Raw capture → [`Surface`] → canonical bytes and fingerprints.
//!
//! Invariants of a [`Surface`] (established by [`Surface::from_capture`], relied on by the lock
//! and diff code):
//! * every served list has items with unique, string identities (`name`, `uri`, `uriTemplate`,
//!   `name`), sorted by UTF-16 code units;
//! * every item is held as its own canonical (RFC 8785) bytes, so hashing never re-parses;
//! * nothing volatile survives: list-result fields (`nextCursor`, `ttlMs`, `cacheScope`,
//!   `resultType`, `_meta`), `serverInfo.version`, 2026 `protocolVersion`.
//!
//! Layout, one concept per file: [`error`] (why a capture is refused), [`list`] (the four lists
//! and their states), [`pages`] (a list's pages → sorted items with unique identities),
//! [`item`] (one item's canonical bytes and hashes), [`server`] (the server part of both
//! forms), [`form`] (the two canonical forms), [`canonical`] (writing and hashing the bytes),
//! [`fingerprint`] (the hash document), [`compat`] (what `mcp-surface/1` needs beyond the
//! strict path), [`scan`] (the fast path from bytes, checked against the reference path). This
//! file holds [`Surface`] itself: construction and read access.
//!
//! Two paths build a surface. The reference path is the one SPEC.md describes step by step: a
//! validating serde walk over the whole document, a `RawCapture` with pages as raw text, each
//! item parsed into a `serde_json::Value` and written with [`crate::write_jcs`]. The fast path
//! ([`scan`]) reads the bytes once and writes each item's canonical bytes from a borrowed tape.
//! The public constructors try the fast path and fall back to the reference path whenever it
//! declines, so errors always come from the reference path; the tests and the fuzz targets
//! hold the two to the same surfaces.

mod canonical;
mod compat;
mod error;
mod fingerprint;
mod form;
mod item;
mod list;
mod pages;
#[cfg(test)]
#[path = "../../tests/common/random.rs"]
pub(crate) mod random;
mod scan;
mod server;

use mcpseal_protocol::{CaptureError, Era, RawCapture, validate_json};

pub use canonical::CanonicalObject;
pub use compat::mcp_surface_1_bytes_unchecked;
pub use error::SurfaceError;
pub use fingerprint::{Fingerprint, Items};
pub use form::{Form, UnknownForm};
pub use item::{Item, ItemHash};
pub use list::{Failed, FailedKind, ListKind, ListState, NotServed, NotServedKind};
pub use server::SERVER_INFO_META_KEY;

use error::json_error;
use pages::{Context, build_list};
use server::{ServerPart, server_part};

/// A normalised MCP server surface (see the module docs for its invariants).
#[derive(Debug, Clone, PartialEq)]
pub struct Surface {
    era: Era,
    server: ServerPart,
    lists: [ListState; 4],
}

impl Surface {
    /// Normalises a raw capture. Pure and deterministic.
    ///
    /// # Errors
    /// Fails closed ([`SurfaceError`]) on a lone surrogate anywhere in the server result or in
    /// any page (failed lists included), on unrepresentable JSON there (numbers beyond the
    /// double range, nesting deeper than 127), on an item of a served list without a string
    /// identity, and on duplicate identities within a served list.
    pub fn from_capture(capture: &RawCapture) -> Result<Surface, SurfaceError> {
        match scan::from_capture(capture) {
            Ok(surface) => Ok(surface),
            Err(_) => Self::reference_from_capture(capture),
        }
    }

    /// Parses capture bytes and normalises them (the whole pipeline's first half).
    ///
    /// # Errors
    /// As [`RawCapture::from_slice`] and [`Surface::from_capture`].
    pub fn from_slice(bytes: &[u8]) -> Result<Surface, SurfaceError> {
        match scan::from_slice(bytes) {
            Ok(surface) => Ok(surface),
            Err(_) => Self::reference_from_slice(bytes),
        }
    }

    /// [`Surface::from_capture`] by the reference path only (validating walk, `Value` per item).
    pub(crate) fn reference_from_capture(capture: &RawCapture) -> Result<Surface, SurfaceError> {
        validate_raw(capture)?;
        Self::build(capture, true)
    }

    /// [`Surface::from_slice`] by the reference path only.
    pub(crate) fn reference_from_slice(bytes: &[u8]) -> Result<Surface, SurfaceError> {
        // `parse_capture` has validated every byte already.
        Self::build(&parse_capture(bytes)?, true)
    }

    /// [`Surface::from_slice`] by the fast path only; `None` when it declines.
    #[cfg(any(test, feature = "differential"))]
    pub(crate) fn fast_from_slice(bytes: &[u8]) -> Option<Surface> {
        scan::from_slice(bytes).ok()
    }

    /// [`Surface::from_capture`] by the fast path only; `None` when it declines.
    #[cfg(any(test, feature = "differential"))]
    pub(crate) fn fast_from_capture(capture: &RawCapture) -> Option<Surface> {
        scan::from_capture(capture).ok()
    }

    fn build(capture: &RawCapture, strict: bool) -> Result<Surface, SurfaceError> {
        let server = server_part(capture)?;
        let cx = Context::new(capture.era, capture.server_result().as_ref());
        let l = &capture.lists;
        Ok(Surface {
            era: capture.era,
            server,
            lists: [
                build_list(ListKind::Tools, l.tools.as_ref(), cx, strict)?,
                build_list(ListKind::Resources, l.resources.as_ref(), cx, strict)?,
                build_list(
                    ListKind::ResourceTemplates,
                    l.resource_templates.as_ref(),
                    cx,
                    strict,
                )?,
                build_list(ListKind::Prompts, l.prompts.as_ref(), cx, strict)?,
            ],
        })
    }

    /// The era the capture was made in.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The protocol revision the server agreed to speak: in the legacy era the `protocolVersion`
    /// its `initialize` result names (a server may negotiate down to `2024-11-05`, which the
    /// era alone would misreport as 2025-11-25); in the modern era the revision every request
    /// is sent in (`2026-07-28`) when the server's `supportedVersions` lists it. `None` when
    /// the server said nothing usable.
    pub fn negotiated_version(&self) -> Option<&str> {
        let versions = self.server.seal.get("supportedVersions")?.as_array()?;
        match self.era {
            Era::Legacy => versions.first()?.as_str(),
            Era::Modern => versions
                .iter()
                .any(|v| v.as_str() == Some(self.era.as_str()))
                .then(|| self.era.as_str()),
        }
    }

    /// `serverInfo.name` when it is a string (for text output; not an identity guarantee).
    pub fn server_name(&self) -> Option<&str> {
        self.server.seal.get("serverInfo")?.get("name")?.as_str()
    }

    /// One list's state.
    pub fn list(&self, kind: ListKind) -> &ListState {
        &self.lists[kind.index()]
    }

    /// Number of items in a list; `None` when not served.
    pub fn count(&self, kind: ListKind) -> Option<usize> {
        self.list(kind).items().map(<[Item]>::len)
    }

    /// The lists the server said it does not serve, with how it said so, in [`ListKind::ALL`]
    /// order.
    pub fn not_served(&self) -> Vec<(ListKind, &NotServed)> {
        ListKind::ALL
            .iter()
            .filter_map(|&k| match self.list(k) {
                ListState::NotServed(r) => Some((k, r)),
                _ => None,
            })
            .collect()
    }

    /// The lists mcpseal did not get, with why, in [`ListKind::ALL`] order.
    pub fn failed(&self) -> Vec<(ListKind, &Failed)> {
        ListKind::ALL
            .iter()
            .filter_map(|&k| match self.list(k) {
                ListState::Failed(f) => Some((k, f)),
                _ => None,
            })
            .collect()
    }

    /// True when some list failed: the surface's bytes are defined (the list is `null`), but
    /// they are not what the server serves, so nothing records such a surface.
    pub fn has_untrustworthy_gap(&self) -> bool {
        self.lists.iter().any(|l| matches!(l, ListState::Failed(_)))
    }

    /// The lists the server advertises a capability for and yet answered with "method not
    /// found": not served, but the server contradicts itself (worth a warning).
    pub fn contradictions(&self) -> Vec<ListKind> {
        self.not_served()
            .into_iter()
            // Templates share the `resources` capability, and a server with resources but no
            // templates answering `resources/templates/list` with -32601 is common and honest:
            // no contradiction.
            .filter(|(k, n)| {
                n.advertised
                    && n.kind != NotServedKind::NotAdvertised
                    && *k != ListKind::ResourceTemplates
            })
            .map(|(k, _)| k)
            .collect()
    }
}

/// Parses a raw capture document ([`RawCapture::from_slice`]) with the refusal as a
/// [`SurfaceError`].
///
/// # Errors
/// [`SurfaceError::LoneSurrogate`] for a lone surrogate escape anywhere in the document,
/// [`SurfaceError::Capture`] for anything else that is not a capture document (a newer
/// `schemaVersion` included).
pub fn parse_capture(bytes: &[u8]) -> Result<RawCapture, SurfaceError> {
    RawCapture::from_slice(bytes).map_err(|e| match e {
        CaptureError::LoneSurrogate => SurfaceError::LoneSurrogate {
            location: "capture".to_owned(),
        },
        other => SurfaceError::Capture { source: other },
    })
}

/// Validates the raw JSON a capture holds (server, every page of every list, failed or not),
/// for captures built in memory rather than parsed with [`RawCapture::from_slice`].
fn validate_raw(capture: &RawCapture) -> Result<(), SurfaceError> {
    if let Some(server) = &capture.server {
        validate_json(server.get()).map_err(|e| json_error("server".into(), e))?;
    }
    let l = &capture.lists;
    for (kind, list) in [
        (ListKind::Tools, &l.tools),
        (ListKind::Resources, &l.resources),
        (ListKind::ResourceTemplates, &l.resource_templates),
        (ListKind::Prompts, &l.prompts),
    ] {
        for (p, page) in list.iter().flat_map(|c| c.pages.iter()).enumerate() {
            validate_json(page.get())
                .map_err(|e| json_error(format!("{kind} page {}", p + 1), e))?;
        }
    }
    Ok(())
}
