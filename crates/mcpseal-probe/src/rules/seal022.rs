use std::collections::BTreeMap;
use std::sync::OnceLock;

use jsonschema::ValidatorMap;
use jsonschema::error::ValidationErrorKind;
use mcpseal_client::Exchange;
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
    /// Every response (and every server notification) in the transcript so far, plus the
    /// cacheable results a client fetches, is validated against the verbatim schema of the
    /// era the request was dressed in: requests carrying `params._meta` against
    /// `schema/2026-07-28/schema.json` (only when `server/discover` answered, i.e. the server
    /// claims 2026), the others against `schema/2025-11-25/schema.json`. Results are mapped by
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
    /// with the same fault give one finding. Exchanges sent by later rules (SEAL023 on) are
    /// not in the transcript yet.
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

const SCHEMA_2026: &str = include_str!("../../schema/schema-2026-07-28.json");
const SCHEMA_2025: &str = include_str!("../../schema/schema-2025-11-25.json");

/// Findings beyond this many groups are summarised in the last one.
const MAX_GROUPS: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum SchemaEra {
    Modern,
    Legacy,
}

impl SchemaEra {
    fn label(self) -> &'static str {
        match self {
            SchemaEra::Modern => "2026-07-28",
            SchemaEra::Legacy => "2025-11-25",
        }
    }

    fn validators(self) -> Result<&'static ValidatorMap, String> {
        static MODERN: OnceLock<Result<ValidatorMap, String>> = OnceLock::new();
        static LEGACY: OnceLock<Result<ValidatorMap, String>> = OnceLock::new();
        let (cell, text) = match self {
            SchemaEra::Modern => (&MODERN, SCHEMA_2026),
            SchemaEra::Legacy => (&LEGACY, SCHEMA_2025),
        };
        cell.get_or_init(|| {
            let schema: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
            jsonschema::options()
                .build_map(&schema)
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| format!("the vendored {} schema: {e}", self.label()))
    }
}

/// The result definition of `method` in `era`.
fn result_def(era: SchemaEra, method: &str, result: &Value) -> Option<&'static str> {
    let input_required = result.get("resultType").and_then(Value::as_str) == Some("input_required");
    if era == SchemaEra::Modern
        && input_required
        && matches!(method, "tools/call" | "prompts/get" | "resources/read")
    {
        return Some("InputRequiredResult");
    }
    let common = match method {
        "tools/list" => Some("ListToolsResult"),
        "resources/list" => Some("ListResourcesResult"),
        "resources/templates/list" => Some("ListResourceTemplatesResult"),
        "prompts/list" => Some("ListPromptsResult"),
        "resources/read" => Some("ReadResourceResult"),
        "prompts/get" => Some("GetPromptResult"),
        "tools/call" => Some("CallToolResult"),
        "completion/complete" => Some("CompleteResult"),
        _ => None,
    };
    common.or(match (era, method) {
        (SchemaEra::Modern, "server/discover") => Some("DiscoverResult"),
        (SchemaEra::Modern, "subscriptions/listen") => Some("SubscriptionsListenResult"),
        (SchemaEra::Legacy, "initialize") => Some("InitializeResult"),
        (
            SchemaEra::Legacy,
            "ping" | "logging/setLevel" | "resources/subscribe" | "resources/unsubscribe",
        ) => Some("EmptyResult"),
        (SchemaEra::Legacy, "tasks/list") => Some("ListTasksResult"),
        (SchemaEra::Legacy, "tasks/get") => Some("GetTaskResult"),
        (SchemaEra::Legacy, "tasks/cancel") => Some("CancelTaskResult"),
        (SchemaEra::Legacy, "tasks/result") => Some("GetTaskPayloadResult"),
        _ => None,
    })
}

/// The notification definition of `method` in `era`.
fn notification_def(era: SchemaEra, method: &str) -> Option<&'static str> {
    let common = match method {
        "notifications/progress" => Some("ProgressNotification"),
        "notifications/message" => Some("LoggingMessageNotification"),
        "notifications/tools/list_changed" => Some("ToolListChangedNotification"),
        "notifications/prompts/list_changed" => Some("PromptListChangedNotification"),
        "notifications/resources/list_changed" => Some("ResourceListChangedNotification"),
        "notifications/resources/updated" => Some("ResourceUpdatedNotification"),
        "notifications/cancelled" => Some("CancelledNotification"),
        _ => None,
    };
    common.or(match (era, method) {
        (SchemaEra::Modern, "notifications/subscriptions/acknowledged") => {
            Some("SubscriptionsAcknowledgedNotification")
        }
        (SchemaEra::Legacy, "notifications/tasks/status") => Some("TaskStatusNotification"),
        _ => None,
    })
}

/// Methods whose `resultType`/`ttlMs`/`cacheScope` SEAL004/SEAL005 judge.
const CACHEABLE: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// One schema violation, before grouping.
struct Violation {
    era: SchemaEra,
    /// What was validated: `response to tools/list` / `notification notifications/progress`.
    message: String,
    method: String,
    id: Value,
    path: String,
    keyword: String,
    def: &'static str,
    detail: String,
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let discover_answered = ctx.prelude().discover_result().is_some();
    // Fetch what a client fetches, so the rule judges it under `--only` too.
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
    let transcript = ctx.transcript();
    let mut violations = Vec::new();
    let mut evidence: BTreeMap<(String, String, String), Vec<&Exchange>> = BTreeMap::new();
    let mut counted = BTreeMap::new();
    for ex in &transcript {
        let modern = ex
            .request
            .pointer("/params/_meta")
            .is_some_and(Value::is_object);
        if modern && !discover_answered {
            continue;
        }
        let era = if modern {
            SchemaEra::Modern
        } else {
            SchemaEra::Legacy
        };
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
            "The {} (id {}) fails the {} schema's `{}` at instance path `{path}`, keyword `{}`: {}{more}.",
            v.message,
            v.id,
            v.era.label(),
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
                        v.era.label(),
                        v.era.label()
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
fn judge(
    ex: &Exchange,
    era: SchemaEra,
    result_type_judged: bool,
) -> Result<Vec<Violation>, String> {
    let map = era.validators()?;
    let method = ex.method().to_owned();
    let id = ex.request.get("id").cloned().unwrap_or(Value::Null);
    let mut out = Vec::new();
    let mut run = |def: &'static str,
                   instance: &Value,
                   prefix: &str,
                   message: String,
                   msg_method: &str,
                   skip: &dyn Fn(&str, &ValidationErrorKind) -> bool|
     -> Result<(), String> {
        let validator = map
            .get(&format!("#/$defs/{def}"))
            .ok_or_else(|| format!("`{def}` is not in the {} schema", era.label()))?;
        for err in validator.iter_errors(instance) {
            let path = format!("{prefix}{}", err.instance_path().as_str());
            if skip(&path, err.kind()) {
                continue;
            }
            out.push(Violation {
                era,
                message: message.clone(),
                method: msg_method.to_owned(),
                id: id.clone(),
                path,
                keyword: err.kind().keyword().to_owned(),
                def,
                detail: cut(&err.to_string(), 160),
            });
        }
        Ok(())
    };
    let never = |_: &str, _: &ValidationErrorKind| false;
    if let Some(response) = &ex.response {
        if response.get("error").is_some() {
            let null_id = response.get("id") == Some(&Value::Null);
            run(
                "JSONRPCErrorResponse",
                response,
                "",
                format!("error response to `{method}`"),
                &method,
                &|path, _| null_id && path == "/id",
            )?;
        } else if let Some(result) = response.get("result")
            && let Some(def) = result_def(era, &method, result)
        {
            let modern = era == SchemaEra::Modern;
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
                &|path, kind| match path.strip_prefix("/result/") {
                    Some(field) => elsewhere(field),
                    None => {
                        path == "/result"
                            && matches!(kind, ValidationErrorKind::Required { property }
                                if property.as_str().is_some_and(elsewhere))
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
        if let Some(def) = notification_def(era, nm) {
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
