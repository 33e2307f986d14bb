//! `mcpseal snapshot`: capture a surface, refuse anything untrustworthy, fingerprint it.

use std::collections::BTreeMap;

use mcpseal_client::{
    Capture, CaptureOptions, Connection, Exchange, capture_surface, sanity_check,
};
use mcpseal_surface::{FailureCause, Form, Items, ListKind, RawCapture, Surface, SurfaceError};
use serde::Serialize;
use serde_json::Value;
use thiserror::Error;

/// How to snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SnapshotOptions {
    /// The canonical form.
    pub form: Form,
    /// Most pages per list (the compatibility form always uses mcp-surface's 100).
    pub page_cap: usize,
}

impl Default for SnapshotOptions {
    fn default() -> Self {
        SnapshotOptions {
            form: Form::McpSeal1,
            page_cap: 1000,
        }
    }
}

/// Why no trustworthy surface could be had. Every variant means exit 2.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SnapshotError {
    /// Nothing was answered.
    #[error("the server could not be reached: {0}")]
    Unreachable(String),
    /// The endpoint answered a method that cannot exist.
    #[error(
        "this endpoint answers every method, even `{method}`, which cannot exist; it proves nothing"
    )]
    Liar {
        /// The impossible method.
        method: String,
    },
    /// Neither `server/discover` nor `initialize` worked.
    #[error("the server did not describe itself: {0}")]
    NoServer(String),
    /// A list could not be read whole (a timeout, a crash, an oversize message, a refusal,
    /// a cap ...): the server did not say it does not serve it, so nothing may be recorded.
    #[error("`{list}` could not be read whole: {reason}")]
    Untrustworthy {
        /// The list method.
        list: String,
        /// Why (names the page).
        reason: String,
        /// What the capture recorded as the cause, when it did; it picks the hint's flag.
        cause: Option<FailureCause>,
    },
    /// The capture is ambiguous (duplicates, missing identities, lone surrogates).
    #[error("{0}")]
    Surface(#[from] SurfaceError),
}

impl SnapshotError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            SnapshotError::Unreachable(reason) => crate::connect::unreachable_hint(reason),
            SnapshotError::Liar { .. } => {
                "point mcpseal at the real server, not at a proxy or test double that says yes to everything"
            }
            SnapshotError::NoServer(_) => {
                "the server must answer `server/discover` (2026-07-28) or `initialize` (2025-11-25)"
            }
            SnapshotError::Untrustworthy { cause, .. } => untrustworthy_hint(*cause),
            SnapshotError::Surface(_) => "fix the server so every item has a unique identity",
        }
    }
}

/// The flag (or the fix) that changes a failed list's outcome, by its recorded cause.
fn untrustworthy_hint(cause: Option<FailureCause>) -> &'static str {
    match cause {
        Some(FailureCause::Timeout) => {
            "the server did not answer in time; give it longer with `--timeout` (e.g. `--timeout 30s`)"
        }
        Some(FailureCause::Oversize) => {
            "the server sent a message past the limit; raise `--max-message-bytes` if it is meant to be that large"
        }
        Some(FailureCause::CaptureCap) => {
            "the lists together passed the capture cap; raise `--max-capture-bytes` if the surface is meant to be that large"
        }
        Some(FailureCause::Unauthorized) => {
            "refused: this list needs a credential, pass --header (e.g. `--header 'Authorization: Bearer ${TOKEN}'`)"
        }
        Some(FailureCause::PageCap) => {
            "the list has more pages than `--page-cap` allows; raise it if the server really has that many"
        }
        Some(FailureCause::CursorLoop) => {
            "a list whose pages loop cannot be fingerprinted; fix the server's pagination"
        }
        Some(FailureCause::Closed | FailureCause::Spawn) => {
            "the server stopped before it answered; run it by hand to see why, then retry (a slow start may need a longer `--timeout`)"
        }
        Some(FailureCause::HttpStatus | FailureCause::Network) => {
            "the endpoint did not give a JSON-RPC answer; check the URL, the server's health and any proxy in between"
        }
        _ => {
            "the server's answer to this list is not a valid list result; fix the server (nothing is recorded until it answers or says -32601)"
        }
    }
}

/// A trusted capture: the surface and the evidence behind it.
#[derive(Debug, Clone)]
pub struct TrustedCapture {
    /// The normalised surface.
    pub surface: Surface,
    /// The raw capture it was made from (the document `tools/fingerprint.py` reads).
    pub raw: RawCapture,
    /// Every exchange, sanity check included.
    pub exchanges: Vec<Exchange>,
}

/// The snapshot document. JSON: `{"schemaVersion": 1, "form", "era", "sha256", "items",
/// "surface", "server", "counts", "notServed"}`; the last three are additions for people and
/// tools that do not want to walk `surface`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    /// Always 1.
    pub schema_version: u32,
    /// `mcpseal/1` or `mcp-surface/1`.
    pub form: String,
    /// The revision the surface was captured in.
    pub era: String,
    /// The fingerprint.
    pub sha256: String,
    /// Per-item hashes; a list that is not served is `null`.
    pub items: Items,
    /// The canonical surface object.
    pub surface: Value,
    /// The server's name, when it gave one.
    pub server: Option<String>,
    /// Items per list; `null` when not served.
    pub counts: BTreeMap<String, Option<usize>>,
    /// Why each unserved list is not served.
    pub not_served: BTreeMap<String, String>,
    /// What the server contradicted itself about (a capability advertised, its list then
    /// answered with "method not found"): recorded as not served, and worth a look.
    pub warnings: Vec<String>,
}

impl Snapshot {
    /// Builds the document of a surface in a form.
    pub fn of(surface: &Surface, form: Form) -> Snapshot {
        let fp = surface.fingerprint(form);
        let mut counts = BTreeMap::new();
        for kind in ListKind::ALL {
            counts.insert(kind.key().to_owned(), surface.count(kind));
        }
        Snapshot {
            schema_version: 1,
            form: form.as_str().to_owned(),
            era: surface.era().as_str().to_owned(),
            sha256: fp.sha256,
            items: fp.items,
            surface: surface.canonical_value(form),
            server: surface.server_name().map(str::to_owned),
            counts,
            not_served: surface
                .not_served()
                .into_iter()
                .map(|(k, n)| (k.key().to_owned(), n.message.clone()))
                .collect(),
            warnings: warnings(surface),
        }
    }
}

/// The warnings a captured surface deserves: each list whose capability the server
/// advertises and which it then answered with "method not found" (-32601). Such a list is
/// not served (the server said so), but the server contradicts itself.
pub fn warnings(surface: &Surface) -> Vec<String> {
    surface
        .contradictions()
        .into_iter()
        .map(|kind| {
            format!(
                "the server advertises the `{}` capability but answered `{}` with \"method not found\"; recorded as not served",
                kind.capability(),
                kind.method()
            )
        })
        .collect()
}

/// Captures the surface and refuses anything untrustworthy: an unreachable server, a liar, a
/// server that did not describe itself, a list whose pagination never ends or loops, or an
/// ambiguous surface.
pub async fn capture_trusted(
    conn: &Connection,
    options: &SnapshotOptions,
) -> Result<TrustedCapture, SnapshotError> {
    let capture_options = match options.form {
        Form::McpSurface1 => CaptureOptions::mcp_surface(),
        _ => CaptureOptions {
            page_cap: options.page_cap,
            ..CaptureOptions::default()
        },
    };
    let capture = capture_surface(conn, &capture_options).await;
    if capture.unreachable() {
        let reason = capture
            .first_transport_error()
            .unwrap_or_else(|| "no exchange was answered".to_owned());
        return Err(SnapshotError::Unreachable(reason));
    }
    let Capture { raw, mut exchanges } = capture;
    let sanity = sanity_check(conn, raw.era).await;
    let liar = sanity.is_liar();
    exchanges.push(sanity.exchange);
    if liar {
        return Err(SnapshotError::Liar {
            method: mcpseal_client::SanityCheck::METHOD.to_owned(),
        });
    }
    if raw.server.is_none() {
        return Err(SnapshotError::NoServer(
            raw.server_failure
                .clone()
                .unwrap_or_else(|| "no result".to_owned()),
        ));
    }
    let surface = Surface::from_capture(&raw)?;
    if options.form == Form::McpSeal1
        && let Some((kind, gap)) = surface.failed().into_iter().next()
    {
        return Err(SnapshotError::Untrustworthy {
            list: kind.method().to_owned(),
            reason: gap.message.clone(),
            cause: gap.cause(),
        });
    }
    Ok(TrustedCapture {
        surface,
        raw,
        exchanges,
    })
}

/// Captures, checks and fingerprints a surface; also returns the raw capture.
pub async fn snapshot(
    conn: &Connection,
    options: &SnapshotOptions,
) -> Result<(Snapshot, RawCapture), SnapshotError> {
    let trusted = capture_trusted(conn, options).await?;
    Ok((Snapshot::of(&trusted.surface, options.form), trusted.raw))
}
