use mcpseal_client::{Exchange, TransportKind};
use mcpseal_protocol::method;
use serde_json::{Value, json};

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
    /// `data.requiredCapabilities` or (HTTP) with a status other than 400 (unless every error
    /// comes with 200: SEAL044). Any other answer is
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
    // A server that sends every error with 200 is told so once, by SEAL044.
    let http = ctx.transport() == TransportKind::Http && !ctx.errors_always_200().await;
    // One finding per fault, each with its own fix.
    let mut groups: [(Vec<String>, Vec<&Exchange>); 3] = Default::default();
    for ex in &judged {
        for (fault, fact) in judge(ex, http) {
            let (facts, evidence) = &mut groups[fault as usize];
            facts.push(fact);
            if !evidence.iter().any(|e| std::ptr::eq(*e, ex)) {
                evidence.push(ex);
            }
        }
    }
    let mut findings = Vec::new();
    for (fault, (facts, evidence)) in [Fault::Relied, Fault::Data, Fault::Status]
        .into_iter()
        .zip(groups)
    {
        if facts.is_empty() {
            continue;
        }
        let (title, expected, fix) = match fault {
            Fault::Relied => (
                "Requests are answered with what needs a client capability the client did not declare",
                "A request that needs a client capability the request did not declare is refused with -32021 MissingRequiredClientCapability (HTTP 400); no `inputRequests` entry and no task goes to a client that did not declare support for it.",
                "Read `_meta[\"io.modelcontextprotocol/clientCapabilities\"]` on every request; when elicitation, sampling, roots or the tasks extension is needed but absent, answer -32021 with `data.requiredCapabilities` (e.g. `{\"elicitation\": {}}`), or do the work without it.",
            ),
            Fault::Data => (
                "MissingRequiredClientCapability errors do not name the missing capabilities",
                "A -32021 error carries `data.requiredCapabilities`, a ClientCapabilities object naming what is missing.",
                "Add `data.requiredCapabilities` (e.g. `{\"elicitation\": {}}`) to every -32021 error.",
            ),
            Fault::Status => (
                "MissingRequiredClientCapability errors are not sent with HTTP 400",
                "Over Streamable HTTP a -32021 error is sent with status 400 Bad Request.",
                "Send HTTP 400 with the -32021 error body.",
            ),
        };
        findings.push(
            SEAL042
                .finding(
                    format!("With no client capability declared: {}.", facts.join("; ")),
                    expected,
                    fix,
                )
                .titled(title)
                .evidence(evidence),
        );
    }
    Ok(findings)
}

/// Which fault an answer to a capability-less request shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// An input request or a task the client cannot handle.
    Relied = 0,
    /// A -32021 without `data.requiredCapabilities`.
    Data = 1,
    /// A -32021 with another HTTP status than 400.
    Status = 2,
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
                    if let Some(params) = mcpseal_protocol::prompt_get_params(&prompt, "mcpseal") {
                        out.push((method::PROMPTS_GET, params));
                    }
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

/// What is wrong with one answer to a capability-less request.
fn judge(ex: &Exchange, http: bool) -> Vec<(Fault, String)> {
    let target = ex
        .request
        .pointer("/params/name")
        .or_else(|| ex.request.pointer("/params/uri"))
        .and_then(Value::as_str)
        .map(|t| format!("`{}` of `{}`", ex.method(), cut(t, 80)))
        .unwrap_or_else(|| format!("`{}`", ex.method()));
    if let Some(result) = ex.result() {
        let fact = match result.get("resultType").and_then(Value::as_str) {
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
        return fact.map(|f| (Fault::Relied, f)).into_iter().collect();
    }
    if ex.error_code() != Some(MISSING_CAPABILITY) {
        return Vec::new();
    }
    let required = ex
        .error()
        .and_then(|e| e.get("data"))
        .and_then(|d| d.get("requiredCapabilities"));
    let mut faults = Vec::new();
    if !required.is_some_and(Value::is_object) {
        faults.push((
            Fault::Data,
            format!(
                "{target} → {}: `error.data.requiredCapabilities` is {}",
                describe(ex),
                required.map_or_else(|| "absent".to_owned(), |v| cut(&v.to_string(), 80))
            ),
        ));
    }
    if http && let Some(status) = ex.http_status.filter(|s| *s != 400) {
        faults.push((
            Fault::Status,
            format!("{target} → -32021 with HTTP {status} instead of 400"),
        ));
    }
    faults
}
