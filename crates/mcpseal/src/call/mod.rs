//! `mcpseal call`: call one tool the way a strict client would, and prove the judgement could
//! have said no.
//!
//! The workflow: open the connection, find the era (declaring the client capabilities a server
//! may ask for: elicitation forms, sampling, roots), list every page of tools, refuse an
//! unknown name (with the names close to it), check the arguments against the tool's
//! `inputSchema` before sending them, call the tool **once**, answer what the server asks
//! (2026-07-28 `input_required` rounds, retried with `inputResponses` and the `requestState`
//! echoed; 2025-11-25 requests in the middle of the call), and judge the final result with
//! `mcpseal_schema::judge` — the revision's result shape, `resultType`, content blocks,
//! `isError`, `structuredContent` against the `outputSchema` in the draft it declares (offline:
//! remote `$ref`s are never fetched; formats are annotations) and the text mirror. With
//! negative controls, tampered copies of that one result, derived from the *listed* schema, are
//! judged by the same validator: every one must be rejected; one that passes is a trap.
//!
//! It never calls a tool it was not given, and never calls the given one more than the rounds
//! its server asks for. Prompts and resources (read-only) are fetched and judged the same way.
//!
//! A server author can pin a tool's contract in a test of their own:
//!
//! ```no_run
//! use mcpseal::call::Call;
//! use mcpseal::client::Target;
//! use serde_json::json;
//!
//! #[test]
//! fn forecast_keeps_its_contract() {
//!     let target = Target::stdio(["target/debug/my-server"]);
//!     let report = Call::new(target, "forecast", json!({"city": "Lisbon"}))
//!         .negative_controls(true)
//!         .run_blocking()
//!         .expect("the call runs");
//!     assert!(report.passed, "{}", mcpseal::report::call::render_call(
//!         &report, mcpseal::report::Format::Text, &Default::default()));
//!     assert_eq!(report.summary.traps, 0);
//! }
//! ```
//!
//! From async code, `Call::new(…).run().await` does the same. Other languages read the JSON
//! document (`mcpseal call --format json`; its schema is `schemas/call-report.schema.json`).

mod answers;
mod error;
mod near;
mod run;
mod verdicts;

use mcpseal_client::{Options, Target};
use serde_json::Value;

pub use answers::{Answers, Asker, example as example_answer, parse_answer};
pub use error::CallError;
pub use mcpseal_report::call::{CallReport, CallState, SubjectKind};

/// The most requests one call makes (the first and its `input_required` retries).
pub const DEFAULT_MAX_ROUNDS: u32 = 5;

/// One client-shaped call, configured with the builder methods, then [`Call::run`].
#[derive(Debug, Clone)]
pub struct Call {
    pub(crate) target: Target,
    pub(crate) kind: SubjectKind,
    pub(crate) name: String,
    pub(crate) arguments: Value,
    pub(crate) options: Options,
    pub(crate) negative_controls: bool,
    pub(crate) expect_error: bool,
    pub(crate) input_check: bool,
    pub(crate) answers: Answers,
    pub(crate) max_rounds: u32,
}

impl Call {
    fn with(target: Target, kind: SubjectKind, name: String, arguments: Value) -> Call {
        Call {
            target,
            kind,
            name,
            arguments,
            options: Options::default(),
            negative_controls: false,
            expect_error: false,
            input_check: true,
            answers: Answers::default(),
            max_rounds: DEFAULT_MAX_ROUNDS,
        }
    }

    /// A call of the tool `tool` with `arguments` (a JSON object; `{}` for none).
    pub fn new(target: Target, tool: impl Into<String>, arguments: Value) -> Call {
        Call::with(target, SubjectKind::Tool, tool.into(), arguments)
    }

    /// A `prompts/get` of `name` with `arguments` (an object of strings).
    pub fn prompt(target: Target, name: impl Into<String>, arguments: Value) -> Call {
        Call::with(target, SubjectKind::Prompt, name.into(), arguments)
    }

    /// A `resources/read` of `uri`.
    pub fn resource(target: Target, uri: impl Into<String>) -> Call {
        Call::with(
            target,
            SubjectKind::Resource,
            uri.into(),
            Value::Object(serde_json::Map::new()),
        )
    }

    /// Client options (timeouts, limits, headers).
    #[must_use]
    pub fn options(mut self, options: Options) -> Call {
        self.options = options;
        self
    }

    /// Runs the negative controls on the result (tools only; the tool must declare an
    /// `outputSchema`).
    #[must_use]
    pub fn negative_controls(mut self, on: bool) -> Call {
        self.negative_controls = on;
        self
    }

    /// The call is expected to fail (`isError`, or a JSON-RPC error): pass when it does.
    #[must_use]
    pub fn expect_error(mut self, on: bool) -> Call {
        self.expect_error = on;
        self
    }

    /// Checks the arguments against the tool's `inputSchema` before sending (default on; off
    /// to test the server's own validation).
    #[must_use]
    pub fn input_check(mut self, on: bool) -> Call {
        self.input_check = on;
        self
    }

    /// The answer to the input request `key` (or to every request of a method, when `key` is
    /// `elicitation/create`, `sampling/createMessage` or `roots/list`).
    #[must_use]
    pub fn answer(mut self, key: impl Into<String>, result: Value) -> Call {
        self.answers.insert(key, result);
        self
    }

    /// Who is asked when the server asks something no answer was given for.
    #[must_use]
    pub fn asker(mut self, asker: std::sync::Arc<dyn Asker>) -> Call {
        self.answers.set_asker(asker);
        self
    }

    /// The most requests the call makes (default [`DEFAULT_MAX_ROUNDS`]; at least 1).
    #[must_use]
    pub fn max_rounds(mut self, rounds: u32) -> Call {
        self.max_rounds = rounds.max(1);
        self
    }

    /// Runs the call and returns its report. Trouble on the wire (unreachable, no answer,
    /// input nobody gave) is a report with no verdict, not an error.
    ///
    /// # Errors
    /// See [`CallError`]: a malformed target, an unknown name, arguments that do not fit, no
    /// contract for negative controls, a malformed answer. Each is found before the tool is
    /// called, except a malformed answer to a request the server made during the call.
    pub async fn run(self) -> Result<CallReport, CallError> {
        run::run(self).await
    }

    /// [`Call::run`] on a runtime of its own, for synchronous code (a `#[test]`).
    ///
    /// # Errors
    /// As [`Call::run`], and [`CallError::Runtime`] when no runtime can be started.
    pub fn run_blocking(self) -> Result<CallReport, CallError> {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(CallError::Runtime)?
            .block_on(self.run())
    }
}

/// `JSON` or `@FILE` (the JSON read from FILE, at most 16 MiB) as a value.
pub(crate) fn read_json(raw: &str) -> Result<Value, String> {
    let text = match raw.strip_prefix('@') {
        Some(path) => {
            let meta = std::fs::metadata(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
            if meta.len() > 16 * 1024 * 1024 {
                return Err(format!("`{path}` is larger than 16 MiB"));
            }
            std::fs::read_to_string(path).map_err(|e| format!("cannot read `{path}`: {e}"))?
        }
        None => raw.to_owned(),
    };
    serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))
}

/// Parses an `--args` value (`JSON` or `@FILE`): a JSON object.
///
/// # Errors
/// [`CallError::BadArgs`].
pub fn parse_args(raw: &str) -> Result<Value, CallError> {
    let v = read_json(raw).map_err(CallError::BadArgs)?;
    if v.is_object() {
        Ok(v)
    } else {
        Err(CallError::BadArgs(
            "the arguments must be a JSON object (use `{}` for none)".into(),
        ))
    }
}
