use crate::context::ProbeContext;
use crate::rule::{FindingExt, RuleResult};
use crate::tools::display_name;
use mcpseal_schema::{CompileError, Options, RefKind, compile, refs::refs};

crate::rule! {
    /// A tool schema refers to another document with `$ref`.
    ///
    /// A JSON Schema `$ref` to another document (`https://…`, `other.json#/x`) is resolved by
    /// fetching it. Tool schemas come from servers, so a client that followed such a
    /// reference would let any server make it send requests to any address (SSRF) and
    /// change the schema behind the client's back. 2026-07-28 therefore says clients MUST NOT
    /// auto-fetch network `$ref`s: for every compliant client the reference is unresolvable,
    /// and the tool's schema cannot be validated (or is rejected outright).
    ///
    /// Both transports, from `tools/list` (all pages): every `$ref`/`$dynamicRef` in
    /// `inputSchema` and `outputSchema` that points outside the schema document (not to an
    /// embedded `$id` or a bundled JSON Schema meta-schema). Nothing is ever fetched. A
    /// warning: the server breaks no MUST itself, but its schema only works for clients that
    /// break one.
    pub static SEAL037 = {
        id: "SEAL037",
        anchor: None,
        title: "Tool schema refers to another document with $ref",
        severity: Warning,
        remediation: Application,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let Some(listing) = ctx.tool_listing().await else {
        return Ok(Vec::new());
    };
    let mut facts = Vec::new();
    for (i, tool) in listing.tools.iter().enumerate() {
        for key in ["inputSchema", "outputSchema"] {
            let Some(schema) = tool.get(key) else {
                continue;
            };
            let mut remote: Vec<String> = refs(schema)
                .into_iter()
                .filter(|r| r.kind == RefKind::Remote)
                .map(|r| format!("`{}`", r.target))
                .collect();
            // A reference the classifier took for local that the compiler would have had to
            // fetch (it refused: nothing is fetched) is remote too.
            if remote.is_empty()
                && let Err(CompileError::RemoteRef { target }) = compile(schema, Options::default())
            {
                remote.push(format!("`{target}`"));
            }
            if !remote.is_empty() {
                facts.push(format!(
                    "{} `{key}` refers to {}",
                    display_name(tool, i),
                    remote.join(", ")
                ));
            }
        }
    }
    if facts.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL037
            .finding(
                format!("{}.", facts.join("; ")),
                "Tool schemas are self-contained: every `$ref` points into the schema itself (`#/$defs/…`); clients MUST NOT fetch network references.",
                "Inline the referenced definitions under `$defs` and point `$ref` at `#/$defs/<name>` (most generators have a bundling or `inline refs` option).",
            )
            .evidence(listing.pages.iter().copied().take(2)),
    ])
}
