//! The anonymous-access measurement: which methods a stranger gets an answer to (issue 13).
//!
//! For an HTTP target, every probe request is sent **alone** (a fresh connection each, no
//! session, no handshake before it) with the user's credential headers removed: every
//! `--header` whose name looks like a credential (`Authorization`, `Cookie`, names with `key`,
//! `token`, `secret`, `auth`, `password`, …) and every `--secret-header`; other headers are
//! kept. The probes:
//!
//! * `server/discover` (2026-07-28) or `initialize` (2025-11-25), and `ping`;
//! * `subscriptions/listen` (2026-07-28, when the capture advertises a `listChanged` to ask
//!   for): the acknowledgement that opens the stream is the answer (a working listen never
//!   responds); the stream is closed right after it (over stdio, `notifications/cancelled`);
//! * the four lists, first page;
//! * `resources/read` of the first resource the credentialed capture saw, `prompts/get` of
//!   the first prompt with its required arguments filled with empty strings;
//! * `tools/call`: of the tool the user names (`--anonymous-call NAME=JSON`), otherwise of a
//!   tool that cannot exist, so nothing is ever run: a credential refusal says "needs a
//!   credential", the handler's unknown-tool error says "would reach the handler".
//!
//! A method *answers* when the status is 200 and the body carries a JSON-RPC `result`; a
//! JSON-RPC error, 401, 403, 404 and anything else is refused, recorded with status and code.
//! Fail closed: a timeout, a crash or any other transport failure is no answer at all, so the
//! measurement fails (the caller exits 2) instead of recording "refused". A 429 is retried
//! with backoff (honouring `Retry-After`, at most [`MAX_WAIT`] a time), never recorded.
//!
//! The credential never leaves this module: the connection used here is opened without it
//! (a recording fixture proves what was sent), and only statuses and codes come back.

use std::collections::BTreeMap;
use std::time::Duration;

use mcpseal_client::{
    Connection, Era, Exchange, Options, Request, Target, Wait, client_info, looks_secret,
};
use mcpseal_protocol::{jsonrpc, method};
use mcpseal_report::ErrorKind;
use mcpseal_surface::ListKind;
use mcpseal_surface::lock::anonymous::{Answer, Answers, Configs, DEFAULT_CONFIG, LockAnonymous};
use serde_json::{Map, Value, json};
use thiserror::Error;

use crate::snapshot::TrustedCapture;

/// Attempts for a method answered with 429.
pub const ATTEMPTS_ON_429: u32 = 4;

/// The longest wait between two attempts, whatever `Retry-After` says.
pub const MAX_WAIT: Duration = Duration::from_secs(10);

/// The pause before each anonymous HTTP request.
pub const PACE: Duration = Duration::from_millis(20);

/// The tool name used when the user names none: it cannot exist, so nothing runs.
pub const IMPOSSIBLE_TOOL: &str = "mcpseal-anonymous-probe/no-such-tool";

/// How to measure.
#[derive(Debug, Clone, Default)]
pub struct AnonymousOptions {
    /// `--anonymous-call NAME=JSON`: a tool safe to call without a credential, and its
    /// arguments.
    pub call: Option<(String, Value)>,
    /// `--anonymous-env-unset NAME`: for a stdio server, the variables that are its
    /// credential; it is started without them (inherited or given with `--env`).
    pub env_unset: Vec<String>,
    /// `--anonymous`: the user asked for the measurement, so a target that cannot be
    /// measured (stdio without an env configuration) is an error, not a silent skip. Without
    /// it the measurement is the default for every target [`measurable`] says yes to.
    pub required: bool,
    /// `--route PATH` (HTTP): more paths on the target's origin to measure (e.g. `/mcp/admin`
    /// beside `/mcp`), each its own route key under the default configuration; the target's
    /// own route is always measured and is the one `answers` shows.
    pub routes: Vec<String>,
    /// `--anonymous-config NAME`: more configurations to measure beside `default`, each with
    /// its own headers (HTTP, added to the credential-free request) or environment (stdio,
    /// set in the server's environment), like mcp-surface's `apiKeyAusente`/`apiKeyPresente`.
    /// Only their names reach the lock; their values are redacted everywhere.
    pub configs: Vec<NamedConfig>,
    /// `snapshot --anonymous-only`: capture the surface itself without the credential
    /// (what a stranger sees) instead of measuring beside a credentialed capture.
    pub only: bool,
}

/// One named anonymous-access configuration (see [`AnonymousOptions::configs`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NamedConfig {
    /// Its name in the lock (`configs[NAME]`).
    pub name: String,
    /// HTTP: headers sent with every probe of this configuration.
    pub headers: Vec<(String, String)>,
    /// stdio: variables set in the server's environment for this configuration.
    pub env: Vec<(String, String)>,
}

/// Whether `conn`'s target can be measured with `options`: HTTP always, stdio only with an
/// environment configuration (`--anonymous-env-unset`).
pub fn measurable(conn: &Connection, options: &AnonymousOptions) -> bool {
    matches!(conn.target(), Target::Http { .. }) || !options.env_unset.is_empty()
}

/// Whether `snapshot` and `lock` measure: asked for (`--anonymous`, an unmeasurable target is
/// then an error from [`measure`]) or [`measurable`] (on by default for HTTP, issue 13).
pub fn wanted(conn: &Connection, options: &AnonymousOptions) -> bool {
    options.required || measurable(conn, options)
}

/// Why the measurement has no verdict (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MeasureError {
    /// A stdio target without an environment configuration: nothing says what its
    /// credential is.
    #[error("`{0}` is a stdio server: its credential is its environment, and none was named")]
    NotHttp(String),
    /// The credential-free connection could not be opened.
    #[error("cannot open a connection without credentials: {0}")]
    Open(String),
    /// A probe got no answer at all (a timeout, a crash): that is no evidence of refusal.
    #[error("anonymous `{method}` could not be measured: {reason}")]
    NoAnswer {
        /// The probe.
        method: String,
        /// Why.
        reason: String,
    },
    /// Still 429 after every attempt.
    #[error("anonymous `{0}` was rate-limited (HTTP 429) on every attempt")]
    RateLimited(String),
    /// The lock has a configuration the command line does not define.
    #[error("the lock's anonymous section has configuration `{0}`, which this run does not define")]
    ConfigMissing(String),
}

impl MeasureError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            MeasureError::NotHttp(_) => {
                "name the variables that hold its credential with `--anonymous-env-unset NAME` (it is started without them), or drop `--anonymous`"
            }
            MeasureError::Open(_) | MeasureError::NoAnswer { .. } => {
                "check that the server is up and answers within `--timeout`, or pass `--no-anonymous` to skip the measurement (the report says so)"
            }
            MeasureError::RateLimited(_) => {
                "try again later, or raise the server's rate limit for the measuring address"
            }
            MeasureError::ConfigMissing(_) => {
                "give it again with `--anonymous-config NAME` and its `--anonymous-config-header`/`--anonymous-config-env` (only its name is in the lock), or pass `--no-anonymous`"
            }
        }
    }

    /// What kind of trouble, for the error document.
    pub fn kind(&self) -> ErrorKind {
        match self {
            MeasureError::NotHttp(_) | MeasureError::ConfigMissing(_) => ErrorKind::Usage,
            MeasureError::Open(_)
            | MeasureError::NoAnswer { .. }
            | MeasureError::RateLimited(_) => ErrorKind::Unreachable,
        }
    }
}

/// The route key of a URL: `POST /path`.
pub fn route_of(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]);
    let path = path.split(['?', '#']).next().unwrap_or("/");
    format!("POST {path}")
}

impl AnonymousOptions {
    /// These options, with the routes of `locked`'s default configuration added when none was
    /// given (`--route`): `check`, `verify` and a re-`lock` measure what the lock recorded,
    /// not only the target's own route.
    pub fn with_locked_routes(&self, locked: Option<&LockAnonymous>) -> AnonymousOptions {
        let mut out = self.clone();
        if out.routes.is_empty()
            && let Some(routes) = locked.and_then(|l| l.configs.get(DEFAULT_CONFIG))
        {
            out.routes = routes
                .keys()
                .filter_map(|r| r.strip_prefix("POST "))
                .map(str::to_owned)
                .collect();
        }
        out
    }

    /// Refuses a re-measurement that would silently drop one of `locked`'s configurations:
    /// their headers and environment are not in the lock (only their names are), so the
    /// command line must give them again.
    ///
    /// # Errors
    /// [`MeasureError::ConfigMissing`].
    pub fn covers(&self, locked: &LockAnonymous) -> Result<(), MeasureError> {
        for name in locked.configs.keys() {
            if name != DEFAULT_CONFIG && !self.configs.iter().any(|c| &c.name == name) {
                return Err(MeasureError::ConfigMissing(name.clone()));
            }
        }
        Ok(())
    }
}

/// `url` with its path (and query) replaced by `path` (which starts with `/`): the same
/// origin, another route.
pub fn url_with_path(url: &str, path: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let origin_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let path = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("/{path}")
    };
    if scheme.is_empty() {
        format!("{}{path}", &rest[..origin_end])
    } else {
        format!("{scheme}://{}{path}", &rest[..origin_end])
    }
}

/// The options a stranger connects with: `conn`'s without any credential header (HTTP), or
/// without the `--anonymous-env-unset` variables (stdio).
pub fn credential_free(conn: &Connection, options: &AnonymousOptions) -> Options {
    let mut opts = stripped(conn);
    opts.env.retain(|(k, _)| !options.env_unset.contains(k));
    opts.env_unset.extend(options.env_unset.iter().cloned());
    opts
}

/// The options of `conn` without any credential header (see the module docs).
fn stripped(conn: &Connection) -> Options {
    let mut options = conn.options().clone();
    let redactor = conn.redactor();
    options
        .headers
        .retain(|(name, _)| !redactor.is_secret_name(name) && !looks_secret(name));
    options
}

impl AnonymousOptions {
    /// The most anonymous requests one measurement sends: at most [`MOST_PROBES`] per
    /// configuration (the default one and each named one) per route (the target's own and each
    /// `--route`). Each waits at most the connection's timeout (429 retries included), so a
    /// writer waiting for another run can bound that run's time ([`crate::lock::lock_wait`]).
    pub fn most_requests(&self) -> u32 {
        let configs = u32::try_from(self.configs.len()).unwrap_or(u32::MAX);
        let routes = u32::try_from(self.routes.len()).unwrap_or(u32::MAX);
        MOST_PROBES
            .saturating_mul(configs.saturating_add(1))
            .saturating_mul(routes.saturating_add(1))
    }
}

/// The most probe requests per configuration and route: the handshake, `ping`,
/// the four lists, `subscriptions/listen`, `resources/read`, `prompts/get`, `tools/call`.
pub const MOST_PROBES: u32 = 10;

/// The probe requests, in order: `(method, params)`.
fn probes(
    captured: &TrustedCapture,
    options: &AnonymousOptions,
) -> Vec<(&'static str, Option<Value>)> {
    let era = captured.surface.era();
    let mut out: Vec<(&'static str, Option<Value>)> = Vec::new();
    match era {
        Era::Modern => out.push((method::SERVER_DISCOVER, None)),
        Era::Legacy => out.push((
            method::INITIALIZE,
            Some(
                json!({"protocolVersion": Era::Legacy.revision(), "capabilities": {},
                        "clientInfo": client_info()}),
            ),
        )),
    }
    out.push((method::PING, None));
    for kind in ListKind::ALL {
        out.push((kind.method(), None));
    }
    if era == Era::Modern {
        let filter = listen_filter(captured);
        if !filter.is_empty() {
            out.push((
                method::SUBSCRIPTIONS_LISTEN,
                Some(json!({"notifications": filter})),
            ));
        }
    }
    let first = |kind| {
        captured
            .surface
            .list(kind)
            .items()
            .and_then(|items| items.first().map(|i| i.value()))
    };
    if let Some(uri) = first(ListKind::Resources).and_then(|r| r.get("uri").cloned()) {
        out.push((method::RESOURCES_READ, Some(json!({"uri": uri}))));
    }
    // Required arguments empty-string-filled: the question is whether a stranger reaches the
    // handler, not what the prompt says.
    if let Some(params) =
        first(ListKind::Prompts).and_then(|p| mcpseal_protocol::prompt_get_params(&p, ""))
    {
        out.push((method::PROMPTS_GET, Some(params)));
    }
    let (tool, arguments) = match &options.call {
        Some((name, args)) => (name.clone(), args.clone()),
        None => (IMPOSSIBLE_TOOL.to_owned(), json!({})),
    };
    out.push((
        method::TOOLS_CALL,
        Some(json!({"name": tool, "arguments": arguments})),
    ));
    out
}

/// The `subscriptions/listen` filter: every list change the credentialed capture's
/// capabilities advertise. Empty when none is (then the probe is not sent: a server without
/// `listChanged` has nothing to acknowledge, and may rightly never answer).
fn listen_filter(captured: &TrustedCapture) -> Map<String, Value> {
    let surface = captured
        .surface
        .canonical_value(mcpseal_surface::Form::McpSeal1);
    let mut filter = Map::new();
    for (cap, field) in [
        ("tools", "toolsListChanged"),
        ("prompts", "promptsListChanged"),
        ("resources", "resourcesListChanged"),
    ] {
        if surface.pointer(&format!("/server/capabilities/{cap}/listChanged"))
            == Some(&Value::Bool(true))
        {
            filter.insert(field.into(), Value::Bool(true));
        }
    }
    filter
}

/// The probe as a request of `era`; a listen waits for its acknowledgement too.
fn request_of(era: Era, method: &str, params: Option<Value>) -> Request {
    let request = match era {
        Era::Modern => Request::modern(method, params),
        Era::Legacy => Request::legacy(method, params),
    };
    if method == method::SUBSCRIPTIONS_LISTEN {
        request.wait(Wait::ResponseOrAcknowledgement)
    } else {
        request
    }
}

/// Whether the exchange was answered: a `result`, or for a listen the acknowledgement of
/// this very request (its subscription id is the request's id).
fn answered(x: &Exchange) -> bool {
    x.result().is_some() || acknowledged(x)
}

/// Whether a listen's acknowledgement arrived (and no response: the stream is open).
fn acknowledged(x: &Exchange) -> bool {
    let id = x.request.get("id");
    id.is_some()
        && x.notifications
            .iter()
            .any(|n| jsonrpc::acknowledged_subscription(n) == id)
}

/// How long a 429 asks to wait (seconds form of `Retry-After`), else the backoff step.
fn wait_after(x: &Exchange, attempt: u32) -> Duration {
    let asked = x
        .response_header("retry-after")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    asked
        .unwrap_or(Duration::from_millis(250 << attempt))
        .min(MAX_WAIT)
}

async fn measure_one(
    target: &Target,
    options: &Options,
    era: Era,
    method: &str,
    params: Option<Value>,
) -> Result<Answer, MeasureError> {
    // The retries of one probe give up once `--timeout` is spent waiting: a server that keeps
    // saying 429 is unmeasurable, not "refused".
    let deadline = tokio::time::Instant::now() + options.timeout;
    for attempt in 0..ATTEMPTS_ON_429 {
        // A fresh connection per request: no session, no handshake, no state carried over.
        let conn = Connection::open(target, options.clone())
            .await
            .map_err(|e| MeasureError::Open(e.to_string()))?;
        let x = conn.send(request_of(era, method, params.clone())).await;
        // Closing the connection also ends an acknowledged listen stream.
        conn.close().await;
        if x.http_status == Some(429) {
            if attempt + 1 < ATTEMPTS_ON_429 {
                let wait = wait_after(&x, attempt);
                if tokio::time::Instant::now() + wait > deadline {
                    break;
                }
                tokio::time::sleep(wait).await;
            }
            continue;
        }
        let Some(status) = x.http_status else {
            return Err(MeasureError::NoAnswer {
                method: method.to_owned(),
                reason: x
                    .transport_error
                    .as_ref()
                    .map_or("no HTTP status".to_owned(), ToString::to_string),
            });
        };
        // A 200 that carried nothing readable (a timeout mid-body, an oversized answer) is no
        // evidence either way.
        if status == 200
            && !x.is_answered()
            && !acknowledged(&x)
            && let Some(e) = &x.transport_error
        {
            return Err(MeasureError::NoAnswer {
                method: method.to_owned(),
                reason: e.to_string(),
            });
        }
        return Ok(Answer {
            answers: status == 200 && answered(&x),
            status,
            code: x.error_code(),
        });
    }
    Err(MeasureError::RateLimited(method.to_owned()))
}

/// Measures anonymous access on `conn`'s target, the default configuration on its own route,
/// using `captured` (the credentialed capture) for the era and the first resource and prompt.
///
/// # Errors
/// [`MeasureError`] (see the module docs: fail closed).
pub async fn measure(
    conn: &Connection,
    captured: &TrustedCapture,
    options: &AnonymousOptions,
) -> Result<LockAnonymous, MeasureError> {
    let target = conn.target().clone();
    let Target::Http { url, .. } = &target else {
        if options.env_unset.is_empty() {
            return Err(MeasureError::NotHttp(target.display()));
        }
        return measure_stdio(conn, captured, options).await;
    };
    let route = route_of(url);
    let stripped = stripped(conn);
    let era = captured.surface.era();
    let mut urls = vec![url.clone()];
    for path in &options.routes {
        let other = url_with_path(url, path);
        if !urls.contains(&other) {
            urls.push(other);
        }
    }
    let mut configs = Configs::new();
    for config in all_configs(options) {
        let mut with = stripped.clone();
        with.headers.extend(config.headers.iter().cloned());
        with.secret_headers
            .extend(config.headers.iter().map(|(k, _)| k.clone()));
        let mut routes = BTreeMap::new();
        for url in &urls {
            let target = Target::Http { url: url.clone() };
            let mut answers = Answers::new();
            for (method, params) in probes(captured, options) {
                // Paced: one request at a time, a short pause between them, so a
                // measurement never looks like a burst to a rate limiter.
                tokio::time::sleep(PACE).await;
                let a = measure_one(&target, &with, era, method, params).await?;
                answers.insert(method.to_owned(), a);
            }
            routes.insert(route_of(url), answers);
        }
        configs.insert(config.name.clone(), routes);
    }
    Ok(LockAnonymous::new(configs, DEFAULT_CONFIG, &route))
}

/// `default` (nothing added) first, then the named configurations.
fn all_configs(options: &AnonymousOptions) -> Vec<NamedConfig> {
    let mut out = vec![NamedConfig {
        name: DEFAULT_CONFIG.to_owned(),
        ..NamedConfig::default()
    }];
    out.extend(options.configs.iter().cloned());
    out
}

/// The route key of a stdio server.
pub const STDIO_ROUTE: &str = "stdio";

/// A stdio server started without the `env_unset` variables: one process, the probes in
/// order on it (a 2025 server gets its handshake from the `initialize` probe). Nothing over
/// stdio has an HTTP status: `status` is 0, the verdict is the `result`.
async fn measure_stdio(
    conn: &Connection,
    captured: &TrustedCapture,
    options: &AnonymousOptions,
) -> Result<LockAnonymous, MeasureError> {
    let mut configs = Configs::new();
    for config in all_configs(options) {
        let answers = measure_stdio_config(conn, captured, options, &config).await?;
        let mut routes = BTreeMap::new();
        routes.insert(STDIO_ROUTE.to_owned(), answers);
        configs.insert(config.name.clone(), routes);
    }
    Ok(LockAnonymous::new(configs, DEFAULT_CONFIG, STDIO_ROUTE))
}

/// One configuration of [`measure_stdio`]: a process of its own.
async fn measure_stdio_config(
    conn: &Connection,
    captured: &TrustedCapture,
    options: &AnonymousOptions,
    config: &NamedConfig,
) -> Result<Answers, MeasureError> {
    let mut opts = conn.options().clone();
    opts.env.retain(|(k, _)| !options.env_unset.contains(k));
    opts.env_unset.extend(options.env_unset.iter().cloned());
    opts.env.extend(config.env.iter().cloned());
    opts.env_unset
        .retain(|k| !config.env.iter().any(|(c, _)| c == k));
    opts.secret_env
        .extend(config.env.iter().map(|(k, _)| k.clone()));
    let era = captured.surface.era();
    let anon = Connection::open(conn.target(), opts)
        .await
        .map_err(|e| MeasureError::Open(e.to_string()))?;
    let mut answers = Answers::new();
    let mut failure = None;
    for (method, params) in probes(captured, options) {
        let x = anon.send(request_of(era, method, params)).await;
        if let Some(e) = &x.transport_error {
            failure = Some(MeasureError::NoAnswer {
                method: method.to_owned(),
                reason: e.to_string(),
            });
            break;
        }
        if method == method::INITIALIZE && x.result().is_some() {
            anon.send(Request::legacy(method::NOTIFICATION_INITIALIZED, None).notification())
                .await;
        }
        if acknowledged(&x) && x.response.is_none() {
            // The stream stays open on stdio until the client cancels it.
            let id = x.request.get("id").cloned().unwrap_or(Value::Null);
            anon.send(
                Request::modern(
                    method::NOTIFICATION_CANCELLED,
                    Some(json!({"requestId": id})),
                )
                .notification(),
            )
            .await;
        }
        answers.insert(
            method.to_owned(),
            Answer {
                answers: answered(&x),
                status: 0,
                code: x.error_code(),
            },
        );
    }
    anon.close().await;
    match failure {
        Some(e) => Err(e),
        None => Ok(answers),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_route_is_the_path_without_query() {
        assert_eq!(route_of("http://127.0.0.1:8080/mcp"), "POST /mcp");
        assert_eq!(route_of("https://x.example/a/b?k=v#f"), "POST /a/b");
        assert_eq!(route_of("https://x.example"), "POST /");
    }

    #[test]
    fn another_route_keeps_the_origin() {
        assert_eq!(
            url_with_path("http://127.0.0.1:8080/mcp?x=1", "/admin/mcp"),
            "http://127.0.0.1:8080/admin/mcp"
        );
        assert_eq!(
            url_with_path("https://x.example", "v2"),
            "https://x.example/v2"
        );
        assert_eq!(
            route_of(&url_with_path("https://u:p@x.example:9/a", "/b")),
            "POST /b"
        );
    }
}
