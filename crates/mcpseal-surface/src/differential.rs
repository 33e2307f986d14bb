//! Not API: the fast paths and the reference paths side by side, so that the fuzz targets (crate
//! feature `differential`) and the unit tests can hold them to the same results. The public
//! constructors ([`Surface::from_slice`], [`Surface::from_capture`]) try the fast path and fall
//! back to the reference path; these functions run one path each.

use serde_json::Value;

use crate::{RawCapture, Surface, SurfaceError, jcs};

/// The canonical bytes of JSON text by the tape writer; `None` when it declines (invalid JSON,
/// or something it leaves to serde_json).
pub fn canonical_fast(json: &[u8]) -> Option<Vec<u8>> {
    crate::jcs::tape::canonical(json).ok()
}

/// The canonical bytes of JSON text by serde_json's `Value` and [`jcs`]; `None` when serde_json
/// refuses the text.
pub fn canonical_reference(json: &[u8]) -> Option<Vec<u8>> {
    serde_json::from_slice::<Value>(json).ok().map(|v| jcs(&v))
}

/// True when the fast reader accepts `json` as one valid JSON value (validation only).
pub fn validates_fast(json: &[u8]) -> bool {
    use crate::jcs::reader::{Reader, Validate};
    let mut r = Reader::new(json);
    r.value(&mut Validate).is_ok() && r.at_end()
}

/// [`Surface::from_slice`] by the fast path only; `None` when it declines.
pub fn fast_from_slice(bytes: &[u8]) -> Option<Surface> {
    Surface::fast_from_slice(bytes)
}

/// [`Surface::from_slice`] by the reference path only.
///
/// # Errors
/// As [`Surface::from_slice`].
pub fn reference_from_slice(bytes: &[u8]) -> Result<Surface, SurfaceError> {
    Surface::reference_from_slice(bytes)
}

/// [`Surface::from_capture`] by the fast path only; `None` when it declines.
pub fn fast_from_capture(capture: &RawCapture) -> Option<Surface> {
    Surface::fast_from_capture(capture)
}

/// [`Surface::from_capture`] by the reference path only.
///
/// # Errors
/// As [`Surface::from_capture`].
pub fn reference_from_capture(capture: &RawCapture) -> Result<Surface, SurfaceError> {
    Surface::reference_from_capture(capture)
}
