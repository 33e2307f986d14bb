//! `mcpseal snapshot`: capture a surface, refuse anything untrustworthy, fingerprint it.

use std::path::{Path, PathBuf};

use mcpseal_client::{
    Capture, CaptureOptions, Connection, Exchange, Options, Target, capture_surface, sanity_check,
};
use mcpseal_report::{ErrorBody, ErrorKind};
use mcpseal_surface::{FailureCause, Form, RawCapture, Surface, SurfaceError};
use thiserror::Error;

use crate::connect::OpenError;
use crate::described::Described;

pub use mcpseal_report::Snapshot;

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

    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SnapshotError::Unreachable(_) => ErrorKind::Unreachable,
            _ => ErrorKind::Untrustworthy,
        }
    }

    /// An unreachable server's reason with its last stderr line added (the clearest word on
    /// why a stdio server went away); other errors unchanged. Call it after the connection is
    /// closed, when every line has arrived.
    pub fn with_server_stderr(self, diagnostics: &[String]) -> SnapshotError {
        match self {
            SnapshotError::Unreachable(reason) => {
                match diagnostics.iter().rev().find(|l| l.starts_with("[stderr]")) {
                    Some(last) => SnapshotError::Unreachable(format!("{reason}\n  {last}")),
                    None => SnapshotError::Unreachable(reason),
                }
            }
            other => other,
        }
    }
}

impl Described for SnapshotError {
    fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint().to_owned()),
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

/// Captures the surface and refuses anything untrustworthy: an unreachable server, a liar, a
/// server that did not describe itself, a list whose pagination never ends or loops, or an
/// ambiguous surface.
pub async fn capture_trusted(
    conn: &Connection,
    options: &SnapshotOptions,
) -> Result<TrustedCapture, SnapshotError> {
    capture_checked(conn, options, Checked::default()).await
}

/// How [`capture_checked`] reads.
#[derive(Debug, Clone, Copy, Default)]
struct Checked {
    /// Keep a list refused with 401/403 as a failed list.
    allow_refused: bool,
    /// Keep large pages as the server's bytes
    /// ([`CaptureOptions::verbatim_pages`](mcpseal_client::CaptureOptions)): only for callers
    /// that normalise the capture before they write it ([`run`]).
    verbatim: bool,
}

/// [`capture_trusted`]; with `allow_refused`, a list refused with 401/403 is kept as a failed
/// list (what a stranger sees) instead of failing the capture. Every other gap still fails.
async fn capture_checked(
    conn: &Connection,
    options: &SnapshotOptions,
    checked: Checked,
) -> Result<TrustedCapture, SnapshotError> {
    let allow_refused = checked.allow_refused;
    let capture_options = match options.form {
        Form::McpSurface1 => CaptureOptions::mcp_surface(),
        _ => CaptureOptions {
            page_cap: options.page_cap,
            past_refusals: allow_refused,
            verbatim_pages: checked.verbatim,
            ..CaptureOptions::default()
        },
    };
    crate::progress::waiting("capturing the surface (tools, prompts, resources, templates)");
    let capture = capture_surface(conn, &capture_options).await;
    if capture.unreachable() {
        let reason = capture
            .first_transport_error()
            .unwrap_or_else(|| "no exchange was answered".to_owned());
        return Err(SnapshotError::Unreachable(reason));
    }
    let Capture { raw, mut exchanges } = capture;
    crate::progress::waiting("checking that the server can say no");
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
        && let Some((kind, gap)) = surface
            .failed()
            .into_iter()
            .find(|(_, gap)| !(allow_refused && gap.cause() == Some(FailureCause::Unauthorized)))
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

/// What [`run`]'s document needs beyond [`snapshot`]'s.
#[derive(Debug, Clone, Copy)]
struct Doc {
    /// Read pages verbatim ([`Checked::verbatim`]); `run` normalises before writing.
    verbatim: bool,
    /// Fill in the canonical surface object (`surface`); without it the document's `surface`
    /// is `null` (text output never shows it, and for a large surface its value tree is the
    /// largest thing a snapshot would hold).
    surface: bool,
}

impl Doc {
    fn of(&self, surface: Surface, form: Form) -> Snapshot {
        if self.surface {
            // The surface itself, not its value tree: written item by item, the same bytes.
            Snapshot::of_shared(std::sync::Arc::new(surface), form)
        } else {
            Snapshot::without_surface(&surface, form)
        }
    }
}

/// Why `mcpseal snapshot` has no document (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum SnapshotRunError {
    /// The server could not be contacted.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// No trustworthy surface.
    #[error("no trustworthy surface: {0}")]
    Capture(#[from] SnapshotError),
    /// The anonymous measurement failed (fail closed: no answer is no refusal).
    #[error("{0}")]
    Anonymous(#[from] crate::anonymous::MeasureError),
    /// The raw capture could not be written.
    #[error("could not write `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl SnapshotRunError {
    /// What to do.
    pub fn hint(&self) -> &'static str {
        match self {
            SnapshotRunError::Open(e) => e.hint(),
            SnapshotRunError::Capture(e) => e.hint(),
            SnapshotRunError::Anonymous(e) => e.hint(),
            SnapshotRunError::Write { .. } => "check the path and its permissions",
        }
    }

    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SnapshotRunError::Open(e) => e.kind(),
            SnapshotRunError::Capture(e) => e.kind(),
            SnapshotRunError::Anonymous(e) => e.kind(),
            SnapshotRunError::Write { .. } => ErrorKind::Write,
        }
    }
}

impl Described for SnapshotRunError {
    fn body(&self) -> ErrorBody {
        ErrorBody {
            kind: self.kind(),
            message: self.to_string(),
            hint: Some(self.hint().to_owned()),
        }
    }
}

/// [`snapshot`], plus the anonymous-access measurement in the document (`anonymous`).
///
/// # Errors
/// [`SnapshotRunError::Capture`] or [`SnapshotRunError::Anonymous`] (fail closed).
pub async fn snapshot_with_anonymous(
    conn: &Connection,
    options: &SnapshotOptions,
    anonymous: &crate::anonymous::AnonymousOptions,
) -> Result<(Snapshot, RawCapture), SnapshotRunError> {
    with_anonymous(conn, options, anonymous, FULL).await
}

/// [`snapshot`] and [`snapshot_with_anonymous`]'s document.
const FULL: Doc = Doc {
    verbatim: false,
    surface: true,
};

async fn with_anonymous(
    conn: &Connection,
    options: &SnapshotOptions,
    anonymous: &crate::anonymous::AnonymousOptions,
    doc: Doc,
) -> Result<(Snapshot, RawCapture), SnapshotRunError> {
    let checked = Checked {
        allow_refused: false,
        verbatim: doc.verbatim,
    };
    let trusted = capture_checked(conn, options, checked).await?;
    let measured = crate::anonymous::measure(conn, &trusted, anonymous).await?;
    let mut document = doc.of(trusted.surface, options.form);
    document.anonymous = Some(measured);
    Ok((document, trusted.raw))
}

async fn plain(
    conn: &Connection,
    options: &SnapshotOptions,
    doc: Doc,
) -> Result<(Snapshot, RawCapture), SnapshotRunError> {
    let checked = Checked {
        allow_refused: false,
        verbatim: doc.verbatim,
    };
    let trusted = capture_checked(conn, options, checked).await?;
    Ok((doc.of(trusted.surface, options.form), trusted.raw))
}

/// `snapshot --anonymous-only`: what a stranger sees. `conn` is opened without any
/// credential ([`crate::anonymous::credential_free`]); the lists it answers are recorded as
/// usual, the ones refused with 401/403 are marked refused (`refused`, and `"refused"` in the
/// document's `surface`; never `null`, never "not served"); `sha256` is the hash of that
/// surface (not comparable with a credentialed fingerprint). Any other gap fails closed.
///
/// # Errors
/// [`SnapshotRunError::Capture`].
pub async fn snapshot_anonymous_only(
    conn: &Connection,
    options: &SnapshotOptions,
) -> Result<(Snapshot, RawCapture), SnapshotRunError> {
    let checked = Checked {
        allow_refused: true,
        verbatim: false,
    };
    let trusted = capture_checked(conn, options, checked).await?;
    let mut doc = Snapshot::of(&trusted.surface, options.form);
    doc.anonymous_only = true;
    for (kind, gap) in trusted.surface.failed() {
        let key = kind.key();
        let record = gap.record.as_ref();
        let status = record.and_then(|r| r.http_status).unwrap_or(401);
        doc.counts.remove(key);
        *doc.items.get_mut(kind) =
            mcpseal_report::ListItems::Refused(mcpseal_report::RefusedMark::Refused);
        if let Some(list) = doc.surface.value_mut().get_mut(key) {
            *list = serde_json::Value::String("refused".to_owned());
        }
        doc.refused.insert(
            key.to_owned(),
            mcpseal_report::RefusedList {
                status,
                code: record.and_then(|r| r.code),
                reason: format!("refused ({status}, needs a credential)"),
            },
        );
    }
    doc.sha256 = mcpseal_surface::sha256_hex(&mcpseal_surface::jcs(&doc.surface.value()));
    Ok((doc, trusted.raw))
}

/// `mcpseal snapshot`: opens `target`, captures and fingerprints its surface (and with
/// `anonymous`, measures anonymous access when [`crate::anonymous::wanted`]; `None` is
/// `--no-anonymous`, recorded as `anonymousSkipped`), closes, and when `save_capture` names a file,
/// writes the raw capture there (atomically, pretty JSON) before returning the document.
/// With `surface_object` false the document's `surface` is `null` (for text output, which never
/// shows it; `--anonymous-only` always fills it in).
///
/// Large list pages are kept as the bytes the server wrote, never parsed into a value tree
/// ([`CaptureOptions::verbatim_pages`](mcpseal_client::CaptureOptions)); the saved capture is
/// normalised first, so its bytes are what they always were.
///
/// # Errors
/// [`SnapshotRunError`]; nothing is written unless the surface is trustworthy.
pub async fn run(
    target: &Target,
    connect: Options,
    options: &SnapshotOptions,
    anonymous: Option<&crate::anonymous::AnonymousOptions>,
    save_capture: Option<&Path>,
    surface_object: bool,
) -> Result<Snapshot, SnapshotRunError> {
    let doc = Doc {
        verbatim: true,
        surface: surface_object,
    };
    let conn = crate::connect::open(target, connect).await?;
    let result = match anonymous {
        Some(a) if a.only => {
            let stranger = crate::anonymous::credential_free(&conn, a);
            conn.close().await;
            let conn = crate::connect::open(target, stranger).await?;
            let r = snapshot_anonymous_only(&conn, options).await;
            conn.close().await;
            r
        }
        Some(a) if crate::anonymous::wanted(&conn, a) => {
            with_anonymous(&conn, options, a, doc).await
        }
        _ => plain(&conn, options, doc).await,
    };
    conn.close().await;
    let (snapshot, mut raw) = result.map_err(|e| match e {
        SnapshotRunError::Capture(e) => {
            SnapshotRunError::Capture(e.with_server_stderr(&conn.diagnostics()))
        }
        other => other,
    })?;
    let mut snapshot = snapshot;
    snapshot.anonymous_skipped = anonymous.is_none();
    if snapshot.anonymous_only {
        // Nothing was measured: the whole document is the anonymous view.
        snapshot.anonymous_skipped = false;
    }
    if let Some(path) = save_capture {
        mcpseal_client::normalise_pages(&mut raw);
        let mut doc = serde_json::to_string_pretty(&raw).map_err(|e| SnapshotRunError::Write {
            path: path.to_owned(),
            source: std::io::Error::other(e),
        })?;
        doc.push('\n');
        crate::atomic::write_atomic(path, doc.as_bytes()).map_err(|source| {
            SnapshotRunError::Write {
                path: path.to_owned(),
                source,
            }
        })?;
    }
    Ok(snapshot)
}
