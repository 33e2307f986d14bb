//! JSON-RPC 2.0 message classification, as pure code.
//!
//! A transport moves messages; whoever sits on top (mcpseal's connection, the pinning proxy)
//! must tell a response from a server-to-client request from a notification the same way. The
//! rules here are the ones the stdio transport has always used: a string `method` with an `id`
//! is a request, a string `method` without one a notification, an `id` without a method a
//! response, anything else is not a JSON-RPC message. Streamable HTTP answers are judged more
//! strictly ([`is_response`]: a `result` or an `error` is required), because an HTTP body that
//! merely carries an `id` is not an answer.

use serde_json::{Value, json};

use crate::keys::META_SUBSCRIPTION_ID;
use crate::method::{NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED, code};

/// What one JSON value is, as a JSON-RPC message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// A request: a string `method` and an `id` (from the server: a server-to-client request).
    Request,
    /// A notification: a string `method` and no `id`.
    Notification,
    /// A response: an `id` and no string `method`.
    Response,
    /// Not a JSON-RPC message (not an object, or an object with neither `method` nor `id`).
    Invalid,
}

impl MessageKind {
    /// Classifies `message`.
    pub fn of(message: &Value) -> MessageKind {
        if !message.is_object() {
            return MessageKind::Invalid;
        }
        let method = message.get("method").and_then(Value::as_str).is_some();
        let id = message.get("id").is_some();
        match (method, id) {
            (true, true) => MessageKind::Request,
            (true, false) => MessageKind::Notification,
            (false, true) => MessageKind::Response,
            (false, false) => MessageKind::Invalid,
        }
    }
}

/// The `method` of a request or notification.
pub fn method_of(message: &Value) -> Option<&str> {
    message.get("method").and_then(Value::as_str)
}

/// The `id` of a request or response.
pub fn id_of(message: &Value) -> Option<&Value> {
    message.get("id")
}

/// The routing key of a JSON-RPC id: its JSON text, so `1` and `"1"` stay different ids.
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

/// True when serde_json refused text for nesting deeper than its limit (128 levels of
/// arrays and objects): a message no implementation here can read, never a banner or a log
/// line that merely is not JSON.
pub fn is_recursion_limit(e: &serde_json::Error) -> bool {
    e.to_string().starts_with("recursion limit exceeded")
}

/// True when `message` is shaped like an answer: an object with no `method` and a `result` or
/// an `error`. The strict test used for HTTP bodies and event-stream events.
pub fn is_response(message: &Value) -> bool {
    message.is_object()
        && message.get("method").is_none()
        && (message.get("result").is_some() || message.get("error").is_some())
}

/// For a `notifications/subscriptions/acknowledged`, the subscription id it acknowledges (its
/// `params._meta["io.modelcontextprotocol/subscriptionId"]`, which is the id of the
/// `subscriptions/listen` request). `None` for any other message.
pub fn acknowledged_subscription(message: &Value) -> Option<&Value> {
    if method_of(message) != Some(NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED) {
        return None;
    }
    message
        .pointer("/params/_meta")
        .and_then(|m| m.get(META_SUBSCRIPTION_ID))
}

/// A success response to `id`.
pub fn result_response(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response to `id`; `data` is omitted when `None`.
pub fn error_response(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// The answer mcpseal gives a server-to-client request it does not serve: `-32601`.
pub fn decline(id: &Value) -> Value {
    error_response(
        id,
        code::METHOD_NOT_FOUND,
        "mcpseal does not serve client methods",
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_classified_by_method_and_id() {
        let cases = [
            (
                json!({"jsonrpc": "2.0", "id": 1, "method": "roots/list"}),
                MessageKind::Request,
            ),
            (
                json!({"jsonrpc": "2.0", "method": "notifications/progress"}),
                MessageKind::Notification,
            ),
            (
                json!({"jsonrpc": "2.0", "id": 1, "result": {}}),
                MessageKind::Response,
            ),
            // An id without result or error is still routed as a response (stdio's rule) …
            (json!({"jsonrpc": "2.0", "id": 1}), MessageKind::Response),
            // … and a non-string method does not make a request.
            (json!({"id": 1, "method": 7}), MessageKind::Response),
            (json!({"jsonrpc": "2.0"}), MessageKind::Invalid),
            (json!([1, 2]), MessageKind::Invalid),
            (json!("text"), MessageKind::Invalid),
        ];
        for (message, kind) in cases {
            assert_eq!(MessageKind::of(&message), kind, "{message}");
        }
    }

    #[test]
    fn http_answers_need_a_result_or_an_error() {
        assert!(is_response(&json!({"id": 1, "result": null})));
        assert!(is_response(&json!({"id": 1, "error": {"code": 1}})));
        assert!(!is_response(&json!({"id": 1})));
        assert!(!is_response(&json!({"id": 1, "method": "x", "result": 1})));
        assert!(!is_response(&json!([{"id": 1, "result": 1}])));
    }

    #[test]
    fn ids_keep_their_type_as_keys() {
        assert_ne!(id_key(&json!(1)), id_key(&json!("1")));
        assert_eq!(id_key(&json!("a")), "\"a\"");
    }

    #[test]
    fn acknowledgements_name_their_subscription() {
        let ack = json!({"jsonrpc": "2.0", "method": NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
            "params": {"_meta": {META_SUBSCRIPTION_ID: 4}}});
        assert_eq!(acknowledged_subscription(&ack), Some(&json!(4)));
        let other = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"_meta": {META_SUBSCRIPTION_ID: 4}}});
        assert_eq!(acknowledged_subscription(&other), None);
    }

    #[test]
    fn the_decline_is_method_not_found() {
        let d = decline(&json!("srv-1"));
        assert_eq!(d["id"], "srv-1");
        assert_eq!(d["error"]["code"], -32601);
        assert_eq!(
            error_response(&json!(1), -1, "m", Some(json!({"x": 1})))["error"]["data"]["x"],
            1
        );
        assert_eq!(result_response(&json!(2), json!({}))["result"], json!({}));
    }
}
