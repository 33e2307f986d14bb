//! `input_required` results (2026-07-28 multi round-trip requests).
//!
//! Such a result carries `inputRequests` — a map of `{method, params}` limited to
//! `elicitation/create`, `sampling/createMessage` and `roots/list` — and/or an opaque string
//! `requestState`, at least one of the two. A client cannot answer anything else.

use mcpseal_protocol::{Era, method, mrtr};
use serde_json::Value;

use super::{Check, MAX_VIOLATIONS, Problem};
use crate::violation::{Violation, cut};
use crate::wire;

/// Judges an `input_required` result of `method` in `era`: the rules above
/// ([`Check::InputRequired`]), then the official `InputRequiredResult` and `InputRequest`
/// definitions ([`Check::Shape`]).
pub fn input_required(era: Era, method: &str, result: &Value) -> Vec<Problem> {
    let mut out: Vec<Problem> = rules(result)
        .into_iter()
        .map(|m| Problem::error(Check::InputRequired, m))
        .collect();
    if era != Era::Modern || !mrtr::MRTR_METHODS.contains(&method) {
        return out;
    }
    let mut violations: Vec<Violation> = Vec::new();
    if let Ok(def) = wire::definition(era, "InputRequiredResult") {
        // Each request is judged below against its own method's definition, which says
        // more than "not valid under any of the schemas".
        let requests = format!("/{}/", mrtr::INPUT_REQUESTS);
        violations.extend(
            def.first_violations(result, 32)
                .into_iter()
                .filter(|v| !v.instance_path.starts_with(&requests)),
        );
    }
    if let (Ok(def), Some(Value::Object(map))) = (
        wire::definition(era, "InputRequest"),
        result.get(mrtr::INPUT_REQUESTS),
    ) {
        for (key, request) in map.iter().take(32) {
            // An unknown method is already said above; its params cannot be judged.
            let known = request
                .get("method")
                .and_then(Value::as_str)
                .is_some_and(mrtr::is_input_method);
            if !known {
                continue;
            }
            let Some(specific) = request_definition(request) else {
                continue;
            };
            if def.is_valid(request) {
                continue;
            }
            let Ok(specific) = wire::definition(era, specific) else {
                continue;
            };
            violations.extend(
                specific
                    .first_violations(request, MAX_VIOLATIONS)
                    .into_iter()
                    .map(|mut v| {
                        v.instance_path = format!(
                            "/{}/{}{}",
                            mrtr::INPUT_REQUESTS,
                            key.replace('~', "~0").replace('/', "~1"),
                            v.instance_path
                        );
                        v
                    }),
            );
        }
    }
    // What the rules above already said is not repeated.
    violations.retain(|v| {
        !(v.instance_path == format!("/{}", mrtr::REQUEST_STATE)
            || (v.instance_path == format!("/{}", mrtr::INPUT_REQUESTS) && v.keyword == "type"))
    });
    violations.truncate(MAX_VIOLATIONS);
    if !violations.is_empty() {
        let shown: Vec<String> = violations
            .iter()
            .take(3)
            .map(|v| format!("at `{}`: {}", v.instance_path, v.masked_message))
            .collect();
        out.push(
            Problem::error(
                Check::Shape,
                format!(
                    "the result is not a valid `InputRequiredResult` of {}: {}",
                    era.revision(),
                    shown.join("; ")
                ),
            )
            .with(violations),
        );
    }
    out
}

/// The definition an input request is judged against, by its method.
fn request_definition(request: &Value) -> Option<&'static str> {
    Some(match request.get("method").and_then(Value::as_str)? {
        method::ELICITATION_CREATE => "ElicitRequest",
        method::SAMPLING_CREATE_MESSAGE => "CreateMessageRequest",
        method::ROOTS_LIST => "ListRootsRequest",
        _ => return None,
    })
}

/// The definition an answer to an input request of `method` is judged against
/// (`ElicitResult`, `CreateMessageResult`, `ListRootsResult`).
pub fn answer_definition(method: &str) -> Option<&'static str> {
    Some(match method {
        method::ELICITATION_CREATE => "ElicitResult",
        method::SAMPLING_CREATE_MESSAGE => "CreateMessageResult",
        method::ROOTS_LIST => "ListRootsResult",
        _ => return None,
    })
}

/// The structural rules of an `input_required` result, as sentences.
fn rules(result: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let requests = result.get(mrtr::INPUT_REQUESTS);
    let state = result.get(mrtr::REQUEST_STATE);
    if requests.is_none() && state.is_none() {
        out.push(
            "an `input_required` result has neither `inputRequests` nor `requestState`".into(),
        );
    }
    if let Some(s) = state
        && !s.is_string()
    {
        out.push(format!(
            "`requestState` is {} instead of a string",
            cut(&s.to_string(), 60)
        ));
    }
    match requests {
        None => {}
        Some(Value::Object(map)) => {
            for (key, req) in map {
                let asked = req.get("method").and_then(Value::as_str);
                match asked {
                    Some(m) if mrtr::is_input_method(m) => {}
                    Some(m) => out.push(format!(
                        "`inputRequests.{key}` asks for `{m}`, which is not an input method"
                    )),
                    None => out.push(format!("`inputRequests.{key}` has no `method`")),
                }
                if asked == Some(method::ROOTS_LIST) {
                    if req.get("params").is_some_and(|p| !p.is_object()) {
                        out.push(format!("`inputRequests.{key}.params` is not an object"));
                    }
                } else if !req.get("params").is_some_and(Value::is_object) {
                    out.push(format!("`inputRequests.{key}` has no `params` object"));
                }
            }
        }
        Some(other) => out.push(format!(
            "`inputRequests` is {} instead of an object",
            cut(&other.to_string(), 60)
        )),
    }
    out
}
