//! Errors: the JSON-RPC error a handler answers with, and the errors of running a transport.

use mcpseal_protocol::method::code;
use serde_json::{Value, json};

/// A JSON-RPC error object, as a handler (or the dispatcher) answers a request.
///
/// The HTTP status it travels with is not the handler's choice: the dispatcher sends 400 for
/// refusals of the request's dress (envelope, routing headers, version), 404 for an unknown
/// method and 200 for everything a handler answers, because 2026-07-28 gives application errors
/// no status of their own.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("JSON-RPC error {code}: {message}")]
pub struct RpcError {
    /// The JSON-RPC error code.
    pub code: i64,
    /// A short description for people.
    pub message: String,
    /// Structured detail (`error.data`).
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with this code and message.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `error.data`.
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    /// `-32602` Invalid params.
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INVALID_PARAMS, message)
    }

    /// `-32601` Method not found, naming the method.
    pub fn method_not_found(method: &str) -> RpcError {
        RpcError::new(code::METHOD_NOT_FOUND, "Method not found")
            .with_data(json!({ "method": method }))
    }

    /// `-32603` Internal error.
    pub fn internal(message: impl Into<String>) -> RpcError {
        RpcError::new(code::INTERNAL_ERROR, message)
    }

    /// A resource that does not exist. Sent as `-32602` to 2026-07-28 requests (which retired
    /// `-32002`) and as `-32002` to 2025 ones, with `data.uri` either way: a handler states the
    /// fact, the dispatcher picks the number of the request's era.
    pub fn resource_not_found(uri: &str) -> RpcError {
        RpcError::new(code::RESOURCE_NOT_FOUND, "Resource not found")
            .with_data(json!({ "uri": uri }))
    }

    /// The `error` member of a response.
    pub fn to_value(&self) -> Value {
        let mut e = json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            e["data"] = data.clone();
        }
        e
    }
}

/// Running a transport failed (not a request: the server itself).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The HTTP listener could not be bound.
    #[error("could not listen on {addr}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Reading the input or writing the output failed.
    #[error("the {what} failed")]
    Io {
        /// `stdin`, `stdout`, `listener`, `start of the connection threads`.
        what: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The client stopped reading: a write did not finish within the write timeout.
    #[error("writing to {what} did not finish within {seconds} s (the client stopped reading)")]
    WriteTimeout {
        /// `stdout`.
        what: &'static str,
        /// The limit.
        seconds: u64,
    },
}
