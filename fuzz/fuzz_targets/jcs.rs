//! RFC 8785 serialisation of any bytes: the tape writer (straight from the text, the hot path of
//! every surface item) and the `Value` writer agree byte for byte, the tape never accepts what
//! serde_json refuses, and the output is valid JSON and idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_surface::differential::{canonical_fast, canonical_reference, validates_fast};
use mcpseal_surface::jcs;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let fast = canonical_fast(data);
    assert_eq!(
        validates_fast(data),
        fast.is_some(),
        "validating reader and tape disagree"
    );
    let Some(once) = canonical_reference(data) else {
        assert!(fast.is_none(), "tape accepted what serde_json refuses");
        return;
    };
    if let Some(f) = &fast {
        assert_eq!(f, &once, "tape and Value writer differ");
    }
    let back: Value = serde_json::from_slice(&once).expect("JCS output is valid JSON");
    let twice = jcs(&back);
    assert_eq!(once, twice, "jcs is not idempotent");
    // The canonical bytes are themselves a fixed point of the tape writer.
    if let Some(again) = canonical_fast(&once) {
        assert_eq!(again, once, "tape is not idempotent");
    }
});
