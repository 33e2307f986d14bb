//! Opt-in tool calls (`--call NAME=JSON`): the only way the probe ever runs a tool.
//!
//! The probe never calls a tool on its own: a tool call can have side effects nobody asked
//! for. A user who names a tool and its arguments accepts that call; SEAL039 then judges the
//! result. Names are checked against the server's `tools/list` before anything is called, so a
//! typo is a usage error, never a call to something else.

use serde_json::Value;
use thiserror::Error;

/// One tool call the user asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool name.
    pub name: String,
    /// The `arguments` object.
    pub arguments: Value,
}

/// A `--call` value that is not `NAME=JSON-OBJECT`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("`--call {raw}`: {reason}")]
pub struct CallParseError {
    /// The value as given.
    pub raw: String,
    /// What is wrong with it.
    pub reason: String,
}

/// Tools named with `--call` that the server does not list.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the server lists no tool named {}", .0.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))]
pub struct UnknownTools(pub Vec<String>);

/// Parses `NAME=JSON` (split at the first `=`); the JSON must be an object (`{}` for none).
pub fn parse_call(raw: &str) -> Result<ToolCall, CallParseError> {
    let err = |reason: String| CallParseError {
        raw: raw.to_owned(),
        reason,
    };
    let Some((name, json)) = raw.split_once('=') else {
        return Err(err(
            "expected NAME=JSON, e.g. `echo={\"message\":\"hi\"}`".into()
        ));
    };
    if name.trim().is_empty() {
        return Err(err("the tool name is empty".into()));
    }
    let arguments: Value =
        serde_json::from_str(json).map_err(|e| err(format!("the arguments are not JSON: {e}")))?;
    if !arguments.is_object() {
        return Err(err(
            "the arguments must be a JSON object (use `{}` for none)".into(),
        ));
    }
    Ok(ToolCall {
        name: name.to_owned(),
        arguments,
    })
}

/// The names in `calls` that are not among `listed`, in order, without repeats.
pub fn unknown_tools(calls: &[ToolCall], listed: &[Value]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in calls {
        let known = listed
            .iter()
            .any(|t| t.get("name").and_then(Value::as_str) == Some(c.name.as_str()));
        if !known && !out.contains(&c.name) {
            out.push(c.name.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn calls_parse_at_the_first_equals_sign() {
        let c = parse_call(r#"echo={"message":"a=b"}"#).expect("valid");
        assert_eq!(c.name, "echo");
        assert_eq!(c.arguments, json!({"message": "a=b"}));
        assert!(parse_call("echo").is_err());
        assert!(parse_call("={}").is_err());
        assert!(parse_call("echo={").is_err());
        assert!(parse_call("echo=[1]").is_err());
    }

    #[test]
    fn unknown_names_are_listed_once() {
        let listed = vec![json!({"name": "echo"})];
        let calls = vec![
            parse_call("echo={}").expect("ok"),
            parse_call("nope={}").expect("ok"),
            parse_call("nope={}").expect("ok"),
        ];
        assert_eq!(unknown_tools(&calls, &listed), vec!["nope".to_owned()]);
    }
}
