//! The `prompts/get` request for a prompt a listing showed: the one way the probe rules and the
//! anonymous-access measurement ask for a prompt without knowing what its arguments mean.

use serde_json::{Map, Value, json};

/// `prompts/get` params for `prompt` (one item of a `prompts/list` result): its name and every
/// argument the listing marks `required: true`, each set to `fill`; optional arguments are left
/// out. `None` when the item has no string `name` (nothing could be asked for).
///
/// ```
/// use serde_json::json;
/// let prompt = json!({"name": "greet", "arguments": [
///     {"name": "who", "required": true}, {"name": "tone"}]});
/// assert_eq!(
///     mcpseal_protocol::prompt_get_params(&prompt, "x"),
///     Some(json!({"name": "greet", "arguments": {"who": "x"}}))
/// );
/// ```
pub fn prompt_get_params(prompt: &Value, fill: &str) -> Option<Value> {
    let name = prompt.get("name").and_then(Value::as_str)?;
    let mut arguments = Map::new();
    for a in prompt
        .get("arguments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if a.get("required").and_then(Value::as_bool) == Some(true)
            && let Some(n) = a.get("name").and_then(Value::as_str)
        {
            arguments.insert(n.to_owned(), Value::String(fill.to_owned()));
        }
    }
    Some(json!({"name": name, "arguments": arguments}))
}
