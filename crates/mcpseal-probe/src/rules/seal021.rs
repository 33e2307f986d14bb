use mcpseal_client::{HEADER_MCP_NAME, Request};
use mcpseal_protocol::method;
use mcpseal_report::Severity;
use serde_json::json;

use crate::context::ProbeContext;
use crate::protocol::{BOGUS_TASK, METHOD_NOT_FOUND, TASKS_EXTENSION};
use crate::removed::{describe, is_dress_error, removed_method};
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// Tasks are still served from the core protocol, not the tasks extension.
    ///
    /// 2025-11-25 put long-running "tasks" into the core protocol (`tasks/list`,
    /// `tasks/result`, `tasks/get`, `tasks/cancel`, a `tasks` capability). Few servers needed
    /// them, and every client had to carry them, so 2026-07-28 moved tasks out of the core
    /// into the `io.modelcontextprotocol/tasks` extension (SEP-2663): negotiated through
    /// `capabilities.extensions`, with `tasks/list` and `tasks/result` gone and results
    /// arriving through `tasks/get`.
    ///
    /// Fires (error) when `tasks/list` or `tasks/result` still answer (removed-method
    /// semantics of `removed.rs`) or when `server/discover` advertises the core `tasks`
    /// capability without the extension; an advisory when both are advertised, or when
    /// nothing is advertised yet `tasks/get` (sent with `Mcp-Name` = taskId, as the extension
    /// routes it) answers with a result or an error other than -32601 and the 2026 dress codes. The legacy
    /// `initialize` result is not judged (a 2025 server may advertise 2025 tasks there). One
    /// finding per run.
    pub static SEAL021 = {
        id: "SEAL021",
        anchor: Some("MCP021"),
        title: "Tasks are still served from the core protocol, not the tasks extension",
        severity: Error,
        remediation: Sdk,
        spec: "changelog",
        transports: [Stdio, Http],
        check: check,
    };
}

/// The removed methods this rule asks (also asked of fresh processes ahead, `rules::fresh_reasks`).
pub(super) fn probes() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        (method::TASKS_LIST, json!({})),
        (method::TASKS_RESULT, json!({"taskId": BOGUS_TASK})),
    ]
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    let mut facts = Vec::new();
    let mut evidence = Vec::new();
    let mut severity = None::<Severity>;
    let raise = |s: Severity, sev: &mut Option<Severity>| {
        *sev = Some(match *sev {
            Some(Severity::Error) => Severity::Error,
            _ => s,
        });
    };
    for (method, params) in probes() {
        let verdict = removed_method(ctx, method, params).await;
        if let Some(observed) = verdict.observed() {
            facts.push(observed);
            evidence.extend(verdict.exchanges().iter().cloned());
            let s = if verdict.is_live() {
                Severity::Error
            } else {
                Severity::Warning
            };
            raise(s, &mut severity);
        }
    }
    if let Some(caps) = p.discover_result().and_then(|r| r.get("capabilities")) {
        let core = caps.get("tasks").is_some();
        let ext = caps
            .get("extensions")
            .and_then(|e| e.get(TASKS_EXTENSION))
            .is_some();
        if core {
            facts.push(format!(
                "`server/discover` advertises the core `tasks` capability{}",
                if ext {
                    " next to the extension"
                } else {
                    " without the extension"
                }
            ));
            evidence.push(p.discover.clone());
            raise(
                if ext {
                    Severity::Warning
                } else {
                    Severity::Error
                },
                &mut severity,
            );
        } else if !ext {
            // The tasks extension routes `tasks/get` by `Mcp-Name` = taskId over HTTP.
            let get = ctx
                .call_with(
                    Request::modern(method::TASKS_GET, Some(json!({"taskId": BOGUS_TASK})))
                        .header(HEADER_MCP_NAME, BOGUS_TASK),
                )
                .await;
            let served = get.result().is_some()
                || get
                    .error_code()
                    .is_some_and(|c| c != METHOD_NOT_FOUND && !is_dress_error(c));
            if served {
                facts.push(format!("nothing is advertised, yet {}", describe(&get)));
                evidence.push(get);
                raise(Severity::Warning, &mut severity);
            }
        }
    }
    let Some(severity) = severity else {
        return Ok(Vec::new());
    };
    Ok(vec![
        SEAL021
            .finding(
                format!("{}.", facts.join("; ")),
                "Tasks live in the `io.modelcontextprotocol/tasks` extension, advertised in `capabilities.extensions`; `tasks/list` and `tasks/result` are gone (-32601) and there is no core `tasks` capability.",
                "Upgrade to an MCP SDK that speaks 2026-07-28 and enable its tasks extension; stop serving `tasks/list`/`tasks/result` and the core capability.",
            )
            .severity(severity)
            .evidence(evidence.iter()),
    ])
}
