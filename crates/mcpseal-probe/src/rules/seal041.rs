use mcpseal_client::Request;
use serde_json::json;

use crate::context::ProbeContext;
use crate::prelude::ClientPath;
use crate::protocol::BOGUS_VERSION;
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// A request naming a protocol version the server does not support is served.
    ///
    /// Without a handshake there is no negotiated version: every request names its own in
    /// `_meta["io.modelcontextprotocol/protocolVersion"]` (and, over HTTP, the
    /// `MCP-Protocol-Version` header), and "if the server does not implement the requested
    /// version … it MUST respond with an `UnsupportedProtocolVersionError`" (-32022, HTTP 400),
    /// which is how a client learns what to retry with. A server that serves such a request
    /// answers in a revision the client never asked for, and a server that pins the version of
    /// its first requests for the whole process derives the version from earlier requests,
    /// which 2026-07-28 forbids.
    ///
    /// Only judged on servers that speak 2026 (`server/discover` answered, the 2026 path works,
    /// no root cause isolated by the prelude). Sends an advertised listing (`tools/list`, else
    /// `prompts/list`, else `resources/list`; never `server/discover`, which may answer any
    /// version since it exists to tell the client the supported ones) claiming `1999-01-01`,
    /// after the prelude's 2026-07-28 requests. Fires only when it is *served*; the error code
    /// of a refusal is SEAL012's finding, its `data` SEAL024's. Split from SEAL023 (which
    /// judges requests lacking required `_meta` keys): a different fault with a different fix.
    pub static SEAL041 = {
        id: "SEAL041",
        anchor: None,
        title: "A request naming an unsupported protocol version is served",
        severity: Error,
        remediation: Sdk,
        spec: "basic/versioning",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    if p.discover_result().is_none() || p.path != Some(ClientPath::Modern) || p.root_cause.is_some()
    {
        return Ok(Vec::new());
    }
    let Some(method) = super::seal023::version_probe_method(ctx) else {
        return Ok(Vec::new());
    };
    let ex = ctx
        .call_with(Request::modern(method, Some(json!({}))).with_protocol_version(BOGUS_VERSION))
        .await;
    if ex.result().is_none() {
        return Ok(Vec::new());
    }
    Ok(vec![
        SEAL041
            .finding(
                format!(
                    "A request claiming `protocolVersion` `{BOGUS_VERSION}` (a version no server supports) was served: {}.",
                    describe(&ex)
                ),
                "A request naming a version the server does not implement is refused with -32022 UnsupportedProtocolVersion (HTTP 400), whose `data.supported` lists the versions to retry with.",
                "Check each request's `_meta` protocol version (and the `MCP-Protocol-Version` header) before dispatching it, every time: never keep the version of an earlier request (SDKs built for the final 2026-07-28 revision do this; the TypeScript SDK v2 stdio server pins it per process).",
            )
            .evidence([&ex]),
    ])
}
