//! `mcpseal rpc`: one request, the whole exchange back.

use mcpseal_client::{Connection, Era, Exchange, Request};
use serde::Serialize;
use serde_json::Value;

/// One request to send.
#[derive(Debug, Clone)]
pub struct RpcCall {
    /// JSON-RPC method.
    pub method: String,
    /// Params (the 2026 envelope is merged into `params._meta`).
    pub params: Option<Value>,
    /// The era to dress the request for.
    pub era: Era,
    /// Run the 2025 `initialize` handshake first.
    pub handshake: bool,
}

/// What `rpc` saw. JSON: `{"schemaVersion": 1, "exchange", "handshake", "diagnostics"}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcOutcome {
    /// Always 1.
    pub schema_version: u32,
    /// The exchange of the request asked for.
    pub exchange: Exchange,
    /// The handshake exchanges, when one was asked for.
    pub handshake: Vec<Exchange>,
    /// What the server said outside the protocol.
    pub diagnostics: Vec<String>,
}

/// Sends one request (after the handshake, if asked) and returns every exchange.
pub async fn rpc(conn: &Connection, call: RpcCall) -> RpcOutcome {
    let mut handshake = Vec::new();
    if call.handshake {
        let (init, initialized) = conn.handshake().await;
        handshake.push(init);
        handshake.extend(initialized);
    }
    let request = match call.era {
        Era::Modern => Request::modern(call.method, call.params),
        Era::Legacy => Request::legacy(call.method, call.params),
    };
    let exchange = conn.send(request).await;
    RpcOutcome {
        schema_version: 1,
        exchange,
        handshake,
        diagnostics: conn.diagnostics(),
    }
}
