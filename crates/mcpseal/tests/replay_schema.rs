//! The committed schema of the replay report is the one the types generate.

use std::path::Path;

#[test]
fn committed_replay_schema_is_current() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas");
    let (name, schema) = mcpseal::replay::schema();
    let mut want = serde_json::to_string_pretty(&schema).expect("serialises");
    want.push('\n');
    let have = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
    assert!(
        have == want,
        "schemas/{name} is stale: run `cargo xtask generate schemas`"
    );
    jsonschema::validator_for(&schema).expect("compiles");
}
