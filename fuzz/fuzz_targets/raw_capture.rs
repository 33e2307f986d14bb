//! `Surface::from_slice` on arbitrary bytes; on success, both canonical forms and fingerprints,
//! and canonicalisation is idempotent (JCS of the parsed canonical bytes gives the same bytes)
//! and agrees with `canonical_value`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_surface::{Form, Surface, jcs};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
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
