use serde_json::Value;

use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// Cacheable results lack `ttlMs` / `cacheScope`.
    ///
    /// With sessions gone, a client can no longer rely on "the list I got at `initialize`
    /// stays valid until a `list_changed` notification on my session". 2026-07-28 made the
    /// server say how long each answer stays fresh and who may share it: `ttlMs` (integer
    /// ≥ 0; 0 = already stale) and `cacheScope` (`"public"` or `"private"`) are REQUIRED on
    /// every complete result of `server/discover`, `tools/list`, `prompts/list`,
    /// `resources/list`, `resources/templates/list` and `resources/read`. Without them clients,
    /// gateways and registries must either re-ask constantly or cache blindly.
    ///
    /// Checks every one of those methods that returned a result (0.1.5 of mcp-stateless
    /// checked only `tools/list`); methods the server does not serve are skipped. One finding
    /// names each result and the missing field.
    pub static SEAL005 = {
        id: "SEAL005",
        anchor: Some("MCP005"),
        title: "Cacheable results are missing the required ttlMs and cacheScope fields",
        severity: Error,
        remediation: Sdk,
        spec: "server/utilities/caching",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let mut bad = Vec::new();
    let mut evidence = Vec::new();
    for ex in ctx.cacheable_results().await {
        let Some(result) = ex.result() else { continue };
        if result.get("resultType").and_then(Value::as_str) == Some("input_required") {
            continue;
        }
        let mut missing = Vec::new();
        if result.get("ttlMs").is_none_or(|t| t.as_u64().is_none()) {
            missing.push(match result.get("ttlMs") {
                None => "no `ttlMs`".to_owned(),
                Some(v) => format!("`ttlMs: {v}` (not an integer ≥ 0)"),
            });
        }
        match result.get("cacheScope").and_then(Value::as_str) {
            Some("public" | "private") => {}
            _ => missing.push(match result.get("cacheScope") {
                None => "no `cacheScope`".to_owned(),
                Some(v) => format!("`cacheScope: {v}`"),
            }),
        }
        if !missing.is_empty() {
            bad.push(format!("`{}`: {}", ex.method(), missing.join(", ")));
            evidence.push(ex);
        }
    }
    if bad.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL005
            .finding(
                format!("{}.", bad.join("; ")),
                "Complete results of `server/discover`, the four lists and `resources/read` carry `ttlMs` (integer ≥ 0) and `cacheScope` (`\"public\"` or `\"private\"`).",
                "Upgrade to an MCP SDK that speaks 2026-07-28 and set cache hints (e.g. `ttlMs: 60000, cacheScope: \"public\"` for a static list).",
            )
            .evidence(evidence),
    ])
}
