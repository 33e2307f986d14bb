//! Judging a result the way a strict client would: the one copy of that judgement, shared by
//! the probe (SEAL039 judges the calls named with `--call`) and by `mcpseal call`.
//!
//! A strict client of a revision accepts a `tools/call`, `prompts/get` or `resources/read`
//! result only when:
//!
//! - it is an object ([`Check::NotAnObject`]) with the shape the revision's official schema
//!   gives it ([`Check::Shape`]);
//! - in 2026-07-28 it says what it is: `resultType` is `complete` or `input_required` (a client
//!   that negotiated no extension treats any other value as invalid; [`Check::ResultType`]), and
//!   an `input_required` result is well formed ([`Check::InputRequired`]);
//! - a tool result has a `content` array of valid content blocks ([`Check::Content`],
//!   [`Check::ContentBlock`]) and a boolean `isError` if any ([`Check::IsError`]);
//! - when the tool declares an `outputSchema`, the schema can be used offline
//!   ([`Check::OutputSchema`]), `structuredContent` is there ([`Check::MissingStructured`]) and
//!   conforms ([`Check::Structured`]). An `isError` result is exempt from the contract (the spec
//!   and the SDKs agree), and is itself reported ([`Check::ToolError`]).
//!
//! The spec's SHOULD, a text block mirroring `structuredContent` as serialised JSON, is a
//! warning ([`Check::TextMirror`]). Each judgement is pure: values in, [`Problem`]s out, no I/O.
//! The same compiled validator judges a real result and every tampered copy of it (see
//! [`crate::tamper`]), because [`crate::compile`] hands out one cached validator per schema.

mod content;
mod input;
mod structured;

use mcpseal_protocol::{Era, method, mrtr};
use serde_json::Value;

use crate::violation::{Violation, cut};
use crate::wire;

pub use input::{answer_definition, input_required};
pub use structured::output_validator;
pub(crate) use structured::same_json;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// A strict client rejects the result.
    Error,
    /// A SHOULD: the result is usable, a client may still do worse with it.
    Warning,
}

/// What was judged. The names are permanent (reports key on them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Check {
    /// The result is not a JSON object.
    NotAnObject,
    /// The result breaks the revision's official schema (where no narrower check applies).
    Shape,
    /// `resultType` is missing (2026-07-28) or names no result type the client knows.
    ResultType,
    /// A tool result has no `content` array.
    Content,
    /// A content block is not one of the revision's blocks.
    ContentBlock,
    /// `isError` is not a boolean.
    IsError,
    /// The tool reported an error (`isError: true`).
    ToolError,
    /// The tool's `outputSchema` cannot be used (invalid, a remote or dangling `$ref`).
    OutputSchema,
    /// The tool declares an `outputSchema` and the result has no `structuredContent`.
    MissingStructured,
    /// `structuredContent` does not conform to the `outputSchema`.
    Structured,
    /// No text block mirrors `structuredContent` (a SHOULD).
    TextMirror,
    /// An `input_required` result is malformed.
    InputRequired,
    /// A listed tool or prompt breaks the revision's definition of one.
    Definition,
}

impl Check {
    /// The check's permanent name (`shape`, `resultType`, `structuredContent`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Check::NotAnObject => "notAnObject",
            Check::Shape => "shape",
            Check::ResultType => "resultType",
            Check::Content => "content",
            Check::ContentBlock => "contentBlock",
            Check::IsError => "isError",
            Check::ToolError => "toolError",
            Check::OutputSchema => "outputSchema",
            Check::MissingStructured => "missingStructuredContent",
            Check::Structured => "structuredContent",
            Check::TextMirror => "textMirror",
            Check::InputRequired => "inputRequired",
            Check::Definition => "definition",
        }
    }
}

/// One reason a strict client would reject a result (or, for a warning, think less of it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What was judged.
    pub check: Check,
    /// How bad.
    pub level: Level,
    /// One sentence for people, quoting (bounded) values; no trailing period.
    pub message: String,
    /// The schema violations behind it, when a schema said no (the first few).
    pub violations: Vec<Violation>,
}

impl Problem {
    pub(crate) fn error(check: Check, message: impl Into<String>) -> Problem {
        Problem {
            check,
            level: Level::Error,
            message: message.into(),
            violations: Vec::new(),
        }
    }

    pub(crate) fn warning(check: Check, message: impl Into<String>) -> Problem {
        Problem {
            level: Level::Warning,
            ..Problem::error(check, message)
        }
    }

    pub(crate) fn with(mut self, violations: Vec<Violation>) -> Problem {
        self.violations = violations;
        self
    }
}

/// The most violations kept per problem.
pub(crate) const MAX_VIOLATIONS: usize = 8;

/// True when none of `problems` is an error: a strict client accepts the result.
pub fn accepted(problems: &[Problem]) -> bool {
    !problems.iter().any(|p| p.level == Level::Error)
}

/// Judges the result of `tools/call` in `era`, for `tool` as listed (its `outputSchema`, if
/// any, is the contract). An `input_required` result (2026) is judged by [`input_required`].
pub fn tool_result(era: Era, result: &Value, tool: Option<&Value>) -> Vec<Problem> {
    let mut out = Vec::new();
    if !envelope(era, result, &mut out) {
        return out;
    }
    if era == Era::Modern && mrtr::is_input_required(result) {
        out.extend(input_required(era, method::TOOLS_CALL, result));
        return out;
    }
    content::tool_content(era, result, &mut out);
    let is_error = match result.get("isError") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            out.push(Problem::error(
                Check::IsError,
                format!("`isError` is {other} instead of a boolean"),
            ));
            false
        }
    };
    if is_error {
        out.push(Problem::error(
            Check::ToolError,
            format!(
                "the tool reported an error (`isError: true`){}",
                content::first_text(result)
                    .map(|t| format!(": {}", cut(t, 200)))
                    .unwrap_or_default()
            ),
        ));
    } else {
        let schema = tool.and_then(|t| t.get("outputSchema"));
        structured::contract(schema, result, &mut out);
    }
    shape(era, method::TOOLS_CALL, result, &mut out);
    out
}

/// Judges a listed tool or prompt (`definition` = `Tool` or `Prompt`) against the revision's
/// definition: a strict client refuses a listing that breaks it (the TypeScript SDK refuses the
/// whole `tools/list` page).
pub fn listed(era: Era, definition: &str, item: &Value) -> Vec<Problem> {
    let Ok(schema) = wire::definition(era, definition) else {
        return Vec::new();
    };
    let violations = schema.first_violations(item, MAX_VIOLATIONS);
    if violations.is_empty() {
        return Vec::new();
    }
    let shown: Vec<String> = violations
        .iter()
        .take(3)
        .map(|v| format!("at `{}`: {}", v.instance_path, v.masked_message))
        .collect();
    vec![
        Problem::error(
            Check::Definition,
            format!(
                "the listed definition is not a valid `{definition}` of {}: {}",
                era.revision(),
                shown.join("; ")
            ),
        )
        .with(violations),
    ]
}

/// Judges the result of `prompts/get` in `era` (its messages' content blocks included).
pub fn prompt_result(era: Era, result: &Value) -> Vec<Problem> {
    judge_other(era, method::PROMPTS_GET, result)
}

/// Judges the result of `resources/read` in `era`.
pub fn resource_result(era: Era, result: &Value) -> Vec<Problem> {
    judge_other(era, method::RESOURCES_READ, result)
}

fn judge_other(era: Era, method: &str, result: &Value) -> Vec<Problem> {
    let mut out = Vec::new();
    if !envelope(era, result, &mut out) {
        return out;
    }
    if era == Era::Modern && mrtr::is_input_required(result) {
        out.extend(input_required(era, method, result));
        return out;
    }
    shape(era, method, result, &mut out);
    out
}

/// The checks every result gets first: an object, and (2026) a known `resultType`. `false`
/// when judging cannot go on (a client would not read further either).
fn envelope(era: Era, result: &Value, out: &mut Vec<Problem>) -> bool {
    if !result.is_object() {
        out.push(Problem::error(
            Check::NotAnObject,
            format!(
                "the result is {} instead of an object",
                cut(&result.to_string(), 60)
            ),
        ));
        return false;
    }
    if era == Era::Legacy {
        return true;
    }
    match result.get(mrtr::RESULT_TYPE) {
        None => {
            out.push(Problem::error(
                Check::ResultType,
                "the result has no `resultType`, which 2026-07-28 requires in every result",
            ));
            true
        }
        Some(Value::String(s)) if s == mrtr::COMPLETE || s == mrtr::INPUT_REQUIRED => true,
        Some(Value::String(s)) => {
            out.push(Problem::error(
                Check::ResultType,
                format!(
                    "`resultType` is `{}`, which a client that negotiated no extension treats as an invalid result",
                    cut(s, 60)
                ),
            ));
            false
        }
        Some(other) => {
            out.push(Problem::error(
                Check::ResultType,
                format!(
                    "`resultType` is {} instead of a string",
                    cut(&other.to_string(), 60)
                ),
            ));
            false
        }
    }
}

/// The violations of the revision's result definition that no narrower problem already names.
fn shape(era: Era, method: &str, result: &Value, out: &mut Vec<Problem>) {
    let Some(name) = wire::result_definition(era, method, result) else {
        return;
    };
    let Ok(definition) = wire::definition(era, name) else {
        return;
    };
    let covered: Vec<&'static str> = out
        .iter()
        .flat_map(|p| covered_paths(p.check))
        .copied()
        .collect();
    let rest: Vec<Violation> = definition
        .first_violations(result, 32)
        .into_iter()
        .filter(|v| !is_covered(v, &covered))
        .take(MAX_VIOLATIONS)
        .collect();
    if rest.is_empty() {
        return;
    }
    let shown: Vec<String> = rest
        .iter()
        .take(3)
        .map(|v| v.masked_message.clone())
        .collect();
    let located: Vec<String> = rest
        .iter()
        .take(3)
        .zip(shown)
        .map(|(v, m)| {
            if v.instance_path.is_empty() {
                m
            } else {
                format!("at `{}`: {m}", v.instance_path)
            }
        })
        .collect();
    out.push(
        Problem::error(
            Check::Shape,
            format!(
                "the result is not a valid `{name}` of {}: {}",
                era.revision(),
                located.join("; ")
            ),
        )
        .with(rest),
    );
}

/// The result members a check already speaks for.
fn covered_paths(check: Check) -> &'static [&'static str] {
    match check {
        Check::Content | Check::ContentBlock => &["content"],
        Check::IsError => &["isError"],
        Check::ResultType => &["resultType"],
        // Not `structuredContent`: the revision's own rule on it (2025-11-25: an object) is a
        // reason of its own, apart from the tool's `outputSchema`.
        _ => &[],
    }
}

fn is_covered(v: &Violation, members: &[&str]) -> bool {
    members.iter().any(|m| {
        let at = format!("/{m}");
        v.instance_path == at
            || v.instance_path.starts_with(&format!("{at}/"))
            || (v.instance_path.is_empty() && v.missing_property.as_deref() == Some(m))
    })
}

#[cfg(test)]
mod tests;
