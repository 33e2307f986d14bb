//! `Surface::from_slice` on arbitrary bytes: the fast path (one pass, tape writer) and the
//! reference path (serde walk, `Value` per item) give the same surface whenever the fast path
//! accepts, and the fast path never accepts what the reference refuses (also through
//! `from_capture`). On success, both canonical forms and fingerprints: canonicalisation is
//! idempotent (JCS of the parsed canonical bytes gives the same bytes) and agrees with
//! `canonical_value`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_surface::differential::{
    fast_from_capture, fast_from_slice, reference_from_capture, reference_from_slice,
};
use mcpseal_surface::{Form, Surface, jcs, parse_capture};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let fast = fast_from_slice(data);
    let reference = reference_from_slice(data);
    match (&fast, &reference) {
        (Some(f), Ok(r)) => assert_eq!(f, r, "fast and reference surfaces differ"),
        (Some(_), Err(e)) => panic!("fast path accepted what the reference refuses: {e}"),
        _ => {}
    }
    if let Ok(raw) = parse_capture(data) {
        match (fast_from_capture(&raw), reference_from_capture(&raw)) {
            (Some(f), Ok(r)) => assert_eq!(f, r, "from_capture: fast and reference differ"),
            (Some(_), Err(e)) => panic!("from_capture: fast accepted a refusal: {e}"),
            _ => {}
        }
    }
    let Ok(surface) = Surface::from_slice(data) else {
        return;
    };
    for form in [Form::McpSeal1, Form::McpSurface1] {
        let bytes = surface.canonical_bytes(form);
        let fp = surface.fingerprint(form);
        assert_eq!(fp.sha256.len(), 64);
        let reparsed: Value =
            serde_json::from_slice(&bytes).expect("canonical bytes are valid JSON");
        assert_eq!(
            jcs(&reparsed),
            bytes,
            "canonical bytes are not a JCS fixed point"
        );
        // The documented link between the two views (not `Value` equality: the value keeps
        // `0.0` where the bytes say `0`, which reads back as an integer).
        assert_eq!(jcs(&surface.canonical_value(form)), bytes);
        assert_eq!(
            surface.fingerprint(form),
            fp,
            "fingerprint is not deterministic"
        );
    }
});
