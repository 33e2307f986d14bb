//! List ordering and pagination, including the broken variants tests ask for.
//!
//! Cursors are opaque to clients (`<list>@<offset>`); an unparsable one gets -32602.
//! Misbehaviours, each provoking one client guard:
//! * `--cursor-loop`: `nextCursor` repeats forever (loop detection);
//! * `--endless-pages`: always a fresh `nextCursor` (page cap);
//! * `--empty-cursor`: page 1 ends with `nextCursor: ""`, a *valid* 2026 cursor that does not
//!   mean "end" (clients that test truthiness stop early);
//! * `--shuffle` / legacy flipping: a non-deterministic `tools/list` order (MCP017);
//! * `--duplicate`: one identity twice (surface capture must refuse or flag it).

use serde_json::Value;

use crate::jsonrpc::{INVALID_PARAMS, RpcError};
use crate::knobs::{Knobs, ListKind};

/// One page of a list.
#[derive(Debug)]
pub struct Page {
    /// Items of this page.
    pub items: Vec<Value>,
    /// `nextCursor`, if any.
    pub next: Option<String>,
}

/// Cursor tag per list (keeps one list's cursor from being accepted by another).
fn tag(kind: ListKind) -> &'static str {
    match kind {
        ListKind::Tools => "tools",
        ListKind::Resources => "resources",
        ListKind::ResourceTemplates => "templates",
        ListKind::Prompts => "prompts",
    }
}

fn bad_cursor(cursor: &str) -> RpcError {
    RpcError::new(INVALID_PARAMS, "Invalid cursor").data(serde_json::json!({"cursor": cursor}))
}

/// Slice `items` (already ordered) into the page `cursor` names.
pub fn page(
    kind: ListKind,
    items: Vec<Value>,
    cursor: Option<&str>,
    knobs: &Knobs,
) -> Result<Page, RpcError> {
    let size = knobs.page_size.unwrap_or(usize::MAX).max(1);
    let first = |items: Vec<Value>| -> Vec<Value> { items.into_iter().take(size).collect() };
    if knobs.cursor_loop == Some(kind) {
        return match cursor {
            None | Some("loop") => Ok(Page {
                items: first(items),
                next: Some("loop".to_owned()),
            }),
            Some(c) => Err(bad_cursor(c)),
        };
    }
    if knobs.endless_pages == Some(kind) {
        let n = match cursor {
            None => 0,
            Some(c) => c
                .strip_prefix("more-")
                .and_then(|n| n.parse::<u64>().ok())
                .ok_or_else(|| bad_cursor(c))?,
        };
        return Ok(Page {
            items: first(items),
            next: Some(format!("more-{}", n + 1)),
        });
    }
    if knobs.empty_cursor == Some(kind) {
        let split = if size == usize::MAX {
            items.len().div_ceil(2)
        } else {
            size.min(items.len())
        };
        return match cursor {
            None => Ok(Page {
                items: items[..split].to_vec(),
                next: Some(String::new()),
            }),
            Some("") => Ok(Page {
                items: items[split..].to_vec(),
                next: None,
            }),
            Some(c) => Err(bad_cursor(c)),
        };
    }
    let offset = match cursor {
        None => 0,
        Some(c) => c
            .strip_prefix(tag(kind))
            .and_then(|r| r.strip_prefix('@'))
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n > 0 && *n < items.len())
            .ok_or_else(|| bad_cursor(c))?,
    };
    let end = offset.saturating_add(size).min(items.len());
    let next = (end < items.len()).then(|| format!("{}@{end}", tag(kind)));
    let items = items.into_iter().skip(offset).take(end - offset).collect();
    Ok(Page { items, next })
}

/// A tiny xorshift generator: enough randomness for `--shuffle` and session ids
/// without a `rand` dependency.
#[derive(Debug)]
pub struct Rng(u64);

impl Rng {
    /// Seed from the clock and the process id.
    pub fn from_entropy() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15);
        Self((nanos ^ (u64::from(std::process::id()) << 32)) | 1)
    }

    /// Next pseudo-random value.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// Shuffle `items` so that, when there are two or more, the order differs from `previous`
/// (the order served last time), so two consecutive listings never agree by chance.
pub fn shuffle(items: &mut [Value], previous: &[Value], rng: &mut Rng) {
    if items.len() < 2 {
        return;
    }
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
    if items == previous {
        items.rotate_left(1);
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use serde_json::json;

    use super::*;

    fn knobs(args: &[&str]) -> Knobs {
        Knobs::parse_from(std::iter::once("f").chain(args.iter().copied()))
    }

    fn items(n: usize) -> Vec<Value> {
        (0..n).map(|i| json!(i)).collect()
    }

    #[test]
    fn pages_follow_cursors_and_reject_garbage() {
        let k = knobs(&["--page-size", "2"]);
        let p1 = page(ListKind::Tools, items(5), None, &k).expect("page 1");
        assert_eq!(p1.items, items(2));
        let c = p1.next.expect("cursor");
        let p2 = page(ListKind::Tools, items(5), Some(&c), &k).expect("page 2");
        assert_eq!(p2.items, vec![json!(2), json!(3)]);
        let p3 = page(ListKind::Tools, items(5), p2.next.as_deref(), &k).expect("page 3");
        assert_eq!((p3.items.len(), p3.next), (1, None));
        assert!(page(ListKind::Tools, items(5), Some("bogus"), &k).is_err());
        assert!(page(ListKind::Prompts, items(5), Some(&c), &k).is_err());
    }

    #[test]
    fn empty_cursor_is_a_real_page() {
        let k = knobs(&["--empty-cursor", "tools"]);
        let p1 = page(ListKind::Tools, items(3), None, &k).expect("page 1");
        assert_eq!(p1.next.as_deref(), Some(""));
        let p2 = page(ListKind::Tools, items(3), Some(""), &k).expect("page 2");
        assert_eq!((p1.items.len() + p2.items.len(), p2.next), (3, None));
    }

    #[test]
    fn shuffle_never_repeats_the_previous_order() {
        let mut rng = Rng::from_entropy();
        for _ in 0..50 {
            let mut prev = items(3);
            let mut v = items(3);
            shuffle(&mut v, &prev, &mut rng);
            assert_ne!(v, prev);
            prev.clone_from(&v);
            shuffle(&mut v, &prev, &mut rng);
            assert_ne!(v, prev);
        }
    }
}
