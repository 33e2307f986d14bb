//! RFC 8785 serialisation of any JSON value: valid JSON, equal value, idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_surface::jcs;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let once = jcs(&value);
    let back: Value = serde_json::from_slice(&once).expect("JCS output is valid JSON");
    let twice = jcs(&back);
    assert_eq!(once, twice, "jcs is not idempotent");
});
