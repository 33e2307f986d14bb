//! `examples/cohort.toml` (the workflow's cohort) is valid and holds the 25 real public
//! servers, every one a pinned package with its expected hash: npm ones with the tarball's SRI
//! integrity, PyPI ones with the wheel's `sha256:HEX`.

use mcpseal_index::cohort::{Install, parse};

#[test]
fn the_example_cohort_is_pinned() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/cohort.toml");
    let cohort = parse(&std::fs::read(path).expect("example")).expect("valid cohort");
    assert_eq!(cohort.targets.len(), 25);
    for t in &cohort.targets {
        let Install::Package(pin) = &t.install else {
            panic!("{t}: the example cohort holds packages only");
        };
        assert!(!pin.version.is_empty(), "{t}");
        let integrity = pin.integrity.as_deref().unwrap_or("");
        match t.install.kind() {
            "npm" => assert!(
                integrity.starts_with("sha512-") && integrity.len() == 95,
                "{t}: npm targets carry the tarball integrity"
            ),
            "pypi" => assert!(
                integrity
                    .strip_prefix("sha256:")
                    .is_some_and(|h| h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit())),
                "{t}: PyPI targets carry the wheel's SHA-256"
            ),
            other => panic!("{t}: {other} is not a public package registry"),
        }
    }
}
