//! Compiling a schema offline, and validating values against it.

use std::sync::Arc;

use jsonschema::error::ValidationErrorKind;
use jsonschema::{ReferencingError, Retrieve, Uri, Validator};
use serde_json::Value;
use thiserror::Error;

use crate::dialect::Dialect;
use crate::refs::{RefKind, refs};
use crate::violation::{ControlOutcome, Violation};

/// How `format` is treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Formats {
    /// An annotation: `"format": "email"` never rejects a value (JSON Schema 2019-09 and
    /// 2020-12 without the format-assertion vocabulary; what MCP clients are required to do).
    #[default]
    Annotate,
    /// An assertion: known formats are checked (opt in, e.g. to judge a server's own claims).
    Assert,
}

/// Compilation options; part of the cache key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Options {
    formats: Formats,
}

impl Options {
    /// Sets how `format` is treated (default: [`Formats::Annotate`]).
    #[must_use]
    pub fn formats(mut self, formats: Formats) -> Self {
        self.formats = formats;
        self
    }

    /// How `format` is treated.
    pub fn format_mode(&self) -> Formats {
        self.formats
    }
}

/// Why a schema was not compiled. None of these ever touched the network.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CompileError {
    /// Neither an object nor a boolean.
    #[error("a schema is an object or a boolean, not {found}")]
    NotASchema {
        /// The value's JSON type (`string`, `array`, …).
        found: &'static str,
    },
    /// `$schema` names a meta-schema that is not one of the bundled drafts.
    #[error(
        "`$schema` is `{uri}`, a custom meta-schema that cannot be resolved offline (known: drafts 4, 6, 7, 2019-09, 2020-12)"
    )]
    UnknownDialect {
        /// The declared `$schema`.
        uri: String,
    },
    /// A `$ref` points at another document: remote `$ref` not resolved (never fetched).
    #[error(
        "remote $ref not resolved: `{target}` points at another document, which is never fetched"
    )]
    RemoteRef {
        /// The `$ref` value (or the URI the compiler would have had to fetch).
        target: String,
    },
    /// A `$ref` fragment names nothing in the schema.
    #[error("`$ref` `{target}` names nothing in the schema")]
    DanglingRef {
        /// The `$ref` value.
        target: String,
    },
    /// The schema breaks its dialect's meta-schema, or the compiler refused it otherwise.
    #[error("{message}")]
    Invalid {
        /// The compiler's message.
        message: String,
    },
    /// [`crate::wire::definition`] was asked for a name the official schema does not define.
    #[error("`{name}` is not a definition of the official {revision} schema")]
    UnknownDefinition {
        /// The name asked for.
        name: String,
        /// The schema's revision.
        revision: &'static str,
    },
}

impl CompileError {
    /// True for the `$ref` refusals ([`CompileError::RemoteRef`], [`CompileError::DanglingRef`]):
    /// the schema may be fine, it just cannot be resolved offline.
    pub fn is_unresolved_ref(&self) -> bool {
        matches!(
            self,
            CompileError::RemoteRef { .. } | CompileError::DanglingRef { .. }
        )
    }
}

/// A compiled schema. Cheap to share (`Arc`), safe to use from any thread.
pub struct Schema {
    validator: Validator,
    dialect: Dialect,
    formats: Formats,
}

impl std::fmt::Debug for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schema")
            .field("dialect", &self.dialect)
            .field("formats", &self.formats)
            .finish_non_exhaustive()
    }
}

/// The violations kept for a negative control: enough to name why, bounded.
const CONTROL_VIOLATIONS: usize = 8;

impl Schema {
    /// The dialect the schema was compiled as.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// How `format` was treated.
    pub fn formats(&self) -> Formats {
        self.formats
    }

    /// Whether `instance` validates.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Every reason `instance` does not validate (empty when it does), in the compiler's order.
    /// The count is bounded only by the value: use [`Schema::first_violations`] on values a
    /// server sent when only a few are shown.
    pub fn violations(&self, instance: &Value) -> Vec<Violation> {
        self.first_violations(instance, usize::MAX)
    }

    /// At most `limit` reasons `instance` does not validate.
    pub fn first_violations(&self, instance: &Value, limit: usize) -> Vec<Violation> {
        self.validator
            .iter_errors(instance)
            .take(limit)
            .map(|e| Violation::from_error(&e))
            .collect()
    }

    /// The negative-control question: is this deliberately tampered value rejected? A value
    /// that validates is a [`ControlOutcome::Trap`]: the schema does not constrain what it
    /// seems to. (The same validator that judged the real value must judge the tampered one,
    /// so this is a method on the compiled schema, never a second compile.)
    pub fn negative_control(&self, tampered: &Value) -> ControlOutcome {
        let violations = self.first_violations(tampered, CONTROL_VIOLATIONS);
        if violations.is_empty() {
            ControlOutcome::Trap
        } else {
            ControlOutcome::Rejected(violations)
        }
    }
}

/// Compiles `schema` offline (see the crate docs for the `$ref`, dialect and format policy),
/// or returns the process's earlier outcome for the same schema bytes and options.
pub fn compile(schema: &Value, options: Options) -> Result<Arc<Schema>, CompileError> {
    let key = serde_json::to_vec(schema).unwrap_or_default();
    crate::cache::get_or_compile(key, options, || compile_uncached(schema, options))
}

fn compile_uncached(schema: &Value, options: Options) -> Result<Arc<Schema>, CompileError> {
    if !(schema.is_object() || schema.is_boolean()) {
        return Err(CompileError::NotASchema {
            found: json_type(schema),
        });
    }
    let dialect = Dialect::of(schema).map_err(|uri| CompileError::UnknownDialect { uri })?;
    // Refuse unresolvable references before the compiler sees them: remote first (the
    // graver: a client that followed it would fetch whatever the server names).
    let all = refs(schema);
    for kind in [RefKind::Remote, RefKind::Dangling] {
        if let Some(r) = all.iter().find(|r| r.kind == kind) {
            let target = r.target.clone();
            return Err(match kind {
                RefKind::Remote => CompileError::RemoteRef { target },
                _ => CompileError::DanglingRef { target },
            });
        }
    }
    let validator = jsonschema::options()
        .with_retriever(Refuse)
        .should_validate_formats(options.formats == Formats::Assert)
        .build(schema)
        .map_err(|e| compile_error(&e))?;
    Ok(Arc::new(Schema {
        validator,
        dialect,
        formats: options.formats,
    }))
}

pub(crate) fn wrap(validator: Validator, dialect: Dialect, formats: Formats) -> Arc<Schema> {
    Arc::new(Schema {
        validator,
        dialect,
        formats,
    })
}

/// The compiler's refusal as a [`CompileError`]: a retrieval it needed is a remote `$ref`.
pub(crate) fn compile_error(e: &jsonschema::ValidationError<'_>) -> CompileError {
    match e.kind() {
        ValidationErrorKind::Referencing(ReferencingError::Unretrievable { uri, .. }) => {
            CompileError::RemoteRef {
                target: uri.clone(),
            }
        }
        _ => CompileError::Invalid {
            message: e.to_string(),
        },
    }
}

/// The resolver of every compile: retrieval is refused, always. Whatever features the
/// `jsonschema` crate is built with, nothing is fetched from the network or the file system.
pub(crate) struct Refuse;

impl Retrieve for Refuse {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "remote $ref not resolved: `{}` is never fetched",
            uri.as_str()
        )
        .into())
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
