//! What a running request sends back: notifications related to it, then one final message.

use serde_json::Value;

/// One outgoing message of a request.
#[derive(Debug)]
pub(crate) enum Out {
    /// A notification related to the request (progress, a listen stream's acknowledgement and
    /// its list changes). Over HTTP the first one turns the answer into an event stream.
    Notification(Value),
    /// The response; nothing follows it.
    Final {
        /// The whole JSON-RPC response.
        body: Value,
        /// Its HTTP status.
        status: u16,
    },
}
