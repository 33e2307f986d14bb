//! The committed schemas of the publishing documents are the ones the types generate.

use std::path::Path;

#[test]
fn committed_publish_schemas_are_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    for (name, schema) in mcpseal::publish::schemas() {
        let mut want = serde_json::to_string_pretty(&schema).expect("serialises");
        want.push('\n');
        let have = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(
            have == want,
            "schemas/{name} is stale: run `cargo run -p mcpseal --example publish-schemas`"
        );
        // Each schema compiles.
        jsonschema::validator_for(&schema).expect("compiles");
    }
}
