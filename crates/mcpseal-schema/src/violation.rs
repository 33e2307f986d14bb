//! What a failed validation says: where in the value, where in the schema, which keyword.

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;

/// Messages are cut to this many characters: the compiler quotes the offending value, and a
/// server's value can be megabytes.
pub const MAX_MESSAGE_CHARS: usize = 512;

/// One reason a value does not validate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON Pointer into the validated value (`""` = the value itself, `/items/0/name`).
    pub instance_path: String,
    /// JSON Pointer to the failing keyword in the schema document, without `$ref` hops (JSON
    /// Schema's `keywordLocation`): `/properties/sum/type`, or `/$defs/Tool/required` inside
    /// an official wire schema.
    pub schema_path: String,
    /// The same location as evaluated, through every `$ref` followed (`/$ref/properties/…`).
    pub evaluation_path: String,
    /// The keyword that failed (`type`, `required`, `additionalProperties`, …).
    pub keyword: String,
    /// For `required`: the property that is missing.
    pub missing_property: Option<String>,
    /// The compiler's explanation, at most [`MAX_MESSAGE_CHARS`] characters (`…` when cut). It
    /// may quote the offending value.
    pub message: String,
    /// The same explanation with the value replaced by the word `value` (for reports that must
    /// not quote it: a secret in a tool argument, a request id in a JSON-RPC envelope).
    pub masked_message: String,
}

impl Violation {
    pub(crate) fn from_error(e: &ValidationError<'_>) -> Violation {
        let missing_property = match e.kind() {
            ValidationErrorKind::Required { property } => property.as_str().map(str::to_owned),
            _ => None,
        };
        Violation {
            instance_path: e.instance_path().as_str().to_owned(),
            schema_path: e.schema_path().as_str().to_owned(),
            evaluation_path: e.evaluation_path().as_str().to_owned(),
            keyword: e.kind().keyword().to_owned(),
            missing_property,
            message: cut(&e.to_string(), MAX_MESSAGE_CHARS),
            masked_message: cut(&e.masked().to_string(), MAX_MESSAGE_CHARS),
        }
    }
}

impl std::fmt::Display for Violation {
    /// `at `/sum`: "3" is not of type "number"`, or just the message at the root.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.instance_path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "at `{}`: {}", self.instance_path, self.message)
        }
    }
}

/// What a negative control found: did the validator say no to a value tampered on purpose?
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControlOutcome {
    /// The tampered value was rejected, for these reasons (the first few).
    Rejected(Vec<Violation>),
    /// The tampered value validates: the schema does not constrain what it seems to.
    Trap,
}

impl ControlOutcome {
    /// `"rejected"` or `"trap"`, the words of a `call` report.
    pub fn as_str(&self) -> &'static str {
        match self {
            ControlOutcome::Rejected(_) => "rejected",
            ControlOutcome::Trap => "trap",
        }
    }
}

/// At most `n` characters of `s`, `…` appended when cut.
pub(crate) fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        None => s.to_owned(),
        Some((at, _)) => format!("{}…", &s[..at]),
    }
}
