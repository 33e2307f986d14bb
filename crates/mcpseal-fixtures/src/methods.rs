//! Method bodies, in the result shape of one era.
//!
//! `Era::Modern` results carry `resultType`, cache hints on cacheable results and
//! `_meta` serverInfo (each removable by a knob, to provoke MCP004/005/018);
//! `Era::Legacy` results are the bare 2025-11-25 shapes.
//! Application errors (unknown tool, bad cursor…) are HTTP 200: the spec gives them no status.

use serde_json::{Map, Value, json};

use crate::handler::Handler;
use crate::jsonrpc::{
    self, INVALID_PARAMS, LEGACY_VERSION, META_SERVER_INFO, META_SUBSCRIPTION_ID, MODERN_VERSION,
    RESOURCE_NOT_FOUND_2025, RpcError,
};
use crate::knobs::{ListKind, ListenAckKnob, MissingResourceKnob, Mode, TasksKnob};
use crate::modes::{Answer, method_not_found};
use crate::paging;

/// Which era's result shapes to produce.
pub use mcpseal_protocol::Era;

/// An application-level error (HTTP 200).
fn app_err(code: i64, message: impl Into<String>, data: Value) -> RpcError {
    RpcError::new(code, message).data(data).status(200)
}

fn str_param<'a>(params: &'a Value, key: &str) -> Option<&'a str> {
    params.get(key).and_then(Value::as_str)
}

impl Handler {
    /// Run `method` and shape the result for `era`.
    pub fn call(
        &self,
        era: Era,
        method: &str,
        params: &Value,
        id: &Value,
    ) -> Result<Answer, RpcError> {
        if let Some(knob) = self.knobs.capability_gate
            && let Some(answer) = crate::gate::answer(knob, method, params)
        {
            let body = answer?;
            // Interim (`input_required`) and task results carry no cache hints.
            let done = body.get("resultType").is_none();
            let cacheable = done && method == "resources/read";
            return Ok(Answer::Result(
                self.finish(era, method, body, cacheable),
                None,
            ));
        }
        if let Some(kind) = ListKind::from_method(method) {
            let body = self.list(kind, params)?;
            return Ok(Answer::Result(self.finish(era, method, body, true), None));
        }
        let (body, cacheable) = match method {
            "server/discover" => (self.discover(), true),
            "initialize" => return Ok(Answer::Result(self.initialize(), None)),
            "resources/read" => (self.read(era, params)?, true),
            "tools/call" => (self.call_tool(era, params)?, false),
            "prompts/get" => (self.get_prompt(params)?, false),
            "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
                (json!({}), false)
            }
            "tasks/list" => (json!({"tasks": []}), false),
            "tasks/get" | "tasks/result" | "tasks/cancel" => {
                let task = params.get("taskId").cloned().unwrap_or(Value::Null);
                return Err(app_err(
                    INVALID_PARAMS,
                    "Unknown task",
                    json!({"taskId": task}),
                ));
            }
            "subscriptions/listen" | "messages/listen" => return Ok(self.listen(params, id)),
            m => return Err(method_not_found(m)),
        };
        Ok(Answer::Result(
            self.finish(era, method, body, cacheable),
            None,
        ))
    }

    /// Add the modern result decorations the knobs leave in place.
    fn finish(&self, era: Era, method: &str, mut body: Value, cacheable: bool) -> Value {
        let k = &self.knobs;
        if era == Era::Legacy {
            return body;
        }
        if !k.no_result_type && body.get("resultType").is_none() {
            body["resultType"] = json!("complete");
        }
        let partial = k.partial_cache && matches!(method, "prompts/list" | "resources/read");
        if cacheable && !k.no_cache_hints && !partial {
            body["ttlMs"] = json!(60_000);
            body["cacheScope"] = json!("public");
        }
        if !k.no_server_info_meta && (cacheable || !k.partial_server_info) {
            body["_meta"] = json!({ META_SERVER_INFO: self.surface.server_info() });
            if k.invalid_wire {
                body["_meta"][META_SERVER_INFO]["version"] = json!(1);
            }
        }
        body
    }

    /// Modern server capabilities.
    pub fn capabilities(&self) -> Value {
        if let Some(c) = &self.surface.capabilities {
            return c.clone();
        }
        let k = &self.knobs;
        let s = &self.surface;
        let mut caps = Map::new();
        let lc = || {
            if k.list_changed || k.silent_listen {
                json!({"listChanged": true})
            } else {
                json!({})
            }
        };
        if s.tools.is_some() {
            caps.insert("tools".into(), lc());
        }
        if k.invalid_wire {
            caps.insert("tools".into(), json!({"listChanged": "yes"}));
        }
        if s.resources.is_some() || s.templates.is_some() {
            caps.insert("resources".into(), lc());
        }
        if s.prompts.is_some() {
            caps.insert("prompts".into(), lc());
        }
        if k.deprecated_caps {
            caps.insert("logging".into(), json!({}));
        }
        if matches!(k.tasks, Some(TasksKnob::Core | TasksKnob::Both)) {
            caps.insert("tasks".into(), core_tasks());
        }
        let gate_tasks = matches!(
            k.capability_gate,
            Some(crate::gate::GateKnob::Refuse | crate::gate::GateKnob::Task)
        );
        if matches!(k.tasks, Some(TasksKnob::Ext | TasksKnob::Both)) || gate_tasks {
            caps.insert(
                "extensions".into(),
                json!({"io.modelcontextprotocol/tasks": {}}),
            );
        }
        Value::Object(caps)
    }

    fn discover(&self) -> Value {
        let mut body = json!({
            "supportedVersions": self.supported_versions(),
            "capabilities": self.capabilities(),
        });
        if let Some(i) = &self.surface.instructions {
            body["instructions"] = json!(i);
        }
        if self.knobs.body_server_info {
            body["serverInfo"] = self.surface.server_info();
            body["protocolVersion"] = json!(MODERN_VERSION);
        }
        body
    }

    /// The 2025-11-25 `initialize` result (legacy, dual, liar).
    fn initialize(&self) -> Value {
        let s = &self.surface;
        let mut caps = Map::new();
        if s.tools.is_some() {
            caps.insert("tools".into(), json!({"listChanged": true}));
        }
        if s.resources.is_some() || s.templates.is_some() {
            caps.insert("resources".into(), json!({"subscribe": true}));
        }
        if self.knobs.mode == Mode::Legacy {
            caps.insert("logging".into(), json!({}));
            caps.insert("tasks".into(), core_tasks());
        }
        if s.prompts.is_some() {
            caps.insert("prompts".into(), json!({}));
        }
        let mut body = json!({
            "protocolVersion": self.knobs.negotiate_version.as_deref().unwrap_or(LEGACY_VERSION),
            "capabilities": caps,
            "serverInfo": s.server_info(),
        });
        if let Some(i) = &s.instructions {
            body["instructions"] = json!(i);
        }
        body
    }

    fn list(&self, kind: ListKind, params: &Value) -> Result<Value, RpcError> {
        if self.knobs.disown == Some(kind) {
            return Err(crate::modes::method_not_found(kind.method()));
        }
        let s = &self.surface;
        let key = kind.key();
        let items = match kind {
            ListKind::Tools => &s.tools,
            ListKind::Resources => &s.resources,
            ListKind::ResourceTemplates => &s.templates,
            ListKind::Prompts => &s.prompts,
        };
        let mut items = items.clone().unwrap_or_default();
        if kind == ListKind::Tools {
            crate::rugpull::tools(&self.knobs.rug, &mut items);
        }
        if self.knobs.duplicate == Some(kind) && !items.is_empty() {
            items.insert(1, items[0].clone());
        }
        {
            let mut st = self.state();
            let calls = &mut st.list_calls[kind.index()];
            *calls += 1;
            let flip = self.knobs.mode == Mode::Legacy
                && kind == ListKind::Tools
                && calls.is_multiple_of(2);
            if flip {
                items.reverse();
            }
            if kind == ListKind::Tools
                && let Some(name) = &self.knobs.volatile_description
                && let Some(tool) = items.iter_mut().find(|t| t["name"] == name.as_str())
            {
                let text = tool["description"].as_str().unwrap_or_default().to_owned();
                tool["description"] = json!(format!(
                    "{text} (listing {calls} by process {})",
                    std::process::id()
                ));
            }
            if self.knobs.shuffle {
                let st = &mut *st;
                paging::shuffle(&mut items, &st.last_order[kind as usize], &mut st.rng);
                st.last_order[kind as usize].clone_from(&items);
            }
        }
        let cursor = match params.get("cursor") {
            None | Some(Value::Null) => None,
            Some(Value::String(c)) => Some(c.as_str()),
            Some(other) => {
                return Err(app_err(
                    INVALID_PARAMS,
                    "Invalid cursor",
                    json!({"cursor": other}),
                ));
            }
        };
        let page = paging::page(kind, items, cursor, &self.knobs).map_err(|e| e.status(200))?;
        if kind == ListKind::Tools && cursor.is_none() {
            crate::rugpull::listed(&self.knobs.rug);
        }
        let mut body = json!({ key: page.items });
        if let Some(next) = page.next {
            body["nextCursor"] = json!(next);
        }
        Ok(body)
    }

    fn read(&self, era: Era, params: &Value) -> Result<Value, RpcError> {
        let uri = str_param(params, "uri")
            .ok_or_else(|| app_err(INVALID_PARAMS, "Missing uri", json!({"missing": ["uri"]})))?;
        match self.surface.read(uri) {
            Some(c) => Ok(json!({"contents": [c]})),
            None if self.knobs.missing_resource == Some(MissingResourceKnob::Empty) => {
                Ok(json!({"contents": []}))
            }
            None if self.knobs.missing_resource == Some(MissingResourceKnob::Internal) => {
                Err(app_err(-32603, "Internal error", json!({"uri": uri})))
            }
            None => {
                let code = if era == Era::Legacy || self.knobs.old_not_found {
                    RESOURCE_NOT_FOUND_2025
                } else {
                    INVALID_PARAMS
                };
                Err(app_err(code, "Resource not found", json!({"uri": uri})))
            }
        }
    }

    fn call_tool(&self, era: Era, params: &Value) -> Result<Value, RpcError> {
        let name = str_param(params, "name").ok_or_else(|| {
            app_err(
                INVALID_PARAMS,
                "Missing tool name",
                json!({"missing": ["name"]}),
            )
        })?;
        // Recorded before anything else: an attempt to call an unknown tool is a call too.
        crate::contract::record(&self.knobs, name);
        let honest = self.surface.tool(name).is_some();
        let exists = crate::rugpull::tool_exists(&self.knobs.rug, name, honest);
        if !exists && self.knobs.unknown_tool_is_error {
            return Ok(
                json!({"content": [{"type": "text", "text": format!("Unknown tool: {name}")}],
                             "isError": true}),
            );
        }
        if !exists {
            return Err(app_err(
                INVALID_PARAMS,
                format!("Unknown tool: {name}"),
                json!({"name": name}),
            ));
        }
        if let Some(answer) = crate::contract::call(&self.knobs, era == Era::Modern, name, params) {
            return answer;
        }
        let args = params
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| json!({}));
        // Arguments that do not fit the tool's schema are a tool execution error (an `isError`
        // result the model can act on), not a protocol error: tools.mdx "Error Handling".
        let bad = |what: &str| what.to_owned();
        crate::rugpull::called(&self.knobs.rug);
        let text = |t: String| json!({"content": [{"type": "text", "text": t}]});
        let structured = |v: Value| json!({"content": [{"type": "text", "text": v.to_string()}], "structuredContent": v});
        let run = || -> Result<Value, String> {
            Ok(match name {
                "echo" => text(
                    str_param(&args, "message")
                        .ok_or_else(|| bad("`message` must be a string"))?
                        .to_owned(),
                ),
                "add" => {
                    let num = |k: &str| {
                        args.get(k)
                            .and_then(Value::as_f64)
                            .ok_or_else(|| bad("`a` and `b` must be numbers"))
                    };
                    let (a, b) = (num("a")?, num("b")?);
                    // Integers stay integers (`3`, not `3.0`) so fingerprints match other languages.
                    match (args["a"].as_i64(), args["b"].as_i64()) {
                        (Some(x), Some(y)) if x.checked_add(y).is_some() => {
                            structured(json!({"sum": x + y}))
                        }
                        _ => structured(json!({"sum": a + b})),
                    }
                }
                "clock" => text("2026-07-28T00:00:00Z".to_owned()),
                "bad_output" => structured(json!({"sum": "three"})),
                "bad_error" => json!({"isError": true}),
                // Input requests only for a client that declared elicitation (MRTR: MUST NOT
                // otherwise); for one that did not, the state alone.
                "ask" if crate::gate::declared(params, "elicitation") => json!({
                "resultType": "input_required",
                "inputRequests": {"confirm": {"method": "elicitation/create",
                    "params": {"mode": "form", "message": "Proceed?",
                               "requestedSchema": {"type": "object", "properties": {}}}}},
                "requestState": "opaque-state"}),
                "ask" => json!({"resultType": "input_required", "requestState": "opaque-state"}),
                "ask_badly" => json!({"resultType": "input_required",
                "inputRequests": {"x": {"method": "tools/call"}}}),
                n if n.starts_with("tool_") => structured(json!({"tool": n, "ok": true})),
                n => text(format!("called {n}")),
            })
        };
        Ok(run().unwrap_or_else(|what| {
            json!({"content": [{"type": "text", "text": format!("Invalid arguments: {what}")}],
                   "isError": true})
        }))
    }

    fn get_prompt(&self, params: &Value) -> Result<Value, RpcError> {
        let name = str_param(params, "name").ok_or_else(|| {
            app_err(
                INVALID_PARAMS,
                "Missing prompt name",
                json!({"missing": ["name"]}),
            )
        })?;
        let Some(prompt) = self.surface.prompt(name) else {
            return Err(app_err(
                INVALID_PARAMS,
                format!("Unknown prompt: {name}"),
                json!({"name": name}),
            ));
        };
        let args = params.get("arguments");
        let arg = |k: &str| args.and_then(|a| a.get(k)).and_then(Value::as_str);
        let required = prompt["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| a["required"] == true);
        for a in required {
            let key = a["name"].as_str().unwrap_or_default();
            if arg(key).is_none() {
                return Err(app_err(
                    INVALID_PARAMS,
                    format!("Missing required argument: {key}"),
                    json!({"argument": key}),
                ));
            }
        }
        let text = match name {
            "greet" => format!("Hello, {}!", arg("name").unwrap_or_default()),
            "summarize" => format!("Summarize this: {}", arg("text").unwrap_or("(nothing)")),
            n => format!("Prompt {n}"),
        };
        let mut body =
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}]});
        if let Some(d) = prompt.get("description") {
            body["description"] = d.clone();
        }
        Ok(body)
    }

    /// `subscriptions/listen`: acknowledge the honoured subset of the filter, then hold open.
    fn listen(&self, params: &Value, id: &Value) -> Answer {
        if self.knobs.silent_listen {
            return Answer::Hang;
        }
        let caps = self.capabilities();
        let filter = params.get("notifications").and_then(Value::as_object);
        let mut honoured = Map::new();
        for (field, cap, flag) in [
            ("toolsListChanged", "tools", "listChanged"),
            ("promptsListChanged", "prompts", "listChanged"),
            ("resourcesListChanged", "resources", "listChanged"),
            ("resourceSubscriptions", "resources", "subscribe"),
        ] {
            let asked = filter.and_then(|f| f.get(field));
            if let Some(v) = asked.filter(|_| caps[cap][flag] == true) {
                honoured.insert(field.into(), v.clone());
            }
        }
        let mut meta = json!({ META_SUBSCRIPTION_ID: id });
        let mut before = Vec::new();
        match self.knobs.listen_ack {
            Some(ListenAckKnob::NoId) => meta = json!({}),
            Some(ListenAckKnob::Superset) => {
                for field in [
                    "toolsListChanged",
                    "promptsListChanged",
                    "resourcesListChanged",
                ] {
                    honoured.insert(field.into(), json!(true));
                }
                honoured.insert(
                    "resourceSubscriptions".into(),
                    json!(["fixture://unrequested"]),
                );
            }
            Some(ListenAckKnob::Late) => before.push(jsonrpc::notification(
                "notifications/tools/list_changed",
                json!({"_meta": { META_SUBSCRIPTION_ID: id }}),
            )),
            None => {}
        }
        Answer::Listen(
            before,
            jsonrpc::notification(
                "notifications/subscriptions/acknowledged",
                json!({"_meta": meta, "notifications": honoured}),
            ),
        )
    }
}

/// The 2025-11-25 core tasks capability.
fn core_tasks() -> Value {
    json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
}
