//! The one handler core both transports share.
//!
//! A transport hands over one parsed JSON-RPC message plus its context (transport, legacy
//! session id) and gets an [`Outcome`] back. Everything protocol-level lives here or in
//! `modes`/`methods`; transports only add what is about bytes and HTTP (headers, SSE
//! framing, `--delay`). Request-level misbehaviours that both transports must show the same
//! way (`--crash-after`, `--hang-on`, `--flood`, `--invalid-utf8`, `--half-message`,
//! `--exit-after-discover`) are decided here so stdio and HTTP cannot drift apart.

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use serde_json::Value;

use crate::jsonrpc::{self, INVALID_REQUEST, Outcome, RpcError};
use crate::knobs::Knobs;
use crate::paging::Rng;
use crate::surface::Surface;

/// Which transport a message arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// Newline-delimited JSON-RPC on stdin/stdout.
    Stdio,
    /// Streamable HTTP POST.
    Http,
}

/// One incoming message and its context.
#[derive(Debug, Clone, Copy)]
pub struct Incoming<'a> {
    /// The parsed JSON-RPC message.
    pub msg: &'a Value,
    /// The transport it came on.
    pub transport: Transport,
    /// HTTP: the `Mcp-Session-Id` header, if any.
    pub session: Option<&'a str>,
    /// HTTP: the `MCP-Protocol-Version` header, if any (a dual-era server reads a 2025
    /// version, or none, on a request without a `_meta` version as a 2025 request).
    pub version_header: Option<&'a str>,
}

impl Incoming<'_> {
    /// A 2025-era request: no `_meta` protocol version, and over HTTP no 2026 version
    /// header either (a 2025 client sends `MCP-Protocol-Version: 2025-11-25` after
    /// `initialize`, or nothing).
    pub fn is_legacy_request(&self) -> bool {
        let meta_version = self
            .msg
            .pointer("/params/_meta")
            .and_then(|m| m.get(crate::jsonrpc::META_VERSION))
            .is_some();
        !meta_version && self.version_header != Some(crate::jsonrpc::MODERN_VERSION)
    }
}

/// A legacy HTTP session's life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionState {
    /// Initialized and usable.
    Live,
    /// Ended by `DELETE`; further use gets 404.
    Ended,
}

/// Mutable state: counters, the legacy handshake flags, open listen streams.
#[derive(Debug)]
pub struct State {
    /// Requests seen (for `--crash-after`).
    pub requests: u64,
    /// Calls per list (legacy order flipping), indexed by list.
    pub list_calls: [u64; 4],
    /// `--shuffle`: the order each list was served in last time.
    pub last_order: [Vec<Value>; 4],
    /// Randomness for `--shuffle` and session ids.
    pub rng: Rng,
    /// Legacy HTTP sessions, keyed by session id (never one global flag).
    pub sessions: HashMap<String, SessionState>,
    /// Legacy/dual stdio: `initialize` was answered on this process.
    pub stdio_initialized: bool,
    /// stdio: ids of open `subscriptions/listen` streams.
    pub listens: HashSet<String>,
}

/// The handler core.
#[derive(Debug)]
pub struct Handler {
    /// The knobs it was started with.
    pub knobs: Knobs,
    /// The served surface.
    pub surface: Surface,
    /// `--session-id`: the one id a modern server (wrongly) mints.
    pub modern_session: String,
    state: Mutex<State>,
}

impl Handler {
    /// A handler for these knobs and surface.
    pub fn new(knobs: Knobs, surface: Surface) -> Self {
        let mut rng = Rng::from_entropy();
        let modern_session = session_id(&mut rng);
        let state = State {
            requests: 0,
            list_calls: [0; 4],
            last_order: Default::default(),
            rng,
            sessions: HashMap::new(),
            stdio_initialized: false,
            listens: HashSet::new(),
        };
        Self {
            knobs,
            surface,
            modern_session,
            state: Mutex::new(state),
        }
    }

    /// Lock the state; a poisoned lock is still usable (a panic elsewhere must not wedge tests).
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Handle one message.
    pub fn handle(&self, inc: Incoming<'_>) -> Outcome {
        let msg = inc.msg;
        if let Some(log) = &self.knobs.message_log {
            crate::request_log::message(log, msg);
        }
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // A response or garbage: 2026 clients never send responses.
            return self.reply_err(msg, RpcError::new(INVALID_REQUEST, "Invalid Request"), inc);
        };
        if let Some(log) = &self.knobs.request_log {
            crate::request_log::record(log, method);
        }
        let Some(id) = msg.get("id") else {
            self.notification(method, msg.get("params"));
            return Outcome::Accepted;
        };
        let first = {
            let mut st = self.state();
            st.requests += 1;
            if self.knobs.crash_after.is_some_and(|n| st.requests > n) {
                return Outcome::Crash;
            }
            st.requests == 1
        };
        if first && self.knobs.flood {
            return Outcome::Flood;
        }
        if first && self.knobs.invalid_utf8 {
            return Outcome::InvalidUtf8(id.clone());
        }
        if self.knobs.hang_on.iter().any(|m| m == method) {
            return Outcome::Hang;
        }
        let params = msg.get("params").unwrap_or(&Value::Null);
        let answer = self.dispatch(method, params, id, inc);
        let outcome = match answer {
            Ok(crate::modes::Answer::Result(r, session)) => Outcome::Reply {
                body: jsonrpc::result(id, r),
                status: 200,
                session: session.or_else(|| self.sticky_session(inc)),
            },
            Ok(crate::modes::Answer::Listen(before, ack)) => {
                if inc.transport == Transport::Stdio {
                    self.state().listens.insert(id.to_string());
                }
                Outcome::Listen { before, ack }
            }
            Ok(crate::modes::Answer::Hang) => Outcome::Hang,
            Err(e) => self.reply_err(msg, e, inc),
        };
        match outcome {
            Outcome::Reply { body, .. } if first && self.knobs.half_message => {
                Outcome::HalfMessage(body)
            }
            Outcome::Reply { body, .. }
                if self.knobs.exit_after_discover && method == "server/discover" =>
            {
                Outcome::ReplyThenExit(body)
            }
            other => other,
        }
    }

    /// An error reply keeping the request id (unless `--error-id-null`).
    pub fn reply_err(&self, msg: &Value, err: RpcError, inc: Incoming<'_>) -> Outcome {
        let id = match msg.get("id") {
            Some(id) if !self.knobs.error_id_null => id.clone(),
            _ => Value::Null,
        };
        Outcome::Reply {
            body: jsonrpc::error(&id, &err),
            status: err.status,
            session: self.sticky_session(inc),
        }
    }

    /// The session id to echo on a response, if any.
    fn sticky_session(&self, inc: Incoming<'_>) -> Option<String> {
        if inc.transport != Transport::Http {
            return None;
        }
        if self.knobs.session_id {
            return Some(self.modern_session.clone());
        }
        let s = inc.session?;
        (self.state().sessions.get(s) == Some(&SessionState::Live)).then(|| s.to_owned())
    }

    /// Client notifications: `notifications/cancelled` ends a stdio listen stream.
    fn notification(&self, method: &str, params: Option<&Value>) {
        if method == "notifications/cancelled"
            && let Some(req) = params.and_then(|p| p.get("requestId"))
        {
            self.state().listens.remove(&req.to_string());
        }
    }

    /// Mint a new legacy session (HTTP `initialize`).
    pub fn new_session(&self) -> String {
        let mut st = self.state();
        let id = session_id(&mut st.rng);
        st.sessions.insert(id.clone(), SessionState::Live);
        id
    }

    /// The state of a legacy session id, `None` if never issued.
    pub fn session_state(&self, id: &str) -> Option<SessionState> {
        self.state().sessions.get(id).copied()
    }

    /// `DELETE` with a session: end it. Returns whether it was live.
    pub fn end_session(&self, id: &str) -> bool {
        let mut st = self.state();
        match st.sessions.get_mut(id) {
            Some(s @ SessionState::Live) => {
                *s = SessionState::Ended;
                true
            }
            _ => false,
        }
    }
}

/// 128 random bits as hex (visible ASCII, as the 2025 spec requires of session ids).
fn session_id(rng: &mut Rng) -> String {
    format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64())
}
