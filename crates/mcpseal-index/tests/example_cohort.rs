//! `examples/cohort.toml` (the workflow's cohort) is valid, and every target in it is a pinned
//! public package: npm ones with their tarball integrity.

use mcpseal_index::cohort::{Install, parse};

#[test]
fn the_example_cohort_is_pinned() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/cohort.toml");
    let cohort = parse(&std::fs::read(path).expect("example")).expect("valid cohort");
    assert!(!cohort.targets.is_empty());
    for t in &cohort.targets {
        let Install::Package(pin) = &t.install else {
            panic!("{t}: the example cohort holds packages only");
        };
        assert!(!pin.version.is_empty(), "{t}");
        if t.install.kind() == "npm" {
            assert!(
                pin.integrity
                    .as_deref()
                    .is_some_and(|i| i.starts_with("sha512-")),
                "{t}: npm targets carry the tarball integrity"
            );
        }
    }
}
