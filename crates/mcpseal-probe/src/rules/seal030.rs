use mcpseal_client::{
    Exchange, HEADER_MCP_METHOD, HEADER_MCP_NAME, HEADER_PROTOCOL_VERSION, META_SERVER_INFO,
    Request,
};
use mcpseal_protocol::method;
use serde_json::{Value, json};

use crate::context::ProbeContext;
use crate::protocol::{
    HEADER_MISMATCH, RC_HEADER_MISMATCH, RC_MISSING_CAPABILITY, RC_UNSUPPORTED_VERSION,
    UNSUPPORTED_VERSION,
};
use crate::rule::{FindingExt, RuleResult};
use crate::rules::modern_http::{answer, modern_http, modern_only_http};

crate::rule! {
    /// Missing or mismatching routing headers are not rejected with -32020 and HTTP 400.
    ///
    /// 2026-07-28 repeats the method (`Mcp-Method`), the target (`Mcp-Name` on `tools/call`,
    /// `prompts/get`, `resources/read`) and the protocol version (`MCP-Protocol-Version`) of
    /// every Streamable HTTP POST in headers, so gateways, load balancers and WAFs can route
    /// and authorise without parsing bodies. That only holds if the server refuses a request
    /// whose headers disagree with its body: otherwise a gateway authorises one tool and the
    /// server runs another. Missing, mismatching or invalid headers MUST get HTTP 400 with
    /// JSON-RPC -32020 (HeaderMismatch).
    ///
    /// HTTP, servers whose `server/discover` works only (SEAL014 covers servers that reject the
    /// headers outright, so it and this rule never fire together). Probes: `tools/list`
    /// without `Mcp-Method`, and with `Mcp-Method: tools/call` (a release-candidate code is
    /// SEAL012's, any other code this rule's); `prompts/get` of a listed
    /// prompt and `resources/read` of a listed resource without `Mcp-Name` and with a wrong
    /// one, each only after the same request with correct headers succeeded (so no other
    /// failure can explain the error — the spec sets no check order). Also `tools/list`
    /// without `MCP-Protocol-Version` and with `2025-11-25` against `2026-07-28` in `_meta`:
    /// on modern-only servers -32022 is accepted there too (the header names a version the
    /// server does not support); a dual-era server may read a 2025 header, or none, as a 2025
    /// request, so there only a 2026-shaped answer (`resultType`, cache hints or the `_meta`
    /// server identity) is a finding — found on a real dual-era server. 401/403 answers are
    /// authorization refusals, never judged. Tools are never called: only when nothing else is
    /// listed, `tools/call` of a tool name that does not exist, with another non-existent name
    /// in `Mcp-Name`, and only a -32020 with the wrong status is judged (an unknown-tool error
    /// is an equally valid answer). Release-candidate codes (-32001/-32003/-32004) are left to
    /// SEAL012. One finding per fault, each with its own fix: served anyway (no validation),
    /// another code than -32020, another status than 400 (unless every error comes with 200:
    /// SEAL044).
    pub static SEAL030 = {
        id: "SEAL030",
        anchor: None,
        title: "Missing or mismatching routing headers are not rejected with -32020 and HTTP 400",
        severity: Error,
        remediation: Sdk,
        spec: "basic/transports/streamable-http",
        transports: [Http],
        check: check,
    };
}

/// One header probe and how its answer is judged.
struct Probe {
    what: String,
    ex: Exchange,
    /// Codes that are a correct refusal.
    accepted: &'static [i64],
    /// Whether another code is this rule's finding (else another rule's, or allowed).
    judge_code: bool,
    /// Dual-era server, version header missing or 2025: only a 2026-shaped result is a
    /// finding (a 2025 answer, or any refusal, is what the spec allows).
    dual: bool,
}

const OTHER_NAME: &str = "mcpseal-probe-other-name";

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    if !modern_http(ctx) {
        return Ok(Vec::new());
    }
    let mut probes = Vec::new();
    let list = || Request::modern(method::TOOLS_LIST, Some(json!({})));
    probes.push(Probe {
        what: "`tools/list` without `Mcp-Method`".into(),
        ex: ctx
            .call_status_probe(list().without_header(HEADER_MCP_METHOD))
            .await,
        accepted: &[HEADER_MISMATCH],
        judge_code: true,
        dual: false,
    });
    probes.push(Probe {
        what: "`tools/list` with `Mcp-Method: tools/call`".into(),
        ex: ctx
            .call_status_probe(list().header(HEADER_MCP_METHOD, method::TOOLS_CALL))
            .await,
        accepted: &[HEADER_MISMATCH],
        judge_code: true,
        dual: false,
    });
    // A dual-era server may read a missing or 2025 header as a 2025 request; it may not
    // answer it as a 2026 one (that ignores the header the spec makes it check).
    let dual = !modern_only_http(ctx);
    probes.push(Probe {
        what: "`tools/list` without `MCP-Protocol-Version`".into(),
        ex: ctx
            .call_status_probe(list().without_header(HEADER_PROTOCOL_VERSION))
            .await,
        accepted: &[HEADER_MISMATCH, UNSUPPORTED_VERSION],
        judge_code: true,
        dual,
    });
    probes.push(Probe {
        what: "`tools/list` with `MCP-Protocol-Version: 2025-11-25` and `_meta` version 2026-07-28"
            .into(),
        ex: ctx
            .call_status_probe(list().header(HEADER_PROTOCOL_VERSION, "2025-11-25"))
            .await,
        accepted: &[HEADER_MISMATCH, UNSUPPORTED_VERSION],
        judge_code: true,
        dual,
    });
    let mut named = 0;
    for (method, params) in named_targets(ctx).await {
        let control = ctx.call(method, params.clone()).await;
        if control.result().is_none() {
            continue;
        }
        named += 1;
        let req = || Request::modern(method, Some(params.clone()));
        probes.push(Probe {
            what: format!("`{method}` without `Mcp-Name` (with it: a result)"),
            ex: ctx
                .call_status_probe(req().without_header(HEADER_MCP_NAME))
                .await,
            accepted: &[HEADER_MISMATCH],
            judge_code: true,
            dual: false,
        });
        probes.push(Probe {
            what: format!(
                "`{method}` with `Mcp-Name: {OTHER_NAME}` (with the right name: a result)"
            ),
            ex: ctx
                .call_status_probe(req().header(HEADER_MCP_NAME, OTHER_NAME))
                .await,
            accepted: &[HEADER_MISMATCH],
            judge_code: true,
            dual: false,
        });
    }
    if named == 0 && ctx.prelude().effective_listing().is_some() {
        // Both names made up: nothing can run, whatever the server does with the header.
        let params = json!({"name": "mcpseal-probe-no-such-tool", "arguments": {}});
        probes.push(Probe {
            what: format!("`tools/call` of a non-existent tool with `Mcp-Name: {OTHER_NAME}`"),
            ex: ctx
                .call_status_probe(
                    Request::modern(method::TOOLS_CALL, Some(params))
                        .header(HEADER_MCP_NAME, OTHER_NAME),
                )
                .await,
            accepted: &[HEADER_MISMATCH],
            judge_code: false,
            dual: false,
        });
    }
    // One finding per fault, each with its own fix: a request served although its headers
    // disagree (no validation), refused with another code, refused with another status
    // (unless every error comes with 200: SEAL044's one finding).
    let always_200 = ctx.errors_always_200().await;
    let mut groups: [(Vec<String>, Vec<Exchange>); 3] = Default::default();
    for p in probes {
        if let Some((fault, fact)) = judge(&p) {
            if fault == Fault::Status && always_200 {
                continue;
            }
            let (facts, evidence) = &mut groups[fault as usize];
            facts.push(format!("{}: {fact}", p.what));
            evidence.push(p.ex);
        }
    }
    let mut findings = Vec::new();
    for (fault, (facts, evidence)) in [Fault::Served, Fault::Code, Fault::Status]
        .into_iter()
        .zip(groups)
    {
        if facts.is_empty() {
            continue;
        }
        let (title, expected, fix) = match fault {
            Fault::Served => (
                "Requests whose routing headers are missing or disagree with the body are served",
                "A POST whose `MCP-Protocol-Version`, `Mcp-Method` or `Mcp-Name` is missing or disagrees with the body is refused before it is processed: HTTP 400 with JSON-RPC -32020 (HeaderMismatch).",
                "Upgrade to an MCP SDK that speaks 2026-07-28 and keep its header validation on; in a hand-written transport, compare each routing header with the body (decoding `=?base64?…?=` values) before dispatching, and answer 400 + -32020 on any difference.",
            ),
            Fault::Code => (
                "Routing-header mismatches are refused with another code than -32020",
                "A missing or mismatching routing header is refused with JSON-RPC -32020 (HeaderMismatch), HTTP 400.",
                "Answer header validation failures with -32020 (its `data` may name the header), not a generic error.",
            ),
            Fault::Status => (
                "Routing-header mismatches are not sent with HTTP 400",
                "A -32020 HeaderMismatch is sent with HTTP 400 Bad Request.",
                "Send HTTP 400 with the -32020 error body.",
            ),
        };
        findings.push(
            SEAL030
                .finding(format!("{}.", facts.join("; ")), expected, fix)
                .titled(title)
                .evidence(evidence.iter()),
        );
    }
    Ok(findings)
}

/// Which fault a header probe's answer shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Served although the headers disagree.
    Served = 0,
    /// Refused, with another code than -32020.
    Code = 1,
    /// Refused with -32020, with another status than 400.
    Status = 2,
}

fn judge(p: &Probe) -> Option<(Fault, String)> {
    let ex = &p.ex;
    // A 401/403 refused the request before any header was judged: no answer to it.
    if crate::access::refused(ex) {
        return None;
    }
    let status = ex.http_status?;
    if p.dual {
        return ex.result().and_then(modern_shape).map(|field| {
            (
                Fault::Served,
                format!(
                    "answered as a 2026 request (the result carries `{field}`: {})",
                    answer(ex)
                ),
            )
        });
    }
    if ex.result().is_some() {
        return Some((Fault::Served, format!("served anyway ({})", answer(ex))));
    }
    match ex.error_code() {
        // Release-candidate numbering is SEAL012's finding (one root cause, one finding).
        Some(RC_HEADER_MISMATCH | RC_MISSING_CAPABILITY | RC_UNSUPPORTED_VERSION) => None,
        Some(c) if p.accepted.contains(&c) => (c == HEADER_MISMATCH && status != 400).then(|| {
            (
                Fault::Status,
                format!("-32020 came with HTTP {status} instead of 400"),
            )
        }),
        Some(_) if p.judge_code => Some((Fault::Code, format!("{} instead of -32020", answer(ex)))),
        Some(_) => None,
        None if (400..500).contains(&status) && p.judge_code => Some((
            Fault::Code,
            format!("{} without a JSON-RPC -32020 body", answer(ex)),
        )),
        None => None,
    }
}

/// The 2026-only field a result carries, if any: `resultType`, a cache hint or the `_meta`
/// server identity (2025 results have none of them).
fn modern_shape(result: &Value) -> Option<&'static str> {
    ["resultType", "ttlMs", "cacheScope"]
        .into_iter()
        .find(|k| result.get(*k).is_some())
        .or_else(|| {
            result
                .pointer("/_meta")
                .and_then(|m| m.get(META_SERVER_INFO))
                .map(|_| "_meta[\"io.modelcontextprotocol/serverInfo\"]")
        })
}

/// `prompts/get` of the first listed prompt (required arguments filled in) and
/// `resources/read` of the first listed resource.
async fn named_targets(ctx: &ProbeContext<'_>) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    if let Some(ex) = ctx
        .call(method::PROMPTS_LIST, json!({}))
        .await
        .result()
        .cloned()
        && let Some(prompt) = ex
            .get("prompts")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
        && let Some(params) = mcpseal_protocol::prompt_get_params(prompt, "mcpseal")
    {
        out.push((method::PROMPTS_GET, params));
    }
    if let Some(ex) = ctx
        .call(method::RESOURCES_LIST, json!({}))
        .await
        .result()
        .cloned()
        && let Some(uri) = ex
            .get("resources")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(|r| r.get("uri"))
            .and_then(Value::as_str)
    {
        out.push((method::RESOURCES_READ, json!({"uri": uri})));
    }
    out
}
