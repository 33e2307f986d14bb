use mcpseal_protocol::method;
use serde_json::{Value, json};

use crate::context::ProbeContext;
use crate::prelude::ClientPath;
use crate::protocol::{BOGUS_URI, INVALID_PARAMS, OLD_RESOURCE_NOT_FOUND};
use crate::removed::{describe, is_dress_error};
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// A resource that does not exist is not refused with -32602.
    ///
    /// "If the requested resource does not exist, servers MUST return a JSON-RPC error with code
    /// -32602 (Invalid Params)", and "MUST NOT return an empty `contents` array for a
    /// non-existent resource": an empty array is ambiguous — it could mean the resource exists
    /// but is empty. A client that reads a stale URI needs to tell "gone" from "empty" to drop
    /// it from its cache.
    ///
    /// Only judged on servers that speak 2026 (`server/discover` answered, the 2026 path works)
    /// and advertise `resources`: `resources/read` of a URI no server serves
    /// (`file:///mcpseal-probe/does-not-exist`). Fires on a result with an empty `contents`,
    /// and on an error code other than -32602. The retired -32002 is SEAL011's finding, the
    /// 2026 dress codes (-32020/-32021/-32022) and release-candidate codes are other rules'; a
    /// result with contents is not judged (a server may synthesise any URI).
    pub static SEAL045 = {
        id: "SEAL045",
        anchor: None,
        title: "A resource that does not exist is not refused with -32602",
        severity: Error,
        remediation: Application,
        spec: "server/resources",
        transports: [Stdio, Http],
        check: check,
    };
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    let advertised = p
        .capabilities()
        .and_then(|c| c.get("resources"))
        .is_some_and(Value::is_object);
    if p.discover_result().is_none() || p.path != Some(ClientPath::Modern) || !advertised {
        return Ok(Vec::new());
    }
    let ex = ctx
        .call(method::RESOURCES_READ, json!({"uri": BOGUS_URI}))
        .await;
    let observed = if let Some(result) = ex.result() {
        let empty = result
            .get("contents")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty);
        if !empty {
            return Ok(Vec::new());
        }
        format!(
            "`resources/read` of `{BOGUS_URI}` (no server has it) got a result with an empty `contents` array: {}.",
            describe(&ex)
        )
    } else {
        match ex.error_code() {
            Some(INVALID_PARAMS | OLD_RESOURCE_NOT_FOUND) | None => return Ok(Vec::new()),
            Some(c) if is_dress_error(c) || (-32004..=-32001).contains(&c) => {
                return Ok(Vec::new());
            }
            Some(_) => format!(
                "`resources/read` of `{BOGUS_URI}` (no server has it) got another code than -32602: {}.",
                describe(&ex)
            ),
        }
    };
    Ok(vec![
        SEAL045
            .finding(
                observed,
                "A `resources/read` of a resource that does not exist is refused with JSON-RPC -32602 (Invalid Params), e.g. with the URI in `data`; never a result with an empty `contents`.",
                "Answer an unknown URI with a -32602 error (`{\"code\": -32602, \"message\": \"Resource not found\", \"data\": {\"uri\": …}}`); keep empty `contents` for resources that exist and are empty, if any.",
            )
            .evidence([&ex]),
    ])
}
