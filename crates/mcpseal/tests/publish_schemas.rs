//! The committed schemas (`schemas/`) are the ones the types generate, and each compiles.
//! `cargo xtask generate schemas` writes them.

use std::path::Path;

#[test]
fn committed_schemas_are_current_and_compile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    for (name, schema) in mcpseal::schemas::all() {
        let mut want = serde_json::to_string_pretty(&schema).expect("serialises");
        want.push('\n');
        let have = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(
            have == want,
            "schemas/{name} is stale\nhint: run `cargo xtask generate schemas`"
        );
        jsonschema::validator_for(&schema).expect("compiles");
    }
}
