//! The clean part of every case: a minimal 2026-07-28 server. `server/discover` advertises
//! tools only; `tools/list` serves one tool; every other method (the other lists, the
//! client's sanity check, legacy `initialize`) is unknown: `-32601`, with HTTP 404.

use serde_json::{Value, json};

/// `-32601`.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// What the clean server answers to a request: a JSON-RPC message, and its HTTP status.
pub fn answer(msg: &Value) -> (Value, u16) {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    match method {
        "server/discover" => (result(&id, discover()), 200),
        "tools/list" => (
            result(&id, tools(vec![tool("echo", "Echoes its text.")], None)),
            200,
        ),
        _ => (method_not_found(&id, method, ""), 404),
    }
}

/// The discover result.
pub fn discover() -> Value {
    json!({
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "ttlMs": 0,
        "cacheScope": "private",
        "resultType": "complete",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "hostile", "version": "1.0.0"}},
    })
}

/// A tool with a trivial schema.
pub fn tool(name: &str, description: &str) -> Value {
    json!({"name": name, "description": description,
           "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}})
}

/// A `tools/list` result page.
pub fn tools(items: Vec<Value>, next: Option<String>) -> Value {
    let mut r =
        json!({"tools": items, "ttlMs": 0, "cacheScope": "private", "resultType": "complete"});
    if let Some(n) = next {
        r["nextCursor"] = Value::String(n);
    }
    r
}

/// A JSON-RPC result.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// `-32601` naming the method, with `extra` appended to the message.
pub fn method_not_found(id: &Value, method: &str, extra: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id,
           "error": {"code": METHOD_NOT_FOUND, "message": format!("Method not found{extra}"),
                     "data": {"method": method}}})
}

/// The request's `params.cursor`, if any.
pub fn cursor(msg: &Value) -> Option<&str> {
    msg.get("params")?.get("cursor")?.as_str()
}
