use super::*;
use serde_json::json;

fn checks(problems: &[Problem]) -> Vec<(Check, Level)> {
    problems.iter().map(|p| (p.check, p.level)).collect()
}

fn weather() -> Value {
    json!({"name": "weather", "inputSchema": {"type": "object"}, "outputSchema": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
        "required": ["city", "celsius"],
        "additionalProperties": false
    }})
}

fn good(era: Era) -> Value {
    let sc = json!({"city": "Lisbon", "celsius": 21.5});
    let mut r =
        json!({"content": [{"type": "text", "text": sc.to_string()}], "structuredContent": sc});
    if era == Era::Modern {
        r["resultType"] = json!("complete");
    }
    r
}

#[test]
fn a_conforming_result_is_accepted_in_both_eras() {
    for era in [Era::Modern, Era::Legacy] {
        let problems = tool_result(era, &good(era), Some(&weather()));
        assert!(problems.is_empty(), "{era}: {problems:?}");
        assert!(accepted(&problems));
    }
}

#[test]
fn result_type_is_required_and_closed_in_2026_only() {
    let mut r = good(Era::Modern);
    r.as_object_mut().map(|m| m.remove("resultType"));
    assert_eq!(
        checks(&tool_result(Era::Modern, &r, Some(&weather()))),
        vec![(Check::ResultType, Level::Error)]
    );
    assert!(tool_result(Era::Legacy, &good(Era::Legacy), Some(&weather())).is_empty());
    r["resultType"] = json!("task");
    let p = tool_result(Era::Modern, &r, Some(&weather()));
    assert_eq!(checks(&p), vec![(Check::ResultType, Level::Error)]);
    assert!(p[0].message.contains("`task`"), "{}", p[0].message);
}

#[test]
fn content_and_its_blocks_are_judged_precisely() {
    let r = json!({"resultType": "complete"});
    let p = tool_result(Era::Modern, &r, None);
    assert_eq!(checks(&p), vec![(Check::Content, Level::Error)]);
    assert_eq!(p[0].message, "the result has no `content` array");

    let r = json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}, {"type": "text"}, {"type": "video"}]});
    let p = tool_result(Era::Modern, &r, None);
    assert_eq!(
        checks(&p),
        vec![
            (Check::ContentBlock, Level::Error),
            (Check::ContentBlock, Level::Error)
        ]
    );
    assert!(p[0].message.starts_with("`content[1]`"), "{}", p[0].message);
    assert_eq!(p[0].violations[0].instance_path, "/content/1");
    assert_eq!(p[0].violations[0].missing_property.as_deref(), Some("text"));
    assert!(p[1].message.contains("`video`"), "{}", p[1].message);
}

#[test]
fn an_error_result_is_reported_and_exempt_from_the_contract() {
    let r = json!({"resultType": "complete", "content": [{"type": "text", "text": "no such city"}], "isError": true});
    let p = tool_result(Era::Modern, &r, Some(&weather()));
    assert_eq!(checks(&p), vec![(Check::ToolError, Level::Error)]);
    assert!(p[0].message.ends_with(": no such city"), "{}", p[0].message);
    let r = json!({"resultType": "complete", "content": [], "isError": "yes"});
    assert_eq!(
        checks(&tool_result(Era::Modern, &r, None)),
        vec![(Check::IsError, Level::Error)]
    );
}

#[test]
fn the_output_schema_is_the_contract() {
    let mut r = good(Era::Modern);
    r["structuredContent"] = json!({"city": "Lisbon", "celsius": "hot"});
    r["content"][0]["text"] = json!(r["structuredContent"].to_string());
    let p = tool_result(Era::Modern, &r, Some(&weather()));
    assert_eq!(checks(&p), vec![(Check::Structured, Level::Error)]);
    assert_eq!(p[0].violations[0].schema_path, "/properties/celsius/type");

    let mut r = good(Era::Modern);
    r.as_object_mut().map(|m| m.remove("structuredContent"));
    assert_eq!(
        checks(&tool_result(Era::Modern, &r, Some(&weather()))),
        vec![(Check::MissingStructured, Level::Error)]
    );

    let remote = json!({"name": "r", "inputSchema": {"type": "object"},
        "outputSchema": {"$ref": "https://example.com/out.json"}});
    let p = tool_result(Era::Modern, &good(Era::Modern), Some(&remote));
    assert_eq!(checks(&p), vec![(Check::OutputSchema, Level::Error)]);
    assert!(p[0].message.contains("never fetched"), "{}", p[0].message);
}

#[test]
fn the_text_mirror_is_a_warning() {
    let mut r = good(Era::Modern);
    r["content"] = json!([{"type": "text", "text": "It is warm"}]);
    let p = tool_result(Era::Modern, &r, Some(&weather()));
    assert_eq!(checks(&p), vec![(Check::TextMirror, Level::Warning)]);
    assert!(accepted(&p));
    r["content"] = json!([{"type": "text", "text": "{\"city\":\"Porto\",\"celsius\":21.5}"}]);
    let p = tool_result(Era::Modern, &r, Some(&weather()));
    assert!(p[0].message.contains("differs"), "{}", p[0].message);
    // Numbers compare by value: 21.5 and 2.15e1 are the same JSON number.
    r["content"] = json!([{"type": "text", "text": "{\"celsius\":2.15e1,\"city\":\"Lisbon\"}"}]);
    assert!(tool_result(Era::Modern, &r, Some(&weather())).is_empty());
}

#[test]
fn the_revision_schema_judges_the_rest() {
    // 2025-11-25 allows only an object as structuredContent; 2026 allows any value.
    let r = json!({"content": [], "structuredContent": "text"});
    let p = tool_result(Era::Legacy, &r, None);
    assert_eq!(
        checks(&p),
        vec![
            (Check::TextMirror, Level::Warning),
            (Check::Shape, Level::Error)
        ]
    );
    assert!(p[1].message.contains("CallToolResult"), "{}", p[1].message);
    let r = json!({"resultType": "complete", "content": [], "structuredContent": "text"});
    assert_eq!(
        checks(&tool_result(Era::Modern, &r, None)),
        vec![(Check::TextMirror, Level::Warning)]
    );
    let p = prompt_result(Era::Modern, &json!({"resultType": "complete"}));
    assert_eq!(checks(&p), vec![(Check::Shape, Level::Error)]);
    let ok = json!({"resultType": "complete", "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]});
    assert!(prompt_result(Era::Modern, &ok).is_empty());
}

#[test]
fn input_required_results_are_judged_by_their_rules_and_definition() {
    let ok = json!({"resultType": "input_required", "inputRequests": {"a": {"method": "elicitation/create", "params": {"mode": "form", "message": "?", "requestedSchema": {"type": "object", "properties": {}}}}}, "requestState": "s"});
    assert!(tool_result(Era::Modern, &ok, None).is_empty());
    assert!(
        tool_result(
            Era::Modern,
            &json!({"resultType": "input_required", "requestState": "s"}),
            None
        )
        .is_empty()
    );
    let p = tool_result(Era::Modern, &json!({"resultType": "input_required"}), None);
    assert_eq!(checks(&p), vec![(Check::InputRequired, Level::Error)]);
    let bad = json!({"resultType": "input_required", "inputRequests": {"a": {"method": "tools/call", "params": {}}}, "requestState": 7});
    assert_eq!(
        checks(&tool_result(Era::Modern, &bad, None)),
        vec![
            (Check::InputRequired, Level::Error),
            (Check::InputRequired, Level::Error)
        ]
    );
    // Well formed by the rules, but the elicitation has no `message`: the definition says so.
    let thin = json!({"resultType": "input_required", "inputRequests": {"a": {"method": "elicitation/create", "params": {"requestedSchema": {"type": "object", "properties": {}}}}}});
    let p = tool_result(Era::Modern, &thin, None);
    assert_eq!(checks(&p), vec![(Check::Shape, Level::Error)]);
    assert!(
        p[0].violations
            .iter()
            .all(|v| v.instance_path.starts_with("/inputRequests/a")),
        "{:?}",
        p[0].violations
    );
    assert_eq!(answer_definition("roots/list"), Some("ListRootsResult"));
}

#[test]
fn a_listed_definition_is_judged_by_the_revision() {
    // 2025-11-25 requires an object root for `outputSchema`; 2026-07-28 allows any schema.
    let tool = json!({"name": "t", "inputSchema": {"type": "object"}, "outputSchema": {"anyOf": [{"type": "object"}]}});
    let p = listed(Era::Legacy, "Tool", &tool);
    assert_eq!(checks(&p), vec![(Check::Definition, Level::Error)]);
    assert!(p[0].message.contains("/outputSchema"), "{}", p[0].message);
    assert!(listed(Era::Modern, "Tool", &tool).is_empty());
    assert!(listed(Era::Legacy, "Tool", &weather()).is_empty());
}
