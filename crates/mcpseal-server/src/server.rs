//! The dispatcher: one JSON-RPC message in, what to send back out.
//!
//! Both transports hand every parsed message to [`Server::handle`] and only turn its
//! [`Handled`] into bytes, so stdio and HTTP cannot drift apart. Order of judgement for a
//! request: JSON-RPC shape (`-32600`), dress (`dress::judge`: envelope, version, era), routing
//! headers (HTTP), method exists in that era and its list is served (`-32601`), then the method.

use std::sync::Arc;

use mcpseal_protocol::method::code;
use mcpseal_protocol::{Era, LATEST_LEGACY_REVISION, ListKind, keys, method};
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc, watch};

use crate::answer::{Answer, Raw};
use crate::dress::{self, Dress, RoutingHeaders};
use crate::error::RpcError;
use crate::handler::{Context, Handler, TransportKind, edit_meta};
use crate::listen;
use crate::options::Options;
use crate::out::{Body, Out};
use crate::pages;

/// An MCP server: a [`Handler`] behind the dispatcher. Cheap to clone (shared).
pub struct Server<H: Handler> {
    pub(crate) inner: Arc<Inner<H>>,
}

impl<H: Handler> Clone for Server<H> {
    fn clone(&self) -> Self {
        Server {
            inner: Arc::clone(&self.inner),
        }
    }
}

pub(crate) struct Inner<H> {
    pub handler: H,
    /// The handler's `Implementation` as JSON, made once (it is on every 2026 result).
    pub info: Value,
    /// [`Inner::info`] as JSON text, for the results written from an [`Answer`].
    pub info_text: Arc<str>,
    pub options: Options,
    pub changes: broadcast::Sender<ListKind>,
    pub shutdown: watch::Sender<bool>,
}

/// The future that runs one request; it sends its messages on the request's channel.
pub(crate) type Work = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

/// What the transport must do with one message.
pub(crate) enum Handled {
    /// Send this response now.
    Reply { body: Value, status: u16 },
    /// A notification (or, on stdio, a stray response): nothing to send; HTTP answers 202.
    /// `cancelled` is the request id a `notifications/cancelled` named.
    Accepted { cancelled: Option<Value> },
    /// A request to run: `work` produces what arrives on `out` (notifications, then its
    /// `Final`). The transport drives it: HTTP polls it in the request's own task (no spawn on the
    /// common path, and dropping the response cancels it), stdio spawns it so requests overlap.
    Running {
        out: mpsc::Receiver<Out>,
        work: Work,
        /// The request id (stdio cancellation key).
        id: Value,
        /// A `subscriptions/listen` stream (no `Final` until the server shuts down).
        listen: bool,
    },
}

pub(crate) fn response(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

pub(crate) fn error_response(id: &Value, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error.to_value() })
}

fn reply_err(id: &Value, error: &RpcError, status: u16) -> Handled {
    Handled::Reply {
        body: error_response(id, error),
        status,
    }
}

impl<H: Handler> Server<H> {
    /// A server for this handler.
    pub fn new(handler: H, options: Options) -> Server<H> {
        let (changes, _) = broadcast::channel(64);
        let (shutdown, _) = watch::channel(false);
        let info = serde_json::to_value(handler.implementation()).unwrap_or(Value::Null);
        let info_text = Arc::from(info.to_string());
        Server {
            inner: Arc::new(Inner {
                info,
                info_text,
                handler,
                options,
                changes,
                shutdown,
            }),
        }
    }

    /// The handler.
    pub fn handler(&self) -> &H {
        &self.inner.handler
    }

    /// The options.
    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    /// Tells every open `subscriptions/listen` stream that asked for it that `kind` changed
    /// (only when [`Options::list_changed`] is on; otherwise nothing was advertised).
    pub fn notify_list_changed(&self, kind: ListKind) {
        if self.inner.options.list_changed {
            let _ = self.inner.changes.send(kind);
        }
    }

    /// Ends every open `subscriptions/listen` stream gracefully (each gets its final
    /// `SubscriptionsListenResult`). The transports call it when they stop.
    pub fn shutdown(&self) {
        let _ = self.inner.shutdown.send(true);
    }

    /// The server capabilities, derived from the lists the handler serves.
    pub fn capabilities(&self, era: Era) -> Value {
        let h = &self.inner.handler;
        let served = |k: ListKind| h.list(k).is_some();
        let flag = if self.inner.options.list_changed && era == Era::Modern {
            json!({ "listChanged": true })
        } else {
            json!({})
        };
        let mut caps = Map::new();
        if served(ListKind::Tools) {
            caps.insert("tools".into(), flag.clone());
        }
        if served(ListKind::Resources) || served(ListKind::ResourceTemplates) {
            caps.insert("resources".into(), flag.clone());
        }
        if served(ListKind::Prompts) {
            caps.insert("prompts".into(), flag);
        }
        Value::Object(caps)
    }

    /// Handles one parsed message. `headers` are the decoded routing headers of an HTTP POST
    /// (`None` on stdio).
    pub(crate) fn handle(&self, msg: Value, headers: Option<&RoutingHeaders<'_>>) -> Handled {
        let transport = if headers.is_some() {
            TransportKind::Http
        } else {
            TransportKind::Stdio
        };
        let Value::Object(mut msg) = msg else {
            let e = RpcError::new(
                code::INVALID_REQUEST,
                "A message is one JSON-RPC object (no batches)",
            );
            return reply_err(&Value::Null, &e, 400);
        };
        let id = msg.remove("id");
        let id_ok = matches!(&id, Some(Value::String(_)) | Some(Value::Number(_)));
        let reply_id = if id_ok {
            id.clone().unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            let e = RpcError::new(code::INVALID_REQUEST, "`jsonrpc` must be \"2.0\"");
            return reply_err(&reply_id, &e, 400);
        }
        let Some(Value::String(method)) = msg.remove("method") else {
            if msg.contains_key("result") || msg.contains_key("error") {
                // A response: this server never sends requests, so there is nothing it answers.
                if transport == TransportKind::Stdio {
                    return Handled::Accepted { cancelled: None };
                }
                let e = RpcError::new(
                    code::INVALID_REQUEST,
                    "Clients do not send responses to this server",
                );
                return reply_err(&Value::Null, &e, 400);
            }
            let e = RpcError::new(code::INVALID_REQUEST, "A request needs a string `method`");
            return reply_err(&reply_id, &e, 400);
        };
        let params = msg.remove("params");
        let Some(id) = id else {
            let cancelled = (method == method::NOTIFICATION_CANCELLED)
                .then(|| params.as_ref().and_then(|p| p.get("requestId")).cloned())
                .flatten();
            return Handled::Accepted { cancelled };
        };
        if !id_ok {
            let e = RpcError::new(
                code::INVALID_REQUEST,
                "A request id is a string or a number",
            );
            return reply_err(&Value::Null, &e, 400);
        }
        let dress = match dress::judge(&method, params.as_ref(), headers, self.inner.options.legacy)
        {
            Ok(d) => d,
            Err(e) => return reply_err(&id, &e, 400),
        };
        if let Some(h) = headers {
            let tools = (method == method::TOOLS_CALL)
                .then(|| self.inner.handler.list(ListKind::Tools))
                .flatten();
            let schema = tool_schema(tools.as_deref(), params.as_ref());
            if let Err(e) = dress::check_routing(&method, params.as_ref(), h, dress.era, schema) {
                return reply_err(&id, &e, 400);
            }
        }
        self.dispatch(&method, params, id, dress, transport)
    }

    fn dispatch(
        &self,
        method: &str,
        params: Option<Value>,
        id: Value,
        dress: Dress,
        transport: TransportKind,
    ) -> Handled {
        let era = dress.era;
        let not_found = |m: &str| {
            let status = if era == Era::Modern { 404 } else { 200 };
            reply_err(&id, &RpcError::method_not_found(m), status)
        };
        let h = &self.inner.handler;
        let resources_served =
            h.list(ListKind::Resources).is_some() || h.list(ListKind::ResourceTemplates).is_some();
        let immediate = |r: Result<Value, RpcError>| match r {
            Ok(result) => Handled::Reply {
                body: response(&id, result),
                status: 200,
            },
            Err(e) => reply_err(&id, &self.era_error(e, era), 200),
        };
        if let Some(kind) = ListKind::from_method(method) {
            let served = match kind {
                ListKind::Resources | ListKind::ResourceTemplates => resources_served,
                k => h.list(k).is_some(),
            };
            if !served {
                return not_found(method);
            }
            return immediate(self.list(kind, params.as_ref(), era));
        }
        match (era, method) {
            (Era::Modern, method::SERVER_DISCOVER) => immediate(Ok(self.discover())),
            (Era::Legacy, method::INITIALIZE) => immediate(Ok(self.initialize(dress.revision))),
            (Era::Legacy, method::PING) => immediate(Ok(json!({}))),
            (_, method::TOOLS_CALL) if h.list(ListKind::Tools).is_some() => {
                self.spawn_call(method::TOOLS_CALL, params, id, dress, transport)
            }
            (_, method::PROMPTS_GET) if h.list(ListKind::Prompts).is_some() => {
                self.spawn_call(method::PROMPTS_GET, params, id, dress, transport)
            }
            (_, method::RESOURCES_READ) if resources_served => {
                self.spawn_call(method::RESOURCES_READ, params, id, dress, transport)
            }
            (Era::Modern, method::SUBSCRIPTIONS_LISTEN) => listen::start(self, params.as_ref(), id),
            (_, m) => not_found(m),
        }
    }

    /// A handler error as the request's era numbers it (`-32002` is 2025-only).
    fn era_error(&self, mut e: RpcError, era: Era) -> RpcError {
        if era == Era::Modern && e.code == code::RESOURCE_NOT_FOUND {
            e.code = code::INVALID_PARAMS;
        }
        e
    }

    /// Adds what a 2026 result must carry: `resultType`, cache hints on cacheable results,
    /// `_meta` serverInfo. 2025 results are left as the handler made them.
    pub(crate) fn finish(&self, era: Era, result: Value, cacheable: bool) -> Value {
        let Value::Object(mut r) = result else {
            return result;
        };
        self.finish_map(era, &mut r, cacheable);
        Value::Object(r)
    }

    /// [`Server::finish`] on a handler's [`Answer`] (its pre-written members are never the
    /// dispatcher's: [`Answer::with_raw`] keeps those as values).
    ///
    /// Its serverInfo is written from the server's pre-written text, not cloned as a tree.
    pub(crate) fn finish_answer(&self, era: Era, mut result: Answer, cacheable: bool) -> Answer {
        if era != Era::Modern {
            return result;
        }
        self.complete(result.fields_mut(), cacheable);
        let info = Raw::new().shared(Arc::clone(&self.inner.info_text));
        result.with_raw_meta(keys::META_SERVER_INFO, info)
    }

    fn finish_map(&self, era: Era, r: &mut Map<String, Value>, cacheable: bool) {
        if era == Era::Modern {
            self.complete(r, cacheable);
            let info = self.server_info();
            edit_meta(r, |m| {
                m.insert(keys::META_SERVER_INFO.into(), info);
            });
        }
    }

    /// `resultType`, and the cache hints of a complete cacheable result.
    fn complete(&self, r: &mut Map<String, Value>, cacheable: bool) {
        let complete = r
            .entry(keys::RESULT_TYPE)
            .or_insert_with(|| json!(keys::RESULT_TYPE_COMPLETE))
            == keys::RESULT_TYPE_COMPLETE;
        if cacheable && complete {
            let o = &self.inner.options;
            r.entry(keys::TTL_MS).or_insert_with(|| json!(o.ttl_ms));
            r.entry(keys::CACHE_SCOPE)
                .or_insert_with(|| json!(o.cache_scope.as_str()));
        }
    }

    pub(crate) fn server_info(&self) -> Value {
        self.inner.info.clone()
    }

    fn discover(&self) -> Value {
        let mut r = json!({
            keys::SUPPORTED_VERSIONS: dress::supported_versions(),
            "capabilities": self.capabilities(Era::Modern),
        });
        if let Some(i) = self.inner.handler.instructions() {
            r["instructions"] = json!(i);
        }
        self.finish(Era::Modern, r, true)
    }

    fn initialize(&self, revision: &str) -> Value {
        let revision =
            mcpseal_protocol::legacy_revision(revision).unwrap_or(LATEST_LEGACY_REVISION);
        let mut r = json!({
            "protocolVersion": revision,
            "capabilities": self.capabilities(Era::Legacy),
            "serverInfo": self.server_info(),
        });
        if let Some(i) = self.inner.handler.instructions() {
            r["instructions"] = json!(i);
        }
        r
    }

    fn list(&self, kind: ListKind, params: Option<&Value>, era: Era) -> Result<Value, RpcError> {
        let items = self
            .inner
            .handler
            .list(kind)
            .unwrap_or_else(|| Arc::from(Vec::new()));
        let page = pages::page(
            kind,
            &items,
            params.and_then(|p| p.get("cursor")),
            self.inner.options.page_size,
        )?;
        let mut r = json!({ kind.key(): page.items });
        if let Some(next) = page.next {
            r[keys::NEXT_CURSOR] = json!(next);
        }
        Ok(self.finish(era, r, true))
    }

    /// Prepares a call (`tools/call`, `resources/read`, `prompts/get`: the protocol's own name,
    /// so the work holds it without a copy), bounded by the request timeout and dropped when the
    /// client goes away.
    fn spawn_call(
        &self,
        method: &'static str,
        params: Option<Value>,
        id: Value,
        dress: Dress,
        transport: TransportKind,
    ) -> Handled {
        let (tx, rx) = mpsc::channel(16);
        let mut params = match params {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        let era = dress.era;
        let client = dress::take_client_facts(era, &mut params);
        let ctx = Context {
            era,
            revision: dress.revision,
            client_capabilities: client.capabilities,
            client_info: client.info,
            progress_token: client.progress_token,
            transport,
            out: tx.clone(),
        };
        let server = self.clone();
        let request_id = id.clone();
        let work = Box::pin(async move {
            let timeout = server.inner.options.request_timeout;
            let run = server.call(method, &mut params, &ctx);
            let outcome = tokio::select! {
                r = tokio::time::timeout(timeout, run) => r.unwrap_or_else(|_| Err(RpcError::internal(format!(
                    "The request was not answered within {} s", timeout.as_secs()
                )))),
                () = tx.closed() => return,
            };
            let body = match outcome {
                Ok(result) => Body::Result {
                    result: server.finish_answer(era, result, method == method::RESOURCES_READ),
                    id: request_id,
                },
                Err(e) => Body::Value(error_response(&request_id, &server.era_error(e, era))),
            };
            let _ = tx.send(Out::Final { body, status: 200 }).await;
        });
        Handled::Running {
            out: rx,
            work,
            id,
            listen: false,
        }
    }

    async fn call(
        &self,
        method: &str,
        params: &mut Map<String, Value>,
        ctx: &Context,
    ) -> Result<Answer, RpcError> {
        let h = &self.inner.handler;
        let string = |key: &str, params: &Map<String, Value>| -> Result<String, RpcError> {
            params
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| RpcError::invalid_params(format!("`{key}` must be a string")))
        };
        let arguments = |params: &mut Map<String, Value>| -> Result<Map<String, Value>, RpcError> {
            match params.remove("arguments") {
                None | Some(Value::Null) => Ok(Map::new()),
                Some(Value::Object(a)) => Ok(a),
                Some(_) => Err(RpcError::invalid_params("`arguments` must be an object")),
            }
        };
        match method {
            method::TOOLS_CALL => {
                let name = string("name", params)?;
                if !listed(h.list(ListKind::Tools).as_deref(), &name) {
                    return Err(RpcError::invalid_params(format!("Unknown tool: {name}"))
                        .with_data(json!({ "name": name })));
                }
                let args = arguments(params)?;
                h.call_tool(&name, args, ctx).await
            }
            method::PROMPTS_GET => {
                let name = string("name", params)?;
                if !listed(h.list(ListKind::Prompts).as_deref(), &name) {
                    return Err(RpcError::invalid_params(format!("Unknown prompt: {name}"))
                        .with_data(json!({ "name": name })));
                }
                let args = arguments(params)?;
                h.get_prompt(&name, args, ctx).await.map(Answer::from)
            }
            _ => {
                let uri = string("uri", params)?;
                h.read_resource(&uri, ctx).await
            }
        }
    }
}

/// The `inputSchema` of the tool a `tools/call` names.
fn tool_schema<'a>(tools: Option<&'a [Value]>, params: Option<&Value>) -> Option<&'a Value> {
    let name = params?.get("name")?.as_str()?;
    tools?
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))?
        .get("inputSchema")
}

fn listed(items: Option<&[Value]>, name: &str) -> bool {
    items
        .unwrap_or_default()
        .iter()
        .any(|i| i.get("name").and_then(Value::as_str) == Some(name))
}

impl<H: Handler> std::fmt::Debug for Server<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("implementation", self.inner.handler.implementation())
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

/// The outcome of a request the caller ran to its end in process (see [`Server::request`]).
pub(crate) async fn drain(handled: Handled) -> Option<Value> {
    match handled {
        Handled::Reply { body, .. } => Some(body),
        Handled::Accepted { .. } => None,
        Handled::Running {
            mut out,
            work,
            listen,
            ..
        } => {
            tokio::spawn(work);
            if listen {
                return out.recv().await.map(|o| match o {
                    Out::Notification(v) => v,
                    Out::Final { body, .. } => body.into_value(),
                });
            }
            while let Some(o) = out.recv().await {
                if let Out::Final { body, .. } = o {
                    return Some(body.into_value());
                }
            }
            None
        }
    }
}

impl<H: Handler> Server<H> {
    /// Handles one message in process, as a stdio client would see it, and returns the response
    /// (`None` for a notification; for `subscriptions/listen`, its acknowledgement). For
    /// embedding and tests; the transports use the same dispatcher.
    pub async fn request(&self, message: Value) -> Option<Value> {
        drain(self.handle(message, None)).await
    }
}
