//! The fixed opening sequence, run once and shared by every rule.
//!
//! Three faults look identical to a naive client — "requires the handshake", "chokes on
//! `_meta`", "rejects the routing headers" — because each just returns an error. Only this
//! order separates them:
//!
//! 1. `server/discover` with `_meta` (mandatory in 2026; harmless on a legacy server);
//! 2. `tools/list` with `_meta`, *before* any handshake (on stdio a successful `initialize`
//!    persists in the child and would mask a stateful server);
//! 3. when that listing failed: `tools/list` dressed as a 2025 client sends it before any
//!    handshake (no `_meta`, no 2026 headers): a stateless 2025 server serves it, a stateful
//!    one refuses it ("not initialized") — so "requires the handshake" is only said when true;
//! 4. legacy `initialize` (expected to fail on a modern-only server);
//! 5. on the stateful signature (2 failed, 4 worked): `notifications/initialized` and a listing
//!    on the 2025 path — over HTTP with the `Mcp-Session-Id` the server issued echoed, so a
//!    session-keyed 2025 HTTP server is measured as fully as over stdio;
//! 6. when neither path works: `tools/list` without `_meta` (does the envelope cause it?) and,
//!    over HTTP, with `_meta` but without the routing headers (do the headers cause it?);
//! 7. two more listings on the working path, so ordering is compared over three.
//!
//! stdio and the handshake: a handshake persists in the child process, and SDKs that serve
//! both eras on stdio (TypeScript v2 `serveStdio`, rmcp) pin or switch the era of the whole
//! process from its first message or from `initialize`. So when listing works without a
//! handshake, step 4 is asked of a *fresh* process, as its first message: the probed process
//! never sees `initialize` (a 2026 client never sends it, and rmcp stops answering removed
//! methods once it has), and a dual-era server is still recognised as one. Only a server
//! that needs the handshake (the stateful signature) gets it in the probed process, because
//! the 2025 path depends on it.

use mcpseal_client::{Exchange, Request, TransportKind};
use mcpseal_protocol::method;
use serde_json::{Map, Value, json};

use crate::context::envelope_free;
use crate::protocol::TARGET_REVISION;
use crate::recorder::Recorder;

/// The path a working client takes with this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientPath {
    /// 2026-07-28 requests are answered.
    Modern,
    /// Only 2025-11-25 requests after the `initialize` handshake are answered.
    Legacy,
}

/// Why neither path worked, when the prelude could tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootCause {
    /// Requests carrying `params._meta` fail; the same request without it succeeds.
    RejectsEnvelope,
    /// HTTP requests carrying the routing headers fail; without them they succeed.
    RejectsHeaders,
}

/// The era the server was observed to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObservedEra {
    /// Answers 2026 requests and refuses `initialize`.
    Modern,
    /// Answers 2026 requests and also accepts `initialize`.
    Dual,
    /// Answers only after the 2025 handshake.
    Stateful,
    /// Answers requests without a handshake but has no `server/discover` and accepts
    /// `initialize` (a stateless 2025 server; its 2026 requests may fail, e.g. on a 2026
    /// version header it does not know, while 2025 ones are served).
    Legacy,
    /// Could not be told.
    Unknown,
}

/// What the prelude learned.
#[derive(Debug, Clone)]
pub struct Prelude {
    /// 1: `server/discover` with `_meta`.
    pub discover: Exchange,
    /// 2: `tools/list` with `_meta`, before any handshake.
    pub bare_listing: Exchange,
    /// 3: `tools/list` in 2025 dress before any handshake, when 2 failed.
    pub legacy_bare_listing: Option<Exchange>,
    /// 4: legacy `initialize` (stdio: on a fresh process when listing works without it).
    pub initialize: Exchange,
    /// 5: `notifications/initialized`, on the stateful signature.
    pub initialized: Option<Exchange>,
    /// 5: `tools/list` on the 2025 path after the handshake.
    pub post_handshake_listing: Option<Exchange>,
    /// 6: `tools/list` without `_meta` (routing headers kept).
    pub envelope_free_listing: Option<Exchange>,
    /// 6: `tools/list` with `_meta` but no routing headers (HTTP only).
    pub headerless_listing: Option<Exchange>,
    /// 7: the two more listings on the client path, after the effective one (see
    /// [`Prelude::listings`] for all three).
    pub relistings: Vec<Exchange>,
    /// The client path, if any works.
    pub path: Option<ClientPath>,
    /// The root cause when no path works and the prelude could isolate it.
    pub root_cause: Option<RootCause>,
}

impl Prelude {
    /// Runs the prelude.
    pub(crate) async fn run(rec: &Recorder<'_>) -> Prelude {
        let init = Request::legacy(
            method::INITIALIZE,
            Some(json!({
                "protocolVersion": mcpseal_client::Era::Legacy.revision(),
                "capabilities": {},
                "clientInfo": mcpseal_client::client_info(),
            })),
        );
        // stdio: the fresh process for step 4 starts now, beside the probed one, when jobs
        // allow (`--jobs`): a node server takes ~0.5 s to start, and one after the other that
        // was half of a probe. Taken (and recorded) at step 4 only if the listing worked
        // without a handshake; otherwise dropped unread, and `initialize` goes to the probed
        // process as before.
        let early_init = (rec.transport() == TransportKind::Stdio && rec.asks_ahead())
            .then(|| rec.fresh_ahead(init.clone()));
        let discover = rec
            .send(Request::modern(method::SERVER_DISCOVER, None))
            .await;
        let bare_listing = rec
            .send(Request::modern(method::TOOLS_LIST, Some(json!({}))))
            .await;
        let legacy_bare_listing = if bare_listing.error().is_some() {
            Some(
                rec.send(Request::legacy(method::TOOLS_LIST, Some(json!({}))))
                    .await,
            )
        } else {
            None
        };
        // stdio, listing works without a handshake: ask `initialize` of a fresh process. The
        // probed process then never sees a handshake a 2026 client would not send, and a
        // dual-era server that pins its era from the first message still shows it accepts
        // 2025 clients.
        let initialize =
            if rec.transport() == TransportKind::Stdio && bare_listing.result().is_some() {
                match early_init {
                    Some(ahead) => rec.take_fresh(ahead).await,
                    None => rec.send_fresh(init).await,
                }
            } else {
                drop(early_init);
                rec.send(init).await
            };
        let mut p = Prelude {
            discover,
            bare_listing,
            legacy_bare_listing,
            initialize,
            initialized: None,
            post_handshake_listing: None,
            envelope_free_listing: None,
            headerless_listing: None,
            relistings: Vec::new(),
            path: None,
            root_cause: None,
        };
        let modern_works = p.discover.result().is_some() || p.bare_listing.result().is_some();
        if p.bare_listing.error().is_some() && p.initialize.result().is_some() {
            p.initialized = Some(
                rec.send(Request::legacy(method::NOTIFICATION_INITIALIZED, None).notification())
                    .await,
            );
            p.post_handshake_listing = Some(
                rec.send(Request::legacy(method::TOOLS_LIST, Some(json!({}))))
                    .await,
            );
        }
        // A 2025 listing served without a handshake only makes the 2025 path a working one on
        // a server that also accepts `initialize` (a 2025 server); without it, the root cause
        // steps below judge what the envelope or the headers do.
        let legacy_works = p
            .post_handshake_listing
            .as_ref()
            .is_some_and(|l| l.result().is_some())
            || (p.accepts_handshake() && p.serves_legacy_without_handshake());
        p.path = if modern_works {
            Some(ClientPath::Modern)
        } else if legacy_works {
            Some(ClientPath::Legacy)
        } else {
            None
        };
        if p.path.is_none() && p.bare_listing.error().is_some() {
            let free = rec.send(envelope_free(method::TOOLS_LIST, json!({}))).await;
            if free.result().is_some() {
                p.root_cause = Some(RootCause::RejectsEnvelope);
            }
            p.envelope_free_listing = Some(free);
            if p.root_cause.is_none() && rec.transport() == TransportKind::Http {
                let headerless = rec
                    .send(
                        Request::modern(method::TOOLS_LIST, Some(json!({})))
                            .without_standard_headers(),
                    )
                    .await;
                if headerless.result().is_some() {
                    p.root_cause = Some(RootCause::RejectsHeaders);
                }
                p.headerless_listing = Some(headerless);
            }
        }
        if p.effective_listing().is_some() {
            for _ in 0..2 {
                let request = match p.path {
                    Some(ClientPath::Legacy) => {
                        Request::legacy(method::TOOLS_LIST, Some(json!({})))
                    }
                    _ => Request::modern(method::TOOLS_LIST, Some(json!({}))),
                };
                p.relistings.push(rec.send(request).await);
            }
        }
        p
    }

    /// Every exchange the prelude sent, each once, in the order sent. Rules that judge "what the
    /// server said" judge these (and their own probes), never the transcript of the run so far:
    /// a finding must not depend on which other rules ran before it.
    pub fn exchanges(&self) -> Vec<&Exchange> {
        let mut out = vec![&self.discover, &self.bare_listing];
        out.extend(self.legacy_bare_listing.iter());
        out.push(&self.initialize);
        out.extend(self.initialized.iter());
        out.extend(self.post_handshake_listing.iter());
        out.extend(self.envelope_free_listing.iter());
        out.extend(self.headerless_listing.iter());
        out.extend(self.relistings.iter());
        out
    }

    /// Every listing on the client path, in order: the effective one, then the two more (at
    /// least three when listing works, none when it does not). Borrowed, not copied: a
    /// listing page can be megabytes once parsed.
    pub fn listings(&self) -> Vec<&Exchange> {
        self.effective_listing()
            .into_iter()
            .chain(self.relistings.iter())
            .collect()
    }

    /// The listing a working client got: the bare one, else the post-handshake one, else the
    /// 2025 one sent without a handshake.
    pub fn effective_listing(&self) -> Option<&Exchange> {
        if self.bare_listing.result().is_some() {
            return Some(&self.bare_listing);
        }
        self.post_handshake_listing
            .as_ref()
            .filter(|l| l.result().is_some())
            .or_else(|| {
                self.legacy_bare_listing
                    .as_ref()
                    .filter(|l| l.result().is_some())
            })
    }

    /// True when a 2025-dressed `tools/list` was served before any handshake (a stateless 2025
    /// server: it accepts `initialize` but does not need it).
    pub fn serves_legacy_without_handshake(&self) -> bool {
        self.legacy_bare_listing
            .as_ref()
            .is_some_and(|l| l.result().is_some())
    }

    /// The `server/discover` result, if discover worked.
    pub fn discover_result(&self) -> Option<&Value> {
        self.discover.result()
    }

    /// True when `initialize` returned a result.
    pub fn accepts_handshake(&self) -> bool {
        self.initialize.result().is_some()
    }

    /// True on the stateful signature: nothing without the handshake, listing after it.
    pub fn requires_handshake(&self) -> bool {
        self.bare_listing.error().is_some()
            && self.accepts_handshake()
            && self.path == Some(ClientPath::Legacy)
            && !self.serves_legacy_without_handshake()
    }

    /// The era the server was observed to speak.
    pub fn era(&self) -> ObservedEra {
        match (self.path, self.accepts_handshake()) {
            (Some(ClientPath::Legacy), true) if self.serves_legacy_without_handshake() => {
                ObservedEra::Legacy
            }
            (Some(ClientPath::Legacy), _) => ObservedEra::Stateful,
            (Some(ClientPath::Modern), false) => ObservedEra::Modern,
            (Some(ClientPath::Modern), true) if self.discover.result().is_some() => {
                ObservedEra::Dual
            }
            (Some(ClientPath::Modern), true) => ObservedEra::Legacy,
            (None, _) => ObservedEra::Unknown,
        }
    }

    /// The server capabilities: from `server/discover`, else from the `initialize` result.
    pub fn capabilities(&self) -> Option<&Value> {
        self.discover
            .result()
            .and_then(|r| r.get("capabilities"))
            .or_else(|| self.initialize.result()?.get("capabilities"))
            .filter(|c| c.is_object())
    }

    /// The `subscriptions/listen` filter asking for every list change the capabilities
    /// advertise (`toolsListChanged` for `tools.listChanged: true`, and so on for prompts and
    /// resources); empty when none is, or when no capabilities were seen. SEAL009 (is listen
    /// served?) and SEAL026 (is it acknowledged right?) must ask for the same thing.
    pub fn listen_filter(&self) -> Map<String, Value> {
        let mut filter = Map::new();
        let Some(caps) = self.capabilities() else {
            return filter;
        };
        for (cap, field) in [
            ("tools", "toolsListChanged"),
            ("prompts", "promptsListChanged"),
            ("resources", "resourcesListChanged"),
        ] {
            if caps.pointer(&format!("/{cap}/listChanged")) == Some(&Value::Bool(true)) {
                filter.insert(field.into(), json!(true));
            }
        }
        filter
    }

    /// True when the capabilities came from `server/discover` (not the legacy handshake).
    pub fn capabilities_from_discover(&self) -> bool {
        self.discover
            .result()
            .and_then(|r| r.get("capabilities"))
            .is_some_and(Value::is_object)
    }

    /// Whether the target revision is among discover's `supportedVersions`.
    pub fn supports_target(&self) -> bool {
        self.discover_result()
            .and_then(|r| r.get("supportedVersions"))
            .and_then(Value::as_array)
            .is_some_and(|v| v.iter().any(|x| x == TARGET_REVISION))
    }

    /// True when every prelude probe failed at transport level (no answer at all). A server
    /// that refused them for a credential (401, or 403 with a challenge) was reached: its run
    /// is incomplete, with the challenge, never unreachable. A bare 403 to everything (a `Host`
    /// check) is unreachable: nothing MCP answered.
    pub fn unreachable(&self) -> bool {
        [&self.discover, &self.bare_listing, &self.initialize]
            .iter()
            .all(|e| e.transport_error.is_some() && !crate::access::credential_refusal(e))
    }
}
