//! The host's list requests: answered by the guard from a fresh read of the whole upstream list,
//! filtered and paginated again.
//!
//! A host's first page (no cursor) makes the guard read every page of the upstream list, dressed
//! like the host's request, and judge it (that read *is* the re-check: the surface is read on a
//! list request or a `list_changed`, never per call). The host then gets the items it may see, in
//! the upstream's order, [`GuardOptions::page_size`](crate::GuardOptions) at a time, in the
//! upstream's first-page result envelope (`ttlMs`, `cacheScope`, `resultType`, `_meta` kept) with
//! the guard's own cursors: `mcpseal-guard/LIST/GENERATION/OFFSET`. A later page comes from the
//! same read; a cursor of an older read is refused with `-32602` (list again from the start).
//!
//! When the upstream refuses the first page with a JSON-RPC error, the host gets that answer
//! untouched (its status too): the request was the host's. A read that fails any other way
//! fails closed ([`crate::Refusal::Unverifiable`]).

use mcpseal_protocol::method::code;
use mcpseal_protocol::{ListKind, keys};
use serde_json::{Map, Value, json};

use crate::dress::Dress;
use crate::state::Guard;
use crate::upstream::Upstream;

/// What the host gets for a list request.
#[derive(Debug, Clone, PartialEq)]
pub struct ListAnswer {
    /// The JSON-RPC response.
    pub message: Value,
    /// The HTTP status to answer with (the upstream's, when relayed).
    pub status: u16,
}

const PREFIX: &str = "mcpseal-guard/";

/// Answers a host's list request (`request` is the whole message).
pub async fn answer_list(
    guard: &Guard,
    upstream: &Upstream,
    kind: ListKind,
    request: &Value,
    dress: Dress,
) -> ListAnswer {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let cursor = request.get("params").and_then(|p| p.get("cursor"));
    if let Some(r) = guard.refusal() {
        return ListAnswer {
            message: r.response(&id, guard.hint()),
            status: 200,
        };
    }
    match cursor {
        None | Some(Value::Null) => {}
        Some(c) => return later_page(guard, kind, &id, c),
    }
    let fetch = {
        let _reading = guard.read_lock(kind).lock().await;
        upstream.read_list(kind, &dress).await
    };
    let fetch = match fetch {
        Ok(f) => f,
        Err(why) => {
            let refusal = match guard.record_list(kind, Err(why)) {
                Err(r) => r,
                Ok(_) => crate::Refusal::Unverifiable {
                    why: "the listing failed".to_owned(),
                },
            };
            return ListAnswer {
                message: refusal.response(&id, guard.hint()),
                status: 200,
            };
        }
    };
    let status = fetch.first.status.unwrap_or(200);
    let Some(read) = fetch.read else {
        // Refused by the upstream: the host's request was at fault; relay it.
        return relay(fetch.first.message, &id, status);
    };
    if matches!(read, crate::live::ListRead::NotServed) {
        let _ = guard.record_list(kind, Ok(read));
        return relay(fetch.first.message, &id, status);
    }
    if let Err(r) = guard.record_list(kind, Ok(read)) {
        return ListAnswer {
            message: r.response(&id, guard.hint()),
            status: 200,
        };
    }
    guard.remember_dress(dress);
    let envelope = fetch
        .first
        .message
        .get("result")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    guard.set_envelope(kind, envelope);
    page_answer(guard, kind, &id, 0, status)
}

/// The upstream's response with the host's id (the guard's own request had another).
fn relay(mut message: Value, id: &Value, status: u16) -> ListAnswer {
    if let Some(m) = message.as_object_mut() {
        m.insert("id".into(), id.clone());
    }
    ListAnswer { message, status }
}

fn later_page(guard: &Guard, kind: ListKind, id: &Value, cursor: &Value) -> ListAnswer {
    let bad = |why: &str| ListAnswer {
        message: json!({"jsonrpc": "2.0", "id": id, "error": {
            "code": code::INVALID_PARAMS, "message": format!("Invalid cursor: {why}"),
            "data": {"cursor": cursor}}}),
        status: 200,
    };
    let Some(text) = cursor.as_str() else {
        return bad("a cursor is a string");
    };
    let Some((list, generation, offset)) = parse_cursor(text) else {
        return bad("not a cursor this server issued");
    };
    if list != kind.index() {
        return bad("a cursor of another list");
    }
    if generation != guard.generation(kind) {
        return bad("the list changed since; list again from the start");
    }
    page_answer(guard, kind, id, offset, 200)
}

fn page_answer(
    guard: &Guard,
    kind: ListKind,
    id: &Value,
    offset: usize,
    status: u16,
) -> ListAnswer {
    let Some((generation, items)) = guard.visible(kind) else {
        return ListAnswer {
            message: json!({"jsonrpc": "2.0", "id": id, "error": {
                "code": code::INVALID_PARAMS, "message": "Invalid cursor: the list is not available"}}),
            status: 200,
        };
    };
    let size = guard.options().page_size.max(1);
    let offset = offset.min(items.len());
    let end = (offset + size).min(items.len());
    let mut result: Map<String, Value> = guard.envelope(kind);
    result.insert(
        kind.key().to_owned(),
        Value::Array(items[offset..end].to_vec()),
    );
    result.remove(keys::NEXT_CURSOR);
    if end < items.len() {
        result.insert(
            keys::NEXT_CURSOR.to_owned(),
            Value::from(format!("{PREFIX}{}/{generation}/{end}", kind.index())),
        );
    }
    ListAnswer {
        message: json!({"jsonrpc": "2.0", "id": id, "result": result}),
        status,
    }
}

fn parse_cursor(text: &str) -> Option<(usize, u64, usize)> {
    let mut parts = text.strip_prefix(PREFIX)?.split('/');
    let list = parts.next()?.parse().ok()?;
    let generation = parts.next()?.parse().ok()?;
    let offset = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((list, generation, offset))
}

#[cfg(test)]
mod tests {
    use super::parse_cursor;

    #[test]
    fn cursors_round_trip_and_foreign_ones_are_refused() {
        assert_eq!(parse_cursor("mcpseal-guard/0/3/100"), Some((0, 3, 100)));
        assert_eq!(parse_cursor("mcpseal-guard/0/3/100/1"), None);
        assert_eq!(parse_cursor("c2"), None);
        assert_eq!(parse_cursor("mcpseal-guard/x/3/1"), None);
    }
}
