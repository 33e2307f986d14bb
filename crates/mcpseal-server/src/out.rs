//! What a running request sends back: notifications related to it, then one final message.

use serde_json::Value;

use crate::answer::{Answer, write_response};
use crate::wire::{Wire, WireBody};

/// One outgoing message of a request.
#[derive(Debug)]
pub(crate) enum Out {
    /// A notification related to the request (progress, a listen stream's acknowledgement and
    /// its list changes). Over HTTP the first one turns the answer into an event stream.
    Notification(Value),
    /// The response; nothing follows it.
    Final {
        /// The whole JSON-RPC response.
        body: Body,
        /// Its HTTP status.
        status: u16,
    },
}

/// A whole JSON-RPC message to send.
#[derive(Debug)]
pub(crate) enum Body {
    /// Built as a value.
    Value(Value),
    /// A result response whose result may hold pre-written members.
    Result {
        /// The request id.
        id: Value,
        /// The result.
        result: Answer,
    },
}

impl From<Value> for Body {
    fn from(v: Value) -> Body {
        Body::Value(v)
    }
}

impl Body {
    /// The compact JSON text, as `serde_json::to_vec` writes [`Body::into_value`], followed by
    /// `tail`.
    pub(crate) fn to_vec_with(&self, head: &[u8], tail: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(head.len() + self.len_hint() + tail.len());
        out.extend_from_slice(head);
        match self {
            // Serialising a `Value` cannot fail (its keys are strings).
            Body::Value(v) => {
                let _ = serde_json::to_writer(&mut out, v);
            }
            Body::Result { id, result } => write_response(&mut out, id, result),
        }
        out.extend_from_slice(tail);
        out
    }

    /// The compact JSON text as a response body whose large shared pieces are sent as they
    /// are ([`Wire`]), not copied: the same bytes as [`Body::to_vec_with`] with no head or tail.
    pub(crate) fn to_wire(&self) -> WireBody {
        match self {
            Body::Value(v) => {
                let mut w = Wire::with_capacity(self.len_hint());
                // Serialising a `Value` cannot fail (its keys are strings).
                let _ = serde_json::to_writer(&mut w, v);
                w.finish()
            }
            Body::Result { id, result } => {
                // The shared pieces are not copied: the buffer is for the rest.
                let mut w = Wire::with_capacity(512);
                write_response(&mut w, id, result);
                w.finish()
            }
        }
    }

    /// A guess at the length of the JSON text, to allocate once in most cases.
    fn len_hint(&self) -> usize {
        match self {
            Body::Value(_) => 128,
            Body::Result { result, .. } => result.raw_len() + 512,
        }
    }

    /// The message as one value.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Body::Value(v) => v,
            Body::Result { id, result } => crate::server::response(&id, result.into_value()),
        }
    }
}
