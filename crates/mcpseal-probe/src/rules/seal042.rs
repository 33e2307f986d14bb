use mcpseal_client::{Exchange, TransportKind};
use mcpseal_protocol::method;
use serde_json::{Map, Value, json};

use crate::context::ProbeContext;
use crate::prelude::ClientPath;
use crate::protocol::{MISSING_CAPABILITY, TASKS_EXTENSION};
use crate::removed::{cut, describe};
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// A request that needs a client capability the client did not declare is not refused with
    /// -32021 MissingRequiredClientCapability.
    ///
    /// With no handshake, a 2026-07-28 client states per request what it can do
    /// (`_meta["io.modelcontextprotocol/clientCapabilities"]`), and the server "MUST NOT rely
    /// on capabilities the client has not declared": when processing a request needs one, it
    /// MUST answer -32021 with `data.requiredCapabilities` naming what is missing, HTTP 400.
    /// Multi Round-Trip Requests say the same from the other side: servers MUST NOT send an
    /// `inputRequests` entry (`elicitation/create`, `sampling/createMessage`, `roots/list`) the
    /// client has not declared support for; and a task (`resultType: "task"`) only goes to a
    /// client that declared the `io.modelcontextprotocol/tasks` extension. A client that gets
    /// an input request it cannot serve, or a task it cannot poll, is stuck; one that gets a
    /// bare -32021 cannot tell the user what to enable.
    ///
    /// Only judged on servers that speak 2026 (`server/discover` answered, the 2026 path works).
    /// mcpseal declares no client capability (`{}`), so every request below lacks them all:
    /// `prompts/get` of up to three listed prompts (required arguments filled in) and
    /// `resources/read` of up to three listed resources — reading has no side effects, so they
    /// are asked unprompted — and the tool calls named with `--call` (never any other tool;
    /// each call is sent once and shared with SEAL039). Fires on an `input_required` result
    /// asking for an undeclared input method, a task result, or a -32021 without an object
    /// `data.requiredCapabilities` or (HTTP) with a status other than 400. Any other answer is
    /// allowed (a server may well degrade without the capability). The release-candidate code
    /// -32003 is left to SEAL012 (the same builds send -32004 for a bad version).
    pub static SEAL042 = {
        id: "SEAL042",
        anchor: None,
        title: "A request needing an undeclared client capability is not refused with -32021",
        severity: Error,
        remediation: Sdk,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

/// Listed prompts and resources asked per run.
const PER_LIST: usize = 3;

/// The client capability each MRTR input method needs.
fn capability_of(input_method: &str) -> Option<&'static str> {
    match input_method {
        method::ELICITATION_CREATE => Some("elicitation"),
        method::SAMPLING_CREATE_MESSAGE => Some("sampling"),
        method::ROOTS_LIST => Some("roots"),
        _ => None,
    }
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    if p.discover_result().is_none() || p.path != Some(ClientPath::Modern) || p.root_cause.is_some()
    {
        return Ok(Vec::new());
    }
    let mut judged: Vec<Exchange> = Vec::new();
    for params in listed_targets(ctx).await {
        judged.push(ctx.call(params.0, params.1).await);
    }
    judged.extend(ctx.user_calls().await.iter().cloned());
    let http = ctx.transport() == TransportKind::Http;
    let mut facts = Vec::new();
    let mut evidence = Vec::new();
    for ex in &judged {
        if let Some(fact) = judge(ex, http) {
            facts.push(fact);
            evidence.push(ex);
        }
    }
    if facts.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL042
            .finding(
                format!("With no client capability declared: {}.", facts.join("; ")),
                "A request that needs a client capability the request did not declare is refused with -32021 MissingRequiredClientCapability whose `data.requiredCapabilities` names it (HTTP 400); no `inputRequests` entry and no task goes to a client that did not declare support for it.",
                "Read `_meta[\"io.modelcontextprotocol/clientCapabilities\"]` on every request; when elicitation, sampling, roots or the tasks extension is needed but absent, answer -32021 with `data.requiredCapabilities` (e.g. `{\"elicitation\": {}}`) and HTTP 400, or do the work without it.",
            )
            .evidence(evidence),
    ])
}

/// `prompts/get` of the first listed prompts (required arguments filled in) and
/// `resources/read` of the first listed resources.
async fn listed_targets(ctx: &ProbeContext<'_>) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    let listed = |ex: &Exchange, key: &str| -> Vec<Value> {
        ex.result()
            .and_then(|r| r.get(key))
            .and_then(Value::as_array)
            .map(|a| a.iter().take(PER_LIST).cloned().collect())
            .unwrap_or_default()
    };
    for ex in ctx.cacheable_results().await {
        match ex.method() {
            method::PROMPTS_LIST => {
                for prompt in listed(ex, "prompts") {
                    let Some(name) = prompt.get("name").and_then(Value::as_str) else {
                        continue;
                    };
                    let mut args = Map::new();
                    for a in prompt
                        .get("arguments")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                    {
                        if a.get("required") == Some(&Value::Bool(true))
                            && let Some(n) = a.get("name").and_then(Value::as_str)
                        {
                            args.insert(n.to_owned(), json!("mcpseal"));
                        }
                    }
                    out.push((
                        method::PROMPTS_GET,
                        json!({"name": name, "arguments": args}),
                    ));
                }
            }
            method::RESOURCES_LIST => {
                for resource in listed(ex, "resources") {
                    if let Some(uri) = resource.get("uri").and_then(Value::as_str) {
                        out.push((method::RESOURCES_READ, json!({"uri": uri})));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// What is wrong with one answer to a capability-less request, if anything.
fn judge(ex: &Exchange, http: bool) -> Option<String> {
    let target = ex
        .request
        .pointer("/params/name")
        .or_else(|| ex.request.pointer("/params/uri"))
        .and_then(Value::as_str)
        .map(|t| format!("`{}` of `{}`", ex.method(), cut(t, 80)))
        .unwrap_or_else(|| format!("`{}`", ex.method()));
    if let Some(result) = ex.result() {
        return match result.get("resultType").and_then(Value::as_str) {
            Some("input_required") => {
                let asked: Vec<String> = result
                    .get("inputRequests")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                    .filter_map(|(_, r)| r.get("method").and_then(Value::as_str))
                    .filter_map(|m| capability_of(m).map(|c| format!("`{m}` (needs `{c}`)")))
                    .collect();
                (!asked.is_empty()).then(|| {
                    format!(
                        "{target} returned `input_required` asking for {}",
                        asked.join(", ")
                    )
                })
            }
            Some("task") => Some(format!(
                "{target} returned a task (`resultType: \"task\"`) although the request did not declare the `{TASKS_EXTENSION}` extension"
            )),
            _ => None,
        };
    }
    if ex.error_code() != Some(MISSING_CAPABILITY) {
        return None;
    }
    let required = ex
        .error()
        .and_then(|e| e.get("data"))
        .and_then(|d| d.get("requiredCapabilities"));
    let mut faults = Vec::new();
    if !required.is_some_and(Value::is_object) {
        faults.push(format!(
            "`error.data.requiredCapabilities` is {}",
            required.map_or_else(|| "absent".to_owned(), |v| cut(&v.to_string(), 80))
        ));
    }
    if http && let Some(status) = ex.http_status.filter(|s| *s != 400) {
        faults.push(format!("HTTP {status} instead of 400"));
    }
    (!faults.is_empty()).then(|| format!("{target} → {}: {}", describe(ex), faults.join(", ")))
}
