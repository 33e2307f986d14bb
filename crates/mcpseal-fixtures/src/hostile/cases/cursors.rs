//! Pagination that never ends: a cursor that comes back (`loop`), a cursor that is new on
//! every page (`forever`), and 1,000,000 tools over pages of 1,000 (`many_tools`): a client
//! must stop at a repeated cursor, at its page cap, or at its cap on the bytes of a capture.

use serde_json::Value;

use crate::server;

/// Tools in `many_tools`.
pub const MANY: u64 = 1_000_000;
/// Tools per page of `many_tools`.
pub const PAGE: u64 = 1_000;

fn page(msg: &Value, items: Vec<Value>, next: Option<String>) -> Vec<u8> {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    server::result(&id, server::tools(items, next))
        .to_string()
        .into_bytes()
}

/// Every page: one tool and `nextCursor: "again"`.
pub fn looping(msg: &Value) -> Vec<u8> {
    page(
        msg,
        vec![server::tool("echo", "loop")],
        Some("again".to_owned()),
    )
}

/// Page N: tool `tN` and `nextCursor: "pN+1"`, forever.
pub fn forever(msg: &Value) -> Vec<u8> {
    let n: u64 = server::cursor(msg)
        .and_then(|c| c.strip_prefix('p'))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    page(
        msg,
        vec![server::tool(&format!("t{n}"), "forever")],
        Some(format!("p{}", n + 1)),
    )
}

/// The description of each of the million tools: long enough (about 300 bytes a tool) that
/// the million pass mcpseal's default cap on one capture (256 MiB) before its page cap.
const MANY_DESCRIPTION: &str = "One of a million tools, each with a description long enough that a million of them are more than a client should keep in memory for one capture: about three hundred bytes of JSON per tool, three hundred megabytes in all, over a thousand pages.";

/// Page N of the million tools.
pub fn many_tools(msg: &Value) -> Vec<u8> {
    let start: u64 = server::cursor(msg)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
        .min(MANY);
    let end = (start + PAGE).min(MANY);
    let items = (start..end)
        .map(|i| server::tool(&format!("tool_{i:07}"), MANY_DESCRIPTION))
        .collect();
    page(msg, items, (end < MANY).then(|| end.to_string()))
}
