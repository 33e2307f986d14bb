use mcpseal_client::{Exchange, META_SERVER_INFO};
use mcpseal_protocol::method;
use serde_json::{Value, json};

use crate::context::ProbeContext;
use crate::prelude::ClientPath;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// Only some results identify the server via `_meta` serverInfo.
    ///
    /// 2026-07-28 moved the server's identity from the one-off `initialize` result to
    /// `_meta["io.modelcontextprotocol/serverInfo"]` on every result ("Servers SHOULD include
    /// this field on every response"), because a stateless client may never call the request
    /// that used to carry it: a gateway that only forwards `prompts/get`, or a client that
    /// only calls tools, must still be able to log which server answered. A server that stamps
    /// the identity on its cacheable results but not on the others leaves exactly those
    /// clients blind.
    ///
    /// SEAL018 judges the cacheable results (discover, lists, read); this rule judges the other
    /// results a 2026 client gets without calling a tool: `prompts/get` of a listed prompt that
    /// needs no arguments (asked once; prompts are templates, not actions) and the result that
    /// ends the run's `subscriptions/listen` stream (shared with SEAL009), when there is one.
    /// Silent while SEAL018 fires (the identity is missing everywhere: one cause, one finding),
    /// on servers whose `server/discover` did not answer, and for methods 2026-07-28 removed.
    /// SHOULD, hence an advisory.
    pub static SEAL027 = {
        id: "SEAL027",
        anchor: None,
        title: "Non-cacheable results do not identify the server via _meta serverInfo",
        severity: Warning,
        remediation: Sdk,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

fn has_server_info(ex: &Exchange) -> bool {
    ex.result()
        .and_then(|r| r.get("_meta"))
        .and_then(|m| m.get(META_SERVER_INFO))
        .is_some_and(Value::is_object)
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    if p.discover_result().is_none() || p.path != Some(ClientPath::Modern) {
        return Ok(Vec::new());
    }
    let cacheable = ctx.cacheable_results().await;
    if cacheable.is_empty() || !cacheable.iter().copied().all(has_server_info) {
        return Ok(Vec::new());
    }
    let prompt = cacheable
        .iter()
        .filter(|e| e.method() == method::PROMPTS_LIST)
        .filter_map(|e| e.result()?.get("prompts")?.as_array())
        .flatten()
        .find(|p| {
            !p.get("arguments")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|x| x.get("required") == Some(&json!(true))))
        })
        .and_then(|p| p.get("name")?.as_str().map(str::to_owned));
    // This rule's own probe, and the one shared listen stream: never what other rules sent.
    let mut judged: Vec<Exchange> = Vec::new();
    if let Some(name) = prompt {
        judged.push(ctx.call(method::PROMPTS_GET, json!({"name": name})).await);
    }
    if let Some(listen) = ctx.subscription().await {
        judged.push(listen.clone());
    }
    let bad: Vec<Exchange> = judged
        .into_iter()
        .filter(|ex| {
            ex.request
                .pointer("/params/_meta")
                .is_some_and(Value::is_object)
                && ex.result().is_some()
                && !has_server_info(ex)
        })
        .collect();
    if bad.is_empty() {
        return Ok(Vec::new());
    }
    let methods = bad
        .iter()
        .map(|e| format!("`{}`", e.method()))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(vec![
        SEAL027
            .finding(
                format!(
                    "The cacheable results carry `_meta[\"{META_SERVER_INFO}\"]`, but the results of {methods} do not."
                ),
                "Servers SHOULD include `_meta[\"io.modelcontextprotocol/serverInfo\"]` (name, version) on every result, not only on discover and the lists.",
                "Add the server identity to every result's `_meta` (SDKs built for the final 2026-07-28 revision do it in one place); check hand-built results of `prompts/get` and `tools/call`.",
            )
            .evidence(bad.iter()),
    ])
}
