//! Answers to what a server asks during a call: elicitation forms, sampling, roots.
//!
//! An answer is keyed by the server's `inputRequests` key (2026-07-28) or by the method it
//! answers (`elicitation/create`, `sampling/createMessage`, `roots/list`, which also matches a
//! 2025-11-25 server's mid-call request). Its value is the whole result the client sends back
//! (`{"action": "accept", "content": {…}}` for a form). Every answer is checked before it is
//! sent: against the official result definition of its method, and a form's `content` against
//! the form's `requestedSchema`, with formats asserted (the elicitation schema names the only
//! formats a form may use, and the user's input is exactly what they constrain).

use std::collections::BTreeMap;
use std::sync::Arc;

use mcpseal_protocol::{Era, method, mrtr};
use mcpseal_schema::{Formats, Options, compile, judge, wire};
use serde_json::Value;

use super::error::CallError;
use mcpseal_report::call::{AnswerSource, InputRequest};

/// Something that can ask a person for an answer (the CLI's terminal prompt). Called from a
/// blocking thread; `None` means no answer.
pub trait Asker: Send + Sync {
    /// The answer to `request` (the whole result to send back), or `None`.
    fn ask(&self, request: &InputRequest) -> Option<Value>;
}

/// The answers given up front, and who else may be asked.
#[derive(Clone, Default)]
pub struct Answers {
    given: BTreeMap<String, Value>,
    asker: Option<Arc<dyn Asker>>,
}

impl std::fmt::Debug for Answers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Answers")
            .field("given", &self.given.keys().collect::<Vec<_>>())
            .field("asker", &self.asker.is_some())
            .finish()
    }
}

/// Parses `KEY=JSON` (split at the first `=`; `KEY=@FILE` reads the JSON from FILE).
///
/// # Errors
/// [`CallError::BadAnswer`] naming what is wrong.
pub fn parse_answer(raw: &str) -> Result<(String, Value), CallError> {
    let bad = |reason: String| CallError::BadAnswer {
        key: raw.split('=').next().unwrap_or(raw).to_owned(),
        reason,
    };
    let Some((key, json)) = raw.split_once('=') else {
        return Err(bad(
            "expected KEY=JSON, e.g. `confirm={\"action\":\"accept\",\"content\":{}}`".into(),
        ));
    };
    if key.trim().is_empty() {
        return Err(bad("the key is empty".into()));
    }
    let value = super::read_json(json).map_err(bad)?;
    if !value.is_object() {
        return Err(bad(
            "an answer is the result to send back, a JSON object".into()
        ));
    }
    Ok((key.to_owned(), value))
}

impl Answers {
    /// Adds (or replaces) the answer for `key`.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) {
        self.given.insert(key.into(), value);
    }

    /// Who is asked when no answer was given.
    pub fn set_asker(&mut self, asker: Arc<dyn Asker>) {
        self.asker = Some(asker);
    }

    /// Checks the answers keyed by a method name against that method's result definition,
    /// before anything is sent.
    pub(crate) fn precheck(&self, era: Era) -> Result<(), CallError> {
        for (key, value) in &self.given {
            if mrtr::is_input_method(key) {
                check(era, key, key, value, None)?;
            }
        }
        Ok(())
    }

    /// The answer to the request `key` for `method` with `params`: given (by key, then by
    /// method), else asked. The answer is checked before it is returned.
    pub(crate) async fn answer(
        &self,
        era: Era,
        request: &InputRequest,
    ) -> Result<Option<(Value, AnswerSource)>, CallError> {
        let given = self
            .given
            .get(&request.key)
            .or_else(|| self.given.get(&request.method));
        let found = match (given, &self.asker) {
            (Some(v), _) => Some((v.clone(), AnswerSource::Given)),
            (None, Some(asker)) => {
                let asker = Arc::clone(asker);
                let shown = request.clone();
                tokio::task::spawn_blocking(move || asker.ask(&shown))
                    .await
                    .ok()
                    .flatten()
                    .map(|v| (v, AnswerSource::Prompted))
            }
            (None, None) => None,
        };
        if let Some((value, _)) = &found {
            check(
                era,
                &request.key,
                &request.method,
                value,
                Some(&request.params),
            )?;
        }
        Ok(found)
    }
}

/// Checks `value` as the answer to a `method` request with `params`.
fn check(
    era: Era,
    key: &str,
    method_name: &str,
    value: &Value,
    params: Option<&Value>,
) -> Result<(), CallError> {
    let bad = |reason: String| CallError::BadAnswer {
        key: key.to_owned(),
        reason,
    };
    let Some(definition) = judge::answer_definition(method_name) else {
        return Err(bad(format!(
            "`{method_name}` is not something a client answers (only elicitation/create, sampling/createMessage and roots/list)"
        )));
    };
    if let Ok(schema) = wire::definition(era, definition) {
        let v = schema.first_violations(value, 3);
        if !v.is_empty() {
            let why: Vec<String> = v.iter().map(ToString::to_string).collect();
            return Err(bad(format!(
                "not a valid `{definition}` of {}: {}",
                era.revision(),
                why.join("; ")
            )));
        }
    }
    let accepted = value.get("action").and_then(Value::as_str) == Some("accept");
    if method_name == method::ELICITATION_CREATE
        && accepted
        && let Some(requested) = params.and_then(|p| p.get("requestedSchema"))
        && let Ok(form) = compile(requested, Options::default().formats(Formats::Assert))
    {
        let content = value
            .get("content")
            .cloned()
            .unwrap_or(Value::Object(serde_json::Map::new()));
        let v = form.first_violations(&content, 3);
        if !v.is_empty() {
            let why: Vec<String> = v.iter().map(ToString::to_string).collect();
            return Err(bad(format!(
                "`content` does not fill in the form the server sent: {}",
                why.join("; ")
            )));
        }
    }
    Ok(())
}

/// An answer a person could give to `request` (for a hint or a prompt): a form's fields from
/// their defaults or types, placeholders elsewhere.
pub fn example(request: &InputRequest) -> Value {
    match request.method.as_str() {
        method::ELICITATION_CREATE => {
            let mut content = serde_json::Map::new();
            if let Some(props) = request
                .params
                .pointer("/requestedSchema/properties")
                .and_then(Value::as_object)
            {
                for (name, p) in props {
                    let v = p.get("default").cloned().unwrap_or_else(|| {
                        match p.get("type").and_then(Value::as_str) {
                            Some("boolean") => Value::Bool(true),
                            Some("integer" | "number") => Value::from(0),
                            _ => p
                                .get("enum")
                                .and_then(|e| e.get(0))
                                .cloned()
                                .unwrap_or_else(|| Value::String("…".into())),
                        }
                    });
                    content.insert(name.clone(), v);
                }
            }
            serde_json::json!({"action": "accept", "content": content})
        }
        method::ROOTS_LIST => serde_json::json!({"roots": [{"uri": "file:///path/to/project"}]}),
        _ => {
            serde_json::json!({"role": "assistant", "content": {"type": "text", "text": "…"}, "model": "…"})
        }
    }
}
