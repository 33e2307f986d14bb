//! The upstream server, behind the message-level transport of `mcpseal-client`.
//!
//! Two kinds of traffic share it. Host traffic is forwarded as it came ([`Upstream::transport`]
//! gives the transport to the front that forwards it). The guard's own requests — list reads —
//! carry ids of their own (`mcpseal-guard-N`) and are answered to the guard only: over stdio the
//! front's inbox reader hands each response to [`Upstream::deliver`] first, which keeps the ones
//! the guard is waiting for; over HTTP each answer comes back on its own POST.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcpseal_client::{Message, ReplyBody, StreamItem, Transport, TransportKind};
use mcpseal_protocol::jsonrpc::{self, id_key};
use mcpseal_protocol::{ListKind, keys, method::code};
use serde_json::Value;
use tokio::sync::oneshot;

use crate::dress::Dress;
use crate::live::ListRead;

/// The prefix of the guard's own request ids.
pub const GUARD_ID_PREFIX: &str = "mcpseal-guard-";

/// Most pages read of one list.
pub const PAGE_CAP: usize = 1000;

/// The answer to one of the guard's own requests.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The JSON-RPC response.
    pub message: Value,
    /// The HTTP status (`None` on stdio).
    pub status: Option<u16>,
}

/// A list read: every page, or the first page's refusal to relay.
#[derive(Debug, Clone, PartialEq)]
pub struct ListFetch {
    /// The items (or "not served"); `None` when the first page was refused with a JSON-RPC error
    /// other than "method not found" (the host's request was at fault: relay it, learn nothing).
    pub read: Option<ListRead>,
    /// The first page's answer (its result envelope, status and, when refused, its error).
    pub first: Answer,
}

/// The upstream and the guard's own requests in flight.
pub struct Upstream {
    transport: Transport,
    pending: Mutex<HashMap<String, oneshot::Sender<Value>>>,
    next: AtomicU64,
    timeout: Duration,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("transport", &self.transport.kind())
            .finish_non_exhaustive()
    }
}

impl Upstream {
    /// Wraps an open transport; `timeout` bounds each of the guard's own requests.
    pub fn new(transport: Transport, timeout: Duration) -> Upstream {
        Upstream {
            transport,
            pending: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            timeout,
        }
    }

    /// The transport, for forwarding host traffic.
    pub fn transport(&self) -> &Transport {
        &self.transport
    }

    /// The per-request timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// stdio: takes a message from the upstream's output if it answers one of the guard's own
    /// requests (then it must not reach the host). Returns whether it was taken.
    pub fn deliver(&self, message: &Message) -> bool {
        if !jsonrpc::is_response(message.value()) {
            return false;
        }
        let Some(id) = message.id() else {
            return false;
        };
        if !id.as_str().is_some_and(|s| s.starts_with(GUARD_ID_PREFIX)) {
            return false;
        }
        let waiter = lock(&self.pending).remove(&id_key(id));
        match waiter {
            Some(tx) => {
                let _ = tx.send(message.value().clone());
                true
            }
            // A late answer to a request that timed out: still the guard's, never the host's.
            None => true,
        }
    }

    fn next_id(&self) -> Value {
        Value::from(format!(
            "{GUARD_ID_PREFIX}{}",
            self.next.fetch_add(1, Ordering::Relaxed)
        ))
    }

    /// Sends one of the guard's own requests and waits for its response.
    ///
    /// # Errors
    /// Why no response came (a transport error, the timeout, an HTTP status without a JSON-RPC
    /// body), in words for the host's error message.
    pub async fn request(
        &self,
        message: Value,
        headers: Vec<(String, String)>,
    ) -> Result<Answer, String> {
        let id = jsonrpc::id_of(&message).cloned().unwrap_or(Value::Null);
        let what = jsonrpc::method_of(&message).unwrap_or("request").to_owned();
        let message = Message::from_value(message);
        match self.transport.kind() {
            TransportKind::Stdio => {
                let (tx, rx) = oneshot::channel();
                let key = id_key(&id);
                lock(&self.pending).insert(key.clone(), tx);
                if let Err(e) = self.transport.send(&message, &[], self.timeout).await {
                    lock(&self.pending).remove(&key);
                    return Err(e.to_string());
                }
                match tokio::time::timeout(self.timeout, rx).await {
                    Ok(Ok(v)) => Ok(Answer {
                        message: v,
                        status: None,
                    }),
                    Ok(Err(_)) => Err(format!("the upstream closed before answering `{what}`")),
                    Err(_) => {
                        lock(&self.pending).remove(&key);
                        Err(format!(
                            "the upstream did not answer `{what}` within {} s",
                            self.timeout.as_secs()
                        ))
                    }
                }
            }
            TransportKind::Http => {
                let mut all = self.transport.base_headers();
                all.retain(|(n, _)| !headers.iter().any(|(h, _)| h.eq_ignore_ascii_case(n)));
                all.extend(headers);
                let deadline = tokio::time::Instant::now() + self.timeout;
                let reply = self
                    .transport
                    .send(&message, &all, self.timeout)
                    .await
                    .map_err(|e| e.to_string())?;
                let status = reply.status.unwrap_or(0);
                let body = tokio::time::timeout_at(deadline, async {
                    match reply.body {
                        ReplyBody::Whole(w) => {
                            let bytes = w.read().await.map_err(|e| e.to_string())?;
                            serde_json::from_slice::<Value>(&bytes)
                                .map_err(|_| format!("HTTP {status} without a JSON-RPC answer"))
                        }
                        ReplyBody::Stream(mut s) => loop {
                            match s.next().await {
                                Some(Ok(StreamItem::Message(m)))
                                    if m.id() == Some(&id) && jsonrpc::is_response(m.value()) =>
                                {
                                    break Ok(m.into_value());
                                }
                                Some(Ok(_)) => {}
                                Some(Err(e)) => break Err(e.to_string()),
                                None => {
                                    break Err(format!(
                                        "the event stream ended without the answer to `{what}`"
                                    ));
                                }
                            }
                        },
                        ReplyBody::Inbox => Err("no answer".to_owned()),
                    }
                })
                .await
                .map_err(|_| {
                    format!(
                        "the upstream did not answer `{what}` within {} s",
                        self.timeout.as_secs()
                    )
                })??;
                if jsonrpc::is_response(&body) {
                    Ok(Answer {
                        message: body,
                        status: Some(status),
                    })
                } else {
                    Err(format!("HTTP {status} without a JSON-RPC answer"))
                }
            }
        }
    }

    /// Reads every page of one list, dressed like the host's request.
    ///
    /// # Errors
    /// A page that fails (no answer, a JSON-RPC error on a later page, a page without the list's
    /// array), a cursor that repeats, more than [`PAGE_CAP`] pages: the list cannot be verified.
    /// A refusal of the *first* page is not an error (see [`ListFetch::read`]).
    pub async fn read_list(&self, kind: ListKind, dress: &Dress) -> Result<ListFetch, String> {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = HashSet::new();
        let mut first: Option<Answer> = None;
        for page in 1..=PAGE_CAP {
            let (message, headers) = dress.list_request(&self.next_id(), kind, cursor.as_deref());
            let answer = self.request(message, headers).await?;
            if let Some(error) = answer.message.get("error") {
                let code = error.get("code").and_then(Value::as_i64);
                if page == 1 {
                    let read =
                        (code == Some(code::METHOD_NOT_FOUND)).then_some(ListRead::NotServed);
                    return Ok(ListFetch {
                        read,
                        first: answer,
                    });
                }
                let message = error.get("message").and_then(Value::as_str).unwrap_or("");
                return Err(format!(
                    "`{}` page {page} was refused: {} {message}",
                    kind.method(),
                    code.map_or_else(|| "error".to_owned(), |c| c.to_string())
                ));
            }
            let result = answer.message.get("result").unwrap_or(&Value::Null);
            let Some(page_items) = result.get(kind.key()).and_then(Value::as_array) else {
                return Err(format!(
                    "`{}` page {page} has no `{}` array",
                    kind.method(),
                    kind.key()
                ));
            };
            items.extend(page_items.iter().cloned());
            let next = match result.get(keys::NEXT_CURSOR) {
                None | Some(Value::Null) => None,
                Some(Value::String(next)) => {
                    if !seen.insert(next.clone()) {
                        return Err(format!(
                            "`{}` repeated the cursor `{next}`: its pages loop",
                            kind.method()
                        ));
                    }
                    Some(next.clone())
                }
                Some(_) => {
                    return Err(format!(
                        "`{}` page {page} has a `nextCursor` that is not a string",
                        kind.method()
                    ));
                }
            };
            first.get_or_insert(answer);
            match next {
                None => {
                    return Ok(ListFetch {
                        read: Some(ListRead::Items(items)),
                        first: first.unwrap_or(Answer {
                            message: Value::Null,
                            status: None,
                        }),
                    });
                }
                Some(n) => cursor = Some(n),
            }
        }
        Err(format!(
            "`{}` has more than {PAGE_CAP} pages",
            kind.method()
        ))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
