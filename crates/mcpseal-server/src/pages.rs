//! Pagination of lists: fixed-size pages, opaque cursors.
//!
//! A cursor is `<list>:<offset>`: the list tag keeps one list's cursor from being accepted by
//! another, and an offset past the end (a list that shrank, or a forged cursor) is refused with
//! `-32602` rather than answered with an empty page that would look like the end. Clients treat
//! cursors as opaque, so the form can change without a protocol change.

use mcpseal_protocol::ListKind;
use serde_json::{Value, json};

use crate::error::RpcError;

/// One page of a list.
#[derive(Debug)]
pub(crate) struct Page<'a> {
    /// Items of the page.
    pub items: &'a [Value],
    /// `nextCursor`, when more follow.
    pub next: Option<String>,
}

fn tag(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tools",
        ListKind::Resources => "resources",
        ListKind::ResourceTemplates => "templates",
        ListKind::Prompts => "prompts",
    }
}

fn invalid(cursor: &Value) -> RpcError {
    RpcError::invalid_params("Invalid cursor").with_data(json!({ "cursor": cursor }))
}

/// The page `cursor` names (the first page when `None` or JSON `null`).
pub(crate) fn page<'a>(
    kind: ListKind,
    items: &'a [Value],
    cursor: Option<&Value>,
    size: usize,
) -> Result<Page<'a>, RpcError> {
    let size = size.max(1);
    let start = match cursor {
        None | Some(Value::Null) => 0,
        Some(c @ Value::String(s)) => s
            .strip_prefix(tag(kind))
            .and_then(|r| r.strip_prefix(':'))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n > 0 && n < items.len())
            .ok_or_else(|| invalid(c))?,
        Some(other) => return Err(invalid(other)),
    };
    let end = start.saturating_add(size).min(items.len());
    Ok(Page {
        items: &items[start..end],
        next: (end < items.len()).then(|| format!("{}:{end}", tag(kind))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_the_list_once_and_refuse_forged_cursors() {
        let items: Vec<Value> = (0..5).map(|i| json!(i)).collect();
        let mut seen = Vec::new();
        let mut cursor: Option<Value> = None;
        loop {
            let p = page(ListKind::Tools, &items, cursor.as_ref(), 2).expect("page");
            seen.extend_from_slice(p.items);
            match p.next {
                Some(n) => cursor = Some(json!(n)),
                None => break,
            }
        }
        assert_eq!(seen, items);
        for bad in [
            json!("prompts:2"),
            json!("tools:5"),
            json!("tools:0"),
            json!(""),
            json!(3),
        ] {
            assert!(
                page(ListKind::Tools, &items, Some(&bad), 2).is_err(),
                "{bad}"
            );
        }
        let empty: Vec<Value> = Vec::new();
        let p = page(ListKind::Tools, &empty, None, 2).expect("empty page");
        assert!(p.items.is_empty() && p.next.is_none());
    }
}
