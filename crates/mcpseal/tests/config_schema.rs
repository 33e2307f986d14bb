//! The committed config schema is the one the type generates, and it judges configs as the
//! parser does.

use std::path::Path;

#[test]
fn committed_config_schema_is_current() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schemas/mcpseal-config.schema.json");
    let schema = mcpseal::config::schema();
    let mut want = serde_json::to_string_pretty(&schema).expect("serialises");
    want.push('\n');
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "schemas/mcpseal-config.schema.json is stale: run `cargo xtask generate schemas`"
    );
    let validator = jsonschema::validator_for(&schema).expect("compiles");
    let good = serde_json::json!({
        "server": { "command": ["python3", "server.py"], "env": { "A": "1" } },
        "lock": "surface.lock.json",
        "fail-on": "warning",
        "skip": ["SEAL012"]
    });
    assert!(validator.is_valid(&good));
    assert!(
        mcpseal::config::parse_package_json(
            "package.json",
            &serde_json::json!({"mcpseal": good}).to_string()
        )
        .is_ok()
    );
    let bad = serde_json::json!({ "lokc": "x" });
    assert!(
        !validator.is_valid(&bad),
        "the schema refuses unknown keys as the parser does"
    );
    assert!(
        mcpseal::config::parse_package_json(
            "package.json",
            &serde_json::json!({"mcpseal": bad}).to_string()
        )
        .is_err()
    );
}
