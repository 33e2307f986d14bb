//! What the guard looks at, in both directions; the fronts do the moving.
//!
//! Host → upstream: [`route`] sorts a host request into what is forwarded untouched (everything
//! but the following), a list request the guard answers itself ([`crate::lists`]), a call, get,
//! read or completion that is judged first ([`judge_call`]), and a `server/discover` /
//! `initialize` whose answer is checked on its way back ([`server_answer`]).
//!
//! Upstream → host: every message is forwarded untouched, except the answer to a checked
//! `server/discover` / `initialize` (rewritten or refused by the policy) and the guard's own
//! answers; a `list_changed` notification (2025, or on a 2026 `subscriptions/listen` stream)
//! first marks its lists stale ([`list_changed`]), so no call to them is judged on the old read,
//! and starts a re-read ([`refresh`]).

use std::sync::Arc;

use mcpseal_client::Message;
use mcpseal_protocol::jsonrpc::{self, MessageKind};
use mcpseal_protocol::{Era, ListKind, keys, method};
use serde_json::Value;

use crate::dress::Dress;
use crate::policy::ItemRef;
use crate::refusal::Refusal;
use crate::state::{Guard, ServerVerdict, Verdict};
use crate::upstream::Upstream;

/// What a host request is to the guard.
#[derive(Debug, Clone, PartialEq)]
pub enum Route {
    /// Forward untouched.
    Forward,
    /// A list request: the guard answers it.
    List(ListKind),
    /// A call of an item: judged first.
    Item(ItemRef),
    /// A `resources/read` (or a completion of a resource reference): judged by its URI.
    Uri(String),
    /// `server/discover` (modern) or `initialize` (legacy): forwarded, its answer checked.
    Server(Era),
}

/// Sorts a host message (see the module docs).
pub fn route(message: &Value) -> Route {
    if MessageKind::of(message) != MessageKind::Request {
        return Route::Forward;
    }
    let Some(m) = jsonrpc::method_of(message) else {
        return Route::Forward;
    };
    let params = message.get("params");
    let text = |key: &str| {
        params
            .and_then(|p| p.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    if let Some(kind) = ListKind::from_method(m) {
        return Route::List(kind);
    }
    match m {
        method::SERVER_DISCOVER => Route::Server(Era::Modern),
        method::INITIALIZE => Route::Server(Era::Legacy),
        // A call without a name (or with one that is not a string) is the upstream's to refuse:
        // nothing is run for it.
        method::TOOLS_CALL => text("name").map_or(Route::Forward, |n| {
            Route::Item(ItemRef::new(ListKind::Tools, n))
        }),
        method::PROMPTS_GET => text("name").map_or(Route::Forward, |n| {
            Route::Item(ItemRef::new(ListKind::Prompts, n))
        }),
        method::RESOURCES_READ => text("uri").map_or(Route::Forward, Route::Uri),
        // 2026 has no `resources/subscribe`: a 2026 request for it is the upstream's to refuse
        // (-32601), and a guard answering it would add a conformance fault of its own.
        method::RESOURCES_SUBSCRIBE if !is_modern(params) => {
            text("uri").map_or(Route::Forward, Route::Uri)
        }
        method::COMPLETION_COMPLETE => {
            let reference = params.and_then(|p| p.get("ref"));
            let field = |k: &str| reference.and_then(|r| r.get(k)).and_then(Value::as_str);
            match field("type") {
                Some("ref/prompt") => field("name").map_or(Route::Forward, |n| {
                    Route::Item(ItemRef::new(ListKind::Prompts, n))
                }),
                Some("ref/resource") => {
                    field("uri").map_or(Route::Forward, |u| Route::Uri(u.to_owned()))
                }
                _ => Route::Forward,
            }
        }
        _ => Route::Forward,
    }
}

/// Whether request params carry the 2026 per-request envelope.
fn is_modern(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get(keys::META))
        .and_then(|m| m.get(keys::META_PROTOCOL_VERSION))
        .is_some()
}

/// Judges a routed call; reads a list first when the guard has not seen it (or it is stale),
/// with the call's own dress. `None`: forward it. A refusal is written to the audit log.
pub async fn judge_call(
    guard: &Guard,
    upstream: &Upstream,
    route: &Route,
    dress: &Dress,
) -> Option<Refusal> {
    // Two rounds at most: resources, then templates.
    for _ in 0..3 {
        let verdict = match route {
            Route::Item(item) => guard.judge(item),
            Route::Uri(uri) => guard.judge_uri(uri),
            _ => return None,
        };
        match verdict {
            Verdict::Forward => return None,
            Verdict::Refuse(r) => {
                guard.audit_refusal(&r);
                return Some(r);
            }
            Verdict::Read(kind) => {
                if let Err(r) = read(guard, upstream, kind, dress).await {
                    return Some(r);
                }
            }
        }
    }
    Some(Refusal::Unverifiable {
        why: "the upstream's lists kept changing while the call was judged".to_owned(),
    })
}

/// Reads `kind` if it still needs a read once the read lock is held.
async fn read(
    guard: &Guard,
    upstream: &Upstream,
    kind: ListKind,
    dress: &Dress,
) -> Result<(), Refusal> {
    let _reading = guard.read_lock(kind).lock().await;
    if !guard.needs_read(kind) {
        return Ok(());
    }
    match upstream.read_list(kind, dress).await {
        Err(why) => guard.record_list(kind, Err(why)).map(|_| ()),
        Ok(fetch) => match fetch.read {
            Some(read) => {
                guard.record_list(kind, Ok(read))?;
                guard.remember_dress(dress.clone());
                Ok(())
            }
            None => {
                let error = fetch
                    .first
                    .message
                    .get("error")
                    .cloned()
                    .unwrap_or(Value::Null);
                Err(Refusal::Unverifiable {
                    why: format!(
                        "the upstream refused `{}` ({}), so the call cannot be checked",
                        kind.method(),
                        error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("an error")
                    ),
                })
            }
        },
    }
}

/// The lists a `list_changed` notification names (tools, prompts, or resources and templates),
/// after marking them stale; empty for any other message.
pub fn list_changed(guard: &Guard, message: &Message) -> Vec<ListKind> {
    if message.kind() != MessageKind::Notification {
        return Vec::new();
    }
    let kinds: Vec<ListKind> = match message.method() {
        Some(method::NOTIFICATION_TOOLS_LIST_CHANGED) => vec![ListKind::Tools],
        Some(method::NOTIFICATION_PROMPTS_LIST_CHANGED) => vec![ListKind::Prompts],
        Some(method::NOTIFICATION_RESOURCES_LIST_CHANGED) => {
            vec![ListKind::Resources, ListKind::ResourceTemplates]
        }
        _ => Vec::new(),
    };
    for k in &kinds {
        guard.mark_dirty(*k);
    }
    kinds
}

/// Re-reads stale lists with the last host dress (in the background, after a `list_changed`).
/// Without a dress yet, they stay stale and the next call reads them.
pub fn refresh(guard: Arc<Guard>, upstream: Arc<Upstream>, kinds: Vec<ListKind>) {
    if kinds.is_empty() {
        return;
    }
    let Some(dress) = guard.dress() else {
        return;
    };
    tokio::spawn(async move {
        for kind in kinds {
            let _ = read(&guard, &upstream, kind, &dress).await;
        }
    });
}

/// The answer the host gets for its `server/discover` or `initialize` (`answer` is the
/// upstream's response): `None` to forward it untouched, else the message to send instead.
pub fn server_answer(guard: &Guard, era: Era, answer: &Value) -> Option<Value> {
    let result = answer.get("result")?;
    let id = answer.get("id").cloned().unwrap_or(Value::Null);
    match guard.record_server(era, result) {
        ServerVerdict::Forward => None,
        ServerVerdict::Rewrite(r) => {
            let mut m = answer.clone();
            m["result"] = r;
            Some(m)
        }
        ServerVerdict::Refuse(r) => Some(r.response(&id, guard.hint())),
    }
}

/// The text of a message for one stdio line or one SSE `data:` field: kept byte for byte unless
/// it spans lines (then compact JSON, which means the same).
pub fn one_line(message: &Message) -> String {
    if message.text().contains(['\n', '\r']) {
        message.value().to_string()
    } else {
        message.text().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn routes() {
        let req = |m: &str, p: Value| json!({"jsonrpc": "2.0", "id": 1, "method": m, "params": p});
        assert_eq!(
            route(&req("tools/list", json!({}))),
            Route::List(ListKind::Tools)
        );
        assert_eq!(
            route(&req("tools/call", json!({"name": "echo"}))),
            Route::Item(ItemRef::new(ListKind::Tools, "echo"))
        );
        assert_eq!(
            route(&req("tools/call", json!({"name": 3}))),
            Route::Forward
        );
        assert_eq!(
            route(&req("resources/read", json!({"uri": "x://1"}))),
            Route::Uri("x://1".into())
        );
        assert_eq!(
            route(&req(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "greet"}})
            )),
            Route::Item(ItemRef::new(ListKind::Prompts, "greet"))
        );
        assert_eq!(
            route(&req("initialize", json!({}))),
            Route::Server(Era::Legacy)
        );
        assert_eq!(
            route(&req("server/discover", json!({}))),
            Route::Server(Era::Modern)
        );
        assert_eq!(
            route(&req("subscriptions/listen", json!({}))),
            Route::Forward
        );
        // Notifications and responses are never judged.
        assert_eq!(
            route(&json!({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "x"}})),
            Route::Forward
        );
        assert_eq!(
            route(&json!({"jsonrpc": "2.0", "id": 1, "result": {}})),
            Route::Forward
        );
    }
}
