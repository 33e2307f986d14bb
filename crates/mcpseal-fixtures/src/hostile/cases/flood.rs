//! Notification flood: once triggered, `notifications/message` without end (as fast as the
//! client reads), and the request is never answered. The client must keep a bounded number
//! of them and give up at its timeout.

use serde_json::json;

/// Notifications per chunk written.
const BATCH: usize = 256;

fn notification(n: u64) -> String {
    json!({"jsonrpc": "2.0", "method": "notifications/message",
           "params": {"level": "info", "data": format!("flood {n}")}})
    .to_string()
}

/// stdio: batches of notification lines (without their final newline: the transport adds it).
pub fn lines() -> Box<dyn Iterator<Item = Vec<u8>> + Send> {
    Box::new((0u64..).map(|b| {
        (0..BATCH as u64)
            .map(|i| notification(b * BATCH as u64 + i))
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes()
    }))
}

/// HTTP: batches of SSE events.
pub fn events() -> Box<dyn Iterator<Item = Vec<u8>> + Send> {
    Box::new((0u64..).map(|b| {
        (0..BATCH as u64)
            .map(|i| {
                format!(
                    "event: message\ndata: {}\n\n",
                    notification(b * BATCH as u64 + i)
                )
            })
            .collect::<String>()
            .into_bytes()
    }))
}
