//! Per-mode gating: which methods exist, what the request envelope must look like, and
//! the legacy handshake. Method bodies live in `methods`.
//!
//! Why each mode exists (rules in /work/shared/anchors/mcp-stateless.md §4):
//! * `modern`: the clean reference; every rule must stay silent on it.
//! * `legacy`: a 2025-11-25 server; fires the "still stateful" family (MCP001/002/004–012,
//!   015–018, 021). Its HTTP handshake is keyed **per session id**, so a probe that never
//!   echoes `Mcp-Session-Id` is caught under-reporting (the mcp-stateless pitfall, §12).
//! * `dual`: modern plus a working `initialize` (MCP002 dual-era advisory); 2025 requests
//!   (no `_meta` version) are served with 2025 shapes, over HTTP statelessly and over stdio
//!   after `initialize`, so a 2025 client can use it past the handshake.
//! * `liar`: results for everything, so a sanity check must refuse to trust it.
//! * `strict-params`: rejects the 2026 `_meta` envelope (MCP013).
//! * `strict-headers`: rejects the 2026 routing headers (MCP014; checked in `http`).

use serde_json::{Value, json};

use crate::handler::{Handler, Incoming, SessionState, Transport};
use crate::jsonrpc::{
    INVALID_PARAMS, INVALID_REQUEST, LEGACY_VERSION, META_CLIENT_CAPS, META_CLIENT_INFO,
    META_VERSION, METHOD_NOT_FOUND, MODERN_VERSION, RC_UNSUPPORTED_VERSION, RpcError,
    UNSUPPORTED_VERSION,
};
use crate::knobs::{Mode, TasksKnob};
use crate::methods::Era;

/// A successful dispatch.
#[derive(Debug)]
pub enum Answer {
    /// A result, plus a newly minted session id (legacy HTTP `initialize`).
    Result(Value, Option<String>),
    /// A listen stream: these messages (normally none), this acknowledgement, then silence.
    Listen(Vec<Value>, Value),
    /// No answer at all.
    Hang,
}

/// Methods of the 2026-07-28 revision the fixture serves.
const MODERN_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "subscriptions/listen",
];

/// Methods of 2025-11-25 the legacy mode serves.
const LEGACY_METHODS: &[&str] = &[
    "initialize",
    "ping",
    "logging/setLevel",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "tasks/list",
    "tasks/get",
    "tasks/result",
    "tasks/cancel",
];

/// Is this a 2025 version older than 2025-03-26 (answered with the RC-era -32004)?
fn ancient(version: &str) -> bool {
    version < "2025-03-26"
}

impl Handler {
    /// Route one request by mode.
    pub fn dispatch(
        &self,
        method: &str,
        params: &Value,
        id: &Value,
        inc: Incoming<'_>,
    ) -> Result<Answer, RpcError> {
        match self.knobs.mode {
            Mode::Modern | Mode::StrictHeaders => self.modern(method, params, id),
            Mode::Dual if method == "initialize" => {
                if inc.transport == Transport::Stdio {
                    self.state().stdio_initialized = true;
                }
                self.call(Era::Legacy, method, params, id)
            }
            Mode::Dual if inc.is_legacy_request() && self.legacy_path_open(inc) => {
                if !LEGACY_METHODS.contains(&method) {
                    return Err(method_not_found(method).status(200));
                }
                self.call(Era::Legacy, method, params, id)
                    .map_err(|e| e.status(200))
            }
            Mode::Dual => self.modern(method, params, id),
            Mode::Legacy => self.legacy(method, params, id, inc),
            Mode::Liar => Ok(self.liar(method, params, id)),
            Mode::StrictParams => {
                if params.get("_meta").is_some() {
                    return Err(RpcError::new(INVALID_PARAMS, "unexpected property _meta")
                        .data(json!({"property": "_meta"})));
                }
                if !MODERN_METHODS.contains(&method) || !self.served(method) {
                    return Err(method_not_found(method));
                }
                let era = if method == "server/discover" {
                    Era::Modern
                } else {
                    Era::Legacy
                };
                self.call(era, method, params, id)
            }
        }
    }

    /// Dual: is the 2025 path open to this request? Over HTTP always (2025 requests are
    /// served statelessly, like the TypeScript SDK v2's `legacy: 'stateless'`); over stdio
    /// once `initialize` was answered on the process (before it, a request without `_meta`
    /// gets the modern refusal).
    fn legacy_path_open(&self, inc: Incoming<'_>) -> bool {
        match inc.transport {
            Transport::Http => true,
            Transport::Stdio => self.state().stdio_initialized,
        }
    }

    /// Is `method` served by a modern mode, given the surface and the knobs?
    fn served(&self, method: &str) -> bool {
        let s = &self.surface;
        let k = &self.knobs;
        match method {
            "tools/list" | "tools/call" => s.tools.is_some(),
            "resources/list" | "resources/read" => s.resources.is_some(),
            "resources/templates/list" => s.templates.is_some(),
            "prompts/list" | "prompts/get" => s.prompts.is_some(),
            "ping" => {
                k.ping || k.removed_methods || (k.ping_when_first && self.state().requests == 1)
            }
            "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe" => {
                k.removed_methods
            }
            "messages/listen" => k.messages_listen,
            "tasks/get" => k.tasks.is_some(),
            "tasks/list" | "tasks/result" | "tasks/cancel" => {
                matches!(k.tasks, Some(TasksKnob::Core | TasksKnob::Both))
            }
            m => MODERN_METHODS.contains(&m),
        }
    }

    /// Versions `server/discover` and -32022 advertise.
    pub fn supported_versions(&self) -> Vec<String> {
        let mut v = vec![MODERN_VERSION.to_owned()];
        v.extend(self.knobs.advertise_version.iter().cloned());
        v
    }

    fn modern(&self, method: &str, params: &Value, id: &Value) -> Result<Answer, RpcError> {
        if !self.served(method) {
            return Err(method_not_found(method));
        }
        self.check_meta(params)?;
        self.call(Era::Modern, method, params, id)
    }

    /// The 2026 envelope: `_meta` with protocolVersion and clientCapabilities, version supported.
    fn check_meta(&self, params: &Value) -> Result<(), RpcError> {
        if self.knobs.lenient_meta {
            return Ok(());
        }
        let meta = params.get("_meta").and_then(Value::as_object);
        let version = meta
            .and_then(|m| m.get(META_VERSION))
            .and_then(Value::as_str);
        let caps_ok = meta
            .and_then(|m| m.get(META_CLIENT_CAPS))
            .is_some_and(Value::is_object);
        let mut missing = Vec::new();
        if version.is_none() {
            missing.push(META_VERSION);
        }
        if !caps_ok {
            missing.push(META_CLIENT_CAPS);
        }
        if self.knobs.require_client_info && meta.and_then(|m| m.get(META_CLIENT_INFO)).is_none() {
            missing.push(META_CLIENT_INFO);
        }
        if !missing.is_empty() {
            return Err(
                RpcError::new(INVALID_PARAMS, "Missing required _meta fields")
                    .data(json!({"missing": missing})),
            );
        }
        let pinned = self.knobs.pin_version && self.state().list_calls.iter().any(|c| *c > 0);
        match version {
            Some(MODERN_VERSION) | None => Ok(()),
            Some(_) if pinned => Ok(()),
            Some(v) => {
                let code = if self.knobs.old_error_codes {
                    RC_UNSUPPORTED_VERSION
                } else {
                    self.knobs.version_error_code.unwrap_or(UNSUPPORTED_VERSION)
                };
                let err = RpcError::new(code, "Unsupported protocol version");
                if self.knobs.bare_version_error {
                    return Err(err);
                }
                Err(err.data(json!({"supported": self.supported_versions(), "requested": v})))
            }
        }
    }

    fn legacy(
        &self,
        method: &str,
        params: &Value,
        id: &Value,
        inc: Incoming<'_>,
    ) -> Result<Answer, RpcError> {
        let meta_version = params
            .pointer("/_meta")
            .and_then(|m| m.get(META_VERSION))
            .and_then(Value::as_str);
        if let Some(v) = meta_version.filter(|v| ancient(v)) {
            return Err(
                RpcError::new(RC_UNSUPPORTED_VERSION, "Unsupported protocol version")
                    .data(json!({"supported": [LEGACY_VERSION], "requested": v}))
                    .status(400),
            );
        }
        if method == "initialize" {
            let session = match inc.transport {
                Transport::Stdio => {
                    self.state().stdio_initialized = true;
                    None
                }
                // A stateless 2025 server mints no session.
                Transport::Http if self.knobs.stateless_legacy => None,
                Transport::Http => Some(self.new_session()),
            };
            return match self.call(Era::Legacy, method, params, id)? {
                Answer::Result(r, _) => Ok(Answer::Result(r, session)),
                other => Ok(other),
            };
        }
        let not_init = || RpcError::new(INVALID_REQUEST, "not initialized");
        match inc.transport {
            // A stateless 2025 server: no handshake needed, no session kept.
            _ if self.knobs.stateless_legacy => {}
            Transport::Stdio if !self.state().stdio_initialized => {
                return Err(not_init().status(200));
            }
            Transport::Stdio => {}
            Transport::Http => match inc.session.map(|s| (s, self.session_state(s))) {
                // `--sessionless`: a stateless 2025 server (mcp-surface's Workers), no session.
                None if self.knobs.sessionless => {}
                None => return Err(not_init().data(json!({"reason": "missing Mcp-Session-Id"}))),
                Some((_, Some(SessionState::Live))) => {}
                Some((s, _)) => {
                    return Err(RpcError::new(INVALID_REQUEST, "Session not found")
                        .data(json!({"sessionId": s}))
                        .status(404));
                }
            },
        }
        if !LEGACY_METHODS.contains(&method) {
            return Err(method_not_found(method).status(200));
        }
        self.call(Era::Legacy, method, params, id)
            .map_err(|e| e.status(200))
    }

    /// Liar mode: a result for anything, plausible where it can be.
    fn liar(&self, method: &str, params: &Value, id: &Value) -> Answer {
        let era = if method == "initialize" {
            Era::Legacy
        } else {
            Era::Modern
        };
        match self.call(era, method, params, id) {
            Ok(Answer::Result(r, s)) => Answer::Result(r, s),
            _ => Answer::Result(json!({}), None),
        }
    }
}

/// -32601 naming the method.
pub fn method_not_found(method: &str) -> RpcError {
    RpcError::new(METHOD_NOT_FOUND, "Method not found").data(json!({"method": method}))
}
