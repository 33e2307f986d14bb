use serde_json::Value;

use crate::context::ProbeContext;
use crate::removed::cut;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// `server/discover` returns body-level `serverInfo`/`protocolVersion`: a pre-final build.
    ///
    /// Early drafts of 2026-07-28 shaped `DiscoverResult` like the old `InitializeResult`, with
    /// `serverInfo` and `protocolVersion` in the body. Spec PR #3002 (2026-07-15) removed both:
    /// identity moved to `_meta["io.modelcontextprotocol/serverInfo"]`, which every result
    /// carries, and there is no single negotiated version any more (`supportedVersions` lists
    /// them; each request names its own). SDK betas built before that (TypeScript v2 up to
    /// beta.4, Go v1.7.0-pre.2) still send the body fields, so their presence marks a
    /// pre-final build whose other wire details (error codes, required `clientInfo`) may lag
    /// too. Extra properties do not break the schema, hence an advisory.
    ///
    /// Judges the prelude's `server/discover` result only. Whether `supportedVersions` lists
    /// `2026-07-28` is SEAL001's finding, not this rule's.
    pub static SEAL025 = {
        id: "SEAL025",
        anchor: None,
        title: "server/discover returns body-level serverInfo/protocolVersion (pre-final build)",
        severity: Warning,
        remediation: Sdk,
        spec: "server/discover",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    let Some(result) = p.discover_result() else {
        return Ok(Vec::new());
    };
    let present: Vec<String> = ["serverInfo", "protocolVersion"]
        .iter()
        .filter_map(|k| {
            result
                .get(*k)
                .map(|v| format!("`{k}`: {}", cut(&Value::to_string(v), 120)))
        })
        .collect();
    if present.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL025
            .finding(
                format!(
                    "The `server/discover` result carries {} in its body.",
                    present.join(", ")
                ),
                "`DiscoverResult` has `supportedVersions`, `capabilities`, `instructions?`, `ttlMs`, `cacheScope`, `resultType`; the server identifies itself in `_meta[\"io.modelcontextprotocol/serverInfo\"]`, with no body `serverInfo` or `protocolVersion`.",
                "Upgrade to the final 2026-07-28 SDK release (TypeScript v2 ≥ 2.0.0, Go ≥ v1.7.0); if hand-written, move `serverInfo` into `_meta[\"io.modelcontextprotocol/serverInfo\"]` and drop `protocolVersion`.",
            )
            .evidence([&p.discover]),
    ])
}
