//! Result types and multi round-trip requests (MRTR, 2026-07-28): the words and the one retry.
//!
//! Every 2026 result says what it is in `resultType`: `complete`, or `input_required` when the
//! server needs something from the client first (a form filled, a model sampled, the roots
//! listed). Only `tools/call`, `prompts/get` and `resources/read` may ask. The client answers by
//! sending the *same* request again, with a new JSON-RPC id, `inputResponses` keyed like the
//! server's `inputRequests`, and the server's `requestState` echoed verbatim (omitted when the
//! server gave none). A 2025-11-25 server asks the same three things as server-to-client
//! JSON-RPC requests in the middle of the call instead.

use serde_json::{Map, Value};

use crate::method;

/// The result member naming what a 2026 result is.
pub const RESULT_TYPE: &str = "resultType";
/// `resultType` of a finished result.
pub const COMPLETE: &str = "complete";
/// `resultType` of a result asking the client for input first.
pub const INPUT_REQUIRED: &str = "input_required";
/// The map of `{method, params}` requests an `input_required` result carries.
pub const INPUT_REQUESTS: &str = "inputRequests";
/// The map of answers a retry carries, keyed like `inputRequests`.
pub const INPUT_RESPONSES: &str = "inputResponses";
/// The opaque state a retry echoes verbatim.
pub const REQUEST_STATE: &str = "requestState";

/// The methods an input request may name (and the matching client capability key).
pub const INPUT_METHODS: &[(&str, &str)] = &[
    (method::ELICITATION_CREATE, "elicitation"),
    (method::SAMPLING_CREATE_MESSAGE, "sampling"),
    (method::ROOTS_LIST, "roots"),
];

/// The requests that may come back `input_required`.
pub const MRTR_METHODS: &[&str] = &[
    method::TOOLS_CALL,
    method::PROMPTS_GET,
    method::RESOURCES_READ,
];

/// Whether `method` may be named by an input request (2026) or sent mid-call (2025).
pub fn is_input_method(method: &str) -> bool {
    INPUT_METHODS.iter().any(|(m, _)| *m == method)
}

/// The client capability that lets a server ask for `method` (`elicitation`, `sampling`,
/// `roots`), or `None` for a method no capability allows.
pub fn capability_of(method: &str) -> Option<&'static str> {
    INPUT_METHODS
        .iter()
        .find(|(m, _)| *m == method)
        .map(|(_, c)| *c)
}

/// What a result says it is: its `resultType` string (`None` when absent or not a string).
pub fn result_type(result: &Value) -> Option<&str> {
    result.get(RESULT_TYPE).and_then(Value::as_str)
}

/// True for a 2026 `input_required` result.
pub fn is_input_required(result: &Value) -> bool {
    result_type(result) == Some(INPUT_REQUIRED)
}

/// The params of the retry of a request whose params were `original`: the same params (without
/// any earlier `inputResponses`/`requestState`), plus `responses` (omitted when empty) and
/// `state` echoed verbatim (omitted when the server gave none).
pub fn retry_params(
    original: &Map<String, Value>,
    responses: Map<String, Value>,
    state: Option<&Value>,
) -> Map<String, Value> {
    let mut params = original.clone();
    params.remove(INPUT_RESPONSES);
    params.remove(REQUEST_STATE);
    if !responses.is_empty() {
        params.insert(INPUT_RESPONSES.into(), Value::Object(responses));
    }
    if let Some(s) = state {
        params.insert(REQUEST_STATE.into(), s.clone());
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_retry_keeps_the_params_and_echoes_the_state() {
        let original = json!({"name": "t", "arguments": {"a": 1}, "requestState": "old"});
        let original = original.as_object().cloned().unwrap_or_default();
        let mut answers = Map::new();
        answers.insert("k".into(), json!({"action": "accept"}));
        let p = retry_params(&original, answers, Some(&json!("s1")));
        assert_eq!(
            Value::Object(p),
            json!({"name": "t", "arguments": {"a": 1},
                "inputResponses": {"k": {"action": "accept"}}, "requestState": "s1"})
        );
        let p = retry_params(&original, Map::new(), None);
        assert_eq!(
            Value::Object(p),
            json!({"name": "t", "arguments": {"a": 1}})
        );
    }

    #[test]
    fn input_methods_and_their_capabilities() {
        assert!(is_input_method("elicitation/create"));
        assert!(!is_input_method("tools/call"));
        assert_eq!(capability_of("roots/list"), Some("roots"));
        assert_eq!(capability_of("ping"), None);
        assert!(is_input_required(&json!({"resultType": "input_required"})));
        assert!(!is_input_required(&json!({"resultType": "complete"})));
    }
}
