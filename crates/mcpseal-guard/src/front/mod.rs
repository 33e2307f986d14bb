//! The host-facing halves: stdio ([`stdio`]) and Streamable HTTP ([`http`]).

pub mod http;
pub mod stdio;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcpseal_client::Message;
use mcpseal_protocol::Era;
use mcpseal_protocol::jsonrpc::{MessageKind, id_key};

use crate::intercept;
use crate::state::Guard;
use crate::upstream::Upstream;

/// Host requests whose answers are checked on the way back (`server/discover`, `initialize`),
/// by id.
#[derive(Debug, Default, Clone)]
pub(crate) struct Checked(Arc<Mutex<HashMap<String, Era>>>);

impl Checked {
    pub(crate) fn expect(&self, message: &Message, era: Era) {
        if let Some(id) = message.id() {
            lock(&self.0).insert(id_key(id), era);
        }
    }

    /// The era of the checked request `message` answers, if it answers one (removed then).
    pub(crate) fn take(&self, message: &Message) -> Option<Era> {
        if message.kind() != MessageKind::Response {
            return None;
        }
        let id = message.id()?;
        lock(&self.0).remove(&id_key(id))
    }
}

/// What becomes of one upstream message on its way to the host: the message to send (the same
/// one untouched, a rewritten server answer, a refusal), after `list_changed` bookkeeping.
pub(crate) fn to_host(
    guard: &Arc<Guard>,
    upstream: &Arc<Upstream>,
    checked: &Checked,
    message: Message,
) -> Message {
    if let Some(era) = checked.take(&message) {
        if let Some(replaced) = intercept::server_answer(guard, era, message.value()) {
            return Message::from_value(replaced);
        }
        return message;
    }
    let stale = intercept::list_changed(guard, &message);
    intercept::refresh(Arc::clone(guard), Arc::clone(upstream), stale);
    message
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
