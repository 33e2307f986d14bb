//! `--capability-gate`: requests that need a client capability, answered right or wrong.
//!
//! The surface gains a prompt `approve`, a resource `fixture://approval` and a tool `approve`
//! that need the client's `elicitation` capability (they ask for a confirmation through a
//! Multi Round-Trip `input_required` result), and a tool `long_job` that runs only as a task
//! of the `io.modelcontextprotocol/tasks` extension (which the server then advertises). A
//! request whose `_meta` clientCapabilities declare what is needed gets the input request (or
//! the task); one that does not is answered as the knob says:
//!
//! * `refuse`: -32021 MissingRequiredClientCapability with `data.requiredCapabilities`, HTTP
//!   400 (2026-07-28 `basic/index`: MUST) — the clean behaviour;
//! * `ask`: the `elicitation/create` input request anyway (MRTR: servers MUST NOT);
//! * `bare`: -32021 without `data`;
//! * `status-200`: -32021 with HTTP 200;
//! * `task`: `long_job` returns a task (`resultType: "task"`) to a client that did not declare
//!   the extension (the approval items refuse correctly).
//!
//! A retry carrying `inputResponses` completes.

use clap::ValueEnum;
use serde_json::{Value, json};

use crate::jsonrpc::{META_CLIENT_CAPS, RpcError};

/// -32021 MissingRequiredClientCapability.
pub use mcpseal_protocol::method::code::MISSING_REQUIRED_CLIENT_CAPABILITY as MISSING_CAPABILITY;

/// The tasks extension id.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// How requests that need an undeclared capability are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GateKnob {
    /// -32021 with `data.requiredCapabilities`, HTTP 400 (correct).
    Refuse,
    /// An `elicitation/create` input request the client never declared.
    Ask,
    /// -32021 without `data`.
    Bare,
    /// -32021 with HTTP 200.
    #[value(name = "status-200")]
    Status200,
    /// `long_job` returns a task to a client without the tasks extension.
    Task,
}

/// The prompt, resource and tools the knob adds.
pub fn prompts() -> Vec<Value> {
    vec![json!({"name": "approve", "description": "Asks the user to approve (needs elicitation)"})]
}

/// The resource the knob adds.
pub fn resources() -> Vec<Value> {
    vec![json!({"uri": "fixture://approval", "name": "approval",
                "description": "Readable after the user approves (needs elicitation)",
                "mimeType": "text/plain"})]
}

/// The tools the knob adds.
pub fn tools() -> Vec<Value> {
    let object = json!({"type": "object", "additionalProperties": false});
    vec![
        json!({"name": "approve", "description": "Asks the user to approve (needs elicitation)",
               "inputSchema": object}),
        json!({"name": "long_job", "description": "Runs only as a task (tasks extension)",
               "inputSchema": object}),
    ]
}

/// Whether the request's `_meta` clientCapabilities declare `capability`.
pub fn declared(params: &Value, capability: &str) -> bool {
    params
        .pointer("/_meta")
        .and_then(|m| m.get(META_CLIENT_CAPS))
        .and_then(|c| c.get(capability))
        .is_some_and(Value::is_object)
}

fn declared_tasks(params: &Value) -> bool {
    params
        .pointer("/_meta")
        .and_then(|m| m.get(META_CLIENT_CAPS))
        .and_then(|c| c.get("extensions"))
        .and_then(|e| e.get(TASKS_EXTENSION))
        .is_some()
}

fn missing(knob: GateKnob, required: Value) -> RpcError {
    let err = RpcError::new(MISSING_CAPABILITY, "Missing required client capability");
    match knob {
        GateKnob::Bare => err,
        GateKnob::Status200 => err
            .data(json!({"requiredCapabilities": required}))
            .status(200),
        _ => err.data(json!({"requiredCapabilities": required})),
    }
}

/// The answer to `method` when it names one of the knob's items; `None` otherwise. `Ok` is the
/// result body (without the modern decorations) and whether it is a final (cacheable) one.
pub fn answer(knob: GateKnob, method: &str, params: &Value) -> Option<Result<Value, RpcError>> {
    let name = params.get("name").and_then(Value::as_str);
    let uri = params.get("uri").and_then(Value::as_str);
    let gated = match method {
        "prompts/get" => name == Some("approve"),
        "resources/read" => uri == Some("fixture://approval"),
        "tools/call" if name == Some("long_job") => return Some(long_job(knob, params)),
        "tools/call" => name == Some("approve"),
        _ => false,
    };
    if !gated {
        return None;
    }
    if params.get("inputResponses").is_some() {
        return Some(Ok(match method {
            "prompts/get" => json!({"messages": [{"role": "user",
                "content": {"type": "text", "text": "Approved."}}]}),
            "resources/read" => json!({"contents": [{"uri": "fixture://approval",
                "mimeType": "text/plain", "text": "approved"}]}),
            _ => json!({"content": [{"type": "text", "text": "approved"}]}),
        }));
    }
    if !declared(params, "elicitation") && knob != GateKnob::Ask {
        return Some(Err(missing(knob, json!({"elicitation": {}}))));
    }
    Some(Ok(json!({
        "resultType": "input_required",
        "inputRequests": {"confirm": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Approve?",
            "requestedSchema": {"type": "object", "properties": {}}}}},
        "requestState": "approval-pending"
    })))
}

fn long_job(knob: GateKnob, params: &Value) -> Result<Value, RpcError> {
    if !declared_tasks(params) && knob != GateKnob::Task {
        return Err(missing(knob, json!({"extensions": {TASKS_EXTENSION: {}}})));
    }
    Ok(json!({
        "resultType": "task", "taskId": "fixture-task-1", "status": "working",
        "createdAt": "2026-07-28T00:00:00Z", "lastUpdatedAt": "2026-07-28T00:00:00Z",
        "ttlMs": 60000
    }))
}
