//! Tool definitions as a client receives them: every page of `tools/list`, fetched once per run.
//! Their schemas are judged with `mcpseal-schema` (offline: a remote `$ref` is never fetched).

use mcpseal_client::Exchange;
use mcpseal_protocol::method;
use serde_json::{Value, json};

use crate::context::ProbeContext;

/// The most `tools/list` pages fetched (a server with an endless cursor is SEAL-agnostic here).
const MAX_PAGES: usize = 50;

/// The most tools fetched and judged. The tool rules hold each tool's schema and findings;
/// without a bound a server listing a million tools grew the probe past 700 MiB (the hostile
/// suite's `many-tools`). A server with more is judged on its first pages.
const MAX_TOOLS: usize = 1000;

/// Every listed tool and the exchanges that listed them.
#[derive(Debug, Clone)]
pub struct ToolListing<'a> {
    /// The tools, in listing order (all pages).
    pub tools: &'a [Value],
    /// The `tools/list` exchanges, first page first.
    pub pages: Vec<&'a Exchange>,
}

impl ToolListing<'_> {
    /// A tool by name.
    pub fn tool(&self, name: &str) -> Option<&Value> {
        self.tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
    }
}

/// What the run fetched beyond the prelude's first page: the tools of every page and the
/// later pages. The first page stays the prelude's (borrowed, never copied: a page can be
/// megabytes once parsed).
#[derive(Debug)]
pub(crate) struct FetchedListing {
    pub(crate) tools: Vec<Value>,
    pub(crate) later: Vec<Exchange>,
}

/// The following pages after the prelude's listing, on the client path.
pub(crate) async fn fetch_listing(ctx: &ProbeContext<'_>) -> Option<FetchedListing> {
    let first = ctx.prelude().effective_listing()?;
    let mut tools = page_tools(first)?;
    tools.truncate(MAX_TOOLS);
    let mut cursor = next_cursor(first);
    let mut later: Vec<Exchange> = Vec::new();
    while let Some(c) = cursor {
        if later.len() + 1 >= MAX_PAGES || tools.len() >= MAX_TOOLS {
            break;
        }
        let Some(ex) = ctx
            .call_client(method::TOOLS_LIST, json!({"cursor": c}))
            .await
        else {
            break;
        };
        let Some(more) = page_tools(&ex) else {
            later.push(ex);
            break;
        };
        tools.extend(more.into_iter().take(MAX_TOOLS - tools.len()));
        cursor = next_cursor(&ex).filter(|n| *n != c);
        later.push(ex);
    }
    Some(FetchedListing { tools, later })
}

fn page_tools(ex: &Exchange) -> Option<Vec<Value>> {
    ex.result()?.get("tools")?.as_array().cloned()
}

fn next_cursor(ex: &Exchange) -> Option<String> {
    ex.result()?
        .get("nextCursor")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A tool's name for messages (`#3` when it has none).
pub fn display_name(tool: &Value, index: usize) -> String {
    match tool.get("name").and_then(Value::as_str) {
        Some(n) => format!("`{n}`"),
        None => format!("tool #{}", index + 1),
    }
}
