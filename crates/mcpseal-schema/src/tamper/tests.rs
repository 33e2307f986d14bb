use super::*;
use serde_json::json;

fn tool(schema: Value) -> Value {
    json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": schema})
}

fn result(sc: Value) -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": sc.to_string()}], "structuredContent": sc})
}

fn strict() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2, "maxLength": 20, "pattern": "^[A-Z]"},
            "celsius": {"type": "number", "minimum": -90, "maximum": 60},
            "humidity": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 100, "multipleOf": 5},
            "conditions": {"type": "string", "enum": ["sunny", "rain"]},
            "alert": {"type": ["string", "null"]},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3},
            "unit": {"const": "C"}
        },
        "required": ["city", "celsius", "conditions", "alert"],
        "additionalProperties": false
    })
}

fn real() -> Value {
    json!({"city": "Lisbon", "celsius": 21.5, "humidity": 55, "conditions": "sunny",
        "alert": null, "tags": ["coast"], "unit": "C"})
}

fn kinds(ts: &[Tampering]) -> Vec<(TamperKind, &str)> {
    ts.iter().map(|t| (t.kind, t.field.as_str())).collect()
}

#[test]
fn every_tampering_the_schema_promises_is_derived_and_rejected() {
    let schema = strict();
    let r = result(real());
    let ts = tamperings(&schema, &r);
    let got = kinds(&ts);
    for want in [
        (TamperKind::NoStructuredContent, ""),
        (TamperKind::WrongType, ""),
        (TamperKind::RequiredRemoved, "/city"),
        (TamperKind::RequiredRemoved, "/alert"),
        (TamperKind::ExtraProperty, "/mcpsealUnexpected"),
        (TamperKind::WrongType, "/alert"),
        (TamperKind::WrongType, "/humidity"),
        (TamperKind::TooShort, "/city"),
        (TamperKind::TooLong, "/city"),
        (TamperKind::PatternMismatch, "/city"),
        (TamperKind::BelowMinimum, "/celsius"),
        (TamperKind::AboveMaximum, "/celsius"),
        (TamperKind::AtExclusiveMinimum, "/humidity"),
        (TamperKind::AtExclusiveMaximum, "/humidity"),
        (TamperKind::NotMultipleOf, "/humidity"),
        (TamperKind::OutOfEnum, "/conditions"),
        (TamperKind::NotConst, "/unit"),
        (TamperKind::TooFewItems, "/tags"),
        (TamperKind::TooManyItems, "/tags"),
        (TamperKind::WrongType, "/tags/0"),
    ] {
        assert!(got.contains(&want), "missing {want:?} in {got:?}");
    }
    assert_eq!(ts[0].kind, TamperKind::NoStructuredContent);
    let alert = ts
        .iter()
        .find(|t| t.kind == TamperKind::WrongType && t.field == "/alert")
        .map(|t| t.patch.clone());
    assert_eq!(
        alert,
        Some(vec![PatchOp::Replace {
            path: "/structuredContent/alert".into(),
            value: json!(0)
        }]),
        "a nullable type gets a non-null wrong type"
    );
    let t = tool(schema);
    assert!(judge::tool_result(Era::Modern, &r, Some(&t)).is_empty());
    for tampering in &ts {
        let c = control(Era::Modern, &r, Some(&t), tampering).expect("the patch applies");
        assert!(
            !c.is_trap(),
            "{} passed: {tampering:?}",
            tampering.description
        );
        // Each copy is rejected by the keyword it targets, and (but for a wrong type, which
        // is outside an `enum` or `const` too) by nothing else, so its rejection is proof about
        // that keyword: a pattern tampering that also broke `minLength` would be rejected by a
        // schema whose pattern admits anything.
        if tampering.kind != TamperKind::NoStructuredContent {
            let paths: Vec<&str> = c
                .rejected_by
                .iter()
                .flat_map(|p| &p.violations)
                .map(|v| v.schema_path.as_str())
                .collect();
            assert!(
                paths.contains(&tampering.schema_path.as_str()),
                "{}: {paths:?}",
                tampering.description
            );
            if tampering.kind != TamperKind::WrongType {
                assert_eq!(paths.len(), 1, "{}: {paths:?}", tampering.description);
            }
            assert!(tampering.note.is_none(), "{tampering:?}");
        }
    }
}

#[test]
fn a_pattern_that_no_string_within_the_lengths_breaks_says_so() {
    // Every one-character string matches `^.$`: the only strings it refuses break the lengths
    // too, so the tampering is made (the author wrote the pattern) and says its rejection may
    // come from the length.
    let schema = json!({"type": "object",
        "properties": {"c": {"type": "string", "minLength": 1, "maxLength": 1, "pattern": "^.$"}},
        "required": ["c"]});
    let r = result(json!({"c": "x"}));
    let ts = tamperings(&schema, &r);
    let t = ts
        .iter()
        .find(|t| t.kind == TamperKind::PatternMismatch)
        .cloned()
        .expect("a pattern tampering");
    assert!(
        t.note.as_deref().is_some_and(|n| n.contains("minLength")),
        "{t:?}"
    );
}

#[test]
fn the_same_validator_judges_the_real_result_and_the_tampered_ones() {
    let t = tool(strict());
    let a = judge::output_validator(Some(&t)).and_then(Result::ok);
    let b = judge::output_validator(Some(&t)).and_then(Result::ok);
    assert!(matches!((a, b), (Some(a), Some(b)) if std::sync::Arc::ptr_eq(&a, &b)));
}

#[test]
fn a_branch_that_admits_anything_is_a_trap() {
    let schema = json!({
        "anyOf": [{"$ref": "#/$defs/Report"}, {"type": "object", "additionalProperties": true}],
        "$defs": {"Report": {"type": "object",
            "properties": {"status": {"type": "string", "enum": ["ok", "failed"]}, "count": {"type": "integer", "minimum": 0}},
            "required": ["status", "count"], "additionalProperties": false}}
    });
    let r = result(json!({"status": "ok", "count": 3}));
    let t = tool(schema.clone());
    let controls: Vec<Control> = tamperings(&schema, &r)
        .iter()
        .filter_map(|x| control(Era::Modern, &r, Some(&t), x))
        .collect();
    let traps: Vec<(TamperKind, &str, &str)> = controls
        .iter()
        .filter(|c| c.is_trap())
        .map(|c| {
            (
                c.tampering.kind,
                c.tampering.field.as_str(),
                c.tampering.schema_path.as_str(),
            )
        })
        .collect();
    assert!(
        traps.contains(&(
            TamperKind::RequiredRemoved,
            "/status",
            "/$defs/Report/required"
        )),
        "{traps:?}"
    );
    assert!(
        traps.contains(&(
            TamperKind::OutOfEnum,
            "/status",
            "/$defs/Report/properties/status/enum"
        )),
        "{traps:?}"
    );
    assert!(
        traps.contains(&(
            TamperKind::BelowMinimum,
            "/count",
            "/$defs/Report/properties/count/minimum"
        )),
        "{traps:?}"
    );
    assert!(
        traps.contains(&(
            TamperKind::ExtraProperty,
            "/mcpsealUnexpected",
            "/$defs/Report/additionalProperties"
        )),
        "{traps:?}"
    );
    // Removing structuredContent is still caught: the tool declares a schema.
    assert!(!controls[0].is_trap());
    assert_eq!(controls[0].tampering.kind, TamperKind::NoStructuredContent);
}

#[test]
fn a_keyword_beside_ref_in_draft_7_is_a_trap_with_a_note() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "definitions": {"Temp": {"type": "number"}},
        "properties": {"celsius": {"$ref": "#/definitions/Temp", "maximum": 60}},
        "required": ["celsius"]
    });
    let r = result(json!({"celsius": 21}));
    let t = tool(schema.clone());
    let ts = tamperings(&schema, &r);
    let above = ts
        .iter()
        .find(|x| x.kind == TamperKind::AboveMaximum)
        .expect("the sibling `maximum` is read");
    assert_eq!(above.schema_path, "/properties/celsius/maximum");
    assert!(
        above
            .note
            .as_deref()
            .is_some_and(|n| n.contains("beside `$ref`"))
    );
    let c = control(Era::Modern, &r, Some(&t), above).expect("applies");
    assert!(c.is_trap());
    // The same keyword in 2020-12 is applied.
    let mut modern = schema.clone();
    modern["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    let t = tool(modern.clone());
    let above = tamperings(&modern, &r)
        .into_iter()
        .find(|x| x.kind == TamperKind::AboveMaximum)
        .expect("derived");
    assert!(above.note.is_none());
    assert!(
        !control(Era::Modern, &r, Some(&t), &above)
            .expect("applies")
            .is_trap()
    );
}

#[test]
fn draft_4_boolean_exclusive_bounds_are_tampered_at_the_bound() {
    let schema = json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
        "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}});
    let r = result(json!({"n": 4}));
    let t = tool(schema.clone());
    let ts = tamperings(&schema, &r);
    let at = ts
        .iter()
        .find(|x| x.kind == TamperKind::AtExclusiveMinimum)
        .expect("derived");
    assert_eq!(
        at.patch,
        vec![PatchOp::Replace {
            path: "/structuredContent/n".into(),
            value: json!(0)
        }]
    );
    assert!(
        !control(Era::Modern, &r, Some(&t), at)
            .expect("applies")
            .is_trap()
    );
}

#[test]
fn nothing_to_tamper_without_structured_content_and_the_walk_is_bounded() {
    assert!(tamperings(&strict(), &json!({"content": []})).is_empty());
    // A deep, wide schema does not make the walk run away.
    let mut schema = json!({"type": "object"});
    let mut value = json!({});
    for _ in 0..40 {
        schema = json!({"type": "object", "properties": {"x": schema}, "required": ["x"]});
        value = json!({"x": value});
    }
    let ts = tamperings(&schema, &result(value));
    assert!(ts.len() <= MAX_TAMPERINGS);
    assert!(
        ts.iter()
            .all(|t| t.field.matches('/').count() <= MAX_DEPTH + 1)
    );
}
