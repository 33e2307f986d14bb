//! `--contract-tools`: tools with an `outputSchema` contract, for `mcpseal call` and its
//! negative controls; `--call-log FILE`: every `tools/call` the fixture receives, by name.
//!
//! - `forecast` keeps a strict contract: required typed fields, a nullable field (`alert`), an
//!   enum (`conditions`), number bounds (`celsius`, `humidity` with exclusive bounds and
//!   `multipleOf`), string bounds (`city`: length and pattern), `additionalProperties: false`,
//!   and mirrors `structuredContent` in a text block. Every tampering must be rejected.
//! - `forecast_broken` breaks that contract (`celsius` is a string, an extra field).
//! - `forecast_error` answers `isError: true` (exempt from the contract).
//! - `forecast_bare` declares the contract and returns no `structuredContent` (text only);
//!   `forecast_unmirrored` keeps the contract with no text block mirroring it (a warning).
//! - `scalar` (no `outputSchema`) returns a bare string as `structuredContent`: allowed by
//!   2026-07-28, outside the 2025-11-25 `CallToolResult` (an object only).
//! - `confirm` needs the user's confirmation first: a 2026-07-28 server answers
//!   `input_required` (an `elicitation/create` input request and a `requestState`) and completes
//!   only on the retry that answers it and echoes the state; a 2025-11-25 server sends the
//!   client `elicitation/create` in the middle of the call (see `ask`).
//! - `loose` declares a schema with an `anyOf` branch that admits any object: the tampered
//!   copies of its fields all pass (traps).
//! - `legacy_bounds` is draft-07 with a `maximum` beside a `$ref`, which draft 7 ignores (a
//!   trap for validators that follow the draft; the TypeScript SDK's validator does not).
//!
//! The call log exists so a test can prove a client called only the tool it was told to.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde_json::{Value, json};

use crate::jsonrpc::{INVALID_PARAMS, META_CLIENT_CAPS, RpcError};
use crate::knobs::Knobs;

/// The knobs of this module (flattened into the fixture's flags).
#[derive(Debug, Clone, Default, Args)]
pub struct ContractKnobs {
    /// Add `forecast`, `forecast_broken`, `forecast_error`, `forecast_bare`,
    /// `forecast_unmirrored`, `scalar`, `confirm`, `loose` and `legacy_bounds`: tools with an
    /// `outputSchema` contract, kept or broken (`mcpseal call`, negative controls)
    #[arg(long)]
    pub contract_tools: bool,

    /// Append the name of every `tools/call` received to FILE, one per line (proves which
    /// tools a client called)
    #[arg(long, value_name = "FILE")]
    pub call_log: Option<PathBuf>,
}

/// The `requestState` the 2026 `confirm` sends, and expects back verbatim.
pub const CONFIRM_STATE: &str = "mcpseal-fixture:confirm:round-1";

/// The MRTR key of `confirm`'s one input request.
pub const CONFIRM_KEY: &str = "confirm";

fn forecast_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 2, "maxLength": 40, "pattern": "^[A-Z]"},
            "celsius": {"type": "number", "minimum": -90, "maximum": 60},
            "humidity": {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 100, "multipleOf": 5},
            "conditions": {"type": "string", "enum": ["sunny", "cloudy", "rain", "snow"]},
            "alert": {"type": ["string", "null"]}
        },
        "required": ["city", "celsius", "humidity", "conditions", "alert"],
        "additionalProperties": false
    })
}

/// The tools this module adds.
pub fn tools() -> Vec<Value> {
    let city_input = json!({"type": "object",
        "properties": {"city": {"type": "string", "minLength": 1}},
        "required": ["city"], "additionalProperties": false});
    let none = json!({"type": "object", "additionalProperties": false});
    vec![
        json!({"name": "forecast", "description": "Tomorrow's weather for a city (a strict contract)",
            "inputSchema": city_input, "outputSchema": forecast_schema()}),
        json!({"name": "forecast_broken", "description": "Breaks its own outputSchema",
            "inputSchema": city_input, "outputSchema": forecast_schema()}),
        json!({"name": "forecast_error", "description": "Always fails with isError",
            "inputSchema": city_input, "outputSchema": forecast_schema()}),
        json!({"name": "forecast_bare", "description": "Declares the contract, returns text only",
            "inputSchema": city_input, "outputSchema": forecast_schema()}),
        json!({"name": "forecast_unmirrored", "description": "Keeps the contract, mirrors nothing in text",
            "inputSchema": city_input, "outputSchema": forecast_schema()}),
        json!({"name": "scalar", "description": "A bare string as structuredContent (2026-07-28 only)",
            "inputSchema": none}),
        json!({"name": "confirm", "description": "Asks the user to confirm first (MRTR in 2026, elicitation mid-call in 2025)",
            "inputSchema": none,
            "outputSchema": {"type": "object",
                "properties": {"confirmed": {"type": "boolean"}, "by": {"type": "string"}},
                "required": ["confirmed", "by"], "additionalProperties": false}}),
        json!({"name": "loose", "description": "A report, or any object at all (an anyOf that admits anything)",
            "inputSchema": none,
            "outputSchema": {
                "type": "object",
                "anyOf": [{"$ref": "#/$defs/Report"}, {"type": "object", "additionalProperties": true}],
                "$defs": {"Report": {"type": "object",
                    "properties": {"status": {"type": "string", "enum": ["ok", "failed"]},
                                   "count": {"type": "integer", "minimum": 0}},
                    "required": ["status", "count"], "additionalProperties": false}}}}),
        json!({"name": "legacy_bounds", "description": "A draft-07 schema with a bound beside $ref",
            "inputSchema": none,
            "outputSchema": {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "definitions": {"Temp": {"type": "number"}},
                "properties": {"celsius": {"$ref": "#/definitions/Temp", "maximum": 60}},
                "required": ["celsius"]}}),
    ]
}

/// Appends `name` to the call log, if one was asked for (best effort: a test reads it).
pub fn record(knobs: &Knobs, name: &str) {
    let Some(path) = &knobs.contract.call_log else {
        return;
    };
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path);
    if let Ok(mut f) = file {
        // One `write` per line: concurrent calls append to the same log.
        let _ = f.write_all(format!("{name}\n").as_bytes());
    }
}

/// `{content: [text mirror], structuredContent}`.
fn structured(v: Value) -> Value {
    json!({"content": [{"type": "text", "text": v.to_string()}], "structuredContent": v})
}

fn city(params: &Value) -> String {
    let raw = params
        .get("arguments")
        .and_then(|a| a.get("city"))
        .and_then(Value::as_str)
        .unwrap_or("Lisbon");
    let mut chars = raw.chars();
    match chars.next() {
        // The pattern wants a capital first letter; the contract is kept whatever is asked.
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "Lisbon".to_owned(),
    }
}

/// The result of a contract tool, `None` for any other tool. `modern` chooses how `confirm`
/// asks (MRTR); on a 2025 server it is asked mid-call before this runs (see [`asks_mid_call`]).
pub fn call(
    knobs: &Knobs,
    modern: bool,
    name: &str,
    params: &Value,
) -> Option<Result<Value, RpcError>> {
    if !knobs.contract.contract_tools {
        return None;
    }
    Some(Ok(match name {
        "forecast" => structured(
            json!({"city": city(params), "celsius": 21.5, "humidity": 55,
            "conditions": "sunny", "alert": null}),
        ),
        "forecast_broken" => structured(
            json!({"city": city(params), "celsius": "warm", "humidity": 55,
            "conditions": "sunny", "alert": null, "source": "a guess"}),
        ),
        "forecast_bare" => {
            json!({"content": [{"type": "text", "text": "sunny, 21.5 °C"}]})
        }
        "forecast_unmirrored" => json!({"content": [],
            "structuredContent": {"city": city(params), "celsius": 21.5, "humidity": 55,
                "conditions": "sunny", "alert": null}}),
        "scalar" => structured(json!("sunny")),
        "forecast_error" => {
            json!({"content": [{"type": "text", "text": "the forecast service is down"}], "isError": true})
        }
        "confirm" if modern => return Some(confirm_modern(params)),
        "confirm" => {
            json!({"content": [{"type": "text", "text": "confirm needs an elicitation the client did not answer"}], "isError": true})
        }
        "loose" => structured(json!({"status": "ok", "count": 3})),
        "legacy_bounds" => structured(json!({"celsius": 21})),
        _ => return None,
    }))
}

/// The form `confirm` asks the user to fill in.
pub fn elicitation_params() -> Value {
    json!({"mode": "form", "message": "Run the forecast for real?",
        "requestedSchema": {"type": "object",
            "properties": {"confirmed": {"type": "boolean", "title": "Confirm"},
                           "by": {"type": "string", "format": "email", "title": "Your email"}},
            "required": ["confirmed"]}})
}

/// `confirm`'s result once the user answered (`answer` = the client's `ElicitResult`).
pub fn after_elicitation(answer: &Value) -> Value {
    if answer.get("action").and_then(Value::as_str) != Some("accept") {
        return json!({"content": [{"type": "text", "text": "not confirmed"}], "isError": true});
    }
    let content = answer.get("content");
    let confirmed = content
        .and_then(|c| c.get("confirmed"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let by = content
        .and_then(|c| c.get("by"))
        .and_then(Value::as_str)
        .unwrap_or("anonymous");
    structured(json!({"confirmed": confirmed, "by": by}))
}

fn confirm_modern(params: &Value) -> Result<Value, RpcError> {
    let Some(responses) = params.get("inputResponses") else {
        let declared = params
            .pointer(&format!("/_meta/{}", META_CLIENT_CAPS.replace('/', "~1")))
            .and_then(|c| c.get("elicitation"))
            .is_some();
        if !declared {
            return Err(RpcError::new(
                mcpseal_protocol::method::code::MISSING_REQUIRED_CLIENT_CAPABILITY,
                "Missing required client capability: elicitation",
            )
            .data(json!({"requiredCapabilities": {"elicitation": {}}})));
        }
        return Ok(json!({"resultType": "input_required",
            "inputRequests": {CONFIRM_KEY: {"method": "elicitation/create", "params": elicitation_params()}},
            "requestState": CONFIRM_STATE}));
    };
    if params.get("requestState").and_then(Value::as_str) != Some(CONFIRM_STATE) {
        return Err(
            RpcError::new(INVALID_PARAMS, "requestState was not echoed verbatim")
                .data(json!({"expected": CONFIRM_STATE}))
                .status(200),
        );
    }
    let Some(answer) = responses.get(CONFIRM_KEY) else {
        return Err(RpcError::new(INVALID_PARAMS, "inputResponses has no `confirm`").status(200));
    };
    Ok(after_elicitation(answer))
}

/// Whether `msg` is a call of `confirm` that a 2025 server answers only after asking the
/// client (with `--contract-tools` in legacy mode).
pub fn asks_mid_call(knobs: &Knobs, msg: &Value) -> bool {
    knobs.contract.contract_tools
        && knobs.mode == crate::knobs::Mode::Legacy
        && msg.get("id").is_some()
        && msg.get("method").and_then(Value::as_str) == Some("tools/call")
        && msg.pointer("/params/name").and_then(Value::as_str) == Some("confirm")
}
