//! Compiling server-supplied schemas offline and validating against them, both ways.

use std::net::TcpListener;
use std::sync::Arc;

use mcpseal_schema::{CompileError, ControlOutcome, Dialect, Formats, Options, compile};
use serde_json::{Value, json};

fn ok(schema: &Value) -> Arc<mcpseal_schema::Schema> {
    compile(schema, Options::default()).unwrap_or_else(|e| panic!("{schema}: {e}"))
}

#[test]
fn violations_name_the_instance_path_the_schema_path_and_the_keyword() {
    let schema = json!({
        "type": "object",
        "properties": {
            "sum": {"type": "number"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/item"}}
        },
        "required": ["sum", "label"],
        "$defs": {"item": {"type": "object", "required": ["name"]}}
    });
    let s = ok(&schema);
    assert!(s.is_valid(&json!({"sum": 1, "label": "x", "items": [{"name": "a"}]})));
    assert!(s.violations(&json!({"sum": 1, "label": "x"})).is_empty());

    let v = s.violations(&json!({"sum": "3", "items": [{"name": "a"}, {}]}));
    let located: Vec<(&str, &str, &str)> = v
        .iter()
        .map(|v| {
            (
                v.instance_path.as_str(),
                v.schema_path.as_str(),
                v.keyword.as_str(),
            )
        })
        .collect();
    assert!(
        located.contains(&("/sum", "/properties/sum/type", "type")),
        "{located:?}"
    );
    assert!(
        located.contains(&("", "/required", "required")),
        "{located:?}"
    );
    // Through a `$ref`: the schema path is where the keyword is written, the evaluation path
    // how it was reached.
    let item = v
        .iter()
        .find(|v| v.instance_path == "/items/1")
        .expect("item error");
    assert_eq!(item.schema_path, "/$defs/item/required");
    assert!(
        item.evaluation_path.contains("$ref"),
        "{}",
        item.evaluation_path
    );
    assert_eq!(item.missing_property.as_deref(), Some("name"));
    let root = v
        .iter()
        .find(|v| v.keyword == "required" && v.instance_path.is_empty());
    assert_eq!(
        root.and_then(|v| v.missing_property.as_deref()),
        Some("label")
    );
    // Every error is reported, and the bounded form stops early.
    assert_eq!(v.len(), 3, "{v:#?}");
    assert_eq!(s.first_violations(&json!({"sum": "3"}), 1).len(), 1);
    assert!(v[0].to_string().starts_with("at `") || v[0].instance_path.is_empty());
    // The masked message never quotes the value.
    let secret = s.violations(&json!({"sum": "hunter2", "label": "x"}));
    assert!(secret[0].message.contains("hunter2"), "{secret:#?}");
    assert!(!secret[0].masked_message.contains("hunter2"), "{secret:#?}");
}

#[test]
fn long_messages_are_cut() {
    let s = ok(&json!({"type": "number"}));
    let huge = json!("x".repeat(100_000));
    let v = s.violations(&huge);
    assert_eq!(v.len(), 1);
    assert!(v[0].message.chars().count() <= mcpseal_schema::MAX_MESSAGE_CHARS + 1);
    assert!(v[0].message.ends_with('…'));
}

#[test]
fn negative_controls_tell_a_rejection_from_a_trap() {
    let strict = ok(&json!({"type": "object", "required": ["sum"],
        "properties": {"sum": {"type": "number"}}, "additionalProperties": false}));
    for tampered in [
        json!({}),
        json!({"sum": "1"}),
        json!({"sum": 1, "extra": true}),
    ] {
        match strict.negative_control(&tampered) {
            ControlOutcome::Rejected(v) => assert!(!v.is_empty()),
            ControlOutcome::Trap => panic!("{tampered} passed a strict schema"),
        }
    }
    // A schema that only says "object" accepts a result without its fields: a trap.
    let loose = ok(&json!({"type": "object", "properties": {"sum": {"type": "number"}}}));
    assert_eq!(loose.negative_control(&json!({})), ControlOutcome::Trap);
    assert_eq!(loose.negative_control(&json!({})).as_str(), "trap");
    assert_eq!(strict.negative_control(&json!({})).as_str(), "rejected");
}

#[test]
fn a_remote_ref_is_refused_and_nothing_is_fetched() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let url = format!("http://127.0.0.1:{port}/s.json");
    let err = compile(&json!({"$ref": url}), Options::default()).expect_err("remote");
    assert_eq!(err, CompileError::RemoteRef { target: url });
    assert!(err.is_unresolved_ref());
    assert!(
        err.to_string().contains("remote $ref not resolved"),
        "{err}"
    );
    // Relative to the schema's own `$id`: still another document.
    let relative =
        json!({"$id": format!("http://127.0.0.1:{port}/root.json"), "$ref": "other.json"});
    assert!(matches!(
        compile(&relative, Options::default()),
        Err(CompileError::RemoteRef { .. })
    ));
    // The classifier lets a meta-schema URI through; one that is not bundled reaches the
    // compiler's resolver, which refuses it too.
    let unbundled =
        json!({"$ref": "https://json-schema.org/draft/2020-12/meta/no-such-vocabulary"});
    match compile(&unbundled, Options::default()) {
        Err(CompileError::RemoteRef { target }) => assert!(target.contains("no-such-vocabulary")),
        other => panic!("{other:?}"),
    }
    assert!(
        listener.accept().is_err(),
        "mcpseal-schema opened a connection"
    );
}

#[test]
fn dangling_refs_unknown_dialects_and_non_schemas_are_refused() {
    assert_eq!(
        compile(&json!({"$ref": "#/$defs/missing"}), Options::default()).expect_err("dangling"),
        CompileError::DanglingRef {
            target: "#/$defs/missing".into()
        }
    );
    assert_eq!(
        compile(
            &json!({"$schema": "https://example.com/meta"}),
            Options::default()
        )
        .expect_err("custom meta-schema"),
        CompileError::UnknownDialect {
            uri: "https://example.com/meta".into()
        }
    );
    let not = compile(&json!("object"), Options::default()).expect_err("string");
    assert_eq!(not, CompileError::NotASchema { found: "a string" });
    let invalid = compile(&json!({"type": "objekt"}), Options::default()).expect_err("invalid");
    assert!(
        matches!(invalid, CompileError::Invalid { .. }),
        "{invalid:?}"
    );
    assert!(!invalid.is_unresolved_ref());
    // Boolean schemas are schemas.
    assert!(ok(&json!(true)).is_valid(&json!(1)));
    assert!(!ok(&json!(false)).is_valid(&json!(1)));
}

#[test]
fn the_declared_draft_decides_what_a_keyword_means() {
    // Draft 4: `exclusiveMaximum` is a boolean modifier of `maximum`.
    let draft4 = json!({"$schema": "http://json-schema.org/draft-04/schema#",
        "maximum": 5, "exclusiveMaximum": true});
    let s = ok(&draft4);
    assert_eq!(s.dialect(), Dialect::Draft4);
    assert!(!s.is_valid(&json!(5)) && s.is_valid(&json!(4)));
    // 2020-12 (the default): the same keyword must be a number, so the schema is invalid.
    let mut modern = draft4.clone();
    modern.as_object_mut().map(|m| m.remove("$schema"));
    assert!(matches!(
        compile(&modern, Options::default()),
        Err(CompileError::Invalid { .. })
    ));
    // 2020-12 `prefixItems` is honoured; draft 7 ignores it (unknown keyword).
    let tuple = json!({"prefixItems": [{"type": "string"}]});
    assert!(!ok(&tuple).is_valid(&json!([1])));
    let mut seven = tuple.clone();
    seven["$schema"] = json!("http://json-schema.org/draft-07/schema#");
    assert_eq!(ok(&seven).dialect(), Dialect::Draft7);
    assert!(ok(&seven).is_valid(&json!([1])));
}

#[test]
fn formats_are_annotations_unless_asserted() {
    for schema in [
        json!({"type": "string", "format": "email"}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "string", "format": "email"}),
    ] {
        let annotated = compile(&schema, Options::default()).expect("compiles");
        assert_eq!(annotated.formats(), Formats::Annotate);
        assert!(annotated.is_valid(&json!("not an address")), "{schema}");
        let asserted =
            compile(&schema, Options::default().formats(Formats::Assert)).expect("compiles");
        assert!(!asserted.is_valid(&json!("not an address")), "{schema}");
        assert!(asserted.is_valid(&json!("a@example.com")));
    }
}

#[test]
fn a_schema_is_compiled_once_per_process() {
    let schema = json!({"type": "object", "properties": {"cached": {"const": 1}}});
    let a = ok(&schema);
    let b = ok(&schema.clone());
    assert!(Arc::ptr_eq(&a, &b));
    // Other options are another validator.
    let c = compile(&schema, Options::default().formats(Formats::Assert)).expect("compiles");
    assert!(!Arc::ptr_eq(&a, &c));
    // Refusals are remembered too (and stay refusals).
    let bad = json!({"type": 7});
    assert_eq!(
        compile(&bad, Options::default()).err(),
        compile(&bad, Options::default()).err()
    );
    assert!(compile(&bad, Options::default()).is_err());
}
