use mcpseal_client::{HEADER_MCP_METHOD, Request, TransportKind};
use mcpseal_protocol::method;
use serde_json::json;

use crate::context::ProbeContext;
use crate::prelude::ClientPath;
use crate::protocol::{
    BOGUS_VERSION, RC_HEADER_MISMATCH, RC_MISSING_CAPABILITY, RC_UNSUPPORTED_VERSION,
    UNSUPPORTED_VERSION,
};
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// Protocol error codes were not renumbered into the reserved range.
    ///
    /// Release candidates of 2026-07-28 used -32001 (HeaderMismatch), -32003
    /// (MissingRequiredClientCapability) and -32004 (UnsupportedProtocolVersion), inside the
    /// `-32000…-32019` range that implementations had long used for their own errors. The
    /// final revision moved them into a range reserved for the spec — -32020, -32021, -32022 —
    /// so a client can trust that those codes mean what the spec says. A client falling back
    /// between eras keys on these codes; a wrong one sends it down the wrong path.
    ///
    /// Sends `tools/list` claiming protocol version `1999-01-01` (the header mirrors it) and,
    /// over HTTP, `tools/list` with `Mcp-Method: tools/call`. Fires on the release-candidate
    /// codes; and, on a server that speaks 2026 (its `server/discover` works), on any other
    /// error code for the unsupported version than -32022 (mcp-stateless passed e.g. -32602).
    /// A legacy server that ignores `_meta` and answers is not judged here. One finding for the
    /// release-candidate numbering (every RC code seen has that one cause), and one for another
    /// code than -32022 for the version; another code for a header mismatch is SEAL030's.
    pub static SEAL012 = {
        id: "SEAL012",
        anchor: Some("MCP012"),
        title: "Protocol error codes were not renumbered into the reserved range",
        severity: Error,
        remediation: Sdk,
        spec: "basic/index",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    let modern = p.path == Some(ClientPath::Modern) && p.discover.result().is_some();
    // One finding per fault: the release-candidate numbering (one cause for every RC code
    // seen, a pre-final build), and each code that is simply another one.
    let mut rc = Vec::new();
    let mut version_code = Vec::new();
    if p.root_cause.is_none() {
        let version = ctx
            .call_with(
                Request::modern(method::TOOLS_LIST, Some(json!({})))
                    .with_protocol_version(BOGUS_VERSION),
            )
            .await;
        match version.error_code() {
            Some(c @ (RC_UNSUPPORTED_VERSION | RC_HEADER_MISMATCH | RC_MISSING_CAPABILITY)) => {
                rc.push((
                    format!(
                        "an unsupported version got the release-candidate code {c}: {}",
                        describe(&version)
                    ),
                    version,
                ));
            }
            Some(c) if modern && c != UNSUPPORTED_VERSION => {
                version_code.push((
                    format!(
                        "an unsupported version got {c} instead of -32022: {}",
                        describe(&version)
                    ),
                    version,
                ));
            }
            _ => {}
        }
        if ctx.transport() == TransportKind::Http {
            let mismatch = ctx
                .call_with(
                    Request::modern(method::TOOLS_LIST, Some(json!({})))
                        .header(HEADER_MCP_METHOD, method::TOOLS_CALL),
                )
                .await;
            // Only the RC numbering is judged here; another code is SEAL030's finding.
            if let Some(c @ (RC_HEADER_MISMATCH | RC_UNSUPPORTED_VERSION | RC_MISSING_CAPABILITY)) =
                mismatch.error_code()
            {
                rc.push((
                    format!(
                        "a header mismatch got the release-candidate code {c}: {}",
                        describe(&mismatch)
                    ),
                    mismatch,
                ));
            }
        }
    }
    let mut findings = Vec::new();
    for (group, title, expected, fix) in [
        (
            rc,
            None,
            "UnsupportedProtocolVersion is -32022 (with `data.supported` and `data.requested`), HeaderMismatch -32020, MissingRequiredClientCapability -32021; HTTP status 400.",
            "Upgrade past the release-candidate SDK builds; if the codes are hand-written, change -32004 → -32022, -32001 → -32020, -32003 → -32021.",
        ),
        (
            version_code,
            Some("An unsupported protocol version is refused with another code than -32022"),
            "A request naming a version the server does not support gets -32022 UnsupportedProtocolVersion (with `data.supported` and `data.requested`), HTTP 400.",
            "Refuse unsupported versions with -32022, not a generic invalid-params or server error: clients fall back between eras on that code.",
        ),
    ] {
        if group.is_empty() {
            continue;
        }
        let mut finding = SEAL012
            .finding(
                format!(
                    "{}.",
                    group
                        .iter()
                        .map(|(f, _)| f.as_str())
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
                expected,
                fix,
            )
            .evidence(group.iter().map(|(_, e)| e));
        if let Some(t) = title {
            finding = finding.titled(t);
        }
        findings.push(finding);
    }
    Ok(findings)
}
