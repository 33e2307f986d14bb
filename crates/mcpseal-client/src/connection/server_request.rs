//! Requests the server sends to the client (2025: `sampling/createMessage`,
//! `elicitation/create`, `roots/list`), and how the connection answers them.
//!
//! By default every one is declined with `-32601` (mcpseal serves no client methods) and kept
//! as evidence in the exchanges in flight. A caller that can answer (the pinning proxy, a
//! `call` command) passes [`ServerRequests::Deliver`] and gets each request on a channel.
//!
//! Each answer is sent from a task of its own: the reader of the server's output never waits
//! for a handler or for the server's stdin, so a server that asks something while a large
//! request is still being written to it cannot deadlock the connection.

use std::sync::Weak;
use std::time::Duration;

use mcpseal_protocol::jsonrpc;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use crate::diagnostics::SharedDiagnostics;
use crate::support::lock;
use crate::transport::{Message, ReplyBody, Transport};

/// How a connection answers server-to-client requests.
#[derive(Debug, Clone, Default)]
pub enum ServerRequests {
    /// Decline each with `-32601` (the default: mcpseal serves no client methods).
    #[default]
    Decline,
    /// Hand each to the receiver of this channel, which answers through
    /// [`ServerRequest::respond`] (a request dropped unanswered, or one the channel cannot
    /// take because its receiver is gone, is declined).
    Deliver(mpsc::Sender<ServerRequest>),
}

/// One request from the server, waiting for its answer.
#[derive(Debug)]
pub struct ServerRequest {
    message: Value,
    reply: Option<oneshot::Sender<Value>>,
}

impl ServerRequest {
    /// The request as the server sent it.
    pub fn message(&self) -> &Value {
        &self.message
    }

    /// Its method.
    pub fn method(&self) -> &str {
        jsonrpc::method_of(&self.message).unwrap_or("")
    }

    /// Its id.
    pub fn id(&self) -> &Value {
        jsonrpc::id_of(&self.message).unwrap_or(&Value::Null)
    }

    /// Its params.
    pub fn params(&self) -> Option<&Value> {
        self.message.get("params")
    }

    /// Answers with `result`.
    pub fn respond(mut self, result: Value) {
        let answer = jsonrpc::result_response(self.id(), result);
        self.send(answer);
    }

    /// Answers with a JSON-RPC error.
    pub fn respond_error(mut self, code: i64, message: &str, data: Option<Value>) {
        let answer = jsonrpc::error_response(self.id(), code, message, data);
        self.send(answer);
    }

    /// Declines with `-32601`, as the default handling does.
    pub fn decline(self) {
        drop(self);
    }

    fn send(&mut self, answer: Value) {
        if let Some(tx) = self.reply.take() {
            let _ = tx.send(answer);
        }
    }
}

impl Drop for ServerRequest {
    fn drop(&mut self) {
        // Never leave the server waiting: an unanswered request is declined.
        let decline = jsonrpc::decline(self.id());
        self.send(decline);
    }
}

/// Answers server requests for one connection.
#[derive(Clone)]
pub(crate) struct Answerer {
    handling: ServerRequests,
    // Weak: an answer in flight must not keep a dropped connection's server alive.
    transport: Weak<Transport>,
    diagnostics: SharedDiagnostics,
    timeout: Duration,
}

impl Answerer {
    pub(crate) fn new(
        handling: ServerRequests,
        transport: Weak<Transport>,
        diagnostics: SharedDiagnostics,
        timeout: Duration,
    ) -> Answerer {
        Answerer {
            handling,
            transport,
            diagnostics,
            timeout,
        }
    }

    /// Answers `request` in a task of its own, sending the answer with `headers` (HTTP).
    pub(crate) fn answer(&self, request: Value, headers: Vec<(String, String)>) {
        let this = self.clone();
        tokio::spawn(async move { this.answer_now(request, headers).await });
    }

    async fn answer_now(self, request: Value, headers: Vec<(String, String)>) {
        let method = jsonrpc::method_of(&request).unwrap_or("").to_owned();
        let answer = match &self.handling {
            ServerRequests::Decline => {
                jsonrpc::decline(jsonrpc::id_of(&request).unwrap_or(&Value::Null))
            }
            ServerRequests::Deliver(tx) => {
                let id = jsonrpc::id_of(&request).cloned().unwrap_or(Value::Null);
                let (reply, answered) = oneshot::channel();
                // A refused delivery drops the request, which declines it through `reply`.
                let _ = tx
                    .send(ServerRequest {
                        message: request,
                        reply: Some(reply),
                    })
                    .await;
                answered.await.unwrap_or_else(|_| jsonrpc::decline(&id))
            }
        };
        let Some(transport) = self.transport.upgrade() else {
            return;
        };
        match transport
            .send(&Message::from_value(answer), &headers, self.timeout)
            .await
        {
            Ok(reply) => {
                // HTTP answers a response with 202 and no body; read a little so the
                // connection can be reused, within the same bound.
                if let ReplyBody::Whole(body) = reply.body {
                    let _ = tokio::time::timeout(self.timeout, body.read()).await;
                }
            }
            Err(e) => lock(&self.diagnostics).push(format!(
                "[server request] {method}: the answer could not be sent: {e}"
            )),
        }
    }
}
