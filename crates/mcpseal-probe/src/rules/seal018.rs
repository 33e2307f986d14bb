use mcpseal_client::META_SERVER_INFO;
use serde_json::Value;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// Results do not identify the server via `_meta` serverInfo.
    ///
    /// In 2025 the server named itself once, in the `initialize` result. With no handshake,
    /// 2026-07-28 moved the server's identity to every result:
    /// `_meta["io.modelcontextprotocol/serverInfo"]` (an Implementation: name, version, …),
    /// which a client can log, display or key caches on whichever request it made first
    /// (SHOULD, so an advisory).
    ///
    /// Judges every cacheable result a client fetched (discover, lists, one read).
    pub static SEAL018 = {
        id: "SEAL018",
        anchor: Some("MCP018"),
        title: "Results do not identify the server via _meta serverInfo",
        severity: Warning,
        remediation: Sdk,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let mut bad = Vec::new();
    let mut evidence = Vec::new();
    for ex in ctx.cacheable_results().await {
        let ok = ex
            .result()
            .and_then(|r| r.get("_meta"))
            .and_then(|m| m.get(META_SERVER_INFO))
            .is_some_and(Value::is_object);
        if !ok {
            bad.push(format!("`{}`", ex.method()));
            evidence.push(ex);
        }
    }
    if bad.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL018
            .finding(
                format!(
                    "No `_meta[\"{META_SERVER_INFO}\"]` object on the results of {}.",
                    bad.join(", ")
                ),
                "Results SHOULD carry `_meta[\"io.modelcontextprotocol/serverInfo\"]` with the server's name and version.",
                "Upgrade to an MCP SDK that speaks 2026-07-28 (it adds serverInfo to every result's `_meta`).",
            )
            .evidence(evidence),
    ])
}
