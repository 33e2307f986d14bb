//! Matching a stdio server's output to the requests in flight.
//!
//! One task reads the transport's inbox and routes each message: a response goes to the
//! request waiting for its id; a notification or server request is attached to every request
//! in flight (and a server request is answered, in a task of its own); a
//! `subscriptions/listen` acknowledgement ends the wait of the listen it names. A fault (a
//! non-UTF-8 or too deeply nested line) fails the requests in flight; the end of the server's
//! output fails them and every later one at once, so a crash costs milliseconds, not a timeout.
//! So does a line over the size limit (mcpseal cannot know when the server will end it, and
//! nothing after it can be read until it does), and a request that timed out while the server
//! had a line begun and not ended ([`Routing::wedge`]), or while it flooded notifications
//! (the connection then also kills the server: see `Connection::send`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcpseal_protocol::Wait;
use mcpseal_protocol::jsonrpc::{self, MessageKind, id_key};
use serde_json::Value;
use tokio::sync::oneshot;

use crate::connection::attached::Attached;
use crate::connection::server_request::Answerer;
use crate::diagnostics::{Diagnostics, SharedDiagnostics};
use crate::error::{TransportError, TransportErrorKind as Kind};
use crate::support::lock;
use crate::transport::{Inbound, Inbox, Message};

/// What ended a wait.
pub(crate) enum Outcome {
    /// The response, or the acknowledgement that ended a listen (a response may be lazy:
    /// [`Message`]).
    Message(Message),
    /// No answer will come.
    Failed(TransportError),
}

struct Pending {
    tx: Option<oneshot::Sender<Outcome>>,
    wait: Wait,
    notifications: Vec<Value>,
    kept: Attached,
}

/// The requests in flight, and whether the server's output has ended.
#[derive(Default)]
pub(crate) struct Routing {
    pending: HashMap<String, Pending>,
    closed: Option<TransportError>,
    /// Requests given up on: id key → (method, timeout), so an answer that still comes is
    /// reported as late (the server is slow, e.g. still starting), not as a stray.
    expired: HashMap<String, (String, std::time::Duration)>,
}

/// Expired requests remembered at most (a server that never answers cannot grow it).
const MAX_EXPIRED: usize = 1000;

pub(crate) type SharedRouting = Arc<Mutex<Routing>>;

impl Routing {
    /// Waits for the answer to `key`; refused once the output has ended.
    pub(crate) fn register(
        &mut self,
        key: String,
        wait: Wait,
    ) -> Result<oneshot::Receiver<Outcome>, TransportError> {
        if let Some(err) = &self.closed {
            return Err(err.clone());
        }
        let (tx, rx) = oneshot::channel();
        self.pending.insert(
            key,
            Pending {
                tx: Some(tx),
                wait,
                notifications: Vec::new(),
                kept: Attached::default(),
            },
        );
        Ok(rx)
    }

    /// Whether more server messages arrived while `key` waited than an exchange keeps (a
    /// flood; see [`Attached`]).
    pub(crate) fn flooded(&self, key: &str) -> bool {
        self.pending.get(key).is_some_and(|p| p.kept.dropped() > 0)
    }

    /// Stops waiting for `key`; returns what was attached to it.
    pub(crate) fn finish(&mut self, key: &str) -> Vec<Value> {
        self.pending
            .remove(key)
            .map(|p| p.notifications)
            .unwrap_or_default()
    }

    /// Remembers that the request `key` (`method`) timed out after `timeout`.
    pub(crate) fn timed_out(&mut self, key: String, method: &str, timeout: std::time::Duration) {
        if self.expired.len() < MAX_EXPIRED {
            self.expired.insert(key, (method.to_owned(), timeout));
        }
    }

    fn fail_all(&mut self, err: &TransportError, permanent: bool) {
        if permanent && self.closed.is_none() {
            self.closed = Some(err.clone());
        }
        for p in self.pending.values_mut() {
            if let Some(tx) = p.tx.take() {
                let _ = tx.send(Outcome::Failed(err.clone()));
            }
        }
    }

    /// The server's output is stuck in the middle of a line: nothing it writes later can
    /// reach us, so every request in flight and every later one fails at once with `err`.
    pub(crate) fn wedge(&mut self, err: &TransportError) {
        self.fail_all(err, true);
    }

    fn attach(&mut self, value: &Value, size: usize) {
        for p in self.pending.values_mut() {
            p.kept.push(&mut p.notifications, value.clone(), size);
        }
    }

    fn complete(&mut self, key: &str, message: Message) -> Result<(), Message> {
        match self.pending.get_mut(key).and_then(|p| p.tx.take()) {
            Some(tx) => {
                let _ = tx.send(Outcome::Message(message));
                Ok(())
            }
            None => Err(message),
        }
    }
}

/// Routes the inbox until the server's output ends.
pub(crate) async fn route(
    mut inbox: Inbox,
    routing: SharedRouting,
    diagnostics: SharedDiagnostics,
    answerer: Answerer,
) {
    while let Some(item) = inbox.recv().await {
        match item {
            Inbound::Message(message) => {
                let size = message.text().len();
                route_message(message, size, &routing, &diagnostics, &answerer);
            }
            Inbound::Fault(err) => {
                let fatal = err.kind == Kind::Oversize;
                lock(&routing).fail_all(&err, fatal);
            }
            Inbound::Closed(err) => {
                lock(&routing).fail_all(&err, true);
                return;
            }
        }
    }
    let err = TransportError::new(Kind::Closed, "the stdout reader stopped");
    lock(&routing).fail_all(&err, true);
}

fn route_message(
    message: Message,
    size: usize,
    routing: &SharedRouting,
    diagnostics: &SharedDiagnostics,
    answerer: &Answerer,
) {
    let method = message.method().unwrap_or("").to_owned();
    match message.kind() {
        // A response goes to its waiter as it is: a lazy one is parsed only if the waiter
        // wants the whole value.
        MessageKind::Response => {
            let key = message.id().map(id_key).unwrap_or_default();
            let mut r = lock(routing);
            if let Err(message) = r.complete(&key, message) {
                let id = message.id().map(Value::to_string).unwrap_or_default();
                let entry = match r.expired.remove(&key) {
                    Some((method, timeout)) => format!(
                        "[late answer] `{method}` (id {}) was answered after its {} timeout had passed",
                        Diagnostics::cut(&id),
                        crate::error::format_duration(timeout)
                    ),
                    None => format!(
                        "[stray response] id {} matches no request in flight",
                        Diagnostics::cut(&id)
                    ),
                };
                drop(r);
                lock(diagnostics).push(entry);
            }
        }
        // 2026 servers must not send these; 2025 servers may. Kept as evidence, and answered
        // (declined by default) so the server does not wait on us.
        MessageKind::Request => {
            let value = message.into_value();
            lock(diagnostics).push(format!("[server request] {method}"));
            lock(routing).attach(&value, size);
            answerer.answer(value, Vec::new());
        }
        MessageKind::Notification => {
            let value = message.value().clone();
            lock(diagnostics).push(format!("[notification] {method}"));
            let ack_for = jsonrpc::acknowledged_subscription(&value).map(id_key);
            let mut r = lock(routing);
            r.attach(&value, size);
            if let Some(key) = ack_for
                && r.pending
                    .get(&key)
                    .is_some_and(|p| p.wait == Wait::ResponseOrAcknowledgement)
            {
                let _ = r.complete(&key, message);
            }
        }
        MessageKind::Invalid => {
            lock(diagnostics).push(format!(
                "[non-JSON-RPC stdout] {}",
                Diagnostics::cut(&message.value().to_string())
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn responses_go_to_their_request_and_notifications_to_all() {
        let mut r = Routing::default();
        let mut one = r.register(id_key(&json!(1)), Wait::Response).expect("open");
        let _two = r
            .register(id_key(&json!("1")), Wait::Response)
            .expect("open");
        let note = json!({"jsonrpc": "2.0", "method": "notifications/progress"});
        r.attach(&note, 10);
        assert!(
            r.complete(
                &id_key(&json!(1)),
                Message::from_value(json!({"id": 1, "result": {}}))
            )
            .is_ok()
        );
        assert!(matches!(one.try_recv(), Ok(Outcome::Message(m)) if m.value()["id"] == 1));
        // The string id "1" is another request: still waiting, with the notification.
        assert_eq!(r.finish(&id_key(&json!("1"))), vec![note.clone()]);
        assert_eq!(r.finish(&id_key(&json!(1))), vec![note]);
        // A second answer to a finished request is stray.
        assert!(
            r.complete(&id_key(&json!(1)), Message::from_value(json!({"id": 1})))
                .is_err()
        );
    }

    #[test]
    fn closing_fails_waiters_and_later_requests() {
        let mut r = Routing::default();
        let mut waiting = r.register("1".into(), Wait::Response).expect("open");
        let err = TransportError::new(Kind::Oversize, "too big");
        r.fail_all(&err, false);
        assert!(matches!(waiting.try_recv(), Ok(Outcome::Failed(e)) if e.kind == Kind::Oversize));
        assert!(
            r.register("2".into(), Wait::Response).is_ok(),
            "a fault is not the end"
        );
        r.fail_all(&TransportError::new(Kind::Closed, "gone"), true);
        let refused = r.register("3".into(), Wait::Response).err();
        assert_eq!(refused.map(|e| e.kind), Some(Kind::Closed));
    }
}
