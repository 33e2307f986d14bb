//! Witnesses: for a breaking change to a tool, a concrete `tools/call` request the old surface
//! accepts and the new one rejects, each side checked with the JSON Schema validator
//! (`mcpseal-schema`, offline). A witness is only reported when both checks hold, so a
//! witness is never a guess.

use mcpseal_report::replay::Witness;
use mcpseal_schema::{Options, compile};
use serde_json::{Map, Value, json};

/// Deepest schema nesting a sample is built for (deeper levels get `null`).
const MAX_SAMPLE_DEPTH: usize = 16;
/// Most candidate argument objects tried per tool.
const MAX_CANDIDATES: usize = 32;

fn tool<'a>(surface: &'a Value, name: &str) -> Option<&'a Value> {
    surface
        .get("tools")?
        .as_array()?
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
}

/// The tool names a list of change paths touches (`/tools/name=add/…` gives `add`).
fn tool_of(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("/tools/name=")?;
    Some(rest.split('/').next().unwrap_or(rest))
}

/// A value the schema accepts, built from its `const`, `enum`, `type`, `required` and bounds;
/// the validator has the last word.
fn sample(schema: &Value, depth: usize) -> Value {
    if depth > MAX_SAMPLE_DEPTH {
        return Value::Null;
    }
    let Some(s) = schema.as_object() else {
        return Value::Null;
    };
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(first) = s
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    if let Some(d) = s.get("default") {
        return d.clone();
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.first().and_then(Value::as_str).unwrap_or("null"),
        _ if s.contains_key("properties") => "object",
        _ => "null",
    };
    let bound = |k: &str| s.get(k).and_then(Value::as_f64);
    match ty {
        "string" => {
            let n = s
                .get("minLength")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(64);
            Value::from("a".repeat(usize::try_from(n).unwrap_or(0)))
        }
        "integer" => {
            let lo = bound("minimum").unwrap_or(0.0).ceil();
            json!(lo as i64)
        }
        "number" => json!(bound("minimum").unwrap_or(0.0)),
        "boolean" => Value::Bool(false),
        "array" => {
            let n = s
                .get("minItems")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                .min(8);
            let item = s.get("items").map_or(Value::Null, |i| sample(i, depth + 1));
            Value::Array(vec![item; usize::try_from(n).unwrap_or(0)])
        }
        "object" => {
            let mut m = Map::new();
            let props = s.get("properties").and_then(Value::as_object);
            for r in s
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                let v = props
                    .and_then(|p| p.get(r))
                    .map_or(Value::Null, |p| sample(p, depth + 1));
                m.insert(r.to_owned(), v);
            }
            Value::Object(m)
        }
        _ => Value::Null,
    }
}

/// Argument objects to try: the least the old schema accepts, then that plus each optional
/// property the old schema names.
fn candidates(old: &Value) -> Vec<Value> {
    let base = sample(old, 0);
    let mut out = vec![base.clone()];
    if let (Some(props), Value::Object(base)) =
        (old.get("properties").and_then(Value::as_object), &base)
    {
        for (k, p) in props {
            if out.len() >= MAX_CANDIDATES {
                break;
            }
            if !base.contains_key(k) {
                let mut m = base.clone();
                m.insert(k.clone(), sample(p, 1));
                out.push(Value::Object(m));
            }
        }
    }
    out
}

/// Witnesses for the breaking changes at `paths`, between the canonical surfaces `before` and
/// `after`: one per tool at most.
pub(crate) fn witnesses(
    before: &Value,
    after: &Value,
    paths: &[String],
    version: &str,
) -> Vec<Witness> {
    let mut names: Vec<&str> = paths.iter().filter_map(|p| tool_of(p)).collect();
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        let Some(old) = tool(before, name) else {
            continue;
        };
        let old_schema = old.get("inputSchema").cloned().unwrap_or_else(|| json!({}));
        let Ok(old_v) = compile(&old_schema, Options::default()) else {
            continue;
        };
        let new_v = match tool(after, name) {
            None => None,
            Some(new) => {
                let s = new.get("inputSchema").cloned().unwrap_or_else(|| json!({}));
                match compile(&s, Options::default()) {
                    Ok(v) => Some(v),
                    Err(_) => continue,
                }
            }
        };
        for args in candidates(&old_schema) {
            if !old_v.is_valid(&args) {
                continue;
            }
            let rejected = match &new_v {
                None => Some(format!("{version} has no tool `{name}`")),
                Some(v) => v.first_violations(&args, 1).first().map(|x| {
                    let at = if x.instance_path.is_empty() {
                        "the arguments".to_owned()
                    } else {
                        format!("`{}`", x.instance_path)
                    };
                    format!("{version}'s input schema rejects {at}: {}", x.message)
                }),
            };
            if let Some(rejected_because) = rejected {
                out.push(Witness {
                    tool: name.to_owned(),
                    request: json!({"name": name, "arguments": args}),
                    rejected_because,
                });
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn surface(tools: Value) -> Value {
        json!({"tools": tools})
    }

    #[test]
    fn a_new_required_parameter_has_a_witness() {
        let old = surface(json!([{"name": "add", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}]));
        let new = surface(json!([{"name": "add", "inputSchema": {"type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}, "c": {"type": "number"}},
            "required": ["a", "b", "c"]}}]));
        let w = witnesses(
            &old,
            &new,
            &["/tools/name=add/inputSchema/required".into()],
            "1.1.1",
        );
        assert_eq!(w.len(), 1);
        assert_eq!(
            w[0].request,
            json!({"name": "add", "arguments": {"a": 0.0, "b": 0.0}})
        );
        assert!(
            w[0].rejected_because
                .contains("\"c\" is a required property"),
            "{}",
            w[0].rejected_because
        );
    }

    #[test]
    fn a_removed_tool_has_a_witness_and_a_loosened_schema_none() {
        let old = surface(json!([{"name": "echo", "inputSchema": {"type": "object",
            "properties": {"text": {"type": "string"}}, "required": ["text"]}}]));
        let w = witnesses(
            &old,
            &surface(json!([])),
            &["/tools/name=echo".into()],
            "1.2.0",
        );
        assert_eq!(
            w[0].request,
            json!({"name": "echo", "arguments": {"text": ""}})
        );
        assert_eq!(w[0].rejected_because, "1.2.0 has no tool `echo`");
        // The new schema accepts everything the old one did: no witness is invented.
        let looser = surface(json!([{"name": "echo", "inputSchema": {"type": "object"}}]));
        assert!(witnesses(&old, &looser, &["/tools/name=echo/inputSchema".into()], "2").is_empty());
    }
}
