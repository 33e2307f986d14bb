//! What a server built on this crate supplies: who it is, its lists, and what its calls do.
//!
//! The dispatcher owns everything the protocol decides (eras, envelopes, routing headers,
//! pagination, cache hints, `resultType`, `_meta` serverInfo, error numbers, HTTP statuses); a
//! [`Handler`] owns only the application. That split is what makes a server built on this crate
//! conformant by construction: a handler cannot forget a `resultType` it never writes.

use std::future::Future;
use std::sync::Arc;

use mcpseal_protocol::{Era, ListKind, keys, method};
use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::answer::Answer;
use crate::error::RpcError;
use crate::out::Out;

/// The server's `Implementation` object: `_meta` serverInfo on every 2026 result, `serverInfo`
/// in the 2025 `initialize` result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Machine name (`my-server`).
    pub name: String,
    /// Version of the server (its own, not the protocol's).
    pub version: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// One-line description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Home page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// A name and a version, nothing else.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Implementation {
        Implementation {
            name: name.into(),
            version: version.into(),
            title: None,
            description: None,
            website_url: None,
        }
    }
}

/// Which transport a request came on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransportKind {
    /// Newline-delimited JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
}

/// What one request said about itself, handed to the handler with it.
///
/// 2026-07-28 forbids deriving any of this from earlier requests, so it is built from the request
/// alone (for a 2025 request: from its revision, the only thing its dress says).
#[derive(Debug)]
pub struct Context {
    pub(crate) era: Era,
    pub(crate) revision: &'static str,
    pub(crate) client_capabilities: Value,
    pub(crate) client_info: Option<Value>,
    pub(crate) progress_token: Option<Value>,
    pub(crate) transport: TransportKind,
    pub(crate) out: mpsc::Sender<Out>,
}

impl Context {
    /// The era the request was served in.
    pub fn era(&self) -> Era {
        self.era
    }

    /// The revision the request named (`2026-07-28`, or the 2025-era revision it came with).
    pub fn revision(&self) -> &str {
        self.revision
    }

    /// The client's capabilities as the request declared them (`{}` for 2025 requests, whose
    /// capabilities were in a handshake the stateless server does not keep).
    pub fn client_capabilities(&self) -> &Value {
        &self.client_capabilities
    }

    /// The client's `Implementation`, when the request carried one.
    pub fn client_info(&self) -> Option<&Value> {
        self.client_info.as_ref()
    }

    /// The transport the request came on.
    pub fn transport(&self) -> TransportKind {
        self.transport
    }

    /// Sends `notifications/progress` for this request, if it asked for progress (a
    /// `progressToken`); otherwise does nothing. Over HTTP the first notification turns the
    /// answer into a request-scoped event stream. Returns once the notification is queued (or
    /// the client has gone away).
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = json!({ "progressToken": token, "progress": progress });
        if let Some(total) = total {
            params["total"] = json!(total);
        }
        if let Some(message) = message {
            params["message"] = json!(message);
        }
        let note = json!({
            "jsonrpc": "2.0",
            "method": method::NOTIFICATION_PROGRESS,
            "params": params,
        });
        let _ = self.out.send(Out::Notification(note)).await;
    }
}

/// The application half of a server.
///
/// Lists are served from what [`Handler::list`] returns, paginated by the dispatcher; they must
/// not depend on the request (2026-07-28: list contents MUST NOT vary per connection). A list
/// that is `None` is not served: its capability is not advertised and its methods answer
/// `-32601`. Calls name only items the dispatcher found in the lists (an unknown tool or prompt
/// is refused with `-32602` before the handler sees it); resource reads are the handler's to
/// resolve, because templates make the set of URIs open.
///
/// Results are the bare result objects of the method (`{"content": […]}` for a tool call,
/// `{"contents": […]}` for a read, `{"messages": […]}` for a prompt); the dispatcher adds what
/// the era requires. A handler may put its own `_meta` on a result: the dispatcher keeps it and
/// adds serverInfo beside it.
pub trait Handler: Send + Sync + 'static {
    /// Who the server is.
    fn implementation(&self) -> &Implementation;

    /// Instructions for the model, sent in `server/discover` and `initialize`.
    fn instructions(&self) -> Option<&str> {
        None
    }

    /// The items of one list (tools, resources, resource templates, prompts), or `None` when
    /// the server does not serve that list.
    fn list(&self, kind: ListKind) -> Option<Arc<[Value]>>;

    /// Runs a tool the dispatcher found in [`Handler::list`]: `arguments` is the request's
    /// `arguments` object (empty when absent). A failure of the tool itself is a result with
    /// `isError: true`; an `Err` is a JSON-RPC error. A result is an [`Answer`]: a `Value`
    /// turned into one (`.into()`), or one with members written once and kept (large texts).
    fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        ctx: &Context,
    ) -> impl Future<Output = Result<Answer, RpcError>> + Send;

    /// Reads a resource. An unknown URI is [`RpcError::resource_not_found`].
    fn read_resource(
        &self,
        uri: &str,
        ctx: &Context,
    ) -> impl Future<Output = Result<Answer, RpcError>> + Send;

    /// Gets a prompt the dispatcher found in [`Handler::list`]. The default refuses every prompt
    /// (for servers without prompts).
    fn get_prompt(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        ctx: &Context,
    ) -> impl Future<Output = Result<Value, RpcError>> + Send {
        let _ = (arguments, ctx);
        let error = RpcError::invalid_params(format!("Unknown prompt: {name}"))
            .with_data(json!({ "name": name }));
        async move { Err(error) }
    }
}

/// Runs `edit` on the `_meta` object of a result, creating it when missing (a non-object `_meta`
/// from a handler is replaced: no result may carry one).
pub(crate) fn edit_meta(
    result: &mut Map<String, Value>,
    edit: impl FnOnce(&mut Map<String, Value>),
) {
    let mut meta = match result.remove(keys::META) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    edit(&mut meta);
    result.insert(keys::META.into(), Value::Object(meta));
}
