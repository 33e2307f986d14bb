//! Differential test: 300 random captures (numbers from random bit patterns, strings with
//! controls, quotes, U+E000..U+FFFF and astral characters, random keys, duplicates, missing
//! identities, failures, malformed pages, both eras) must give the same bytes, hashes and
//! verdicts in Rust and in tools/fingerprint.py. Deterministic seed; one Python process. The
//! crate's unit tests (`surface::scan::tests`) run the same 300 captures through the fast path
//! and the reference path and require the same surfaces, so both paths agree with Python.

mod common;

use common::random::{Rng, capture};
use mcpseal_surface::{Form, Surface, SurfaceError};

#[test]
fn rust_and_python_agree_on_random_captures() {
    let mut rng = Rng(0x005e_ed0f_5ea1);
    let captures: Vec<String> = (0..300).map(|_| capture(&mut rng)).collect();
    let mut jobs: Vec<(Vec<&str>, &str)> = Vec::new();
    for c in &captures {
        jobs.push((vec!["--form", "mcpseal/1", "--canonical"], c.as_str()));
        jobs.push((vec!["--form", "mcp-surface/1", "--canonical"], c.as_str()));
        jobs.push((vec!["--items"], c.as_str()));
    }
    let got = common::python_batch(&jobs);
    let (mut accepted, mut refused) = (0, 0);
    for (i, c) in captures.iter().enumerate() {
        let py = &got[i * 3..i * 3 + 3];
        match Surface::from_slice(c.as_bytes()) {
            Ok(s) => {
                accepted += 1;
                for (j, form) in [Form::McpSeal1, Form::McpSurface1].into_iter().enumerate() {
                    assert_eq!(py[j].0, 0, "python refused what Rust accepted: {c}");
                    let rust = String::from_utf8(s.canonical_bytes(form)).expect("utf-8");
                    assert_eq!(py[j].1, rust, "{form} bytes differ for {c}");
                }
                let items: serde_json::Value =
                    serde_json::from_str(&py[2].1).expect("python items JSON");
                let fp = s.fingerprint(Form::McpSeal1);
                assert_eq!(items["sha256"], fp.sha256.as_str(), "{c}");
                assert_eq!(
                    items["items"],
                    serde_json::to_value(&fp.items).expect("items"),
                    "{c}"
                );
            }
            Err(
                e @ (SurfaceError::DuplicateIdentity { .. }
                | SurfaceError::MissingIdentity { .. }
                | SurfaceError::LoneSurrogate { .. }),
            ) => {
                refused += 1;
                assert_eq!(py[0].0, 1, "Rust refused ({e}), python did not: {c}");
            }
            Err(e) => panic!("unexpected error {e} for {c}"),
        }
    }
    // The generator must exercise both outcomes.
    assert!(
        accepted > 50 && refused > 50,
        "accepted {accepted}, refused {refused}"
    );
}
