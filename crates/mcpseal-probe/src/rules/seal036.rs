use serde_json::Value;

use crate::context::ProbeContext;
use crate::removed::cut;
use crate::rule::{FindingExt, RuleResult};
use crate::tools::display_name;

crate::rule! {
    /// A tool's `inputSchema` or `outputSchema` is not a valid JSON Schema.
    ///
    /// Clients validate arguments against `inputSchema` and hand it to models as the tool's
    /// calling convention; they validate `structuredContent` against `outputSchema`. 2026-07-28
    /// widened both: `inputSchema` may use any JSON Schema 2020-12 keyword (2025 typed only
    /// `properties`/`required`) but MUST still be an object schema with `type: "object"` at the
    /// root, and `outputSchema` may be any 2020-12 schema (no longer object-only). A schema a
    /// validator cannot compile breaks every client that validates: the tool becomes
    /// uncallable, or the client drops it.
    ///
    /// Both transports, from `tools/list` on the client path (all pages). Each schema is
    /// compiled offline with `mcpseal-schema` (the dialect its `$schema` names, 2020-12 when
    /// absent; a custom meta-schema cannot be resolved and does not compile; `format` is not
    /// asserted). Schemas with a `$ref` that cannot be resolved offline are not compiled:
    /// SEAL037 (remote) and SEAL038 (dangling) report them, once.
    pub static SEAL036 = {
        id: "SEAL036",
        anchor: None,
        title: "Tool inputSchema or outputSchema is not a valid JSON Schema",
        severity: Error,
        remediation: Application,
        spec: "server/tools",
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
        let name = display_name(tool, i);
        match tool.get("inputSchema") {
            None => facts.push(format!("{name} has no `inputSchema`")),
            Some(schema) => {
                if schema.get("type") != Some(&Value::String("object".into())) {
                    facts.push(format!(
                        "{name}: `inputSchema` root `type` is {} instead of \"object\"",
                        schema
                            .get("type")
                            .map_or_else(|| "absent".to_owned(), |t| cut(&t.to_string(), 60))
                    ));
                } else if let Some(e) = compile_error(schema) {
                    facts.push(format!("{name}: `inputSchema` does not compile: {e}"));
                }
            }
        }
        if let Some(schema) = tool.get("outputSchema")
            && let Some(e) = compile_error(schema)
        {
            facts.push(format!("{name}: `outputSchema` does not compile: {e}"));
        }
    }
    if facts.is_empty() {
        return Ok(Vec::new());
    }
    let shown = facts.len().min(10);
    let more = facts.len() - shown;
    let mut observed = facts[..shown].join("; ");
    if more > 0 {
        observed.push_str(&format!("; and {more} more"));
    }
    Ok(vec![
        SEAL036
            .finding(
                format!("{observed}."),
                "Every tool has an `inputSchema` that is a JSON Schema 2020-12 object schema (`type: \"object\"` at the root); an `outputSchema`, when present, is any valid 2020-12 schema.",
                "Fix the schema in the tool definition (or in the type it is generated from) until a 2020-12 validator compiles it; a tool without arguments uses `{\"type\": \"object\", \"additionalProperties\": false}`.",
            )
            .evidence(listing.pages.iter().copied().take(2)),
    ])
}

/// The compiler's complaint, when the schema's `$ref`s resolve offline and it still fails.
fn compile_error(schema: &Value) -> Option<String> {
    match mcpseal_schema::compile(schema, mcpseal_schema::Options::default()) {
        Ok(_) => None,
        Err(e) if e.is_unresolved_ref() => None,
        Err(e) => Some(cut(&e.to_string(), 200)),
    }
}
