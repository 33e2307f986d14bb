//! The official wire schemas compile one definition at a time, on first use. Alone in its test
//! binary: the count is per process, and no other test may compile definitions meanwhile.

use std::sync::Arc;

use mcpseal_protocol::Era;
use mcpseal_schema::CompileError;
use mcpseal_schema::wire::{ERROR_RESPONSE, compiled_definitions, definition};
use serde_json::json;

#[test]
fn definitions_compile_on_first_use_only_and_are_kept() {
    assert_eq!(compiled_definitions(Era::Modern), 0);
    assert_eq!(compiled_definitions(Era::Legacy), 0);
    let a = definition(Era::Modern, "DiscoverResult").expect("compiles");
    assert_eq!(compiled_definitions(Era::Modern), 1);
    assert_eq!(compiled_definitions(Era::Legacy), 0);
    let b = definition(Era::Modern, "DiscoverResult").expect("cached");
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(compiled_definitions(Era::Modern), 1);

    let good = json!({
        "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {"listChanged": true}},
        "ttlMs": 60000, "cacheScope": "public", "resultType": "complete"
    });
    assert!(a.violations(&good).is_empty(), "{:#?}", a.violations(&good));
    let mut bad = good.clone();
    bad["capabilities"]["tools"]["listChanged"] = json!("yes");
    let v = a.violations(&bad);
    assert!(
        v.iter()
            .any(|v| v.instance_path == "/capabilities/tools/listChanged" && v.keyword == "type"),
        "{v:#?}"
    );
    assert!(
        v.iter().all(|v| v.schema_path.starts_with("/$defs/")),
        "{v:#?}"
    );

    let err = definition(Era::Legacy, ERROR_RESPONSE).expect("compiles");
    assert!(
        err.is_valid(
            &json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}})
        )
    );
    assert!(
        !err.is_valid(&json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "x", "message": "no"}}))
    );
    assert_eq!(compiled_definitions(Era::Legacy), 1);

    assert_eq!(
        definition(Era::Legacy, "DiscoverResult").expect_err("2026 only"),
        CompileError::UnknownDefinition {
            name: "DiscoverResult".into(),
            revision: "2025-11-25"
        }
    );
    assert_eq!(compiled_definitions(Era::Legacy), 1);
}
