use serde_json::Value;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// `tools/list` ordering is not deterministic.
    ///
    /// Clients and gateways now cache lists (SEAL005) and compare them to decide whether
    /// anything changed; models see tools in list order, and prompt caches key on the exact
    /// bytes. 2026-07-28 therefore asks that `tools/list` be deterministic: the same order for
    /// as long as the set of tools is unchanged (SHOULD, so an advisory).
    ///
    /// Compares tool-name order over at least three listings from the prelude (mcp-stateless
    /// compared two, which a random order with two tools passes half the time); fires only
    /// when the *set* is equal and the order differs.
    pub static SEAL017 = {
        id: "SEAL017",
        anchor: Some("MCP017"),
        title: "tools/list ordering is not deterministic",
        severity: Warning,
        remediation: Application,
        spec: "server/tools",
        transports: [Stdio, Http],
        check: check,
    };
}

fn names(ex: &mcpseal_client::Exchange) -> Option<Vec<String>> {
    let tools = ex.result()?.get("tools")?.as_array()?;
    Some(
        tools
            .iter()
            .map(|t| {
                t.get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned()
            })
            .collect(),
    )
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let listings = ctx.prelude().listings();
    let orders: Vec<Vec<String>> = listings.iter().copied().filter_map(names).collect();
    if orders.len() < 3 {
        return Ok(Vec::new());
    }
    let mut first_sorted = orders[0].clone();
    first_sorted.sort();
    let same_set = orders.iter().all(|o| {
        let mut s = o.clone();
        s.sort();
        s == first_sorted
    });
    let distinct: Vec<&Vec<String>> = orders.iter().fold(Vec::new(), |mut acc, o| {
        if !acc.contains(&o) {
            acc.push(o);
        }
        acc
    });
    if !same_set || distinct.len() < 2 {
        return Ok(Vec::new());
    }
    let shown = distinct
        .iter()
        .map(|o| format!("[{}]", o.join(", ")))
        .collect::<Vec<_>>()
        .join(" vs ");
    Ok(vec![
        SEAL017
            .finding(
                format!(
                    "{} listings of the same {} tools came back in {} different orders: {}.",
                    orders.len(),
                    first_sorted.len(),
                    distinct.len(),
                    crate::removed::cut(&shown, 300)
                ),
                "`tools/list` SHOULD return tools in a deterministic order while the set is unchanged.",
                "Sort tools by a stable key (e.g. name) before returning them; do not iterate hash maps in arbitrary order.",
            )
            .evidence(listings.iter().copied()),
    ])
}
