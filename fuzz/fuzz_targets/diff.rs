//! `diff` on two arbitrary JSON documents, both ways, and each against itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpseal_surface::diff::diff;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    // Two documents: split at the first NUL byte (JSON text never contains one raw).
    let Some(at) = data.iter().position(|&b| b == 0) else {
        return;
    };
    let (Ok(a), Ok(b)) = (
        serde_json::from_slice::<Value>(&data[..at]),
        serde_json::from_slice::<Value>(&data[at + 1..]),
    ) else {
        return;
    };
    let _ = diff(&a, &b);
    let _ = diff(&b, &a);
    let _ = diff(&a, &a);
});
