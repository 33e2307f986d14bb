use std::collections::{BTreeMap, BTreeSet};

use mcpseal_client::Exchange;
use mcpseal_protocol::{Era, method};
use mcpseal_schema::wire;
use serde_json::Value;

use crate::context::ProbeContext;
use crate::removed::cut;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// Messages on the wire do not validate against the official JSON schema of their era.
    ///
    /// 2026-07-28 changed almost every result shape (`resultType`, cache hints, `_meta`
    /// identity, `DiscoverResult`, the subscription notifications, an open 2020-12
    /// `inputSchema`, any-JSON `structuredContent`) and published them as a JSON schema next
    /// to the TypeScript source. Clients generated from that schema, and the official
    /// conformance suite (`wire-schema-valid`), reject what does not validate; a server whose
    /// hand-built or pre-final result drifts from it breaks them in ways no single rule names.
    ///
    /// Every response (and every server notification) of the prelude, of the cacheable results
    /// a client fetches (discover, the four lists with every `tools/list` page, the first
    /// resource read), is validated against the verbatim schema of the era the request was
    /// dressed in: requests carrying `params._meta` against `schema/2026-07-28/schema.json`
    /// (only when `server/discover` answered, i.e. the server claims 2026), the others against
    /// `schema/2025-11-25/schema.json`. Results are mapped by
    /// method to their result definition (`server/discover` → `DiscoverResult`, `tools/list`
    /// → `ListToolsResult`, …; `resultType: "input_required"` → `InputRequiredResult`), errors
    /// to `JSONRPCErrorResponse`, notifications by method. Methods the rule cannot map (removed
    /// methods answered on the 2026 path, extension methods, server-to-client requests) are
    /// skipped: the removed-method rules judge those. No remote `$ref` is ever fetched.
    ///
    /// No cascade: a missing or wrong `resultType`, `ttlMs` or `cacheScope` on a cacheable
    /// result is SEAL004/SEAL005's finding, not this rule's (so is a missing `resultType` on
    /// any other result while SEAL004 fires: one server-wide omission), and `id: null` on an
    /// error response is SEAL034's (JSON-RPC allows `null` only when the id could not be
    /// read; over stdio such an error cannot be matched and the probe goes unanswered). One
    /// finding per (method, instance path, keyword), array indices folded, so twenty tools
    /// with the same fault give one finding. Exchanges other rules send are never judged here:
    /// the verdict is the same whichever rules run. Only the definitions a run validates
    /// against are compiled (lazily, once per process).
    pub static SEAL022 = {
        id: "SEAL022",
        anchor: None,
        title: "Messages do not validate against the official JSON schema of their era",
        severity: Error,
        remediation: Application,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

/// Findings beyond this many groups are summarised in the last one.
const MAX_GROUPS: usize = 20;

/// Violations kept per validated message (a hostile result may fail everywhere).
const MAX_PER_MESSAGE: usize = 200;

/// Methods whose `resultType`/`ttlMs`/`cacheScope` SEAL004/SEAL005 judge.
const CACHEABLE: &[&str] = &[
    method::SERVER_DISCOVER,
    method::TOOLS_LIST,
    method::PROMPTS_LIST,
    method::RESOURCES_LIST,
    method::RESOURCES_TEMPLATES_LIST,
    method::RESOURCES_READ,
];

/// One schema violation, before grouping.
struct Violation {
    era: Era,
    /// What was validated: `response to tools/list` / `notification notifications/progress`.
    message: String,
    method: String,
    path: String,
    keyword: String,
    def: &'static str,
    detail: String,
}

/// What this rule validates: the prelude's exchanges, then the cacheable results and the
/// further `tools/list` pages (shared, fetched once per run whichever rule asks first), each
/// once. Never what other rules sent.
async fn judged<'a>(ctx: &'a ProbeContext<'_>) -> Vec<&'a Exchange> {
    let mut out = ctx.prelude().exchanges();
    let mut seen: BTreeSet<String> = out.iter().map(|e| id_of(e)).collect();
    let cacheable = ctx.cacheable_results().await;
    let pages = ctx
        .tool_listing()
        .await
        .map(|l| l.pages)
        .unwrap_or_default();
    for ex in cacheable.into_iter().chain(pages) {
        if seen.insert(id_of(ex)) {
            out.push(ex);
        }
    }
    out
}

/// A request's JSON-RPC id as text (only to tell exchanges apart, never shown).
fn id_of(ex: &Exchange) -> String {
    ex.request
        .get("id")
        .map(Value::to_string)
        .unwrap_or_default()
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let discover_answered = ctx.prelude().discover_result().is_some();
    let cacheable = ctx.cacheable_results().await;
    // SEAL004's verdict: when a cacheable result lacks a valid `resultType`, the server omits
    // it everywhere, and every other result saying so would be the same root cause.
    let result_type_judged = cacheable.iter().any(|ex| {
        !matches!(
            ex.result()
                .and_then(|r| r.get("resultType"))
                .and_then(Value::as_str),
            Some("complete" | "input_required")
        )
    });
    let exchanges = judged(ctx).await;
    let mut violations = Vec::new();
    let mut evidence: BTreeMap<(String, String, String), Vec<&Exchange>> = BTreeMap::new();
    let mut counted = BTreeMap::new();
    for ex in exchanges {
        let modern = ex
            .request
            .pointer("/params/_meta")
            .is_some_and(Value::is_object);
        if modern && !discover_answered {
            continue;
        }
        let era = if modern { Era::Modern } else { Era::Legacy };
        let found = judge(ex, era, result_type_judged).map_err(crate::rule::RuleError)?;
        for v in found {
            let key = (v.method.clone(), fold(&v.path), v.keyword.clone());
            let list = evidence.entry(key.clone()).or_default();
            if !list.iter().any(|e| std::ptr::eq(*e, ex)) && list.len() < 3 {
                list.push(ex);
            }
            *counted.entry(key.clone()).or_insert(0usize) += 1;
            if counted[&key] == 1 {
                violations.push(v);
            }
        }
    }
    let total = violations.len();
    let mut findings = Vec::new();
    for v in violations.into_iter().take(MAX_GROUPS) {
        let key = (v.method.clone(), fold(&v.path), v.keyword.clone());
        let n = counted.get(&key).copied().unwrap_or(1);
        let more = if n > 1 {
            format!(" ({n} occurrences in this group)")
        } else {
            String::new()
        };
        let path = if v.path.is_empty() { "/" } else { &v.path };
        let mut observed = format!(
            "The {} fails the {} schema's `{}` at instance path `{path}`, keyword `{}`: {}{more}.",
            v.message,
            v.era.revision(),
            v.def,
            v.keyword,
            v.detail
        );
        if findings.len() + 1 == MAX_GROUPS && total > MAX_GROUPS {
            observed.push_str(&format!(
                " {} further (method, path, keyword) groups are not listed.",
                total - MAX_GROUPS
            ));
        }
        findings.push(
            SEAL022
                .finding(
                    observed,
                    &format!(
                        "Every message validates against `#/$defs/{}` of the official {} schema (`schema/{}/schema.json`).",
                        v.def,
                        v.era.revision(),
                        v.era.revision()
                    ),
                    "Fix the field named by the instance path so the message matches the official schema; if the SDK builds this message, upgrade to a release built from the final 2026-07-28 schema.",
                )
                .evidence(evidence.get(&key).into_iter().flatten().copied()),
        );
    }
    Ok(findings)
}

/// Numeric path segments folded to `*`.
fn fold(path: &str) -> String {
    path.split('/')
        .map(|s| {
            if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                "*"
            } else {
                s
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Every violation in one exchange (its response and the notifications it carried).
fn judge(ex: &Exchange, era: Era, result_type_judged: bool) -> Result<Vec<Violation>, String> {
    let method = ex.method().to_owned();
    let mut out = Vec::new();
    let mut run = |def: &'static str,
                   instance: &Value,
                   prefix: &str,
                   message: String,
                   msg_method: &str,
                   skip: &dyn Fn(&mcpseal_schema::Violation) -> bool|
     -> Result<(), String> {
        let schema =
            wire::definition(era, def).map_err(|e| format!("the vendored {era} schema: {e}"))?;
        for err in schema.first_violations(instance, MAX_PER_MESSAGE) {
            if skip(&err) {
                continue;
            }
            let path = format!("{prefix}{}", err.instance_path);
            // A message's root (and its `id`) is the whole JSON-RPC envelope: quote its shape,
            // not its values, so the request id never reaches the observed text.
            let detail = if prefix.is_empty()
                && (err.instance_path.is_empty() || err.instance_path == "/id")
            {
                &err.masked_message
            } else {
                &err.message
            };
            out.push(Violation {
                era,
                message: message.clone(),
                method: msg_method.to_owned(),
                path,
                keyword: err.keyword.clone(),
                def,
                detail: cut(detail, 160),
            });
        }
        Ok(())
    };
    let never = |_: &mcpseal_schema::Violation| false;
    if let Some(response) = &ex.response {
        if response.get("error").is_some() {
            let null_id = response.get("id") == Some(&Value::Null);
            run(
                wire::ERROR_RESPONSE,
                response,
                "",
                format!("error response to `{method}`"),
                &method,
                &|v| null_id && v.instance_path == "/id",
            )?;
        } else if let Some(result) = response.get("result")
            && let Some(def) = wire::result_definition(era, &method, result)
        {
            let modern = era == Era::Modern;
            let cacheable = modern && CACHEABLE.contains(&method.as_str());
            // Fields another rule judges on this result.
            let elsewhere = |field: &str| match field {
                "resultType" => cacheable || (modern && result_type_judged),
                "ttlMs" | "cacheScope" => cacheable,
                _ => false,
            };
            run(
                def,
                result,
                "/result",
                format!("response to `{method}`"),
                &method,
                &|v| match v.instance_path.strip_prefix('/') {
                    Some(field) => elsewhere(field),
                    None => {
                        v.keyword == "required"
                            && v.missing_property.as_deref().is_some_and(elsewhere)
                    }
                },
            )?;
        }
    }
    for n in &ex.notifications {
        let Some(nm) = n.get("method").and_then(Value::as_str) else {
            continue;
        };
        if n.get("id").is_some() {
            continue;
        }
        if let Some(def) = wire::notification_definition(era, nm) {
            run(
                def,
                n,
                "",
                format!("notification `{nm}` (during `{method}`)"),
                nm,
                &never,
            )?;
        }
    }
    Ok(out)
}
