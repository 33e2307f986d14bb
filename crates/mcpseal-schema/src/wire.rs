//! The official MCP JSON schemas of both revisions, vendored verbatim
//! (`schema/schema-2026-07-28.json`, `schema/schema-2025-11-25.json`), and which of their
//! definitions a message is judged against.
//!
//! Why one definition at a time: compiling every definition of both documents costs about
//! 48 MB and 0.12 s of CPU, while a run validates a handful. Each document is parsed once,
//! registered once under a private `urn:` so its internal `$ref`s resolve, and a definition is
//! compiled the first time something validates against it, then kept for the process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use jsonschema::Registry;
use mcpseal_protocol::Era;
use mcpseal_protocol::method as m;
use serde_json::{Value, json};

use crate::compile::{CompileError, Formats, Refuse, Schema, compile_error, wrap};
use crate::dialect::Dialect;

const SCHEMA_2026: &str = include_str!("../schema/schema-2026-07-28.json");
const SCHEMA_2025: &str = include_str!("../schema/schema-2025-11-25.json");

/// The verbatim text of the official schema of `era`.
pub fn document(era: Era) -> &'static str {
    match era {
        Era::Modern => SCHEMA_2026,
        Era::Legacy => SCHEMA_2025,
    }
}

/// One era's document, its registry and the definitions compiled so far.
struct Wire {
    doc: Value,
    registry: OnceLock<Result<Registry<'static>, CompileError>>,
    compiled: Mutex<HashMap<String, Result<Arc<Schema>, CompileError>>>,
}

fn wire(era: Era) -> Result<&'static Wire, CompileError> {
    static MODERN: OnceLock<Result<Wire, CompileError>> = OnceLock::new();
    static LEGACY: OnceLock<Result<Wire, CompileError>> = OnceLock::new();
    let cell = match era {
        Era::Modern => &MODERN,
        Era::Legacy => &LEGACY,
    };
    cell.get_or_init(|| {
        let doc = serde_json::from_str(document(era)).map_err(|e| CompileError::Invalid {
            message: format!("the vendored {era} schema is not JSON: {e}"),
        })?;
        Ok(Wire {
            doc,
            registry: OnceLock::new(),
            compiled: Mutex::default(),
        })
    })
    .as_ref()
    .map_err(Clone::clone)
}

fn urn(era: Era) -> String {
    format!("urn:mcpseal:wire:{}", era.revision())
}

impl Wire {
    fn registry(&'static self, era: Era) -> Result<&'static Registry<'static>, CompileError> {
        self.registry
            .get_or_init(|| {
                Registry::new()
                    .retriever(Refuse)
                    .add(urn(era), &self.doc)
                    .and_then(|b| b.prepare())
                    .map_err(|e| CompileError::Invalid {
                        message: format!("the vendored {era} schema: {e}"),
                    })
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

/// The compiled definition `name` (`DiscoverResult`, `JSONRPCErrorResponse`, …) of the official
/// schema of `era`, compiled on first use and kept for the process. Formats are annotations.
pub fn definition(era: Era, name: &str) -> Result<Arc<Schema>, CompileError> {
    let w = wire(era)?;
    if w.doc.pointer(&format!("/$defs/{}", escape(name))).is_none() {
        return Err(CompileError::UnknownDefinition {
            name: name.to_owned(),
            revision: era.revision(),
        });
    }
    if let Some(hit) = lock(&w.compiled).get(name) {
        return hit.clone();
    }
    let registry = w.registry(era)?;
    let root = json!({
        "$schema": Dialect::Draft2020_12.uri(),
        "$ref": format!("{}#/$defs/{}", urn(era), escape(name)),
    });
    let compiled = jsonschema::options()
        .with_registry(registry)
        .with_retriever(Refuse)
        .should_validate_formats(false)
        .build(&root)
        .map(|v| wrap(v, Dialect::Draft2020_12, Formats::Annotate))
        .map_err(|e| compile_error(&e));
    lock(&w.compiled)
        .entry(name.to_owned())
        .or_insert(compiled)
        .clone()
}

/// How many definitions of `era`'s schema this process has compiled so far (to check that a
/// run compiles only what it validates against).
pub fn compiled_definitions(era: Era) -> usize {
    wire(era).map_or(0, |w| lock(&w.compiled).len())
}

/// The definition a result of `method` is judged against in `era`; `None` for methods the
/// schema has no result for (removed in that era, extensions, server-to-client requests).
/// A 2026-07-28 `resultType: "input_required"` result of `tools/call`, `prompts/get` or
/// `resources/read` is an `InputRequiredResult`.
pub fn result_definition(era: Era, method: &str, result: &Value) -> Option<&'static str> {
    let input_required = result.get("resultType").and_then(Value::as_str) == Some("input_required");
    if era == Era::Modern
        && input_required
        && [m::TOOLS_CALL, m::PROMPTS_GET, m::RESOURCES_READ].contains(&method)
    {
        return Some("InputRequiredResult");
    }
    let common = [
        (m::TOOLS_LIST, "ListToolsResult"),
        (m::RESOURCES_LIST, "ListResourcesResult"),
        (m::RESOURCES_TEMPLATES_LIST, "ListResourceTemplatesResult"),
        (m::PROMPTS_LIST, "ListPromptsResult"),
        (m::RESOURCES_READ, "ReadResourceResult"),
        (m::PROMPTS_GET, "GetPromptResult"),
        (m::TOOLS_CALL, "CallToolResult"),
        (m::COMPLETION_COMPLETE, "CompleteResult"),
    ];
    let by_era: &[(&str, &'static str)] = match era {
        Era::Modern => &[
            (m::SERVER_DISCOVER, "DiscoverResult"),
            (m::SUBSCRIPTIONS_LISTEN, "SubscriptionsListenResult"),
        ],
        Era::Legacy => &[
            (m::INITIALIZE, "InitializeResult"),
            (m::PING, "EmptyResult"),
            (m::LOGGING_SET_LEVEL, "EmptyResult"),
            (m::RESOURCES_SUBSCRIBE, "EmptyResult"),
            (m::RESOURCES_UNSUBSCRIBE, "EmptyResult"),
            (m::TASKS_LIST, "ListTasksResult"),
            (m::TASKS_GET, "GetTaskResult"),
            (m::TASKS_CANCEL, "CancelTaskResult"),
            (m::TASKS_RESULT, "GetTaskPayloadResult"),
        ],
    };
    common
        .iter()
        .chain(by_era)
        .find(|(name, _)| *name == method)
        .map(|(_, def)| *def)
}

/// The definition a server notification `method` is judged against in `era`.
pub fn notification_definition(era: Era, method: &str) -> Option<&'static str> {
    let common = [
        (m::NOTIFICATION_PROGRESS, "ProgressNotification"),
        (m::NOTIFICATION_MESSAGE, "LoggingMessageNotification"),
        (
            m::NOTIFICATION_TOOLS_LIST_CHANGED,
            "ToolListChangedNotification",
        ),
        (
            m::NOTIFICATION_PROMPTS_LIST_CHANGED,
            "PromptListChangedNotification",
        ),
        (
            m::NOTIFICATION_RESOURCES_LIST_CHANGED,
            "ResourceListChangedNotification",
        ),
        (
            m::NOTIFICATION_RESOURCES_UPDATED,
            "ResourceUpdatedNotification",
        ),
        (m::NOTIFICATION_CANCELLED, "CancelledNotification"),
    ];
    let by_era: &[(&str, &'static str)] = match era {
        Era::Modern => &[(
            m::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
            "SubscriptionsAcknowledgedNotification",
        )],
        Era::Legacy => &[(m::NOTIFICATION_TASKS_STATUS, "TaskStatusNotification")],
    };
    common
        .iter()
        .chain(by_era)
        .find(|(name, _)| *name == method)
        .map(|(_, def)| *def)
}

/// The definition every JSON-RPC error response is judged against (both eras).
pub const ERROR_RESPONSE: &str = "JSONRPCErrorResponse";

/// A definition name as a JSON Pointer segment.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
