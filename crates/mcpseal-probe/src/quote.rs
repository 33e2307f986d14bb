//! An exchange as a finding quotes it: whole, unless it is huge; then cut, and said so.
//!
//! Evidence is kept as parsed JSON in the report, and parsed JSON is many times the size of its
//! text (a page of a million-tool listing, 370 KB of text, is about 7 MB parsed). A rule that
//! quotes four such listings (SEAL030 over HTTP) held 30 MB of evidence, and the probe passed
//! its memory bound (`--max-message-bytes` + 64 MiB). So an exchange whose JSON is larger than
//! [`MAX_QUOTED_BYTES`] is quoted cut, never silently: the quote carries a `truncated` member
//! ([`mcpseal_report::TruncatedRecord`]) saying what was left out —
//!
//! - the server messages that arrived beside the answer beyond the first
//!   [`QUOTED_NOTIFICATIONS`] (counted);
//! - if the quote is still too large, each top-level member of the result (or of the error's
//!   `data`) whose JSON is over [`MAX_QUOTED_MEMBER_BYTES`] (named, with its size and item
//!   count), with the SHA-256 of the whole result as received, so the omission can be checked
//!   against another capture.
//!
//! Exchanges of ordinary servers are far below the bound and quoted exactly as before.

use std::collections::BTreeMap;

use mcpseal_client::Exchange;
use mcpseal_report::{OmittedMember, OmittedResult, TruncatedRecord};
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// An exchange quoted whole at most this many bytes of JSON.
pub const MAX_QUOTED_BYTES: usize = 256 * 1024;
/// Server messages quoted at most beside a cut exchange's answer.
pub const QUOTED_NOTIFICATIONS: usize = 16;
/// A result member is kept in a cut quote up to this many bytes of JSON.
pub const MAX_QUOTED_MEMBER_BYTES: usize = 4 * 1024;

/// `ex` as evidence: its serialised form, cut as the module docs say when it is huge. `None`
/// when it cannot be serialised (it always can: plain data).
pub fn quote(ex: &Exchange) -> Option<Value> {
    if json_len(ex) <= MAX_QUOTED_BYTES {
        return serde_json::to_value(ex).ok();
    }
    let mut truncated = TruncatedRecord::default();
    let kept = ex.notifications.len().min(QUOTED_NOTIFICATIONS);
    if kept < ex.notifications.len() {
        truncated.notifications_omitted = Some(ex.notifications.len() - kept);
    }
    let mut cut = Exchange {
        transport: ex.transport,
        request: ex.request.clone(),
        request_headers: ex.request_headers.clone(),
        response: None,
        response_headers: ex.response_headers.clone(),
        http_status: ex.http_status,
        notifications: ex.notifications[..kept].to_vec(),
        duration_ms: ex.duration_ms,
        transport_error: ex.transport_error.clone(),
    };
    // The answer itself is cut only when the quote is still too large without the messages.
    let answer_len = ex.response.as_ref().map_or(0, json_len);
    cut.response = match &ex.response {
        Some(r) if json_len(&cut) + answer_len > MAX_QUOTED_BYTES => {
            let (response, omitted) = cut_response(r);
            truncated.response = omitted;
            Some(response)
        }
        other => other.clone(),
    };
    let mut value = serde_json::to_value(&cut).ok()?;
    if let Some(obj) = value.as_object_mut() {
        obj.insert("truncated".into(), serde_json::to_value(&truncated).ok()?);
    }
    Some(value)
}

/// The response with its large result (or error `data`) members left out, and what they were.
fn cut_response(response: &Value) -> (Value, Option<OmittedResult>) {
    let Some(obj) = response.as_object() else {
        return (response.clone(), None);
    };
    let mut out = Map::new();
    let mut omitted = None;
    for (key, v) in obj {
        let cuttable = match (key.as_str(), v) {
            ("result", Value::Object(_)) => Some(v),
            ("error", Value::Object(e)) => e.get("data").filter(|d| d.is_object()).map(|_| v),
            _ => None,
        };
        let Some(inner) = cuttable else {
            out.insert(key.clone(), v.clone());
            continue;
        };
        let (kept, record) = if key == "result" {
            cut_members(inner)
        } else {
            // An error keeps its code and message; only its `data` is cut.
            let mut e = inner.as_object().cloned().unwrap_or_default();
            let data = e.remove("data").unwrap_or(Value::Null);
            let (kept, record) = cut_members(&data);
            e.insert("data".into(), kept);
            (Value::Object(e), record)
        };
        out.insert(key.clone(), kept);
        omitted = record;
    }
    (Value::Object(out), omitted)
}

/// `object` without its members over [`MAX_QUOTED_MEMBER_BYTES`], and what they were.
fn cut_members(object: &Value) -> (Value, Option<OmittedResult>) {
    let Some(members) = object.as_object() else {
        return (object.clone(), None);
    };
    let mut kept = Map::new();
    let mut left_out = BTreeMap::new();
    for (key, v) in members {
        let bytes = json_len(v);
        if bytes <= MAX_QUOTED_MEMBER_BYTES {
            kept.insert(key.clone(), v.clone());
        } else {
            let items = match v {
                Value::Array(a) => Some(a.len()),
                Value::Object(o) => Some(o.len()),
                _ => None,
            };
            left_out.insert(key.clone(), OmittedMember { bytes, items });
        }
    }
    if left_out.is_empty() {
        return (object.clone(), None);
    }
    let text = serde_json::to_vec(object).unwrap_or_default();
    let record = OmittedResult {
        bytes: text.len(),
        sha256: hex(&Sha256::digest(&text)),
        members: left_out,
    };
    (Value::Object(kept), Some(record))
}

/// The length of `v`'s compact JSON, without building it.
fn json_len<T: Serialize + ?Sized>(v: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Plain data cannot fail to serialise; if it did, the quote is made whole (`to_value`).
    let _ = serde_json::to_writer(&mut count, v);
    count.0
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpseal_client::TransportKind;
    use serde_json::json;

    fn listing(tools: usize, notifications: usize) -> Exchange {
        let mut ex = Exchange::sent(
            TransportKind::Stdio,
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}),
        );
        let items: Vec<Value> = (0..tools)
            .map(|i| json!({"name": format!("t{i}"), "description": "x".repeat(200)}))
            .collect();
        ex.response = Some(json!({"jsonrpc": "2.0", "id": 7,
            "result": {"tools": items, "nextCursor": "c2", "ttlMs": 0}}));
        ex.notifications = (0..notifications)
            .map(|i| json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": i}}))
            .collect();
        ex
    }

    #[test]
    fn an_ordinary_exchange_is_quoted_whole() {
        let ex = listing(20, 3);
        assert_eq!(quote(&ex), serde_json::to_value(&ex).ok());
    }

    #[test]
    fn a_huge_listing_is_cut_and_says_what_was_left_out() {
        let ex = listing(2000, 0);
        let q = quote(&ex).expect("quoted");
        assert!(json_len(&q) < MAX_QUOTED_BYTES, "{}", json_len(&q));
        let result = &q["response"]["result"];
        assert_eq!(result["nextCursor"], "c2", "small members are kept");
        assert!(result.get("tools").is_none());
        let omitted = &q["truncated"]["response"];
        assert_eq!(omitted["members"]["tools"]["items"], 2000);
        let text = serde_json::to_vec(&ex.response.as_ref().expect("r")["result"]).expect("json");
        assert_eq!(omitted["bytes"], text.len());
        assert_eq!(omitted["sha256"], hex(&Sha256::digest(&text)));
        assert!(q["truncated"].get("notificationsOmitted").is_none());
        assert_eq!(q["request"], ex.request, "the request is always whole");
    }

    #[test]
    fn a_flood_beside_an_answer_keeps_the_first_messages_and_the_answer() {
        let ex = listing(2, 5000);
        let q = quote(&ex).expect("quoted");
        assert_eq!(
            q["notifications"].as_array().map(Vec::len),
            Some(QUOTED_NOTIFICATIONS)
        );
        assert_eq!(q["notifications"][0], ex.notifications[0]);
        assert_eq!(
            q["truncated"]["notificationsOmitted"],
            5000 - QUOTED_NOTIFICATIONS
        );
        assert_eq!(
            q["response"],
            ex.response.clone().expect("r"),
            "answer whole"
        );
        assert!(q["truncated"].get("response").is_none());
    }
}
