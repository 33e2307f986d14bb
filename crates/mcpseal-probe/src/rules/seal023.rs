use mcpseal_client::{
    Exchange, HEADER_PROTOCOL_VERSION, META_CLIENT_CAPABILITIES, META_CLIENT_INFO,
    META_PROTOCOL_VERSION, Request, TransportKind,
};
use mcpseal_protocol::method;
use serde_json::{Value, json};

use crate::context::ProbeContext;
use crate::prelude::{ClientPath, ObservedEra};
use crate::protocol::{HEADER_MISMATCH, INVALID_PARAMS, TARGET_REVISION};
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// The server does not validate the per-request `_meta` envelope the way 2026-07-28 asks.
    ///
    /// With the handshake gone, `params._meta` is the only place a request says which revision
    /// it speaks and what the client can do: `io.modelcontextprotocol/protocolVersion` and
    /// `…/clientCapabilities` are REQUIRED (missing → `-32602`, HTTP 400), and `…/clientInfo`
    /// is only a SHOULD, so a request without it must still be served (pre-final SDK builds
    /// required it). A server that serves a request without the version guesses a revision
    /// the client never named; one that refuses a request without `clientInfo` refuses
    /// conforming clients. (Whether the errors keep the request id is SEAL034's finding; a
    /// request naming an *unsupported* version is SEAL041's.)
    ///
    /// Only judged on servers that speak 2026 (`server/discover` answered, the 2026 path
    /// works, no root cause isolated by the prelude: SEAL013/SEAL001 own those). Probes are
    /// `server/discover` (every 2026 server serves it) with: no `_meta`; `_meta` without
    /// `protocolVersion` (over HTTP the `MCP-Protocol-Version` header still says
    /// `2026-07-28`); without `clientCapabilities`; and without `clientInfo`. One finding per
    /// fault, each with its own fix: a missing required key served; refused with the wrong
    /// code; refused with the wrong HTTP status (unless every error comes with 200: SEAL044);
    /// `clientInfo` required.
    ///
    /// Two behaviours allowed, no finding: a dual-era server (it accepted `initialize`) may
    /// treat a request with no `_meta`, or with a `_meta` lacking `protocolVersion`, as a 2025
    /// request and serve it (2025 requests may carry `_meta` with other keys), so those two
    /// probes are judged on modern-only servers only. Over HTTP the probes without a `_meta`
    /// version carry a header that disagrees with `_meta`, and the spec fixes no check order,
    /// so `-32020` (HeaderMismatch) is accepted for them as well as `-32602`.
    pub static SEAL023 = {
        id: "SEAL023",
        anchor: None,
        title: "Requests with an incomplete _meta envelope are not handled as 2026-07-28 requires",
        severity: Error,
        remediation: Sdk,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

/// One probe that the server must refuse.
struct Refusal {
    what: &'static str,
    exchange: Exchange,
    /// `-32020` is acceptable too (HTTP, version absent from `_meta`).
    header_mismatch_ok: bool,
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    if p.discover_result().is_none() || p.path != Some(ClientPath::Modern) || p.root_cause.is_some()
    {
        return Ok(Vec::new());
    }
    let modern_only = p.era() == ObservedEra::Modern;
    let http = ctx.transport() == TransportKind::Http;
    let discover = || Request::modern(method::SERVER_DISCOVER, None);
    let mut refusals = Vec::new();
    if modern_only {
        refusals.push(Refusal {
            what: "no `_meta` at all",
            exchange: ctx
                .call_without_envelope(method::SERVER_DISCOVER, json!({}))
                .await,
            header_mismatch_ok: http,
        });
        // Over HTTP the header still names the revision, so only `_meta` lacks it (with
        // neither, "no version named" may be read as an unsupported one: -32022).
        refusals.push(Refusal {
            what: "`_meta` without `io.modelcontextprotocol/protocolVersion`",
            exchange: ctx
                .call_with(
                    discover()
                        .without_meta_key(META_PROTOCOL_VERSION)
                        .header(HEADER_PROTOCOL_VERSION, TARGET_REVISION),
                )
                .await,
            header_mismatch_ok: http,
        });
    }
    refusals.push(Refusal {
        what: "`_meta` without `io.modelcontextprotocol/clientCapabilities`",
        exchange: ctx
            .call_with(discover().without_meta_key(META_CLIENT_CAPABILITIES))
            .await,
        header_mismatch_ok: false,
    });
    let no_info = ctx
        .call_with(discover().without_meta_key(META_CLIENT_INFO))
        .await;

    // A server that sends every error with 200 is told so once, by SEAL044.
    let always_200 = http && ctx.errors_always_200().await;
    let mut served = Vec::new();
    let mut wrong_code = Vec::new();
    let mut wrong_status = Vec::new();
    for r in &refusals {
        let ex = &r.exchange;
        if ex.transport_error.is_some() {
            continue;
        }
        if ex.result().is_some() {
            served.push((r.what, ex));
            continue;
        }
        let Some(code) = ex.error_code() else {
            continue;
        };
        let ok = code == INVALID_PARAMS || (r.header_mismatch_ok && code == HEADER_MISMATCH);
        if !ok {
            wrong_code.push((r.what, ex));
        }
        if ok && http && !always_200 && ex.http_status.is_some_and(|s| s != 400) {
            wrong_status.push((r.what, ex));
        }
    }
    let mut findings = Vec::new();
    if !served.is_empty() {
        findings.push(
            SEAL023
                .finding(
                    format!(
                        "Served requests with {}: {}.",
                        served.iter().map(|(w, _)| *w).collect::<Vec<_>>().join("; "),
                        served.iter().map(|(_, e)| describe(e)).collect::<Vec<_>>().join("; ")
                    ),
                    "A 2026-07-28 request without `_meta`, or without its REQUIRED `io.modelcontextprotocol/protocolVersion` or `io.modelcontextprotocol/clientCapabilities`, is refused with -32602 (HTTP 400).",
                    "Validate `params._meta` on every request before dispatching it (SDKs built for the final 2026-07-28 schema do); never guess a version or capabilities the request did not state.",
                )
                .titled("Requests lacking required _meta keys are served")
                .evidence(served.iter().map(|(_, e)| *e)),
        );
    }
    if !wrong_code.is_empty() {
        findings.push(
            SEAL023
                .finding(
                    format!(
                        "Refused with the wrong code: {}.",
                        wrong_code
                            .iter()
                            .map(|(w, e)| format!("{w} → {}", describe(e)))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                    "A missing `_meta` key is `-32602` Invalid params (over HTTP `-32020` is also accepted when the version is absent, since the header cannot match it).",
                    "Answer requests that lack `_meta` or a required key with JSON-RPC -32602 (HTTP 400).",
                )
                .titled("Requests lacking required _meta keys are refused with the wrong error code")
                .evidence(wrong_code.iter().map(|(_, e)| *e)),
        );
    }
    if !wrong_status.is_empty() {
        findings.push(
            SEAL023
                .finding(
                    format!(
                        "Right code, wrong HTTP status: {}.",
                        wrong_status
                            .iter()
                            .map(|(w, e)| format!("{w} → {}", describe(e)))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                    "Over Streamable HTTP a request refused for its `_meta` envelope gets status 400 Bad Request.",
                    "Send HTTP 400 with the -32602 error body.",
                )
                .titled("Envelope errors are not sent with HTTP 400")
                .evidence(wrong_status.iter().map(|(_, e)| *e)),
        );
    }
    if no_info.transport_error.is_none() && no_info.error().is_some() {
        findings.push(
            SEAL023
                .finding(
                    format!(
                        "A request whose `_meta` lacks only `io.modelcontextprotocol/clientInfo` was refused: {}.",
                        describe(&no_info)
                    ),
                    "`io.modelcontextprotocol/clientInfo` is a SHOULD for clients; a request with `protocolVersion` and `clientCapabilities` but no `clientInfo` is served.",
                    "Stop requiring `clientInfo` (pre-final SDK builds did; upgrade to the final 2026-07-28 release).",
                )
                .titled("Requests without the optional clientInfo are refused")
                .evidence([&no_info]),
        );
    }
    Ok(findings)
}

/// The method a version probe asks: a listing the server advertises (`tools/list`,
/// `prompts/list`, `resources/list`), never `server/discover` (which exists to tell a client
/// the supported versions, so answering it whatever the version is defensible). `None` when
/// nothing is advertised.
pub(super) fn version_probe_method(ctx: &ProbeContext<'_>) -> Option<&'static str> {
    let caps = ctx.prelude().capabilities()?;
    [
        ("tools", method::TOOLS_LIST),
        ("prompts", method::PROMPTS_LIST),
        ("resources", method::RESOURCES_LIST),
    ]
    .into_iter()
    .find(|(cap, _)| caps.get(*cap).is_some_and(Value::is_object))
    .map(|(_, m)| m)
}
