//! The only thing a rule sees: what the prelude learned, the exchanges shared by every rule
//! (each fetched once per run, whichever rule asks first: the cacheable results, the tool
//! listing, the `subscriptions/listen` stream, the GET stream, OAuth metadata), and ways to send
//! more probes. A rule never touches a transport, a socket or a child process, and never reads
//! what other rules sent: a finding does not depend on which rules ran before it.
//!
//! Every probe sent through the context is recorded, so the engine can tell afterwards whether
//! the run was *measured* (every probe answered) or *incomplete* (some went unanswered).
//! Metadata fetches ([`ProbeContext::fetch_metadata`]) are the exception: they go to other hosts
//! (OAuth authorization servers), and an unreachable one says nothing about the MCP server.

use std::time::Duration;

use mcpseal_client::{
    Exchange, HEADER_MCP_METHOD, HEADER_PROTOCOL_VERSION, MetadataResponse, RawResponse, Request,
    Target, TransportKind, Wait,
};
use mcpseal_protocol::method;
use serde_json::{Map, Value, json};
use tokio::sync::OnceCell;

use crate::prelude::{ClientPath, Prelude};
use crate::protocol::BOGUS_URI;
use crate::recorder::Recorder;

/// What a rule receives.
pub struct ProbeContext<'c> {
    rec: Recorder<'c>,
    prelude: Prelude,
    results: OnceCell<Vec<Exchange>>,
    subscription: OnceCell<Option<Exchange>>,
    get_stream: OnceCell<Option<RawResponse>>,
    oauth: OnceCell<Vec<crate::oauth::AuthServer>>,
    listen_timeout: Duration,
    tools: OnceCell<Option<crate::tools::FetchedListing>>,
    calls: Vec<crate::calls::ToolCall>,
    call_results: OnceCell<Vec<Exchange>>,
    error_statuses: OnceCell<Vec<Exchange>>,
    stdout_noise: Vec<String>,
    /// Fresh-process re-asks started ahead (`--jobs`), by [`ahead_key`].
    ahead: std::sync::Mutex<std::collections::HashMap<String, crate::recorder::Ahead>>,
}

/// How the client files a stdout line that is no MCP message (not JSON, or JSON that is no
/// JSON-RPC message), in its diagnostics.
const NOISE_PREFIXES: &[&str] = &["[non-JSON stdout] ", "[non-JSON-RPC stdout] "];

impl<'c> ProbeContext<'c> {
    pub(crate) fn new(rec: Recorder<'c>, prelude: Prelude, listen_timeout: Duration) -> Self {
        // Taken right after the prelude, which every run sends in the same order: the lines a
        // rule judges do not depend on which rules ran.
        let stdout_noise = rec
            .conn()
            .diagnostics()
            .into_iter()
            .filter_map(|l| {
                NOISE_PREFIXES
                    .iter()
                    .find_map(|p| l.strip_prefix(p).map(str::to_owned))
            })
            .collect();
        ProbeContext {
            stdout_noise,
            call_results: OnceCell::new(),
            error_statuses: OnceCell::new(),
            rec,
            prelude,
            results: OnceCell::new(),
            subscription: OnceCell::new(),
            get_stream: OnceCell::new(),
            oauth: OnceCell::new(),
            listen_timeout,
            tools: OnceCell::new(),
            calls: Vec::new(),
            ahead: std::sync::Mutex::default(),
        }
    }

    /// stdio, `--jobs` above 1, a server that answered `server/discover` on the 2026 path:
    /// starts the fresh-process re-asks the removed-method rules among `rules` may need
    /// ([`crate::removed`]), in rule order, at most `jobs` at once, while the rules run on
    /// the probed process. Each is recorded only if its rule takes it (the method was gone in
    /// the probed process); the others are killed unread at the end of the run.
    pub(crate) fn ask_fresh_ahead<'r>(&self, rules: impl IntoIterator<Item = &'r str>) {
        let p = &self.prelude;
        if self.transport() != TransportKind::Stdio
            || !self.rec.asks_ahead()
            || !crate::removed::reasks_fresh(p)
        {
            return;
        }
        let mut ahead = crate::recorder::lock(&self.ahead);
        for id in rules {
            for (method, params) in crate::rules::fresh_reasks(id) {
                if let std::collections::hash_map::Entry::Vacant(slot) =
                    ahead.entry(ahead_key(method, &params))
                {
                    slot.insert(self.rec.fresh_ahead(Request::modern(method, Some(params))));
                }
            }
        }
    }

    /// `method` with `params` as the first message of a fresh process: the one asked ahead
    /// if there is one, else asked now ([`ProbeContext::call_fresh`]). `None` on HTTP.
    pub(crate) async fn call_fresh_reask(&self, method: &str, params: Value) -> Option<Exchange> {
        let ahead = crate::recorder::lock(&self.ahead).remove(&ahead_key(method, &params));
        match ahead {
            Some(a) => Some(self.rec.take_fresh(a).await),
            None => self.call_fresh(Request::modern(method, Some(params))).await,
        }
    }

    /// The lines the server wrote to stdout up to the end of the prelude that are not MCP
    /// messages (stdio; redacted, each cut to 300 characters), in order.
    pub fn stdout_noise(&self) -> &[String] {
        &self.stdout_noise
    }

    /// Sets the user's tool calls (`--call`), already checked against the listing.
    pub(crate) fn set_calls(&mut self, calls: Vec<crate::calls::ToolCall>) {
        self.calls = calls;
    }

    /// The tool calls the user asked for (`--call`); empty by default: the probe never calls
    /// a tool on its own.
    pub fn tool_calls(&self) -> &[crate::calls::ToolCall] {
        &self.calls
    }

    /// The user's tool calls (`--call`), each sent once per run on the client path and shared
    /// by the rules that judge them (SEAL039: the result's shape; SEAL042: the capabilities it
    /// relies on): a tool is never called twice. Empty when no path works.
    pub async fn user_calls(&self) -> &[Exchange] {
        self.call_results
            .get_or_init(|| async {
                let mut out = Vec::new();
                for call in &self.calls {
                    if let Some(ex) = self
                        .call_client(
                            method::TOOLS_CALL,
                            json!({"name": call.name, "arguments": call.arguments}),
                        )
                        .await
                    {
                        out.push(ex);
                    }
                }
                out
            })
            .await
    }

    /// Two errors whose HTTP status 2026-07-28 fixes, asked once per run and shared (HTTP,
    /// servers whose `server/discover` answered on the 2026 path; empty otherwise): an unknown
    /// method (-32601, HTTP 404) and `server/discover` without the REQUIRED
    /// `clientCapabilities` (-32602, HTTP 400).
    pub async fn error_statuses(&self) -> &[Exchange] {
        self.error_statuses
            .get_or_init(|| async {
                let p = &self.prelude;
                let modern = self.transport() == TransportKind::Http
                    && p.path == Some(ClientPath::Modern)
                    && p.discover.result().is_some()
                    && p.root_cause.is_none();
                if !modern {
                    return Vec::new();
                }
                vec![
                    self.call_status_probe(Request::modern(
                        crate::protocol::UNKNOWN_METHOD,
                        Some(json!({})),
                    ))
                    .await,
                    self.call_status_probe(
                        Request::modern(method::SERVER_DISCOVER, None)
                            .without_meta_key(mcpseal_client::META_CLIENT_CAPABILITIES),
                    )
                    .await,
                ]
            })
            .await
    }

    /// True when both [`error_statuses`](Self::error_statuses) probes came back as JSON-RPC
    /// errors with HTTP 200: the server sends every error with 200 (SEAL044's one finding), so
    /// the rules that judge one error's status say nothing about it.
    pub async fn errors_always_200(&self) -> bool {
        let probes = self.error_statuses().await;
        !probes.is_empty()
            && probes
                .iter()
                .all(|e| e.error_code().is_some() && e.http_status == Some(200))
    }

    /// Every tool the server lists on the client path (the prelude's first page, then the
    /// following pages), fetched once per run and shared. `None` when listing failed.
    pub async fn tool_listing(&self) -> Option<crate::tools::ToolListing<'_>> {
        let fetched = self
            .tools
            .get_or_init(|| crate::tools::fetch_listing(self))
            .await
            .as_ref()?;
        let first = self.prelude.effective_listing()?;
        Some(crate::tools::ToolListing {
            tools: &fetched.tools,
            pages: std::iter::once(first).chain(fetched.later.iter()).collect(),
        })
    }

    pub(crate) fn recorder(&self) -> &Recorder<'c> {
        &self.rec
    }

    /// What the prelude learned: the era, capabilities, listings and root causes.
    pub fn prelude(&self) -> &Prelude {
        &self.prelude
    }

    /// The transport in use.
    pub fn transport(&self) -> TransportKind {
        self.rec.transport()
    }

    /// The endpoint URL (HTTP targets only).
    pub fn endpoint_url(&self) -> Option<&str> {
        match self.rec.conn().target() {
            Target::Http { url } => Some(url),
            Target::Stdio { .. } => None,
        }
    }

    /// How long a `subscriptions/listen` probe waits for its acknowledgement.
    pub fn listen_timeout(&self) -> Duration {
        self.listen_timeout
    }

    /// A 2026-07-28 request: the full `_meta` envelope and, over HTTP, the routing headers.
    pub async fn call(&self, method: &str, params: Value) -> Exchange {
        self.rec.send(Request::modern(method, Some(params))).await
    }

    /// A 2025-11-25 request: no envelope; over HTTP the session id and negotiated version of a
    /// prelude handshake are echoed, as a 2025 client would.
    pub async fn call_legacy(&self, method: &str, params: Value) -> Exchange {
        self.rec.send(Request::legacy(method, Some(params))).await
    }

    /// Any request: envelope keys and headers omitted or overridden with the `Request`
    /// builders (`without_envelope`, `without_meta_key`, `with_protocol_version`, `header`,
    /// `without_header`, `without_standard_headers`, `wait`, `timeout`).
    pub async fn call_with(&self, request: Request) -> Exchange {
        self.rec.send(request).await
    }

    /// A request whose answer may legitimately be a bare HTTP status (403 to a foreign
    /// `Origin`, 400 to a broken header): recorded like any other, but an HTTP status with an
    /// empty or non-JSON body counts as answered, so it does not make the run incomplete.
    pub async fn call_status_probe(&self, request: Request) -> Exchange {
        let id = request
            .id
            .clone()
            .unwrap_or_else(|| self.rec.conn().next_id());
        self.rec.mark_status_probe(id.clone());
        self.rec.send(request.with_id(id)).await
    }

    /// A status probe whose right answer is HTTP 403 (a foreign `Origin`): a 403 is then the
    /// answer, not an authorization refusal (a 401 still is).
    pub async fn call_origin_probe(&self, request: Request) -> Exchange {
        let id = request
            .id
            .clone()
            .unwrap_or_else(|| self.rec.conn().next_id());
        self.rec.mark_forbidden_ok(id.clone());
        self.call_status_probe(request.with_id(id)).await
    }

    /// Whether `ex` was refused for authorization (401/403): no rule judges such an exchange.
    pub fn refused(&self, ex: &Exchange) -> bool {
        crate::access::refused(ex)
    }

    /// `request` as the first message of a fresh server process (stdio only; `None` on HTTP),
    /// recorded like any other probe. For behaviour that a server wrongly derives from earlier
    /// requests of the same process (2026-07-28: servers MUST NOT).
    pub async fn call_fresh(&self, request: Request) -> Option<Exchange> {
        if self.transport() != TransportKind::Stdio {
            return None;
        }
        Some(self.rec.send_fresh(request).await)
    }

    /// A request without the `_meta` envelope that still carries the 2026 routing headers over
    /// HTTP (so only the envelope differs from [`ProbeContext::call`]).
    pub async fn call_without_envelope(&self, method: &str, params: Value) -> Exchange {
        self.rec.send(envelope_free(method, params)).await
    }

    /// The request the way a client that works with this server would send it: the 2026 path
    /// when the server answers it, else the 2025 path of a stateful server. `None` when neither
    /// works (the prelude then names the root cause).
    pub async fn call_client(&self, method: &str, params: Value) -> Option<Exchange> {
        let request = self.client_request(method, params)?;
        Some(self.rec.send(request).await)
    }

    /// The request dressed for the client path (to adjust with the `Request` builders and
    /// send with [`ProbeContext::call_with`]); `None` when no path works.
    pub fn client_request(&self, method: &str, params: Value) -> Option<Request> {
        Some(match self.prelude.path? {
            ClientPath::Modern => Request::modern(method, Some(params)),
            ClientPath::Legacy => Request::legacy(method, Some(params)),
        })
    }

    /// `subscriptions/listen` with `filter` on the client path, waiting up to the listen
    /// timeout for its response or the acknowledgement that opens the stream; `None` when no
    /// path works. A stdio stream left open is the caller's to cancel: when depends on what the
    /// rule judges.
    pub async fn listen(&self, filter: &Map<String, Value>) -> Option<Exchange> {
        let request = self.client_request(
            method::SUBSCRIPTIONS_LISTEN,
            json!({"notifications": filter}),
        )?;
        Some(
            self.call_with(
                request
                    .wait(Wait::ResponseOrAcknowledgement)
                    .timeout(self.listen_timeout()),
            )
            .await,
        )
    }

    /// The one `subscriptions/listen` stream of the run, asking for every list change the
    /// capabilities advertise ([`Prelude::listen_filter`]), opened on the client path once and
    /// shared by the rules that judge it (SEAL009: is it served; SEAL026: is it acknowledged
    /// right; SEAL027: does its result identify the server). `None` when nothing is advertised
    /// or no path works. A stdio stream left open (acknowledged, no result yet) is cancelled
    /// with `notifications/cancelled` right away; over HTTP closing the response ended it.
    pub async fn subscription(&self) -> Option<&Exchange> {
        self.subscription
            .get_or_init(|| async {
                let filter = self.prelude.listen_filter();
                if filter.is_empty() {
                    return None;
                }
                let ex = self.listen(&filter).await?;
                if self.transport() == TransportKind::Stdio
                    && ex.response.is_none()
                    && ex.transport_error.is_none()
                {
                    let id = ex.request.get("id").cloned().unwrap_or(Value::Null);
                    self.notify(method::NOTIFICATION_CANCELLED, json!({"requestId": id}))
                        .await;
                }
                Some(ex)
            })
            .await
            .as_ref()
    }

    /// A notification on the client path (e.g. `notifications/cancelled`).
    pub async fn notify(&self, method: &str, params: Value) -> Exchange {
        let request = match self.prelude.path {
            Some(ClientPath::Legacy) => Request::legacy(method, Some(params)),
            _ => Request::modern(method, Some(params)),
        };
        self.rec.send(request.notification()).await
    }

    /// A raw HTTP request to the endpoint (e.g. `GET` with `Accept: text/event-stream`), with
    /// the user's headers and, when `with_session`, a legacy session id; a bounded preview of
    /// the body. `None` on stdio. Recorded: no status counts as an unanswered probe.
    pub async fn raw(&self, method: &str, headers: &[(&str, &str)]) -> Option<RawResponse> {
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect();
        let raw = self.rec.conn().raw_request(method, &headers, true).await?;
        self.rec.push_raw(&raw);
        Some(raw)
    }

    /// `GET` on the endpoint with `Accept: text/event-stream` (and the legacy session id, if
    /// the prelude got one), sent once per run and shared. `None` on stdio.
    pub async fn event_stream_get(&self) -> Option<&RawResponse> {
        self.get_stream
            .get_or_init(|| self.raw("GET", &[("Accept", "text/event-stream")]))
            .await
            .as_ref()
    }

    /// The authorization servers the endpoint publishes (OAuth metadata discovery, once per
    /// run, shared). Empty on stdio or when none are published.
    pub async fn authorization_servers(&self) -> &[crate::oauth::AuthServer] {
        self.oauth
            .get_or_init(|| crate::oauth::discover(self))
            .await
    }

    /// GETs a public JSON document (OAuth metadata), never with the user's headers. Not
    /// recorded: another host's failure is not the MCP server's. `None` on stdio.
    pub async fn fetch_metadata(&self, url: &str) -> Option<MetadataResponse> {
        self.rec.conn().fetch_metadata(url).await
    }

    /// The cacheable results a client would fetch, on the client path, each asked once per run
    /// and shared by the rules that judge them: `server/discover` (from the prelude), the four
    /// lists (`tools/list` from the prelude), and `resources/read` of the first listed resource.
    /// Only exchanges that returned a result are kept. The prelude's are borrowed, not copied.
    pub async fn cacheable_results(&self) -> Vec<&Exchange> {
        let p = &self.prelude;
        if p.path.is_none() {
            return Vec::new();
        }
        let more = self
            .results
            .get_or_init(|| async {
                let mut out = Vec::new();
                let mut first_uri = None;
                for list in [
                    method::PROMPTS_LIST,
                    method::RESOURCES_LIST,
                    method::RESOURCES_TEMPLATES_LIST,
                ] {
                    let Some(ex) = self.call_client(list, json!({})).await else {
                        continue;
                    };
                    if list == method::RESOURCES_LIST {
                        first_uri = ex
                            .result()
                            .and_then(|r| r.get("resources"))
                            .and_then(Value::as_array)
                            .and_then(|a| a.first())
                            .and_then(|r| r.get("uri"))
                            .and_then(Value::as_str)
                            .filter(|u| *u != BOGUS_URI)
                            .map(str::to_owned);
                    }
                    if ex.result().is_some() {
                        out.push(ex);
                    }
                }
                if let Some(uri) = first_uri
                    && let Some(ex) = self
                        .call_client(method::RESOURCES_READ, json!({"uri": uri}))
                        .await
                    && ex.result().is_some()
                {
                    out.push(ex);
                }
                out
            })
            .await;
        let discover = Some(&p.discover).filter(|d| d.result().is_some());
        discover
            .into_iter()
            .chain(p.effective_listing())
            .chain(more.iter())
            .collect()
    }
}

/// `name` without the `_meta` envelope, keeping the 2026 headers over HTTP.
pub(crate) fn envelope_free(name: &str, params: Value) -> Request {
    Request::modern(name, Some(params))
        .without_envelope()
        .header(HEADER_MCP_METHOD, name)
        .header(HEADER_PROTOCOL_VERSION, crate::protocol::TARGET_REVISION)
}

/// The key of a re-ask asked ahead: the method and its parameters.
fn ahead_key(method: &str, params: &Value) -> String {
    format!("{method} {params}")
}
