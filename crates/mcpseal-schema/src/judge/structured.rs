//! The contract of a tool with an `outputSchema`, and the text mirror of `structuredContent`.
//!
//! The schema is compiled as the tool declares it (its `$schema` picks the draft, 2020-12 when
//! it names none), offline (a remote `$ref` is refused, never fetched), with formats as
//! annotations: MCP says nothing that makes `format` an assertion on tool output, and JSON Schema
//! 2020-12 makes it an annotation by default.

use serde_json::Value;

use super::content::text_blocks;
use super::{Check, MAX_VIOLATIONS, Problem};
use crate::compile::{CompileError, Options, Schema, compile};
use crate::violation::cut;

/// The validator of a tool's `outputSchema`, compiled (and cached) exactly as the judgement
/// compiles it: `None` when the tool declares none.
pub fn output_validator(
    tool: Option<&Value>,
) -> Option<Result<std::sync::Arc<Schema>, CompileError>> {
    let schema = tool?.get("outputSchema")?;
    Some(compile(schema, Options::default()))
}

pub(super) fn contract(schema: Option<&Value>, result: &Value, out: &mut Vec<Problem>) {
    let sc = result.get("structuredContent");
    if let Some(schema) = schema {
        match compile(schema, Options::default()) {
            Err(e) => out.push(Problem::error(
                Check::OutputSchema,
                format!(
                    "the tool's `outputSchema` cannot be used, so no client can check the result against it: {e}"
                ),
            )),
            Ok(validator) => match sc {
                None => out.push(Problem::error(
                    Check::MissingStructured,
                    "the tool declares an `outputSchema` but the result has no `structuredContent`",
                )),
                Some(sc) => {
                    let violations = validator.first_violations(sc, MAX_VIOLATIONS);
                    if !violations.is_empty() {
                        let shown: Vec<String> =
                            violations.iter().take(3).map(ToString::to_string).collect();
                        out.push(
                            Problem::error(
                                Check::Structured,
                                format!(
                                    "`structuredContent` {} does not conform to the `outputSchema`: {}",
                                    cut(&sc.to_string(), 120),
                                    shown.join("; ")
                                ),
                            )
                            .with(violations),
                        );
                    }
                }
            },
        }
    }
    if let Some(sc) = sc {
        mirror(result, sc, out);
    }
}

/// The spec's SHOULD: a tool that returns structured content also returns it serialised in a
/// text block, for clients that read only `content`.
fn mirror(result: &Value, sc: &Value, out: &mut Vec<Problem>) {
    let mut json_texts = 0;
    for text in text_blocks(result) {
        match serde_json::from_str::<Value>(text) {
            Ok(v) if same_json(&v, sc) => return,
            Ok(Value::Object(_) | Value::Array(_)) => json_texts += 1,
            _ => {}
        }
    }
    out.push(Problem::warning(
        Check::TextMirror,
        if json_texts > 0 {
            "a text block carries JSON that differs from `structuredContent` (the spec recommends mirroring `structuredContent` exactly, for clients that read only `content`)"
        } else {
            "no text block mirrors `structuredContent` as serialised JSON (the spec recommends one, for clients that read only `content`)"
        },
    ));
}

/// JSON equality where numbers compare by value (`1` equals `1.0`), as every JSON reader sees them.
pub(crate) fn same_json(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}
