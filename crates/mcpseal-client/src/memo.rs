//! One timeout per dead method: what timed out in this run is not asked again.
//!
//! The same holds for an answer past the byte limit: an HTTP reply stream that passed its cap
//! without the answer (a notification flood: asking again would read another cap's worth of
//! it; the probe read the flood five times, past 10 s), or a message or body larger than
//! `--max-message-bytes` (a compression bomb: each ask made the server build and send it
//! again). It is recalled with its own kind (oversize), so the flag it names is still
//! `--max-message-bytes`.
//!
//! A server whose `tools/list` never answers costs one `--timeout` when it is first asked. A
//! run asks many times — the probe lists in its prelude, in rules and on fresh processes; `lock`
//! captures twice on two connections — and without a memory each ask would wait out the same
//! timeout again (the probe waited nine timeouts over HTTP). A [`TimeoutMemo`] remembers, for
//! the run, which requests got no answer within their timeout; a later request to the same
//! server for the same thing (the method, and for `tools/call`, `prompts/get` and
//! `resources/read` the name it acts on) with no longer a timeout fails at once, with the
//! original reason, as a timeout (no evidence, exactly like the first).
//!
//! Where it lives: in [`Options`](crate::Options), behind an `Arc`, so every connection opened
//! with a clone of the same options — the fresh processes of the probe, the second capture of
//! `lock` — shares it, and a run is simply "everything opened from one set of options". It is
//! never a global: two runs in one process (a library user, the tests) do not see each other's
//! timeouts, and a new [`Options`](crate::Options) (or [`TimeoutMemo::default`]) starts afresh.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpseal_protocol::{Request, Wait};

use crate::error::{TransportError, TransportErrorKind};
use crate::support::lock;
use crate::target::Target;

/// What timed out in a run, shared by every clone (see the module docs).
#[derive(Clone, Default)]
pub struct TimeoutMemo {
    dead: Arc<Mutex<HashMap<Key, Dead>>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    target: Target,
    method: String,
    name: Option<String>,
}

#[derive(Debug, Clone)]
struct Dead {
    /// The timeout it was given.
    timeout: Duration,
    /// Why it failed, as it was first reported.
    error: TransportError,
}

impl std::fmt::Debug for TimeoutMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimeoutMemo")
            .field("dead", &self.dead_methods())
            .finish()
    }
}

impl TimeoutMemo {
    fn key(target: &Target, request: &Request) -> Key {
        Key {
            target: target.clone(),
            method: request.method.clone(),
            name: request.routing_name().map(str::to_owned),
        }
    }

    /// Whether a timeout of `request` says the method is dead: requests that wait for their
    /// response do; notifications do not (nothing is awaited), nor does a listen, whose
    /// timeout ends a window of reading a stream that is meant to stay open.
    fn applies(request: &Request) -> bool {
        !request.notification && request.wait == Wait::Response
    }

    /// The error a request gets without being sent: `Some` when the same request to the same
    /// server timed out earlier in this run with a timeout at least as long as `timeout`.
    /// Notifications and listens are always sent.
    pub(crate) fn recall(
        &self,
        target: &Target,
        request: &Request,
        timeout: Duration,
    ) -> Option<TransportError> {
        if !Self::applies(request) {
            return None;
        }
        let dead = lock(&self.dead);
        let d = dead.get(&Self::key(target, request))?;
        (timeout <= d.timeout).then(|| {
            TransportError::new(
                d.error.kind,
                format!("{} (earlier in this run; not asked again)", d.error.message),
            )
        })
    }

    /// Remembers `error` when it says waiting cannot help ([`TransportError::is_dead_wait`]:
    /// a timeout, or an answer past the byte limit) for a request (not a notification). A
    /// byte limit does not depend on the timeout: any later ask is refused.
    pub(crate) fn remember(
        &self,
        target: &Target,
        request: &Request,
        timeout: Duration,
        error: &TransportError,
    ) {
        if !Self::applies(request) || !error.is_dead_wait() {
            return;
        }
        let timeout = if error.kind == TransportErrorKind::Timeout {
            timeout
        } else {
            Duration::MAX
        };
        let mut dead = lock(&self.dead);
        let entry = dead.entry(Self::key(target, request)).or_insert(Dead {
            timeout,
            error: error.clone(),
        });
        if timeout > entry.timeout {
            entry.timeout = timeout;
            entry.error = error.clone();
        }
    }

    /// Takes over what `other` remembered (keeping, per request, the longer timeout): for a
    /// connection opened ahead of need with a memo of its own (the probe's fresh processes,
    /// asked concurrently), whose timeouts join the run's memo only once its exchange is used,
    /// so an answer nobody reads never makes a method dead for the run.
    pub fn absorb(&self, other: &TimeoutMemo) {
        if Arc::ptr_eq(&self.dead, &other.dead) {
            return;
        }
        let theirs: Vec<(Key, Dead)> = lock(&other.dead)
            .iter()
            .map(|(k, d)| (k.clone(), d.clone()))
            .collect();
        let mut dead = lock(&self.dead);
        for (key, d) in theirs {
            let entry = dead.entry(key).or_insert_with(|| d.clone());
            if d.timeout > entry.timeout {
                *entry = d;
            }
        }
    }

    /// The methods that timed out in this run (with the name they acted on, as
    /// `tools/call echo`), sorted: for reports that say which part of a run is missing.
    pub fn dead_methods(&self) -> Vec<String> {
        let mut out: Vec<String> = lock(&self.dead)
            .keys()
            .map(|k| match &k.name {
                Some(n) => format!("{} {n}", k.method),
                None => k.method.clone(),
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_absorbed_memo_is_recalled_and_a_private_one_is_not() {
        let run = TimeoutMemo::default();
        let private = TimeoutMemo::default();
        let a = Target::http("http://127.0.0.1:1/mcp");
        let ping = Request::modern("ping", None);
        let t = Duration::from_secs(2);
        private.remember(&a, &ping, t, &TransportError::timeout("ping", t));
        assert!(run.recall(&a, &ping, t).is_none(), "not absorbed yet");
        run.absorb(&private);
        assert!(run.recall(&a, &ping, t).is_some());
        run.absorb(&run.clone());
        assert_eq!(run.dead_methods(), ["ping"]);
    }

    #[test]
    fn a_timeout_is_recalled_for_the_same_request_and_server_only() {
        let memo = TimeoutMemo::default();
        let a = Target::http("http://127.0.0.1:1/mcp");
        let b = Target::http("http://127.0.0.1:2/mcp");
        let list = Request::modern("tools/list", None);
        let t = Duration::from_secs(2);
        let err = TransportError::timeout("tools/list", t);
        assert!(memo.recall(&a, &list, t).is_none());
        memo.remember(&a, &list, t, &err);
        let again = memo.recall(&a, &list, t).expect("recalled");
        assert_eq!(again.kind, TransportErrorKind::Timeout);
        assert!(
            again
                .message
                .starts_with("no answer to `tools/list` within 2s")
        );
        assert!(
            again.message.contains("not asked again"),
            "{}",
            again.message
        );
        // Another server, another method, a longer timeout: asked.
        assert!(memo.recall(&b, &list, t).is_none());
        assert!(
            memo.recall(&a, &Request::modern("prompts/list", None), t)
                .is_none()
        );
        assert!(memo.recall(&a, &list, Duration::from_secs(5)).is_none());
        // A clone is the same run; a new memo another.
        assert!(memo.clone().recall(&a, &list, t).is_some());
        assert!(TimeoutMemo::default().recall(&a, &list, t).is_none());
        assert_eq!(memo.dead_methods(), ["tools/list"]);
    }

    #[test]
    fn calls_are_told_apart_by_name_and_other_errors_are_not_kept() {
        let memo = TimeoutMemo::default();
        let a = Target::stdio(["server"]);
        let t = Duration::from_secs(1);
        let call = |n: &str| {
            Request::modern(
                "tools/call",
                Some(serde_json::json!({"name": n, "arguments": {}})),
            )
        };
        memo.remember(
            &a,
            &call("slow"),
            t,
            &TransportError::timeout("tools/call", t),
        );
        assert!(memo.recall(&a, &call("slow"), t).is_some());
        assert!(memo.recall(&a, &call("fast"), t).is_none());
        let closed = TransportError::new(TransportErrorKind::Closed, "gone");
        memo.remember(&a, &Request::modern("tools/list", None), t, &closed);
        assert!(
            memo.recall(&a, &Request::modern("tools/list", None), t)
                .is_none()
        );
        // An answer past the byte limit (one oversize message, or a reply stream past its cap
        // without the answer): dead whatever the timeout, and recalled as what it was.
        let resources = Request::modern("resources/list", None);
        memo.remember(
            &a,
            &resources,
            t,
            &TransportError::new(TransportErrorKind::Oversize, "an event exceeded the limit"),
        );
        let again = memo
            .recall(&a, &resources, Duration::from_secs(60))
            .expect("an oversize answer is recalled");
        assert_eq!(again.kind, TransportErrorKind::Oversize);
        let prompts = Request::modern("prompts/list", None);
        memo.remember(&a, &prompts, t, &TransportError::endless_stream(4096));
        let again = memo
            .recall(&a, &prompts, Duration::from_secs(60))
            .expect("recalled");
        assert_eq!(again.kind, TransportErrorKind::Oversize);
        assert!(
            again
                .message
                .starts_with("the event stream passed 4096 bytes")
                && again.message.contains("not asked again"),
            "{}",
            again.message
        );
        let note = Request::modern("notifications/initialized", None).notification();
        memo.remember(&a, &note, t, &TransportError::timeout("x", t));
        assert!(memo.recall(&a, &note, t).is_none());
        let listen =
            Request::modern("subscriptions/listen", None).wait(Wait::ResponseOrAcknowledgement);
        memo.remember(&a, &listen, t, &TransportError::timeout("x", t));
        assert!(memo.recall(&a, &listen, t).is_none());
        assert_eq!(
            memo.dead_methods(),
            ["prompts/list", "resources/list", "tools/call slow"]
        );
    }
}
