//! "This method was removed — is it gone?", judged without being fooled by a handshake gate.
//!
//! mcp-stateless accepted `-32601` *or* `-32600` as "gone". `-32600` is what a 2025 server
//! answers to *any* method before `initialize` ("not initialized"), so accepting it blindly
//! passes a server whose `ping` handler is alive behind the handshake (and, over HTTP, behind a
//! session the probe never echoed). Here the method is asked twice when needed:
//!
//! 1. on the 2026 path (`_meta`, routing headers): a result ⇒ **live**; `-32601` ⇒ **gone**;
//! 2. otherwise on the 2025 path (no envelope; after the prelude's handshake, with its session
//!    id echoed): a result ⇒ **live**; `-32601` ⇒ **gone**; `-32600` again ⇒ **gone** (the
//!    handshake, if the server has one, already happened, so the refusal is not a gate);
//!    any other error on both paths ⇒ **rejected** (the handler is probably registered and
//!    refused our arguments: an advisory, never an error).
//!
//! Step 2 also removes a cascade: a server that rejects the `_meta` envelope answers `-32602`
//! on the 2026 path for *every* method; the envelope-free 2025 path shows the method is gone.
//! No answer on either path ⇒ **unknown** (no finding; the run becomes incomplete).
//!
//! stdio: a method found gone in the probed process is asked once more as the first message
//! of a fresh process (servers must not derive behaviour from earlier requests, and some
//! answer removed methods only until another request has fixed the process's era). Only on a
//! server that answered `server/discover`: the re-ask catches an SDK whose 2026 era forgets a
//! 2025 handler once the process's era is fixed (rmcp's `ping`); a server without
//! `server/discover` has no 2026 era to fix, so the fresh process would only repeat the
//! probed one's answer at the cost of a server start (~0.5 s for a node server; every
//! 2025-only peer measured answered the same).
//!
//! Routing-header strictness: a server that demands `Mcp-Name` on every method naming a target
//! refuses the 2026 probe with -32020; the probe is then re-sent with the header. Refusals on
//! both paths with the 2026 dress codes (-32020/-32021/-32022) are inconclusive, not
//! "rejected": they happen before any handler runs.

use mcpseal_client::Exchange;
use serde_json::Value;

use crate::context::ProbeContext;
use crate::protocol::{HEADER_MISMATCH, INVALID_REQUEST, METHOD_NOT_FOUND};

/// The verdict about one removed method.
#[derive(Debug, Clone)]
pub enum Liveness {
    /// Method not found.
    Gone,
    /// A result came back: the handler is alive.
    Live(Vec<Exchange>),
    /// Gone in the probed process (first exchange) but alive as the first message of a fresh
    /// process (second exchange).
    LiveWhenFirst(Vec<Exchange>),
    /// Errors other than method-not-found on both paths: probably registered.
    Rejected(Vec<Exchange>),
    /// No answer.
    Unknown,
}

/// Asks `method` on the 2026 path, then if needed on the 2025 path.
pub async fn removed_method(ctx: &ProbeContext<'_>, method: &str, params: Value) -> Liveness {
    let mut modern = ctx.call(method, params.clone()).await;
    if modern.transport_error.is_some() {
        return Liveness::Unknown;
    }
    // Servers that route by `Mcp-Name` ask for it on any method naming a target (e.g.
    // `resources/subscribe` with a `uri`, `tasks/get` with a `taskId`): a -32020 refuses the
    // dress, not the method. Ask again with the header.
    if modern.error_code() == Some(HEADER_MISMATCH)
        && let Some(name) = target_name(&params)
    {
        let retry = mcpseal_client::Request::modern(method, Some(params.clone()))
            .header(mcpseal_client::HEADER_MCP_NAME, name);
        modern = ctx.call_with(retry).await;
        if modern.transport_error.is_some() {
            return Liveness::Unknown;
        }
    }
    if modern.result().is_some() {
        return Liveness::Live(vec![modern]);
    }
    if modern.error_code() == Some(METHOD_NOT_FOUND) {
        return fresh_check(ctx, modern, params).await;
    }
    let legacy = ctx.call_legacy(method, params).await;
    if legacy.transport_error.is_some() {
        return Liveness::Unknown;
    }
    if legacy.result().is_some() {
        return Liveness::Live(vec![modern, legacy]);
    }
    match legacy.error_code() {
        Some(METHOD_NOT_FOUND | INVALID_REQUEST) => Liveness::Gone,
        // Both refusals are about the request's dress (2026 header/version/capability
        // codes): they say nothing about a handler behind them.
        Some(c) if is_dress_error(c) && modern.error_code().is_some_and(is_dress_error) => {
            Liveness::Unknown
        }
        _ => Liveness::Rejected(vec![modern, legacy]),
    }
}

/// stdio: a method that is gone in the probed process may still be alive as the first
/// message of a process (rmcp answers `ping` until another request fixed the process's era).
/// Servers MUST NOT derive behaviour from earlier requests, so ask a fresh process too.
async fn fresh_check(ctx: &ProbeContext<'_>, gone: Exchange, params: Value) -> Liveness {
    if !reasks_fresh(ctx.prelude()) {
        return Liveness::Gone;
    }
    let method = gone.method().to_owned();
    match ctx.call_fresh_reask(&method, params).await {
        Some(ex) if ex.result().is_some() => Liveness::LiveWhenFirst(vec![gone, ex]),
        _ => Liveness::Gone,
    }
}

/// Whether a method found gone is asked again of a fresh process (stdio; see the module
/// docs): only on the 2026 path of a server that answered `server/discover`.
pub(crate) fn reasks_fresh(p: &crate::prelude::Prelude) -> bool {
    p.path == Some(crate::prelude::ClientPath::Modern) && p.discover_result().is_some()
}

impl Liveness {
    /// The `observed` text for a live or rejected method; `None` when there is nothing to say.
    pub fn observed(&self) -> Option<String> {
        match self {
            Liveness::Live(ex) | Liveness::Rejected(ex) => {
                Some(ex.iter().map(describe).collect::<Vec<_>>().join(", then "))
            }
            Liveness::LiveWhenFirst(ex) => {
                let (fresh, earlier) = ex.split_last()?;
                Some(match earlier.first() {
                    Some(e) => format!(
                        "{}, but as the first message of a fresh process {}",
                        describe(e),
                        describe(fresh)
                    ),
                    None => format!("as the first message of a process {}", describe(fresh)),
                })
            }
            Liveness::Gone | Liveness::Unknown => None,
        }
    }

    /// The exchanges behind the verdict.
    pub fn exchanges(&self) -> &[Exchange] {
        match self {
            Liveness::Live(ex) | Liveness::Rejected(ex) | Liveness::LiveWhenFirst(ex) => ex,
            Liveness::Gone | Liveness::Unknown => &[],
        }
    }

    /// True when a handler answered with a result.
    pub fn is_live(&self) -> bool {
        matches!(self, Liveness::Live(_) | Liveness::LiveWhenFirst(_))
    }
}

/// True for the 2026 codes that refuse a request's dress before any method runs:
/// -32020 HeaderMismatch, -32021 MissingRequiredClientCapability, -32022
/// UnsupportedProtocolVersion.
pub fn is_dress_error(code: i64) -> bool {
    mcpseal_client::is_modern_error_code(code)
}

/// The value a 2026 client would send as `Mcp-Name`: `params.name`, `params.uri` or
/// `params.taskId`.
pub fn target_name(params: &Value) -> Option<String> {
    ["name", "uri", "taskId"]
        .iter()
        .find_map(|k| params.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// `method → error CODE message` or `method → result`, for `observed` texts.
pub fn describe(ex: &Exchange) -> String {
    let path = if ex
        .request
        .pointer("/params/_meta")
        .is_some_and(Value::is_object)
    {
        "with `_meta`"
    } else {
        "without `_meta`"
    };
    let status = ex
        .http_status
        .map(|s| format!(", HTTP {s}"))
        .unwrap_or_default();
    if let Some(e) = &ex.transport_error {
        return format!("`{}` ({path}) got no answer: {}", ex.method(), e.message);
    }
    match ex.error_code() {
        Some(code) => format!(
            "`{}` ({path}) → error {code} \"{}\"{status}",
            ex.method(),
            ex.error_message().unwrap_or("")
        ),
        None if ex.result().is_some() => {
            let r = ex.result().map(Value::to_string).unwrap_or_default();
            format!(
                "`{}` ({path}) → result {}{status}",
                ex.method(),
                cut(&r, 120)
            )
        }
        None => format!("`{}` ({path}) → no JSON-RPC answer{status}", ex.method()),
    }
}

/// At most `n` characters of `s`.
pub fn cut(s: &str, n: usize) -> String {
    let mut out: String = s.chars().take(n).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}

/// One finding for a removed-method rule over several methods: the rule's severity when a
/// handler answered, a warning when handlers only rejected the probe, nothing otherwise.
pub async fn judge_removed(
    ctx: &ProbeContext<'_>,
    rule: &crate::rule::Rule,
    probes: &[(&str, Value)],
    expected: &str,
    fix: &str,
) -> crate::rule::RuleResult {
    use crate::rule::FindingExt;
    let mut live = Vec::new();
    let mut rejected = Vec::new();
    for (method, params) in probes {
        let verdict = removed_method(ctx, method, params.clone()).await;
        if verdict.is_live() {
            live.push(verdict);
        } else if matches!(verdict, Liveness::Rejected(_)) {
            rejected.push(verdict);
        }
    }
    let (group, severity, title) = if !live.is_empty() {
        (live, rule.severity, None)
    } else if !rejected.is_empty() {
        (
            rejected,
            mcpseal_report::Severity::Warning,
            Some(format!("{} (handler may still be registered)", rule.title)),
        )
    } else {
        return Ok(Vec::new());
    };
    let observed = group
        .iter()
        .filter_map(Liveness::observed)
        .collect::<Vec<_>>()
        .join("; ");
    let mut finding = rule
        .finding(format!("{observed}."), expected, fix)
        .severity(severity)
        .evidence(group.iter().flat_map(Liveness::exchanges));
    if let Some(t) = title {
        finding = finding.titled(&t);
    }
    Ok(vec![finding])
}
