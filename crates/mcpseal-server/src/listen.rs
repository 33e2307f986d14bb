//! `subscriptions/listen`: acknowledge first, then deliver the list changes asked for.
//!
//! 2026-07-28: the acknowledgement `notifications/subscriptions/acknowledged` comes first, with
//! `_meta.subscriptionId` = the listen request's id and `notifications` = the subset of the
//! filter the server honours (only what it advertised); every later notification of the stream
//! carries the same id; when the server ends the stream gracefully it sends the
//! `SubscriptionsListenResult` (`resultType: complete`, `_meta.subscriptionId`). The client ends
//! a stream by closing it (HTTP) or with `notifications/cancelled` (stdio).

use mcpseal_protocol::method::code;
use mcpseal_protocol::{Era, ListKind, keys, method};
use serde_json::{Map, Value, json};
use tokio::sync::{broadcast, mpsc};

use crate::error::RpcError;
use crate::handler::Handler;
use crate::out::Out;
use crate::server::{Handled, Server, error_response, response};

/// The filter fields that ask for list changes, and the list each one covers.
const LIST_FIELDS: [(&str, &str, &[ListKind]); 3] = [
    ("toolsListChanged", "tools", &[ListKind::Tools]),
    ("promptsListChanged", "prompts", &[ListKind::Prompts]),
    (
        "resourcesListChanged",
        "resources",
        &[ListKind::Resources, ListKind::ResourceTemplates],
    ),
];

/// Starts a listen stream for request `id`.
pub(crate) fn start<H: Handler>(server: &Server<H>, params: Option<&Value>, id: Value) -> Handled {
    let filter = match params.and_then(|p| p.get("notifications")) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(f)) => f.clone(),
        Some(_) => {
            let e = RpcError::new(code::INVALID_PARAMS, "`notifications` must be an object");
            return Handled::Reply {
                body: error_response(&id, &e),
                status: 400,
            };
        }
    };
    let caps = server.capabilities(Era::Modern);
    let mut honoured = Map::new();
    let mut kinds = Vec::new();
    for (field, cap, lists) in LIST_FIELDS {
        let advertised = caps.pointer(&format!("/{cap}/listChanged")) == Some(&Value::Bool(true));
        if advertised && filter.get(field) == Some(&Value::Bool(true)) {
            honoured.insert(field.into(), Value::Bool(true));
            kinds.extend_from_slice(lists);
        }
    }
    // `resourceSubscriptions` is never honoured: no `resources.subscribe` is advertised.
    let (tx, rx) = mpsc::channel(16);
    let changes = server.inner.changes.subscribe();
    let mut shutdown = server.inner.shutdown.subscribe();
    let server = server.clone();
    let sub_id = id.clone();
    let work = Box::pin(async move {
        let ack = json!({
            "jsonrpc": "2.0",
            "method": method::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
            "params": { keys::META: { keys::META_SUBSCRIPTION_ID: sub_id }, "notifications": honoured },
        });
        if tx.send(Out::Notification(ack)).await.is_err() {
            return;
        }
        let mut changes = changes;
        loop {
            if *shutdown.borrow() {
                break;
            }
            tokio::select! {
                change = changes.recv() => match change {
                    Ok(kind) if kinds.contains(&kind) => {
                        let note = json!({
                            "jsonrpc": "2.0",
                            "method": kind.list_changed_notification(),
                            "params": { keys::META: { keys::META_SUBSCRIPTION_ID: sub_id } },
                        });
                        if tx.send(Out::Notification(note)).await.is_err() {
                            return;
                        }
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                r = shutdown.changed() => if r.is_err() { break },
                () = tx.closed() => return,
            }
        }
        let mut result = server.finish(Era::Modern, json!({}), false);
        if let Some(meta) = result.get_mut(keys::META).and_then(Value::as_object_mut) {
            meta.insert(keys::META_SUBSCRIPTION_ID.into(), sub_id.clone());
        }
        let _ = tx
            .send(Out::Final {
                body: response(&sub_id, result).into(),
                status: 200,
            })
            .await;
    });
    Handled::Running {
        out: rx,
        work,
        id,
        listen: true,
    }
}
