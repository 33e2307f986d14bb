use mcpseal_client::{Exchange, Request, TransportKind};
use mcpseal_protocol::method;
use mcpseal_report::Severity;
use serde_json::{Value, json};

use crate::context::ProbeContext;
use crate::prelude::ClientPath;
use crate::protocol::{BOGUS_VERSION, TARGET_REVISION, UNSUPPORTED_VERSION};
use crate::removed::describe;
use crate::rule::{FindingExt, RuleResult};

crate::rule! {
    /// UnsupportedProtocolVersion errors do not tell the client what to retry with.
    ///
    /// Without `initialize` there is no negotiation round: a 2026-07-28 client names its
    /// version on every request, and when the server does not speak it, the `-32022` error
    /// is the whole negotiation. Its `data.supported` (the versions to retry with) and
    /// `data.requested` are REQUIRED, HTTP status 400 is a MUST, and a client falling back
    /// between eras picks its retry version from `data.supported`: if that list disagrees
    /// with `server/discover`'s `supportedVersions`, or names the very version just refused,
    /// the client loops or gives up.
    ///
    /// Sends an advertised listing (`tools/list`, else `prompts/list`, else `resources/list`,
    /// else `server/discover`) claiming `1999-01-01` and, for every later 2026-style version
    /// `server/discover` advertises besides `2026-07-28`, the same request claiming it. Only
    /// judged on servers whose `server/discover` answered; only `-32022` answers are judged
    /// (another code is SEAL012's finding, a served unknown version SEAL041's). Fires (error)
    /// when `data.supported`/`data.requested` are missing or malformed, when `data.requested`
    /// is not the version sent, when the status is not 400, when a version listed in
    /// `supportedVersions` is refused, or when `data.supported` names the refused version; an
    /// advisory when `data.supported` and `supportedVersions` list different 2026-style
    /// versions (`2026-07-28` or later). Two behaviours allowed, no finding: a dual-era server
    /// may name `2025-11-25` (reached through `initialize`, not `_meta`) in one list and not the
    /// other, so pre-2026 versions are left out of the comparison.
    pub static SEAL024 = {
        id: "SEAL024",
        anchor: None,
        title: "UnsupportedProtocolVersion errors lack or contradict the supported versions",
        severity: Error,
        remediation: Sdk,
        spec: "basic/versioning",
        transports: [Stdio, Http],
        check: check,
    };
}

/// A `YYYY-MM-DD` revision no older than 2026-07-28 (the per-request `_meta` era).
fn is_modern_version(v: &str) -> bool {
    let b = v.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
        && v >= TARGET_REVISION
}

fn strings(v: Option<&Value>) -> Option<Vec<String>> {
    v?.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_owned))
        .collect()
}

async fn check(ctx: &ProbeContext<'_>) -> RuleResult {
    let p = ctx.prelude();
    let Some(discover) = p.discover_result() else {
        return Ok(Vec::new());
    };
    if p.path != Some(ClientPath::Modern) || p.root_cause.is_some() {
        return Ok(Vec::new());
    }
    let advertised = strings(discover.get("supportedVersions")).unwrap_or_default();
    let mut probes = vec![BOGUS_VERSION.to_owned()];
    probes.extend(
        advertised
            .iter()
            .filter(|v| is_modern_version(v) && *v != TARGET_REVISION)
            .cloned(),
    );
    let http = ctx.transport() == TransportKind::Http;
    let method = super::seal023::version_probe_method(ctx).unwrap_or(method::SERVER_DISCOVER);
    let mut errors = Vec::new();
    let mut advisories = Vec::new();
    let mut evidence: Vec<Exchange> = Vec::new();
    for version in probes {
        let ex = ctx
            .call_with(Request::modern(method, Some(json!({}))).with_protocol_version(&version))
            .await;
        if ex.error_code() != Some(UNSUPPORTED_VERSION) {
            continue;
        }
        let before = errors.len() + advisories.len();
        let data = ex.error().and_then(|e| e.get("data"));
        let supported = strings(data.and_then(|d| d.get("supported")));
        let requested = data.and_then(|d| d.get("requested"));
        if advertised.contains(&version) {
            errors.push(format!(
                "`{version}` is in `supportedVersions` yet was refused: {}",
                describe(&ex)
            ));
        }
        match &supported {
            None => errors.push(format!(
                "refusing `{version}`, `error.data.supported` is missing or not an array of strings (data: {})",
                data.map_or_else(|| "absent".to_owned(), Value::to_string)
            )),
            Some(s) if s.contains(&version) => errors.push(format!(
                "refusing `{version}`, `error.data.supported` lists that very version ({})",
                s.join(", ")
            )),
            Some(s) => {
                let modern = |l: &[String]| {
                    l.iter()
                        .filter(|v| is_modern_version(v))
                        .cloned()
                        .collect::<Vec<_>>()
                };
                let mut a = modern(s);
                let mut b = modern(&advertised);
                a.sort();
                a.dedup();
                b.sort();
                b.dedup();
                if a != b {
                    advisories.push(format!(
                        "`error.data.supported` is [{}] but `server/discover` lists [{}]",
                        s.join(", "),
                        advertised.join(", ")
                    ));
                }
            }
        }
        match requested {
            Some(Value::String(r)) if *r == version => {}
            other => errors.push(format!(
                "refusing `{version}`, `error.data.requested` is {}",
                other.map_or_else(|| "absent".to_owned(), Value::to_string)
            )),
        }
        if http && let Some(status) = ex.http_status.filter(|s| *s != 400) {
            errors.push(format!(
                "refusing `{version}` came with HTTP {status}, not 400"
            ));
        }
        if errors.len() + advisories.len() > before {
            evidence.push(ex);
        }
    }
    if errors.is_empty() && advisories.is_empty() {
        return Ok(Vec::new());
    }
    advisories.dedup();
    let severity = if errors.is_empty() {
        Severity::Warning
    } else {
        Severity::Error
    };
    let mut facts = errors;
    facts.extend(advisories);
    let mut finding = SEAL024
        .finding(
            format!("{}.", facts.join("; ")),
            "UnsupportedProtocolVersion is `-32022` with REQUIRED `data.supported` (the versions the server accepts, agreeing with `server/discover`'s `supportedVersions`) and `data.requested` (the version refused), HTTP 400; versions in `supportedVersions` are accepted.",
            "Build the -32022 error from the same list `server/discover` returns, echo the requested version in `data.requested`, send HTTP 400, and only advertise versions the request validation accepts.",
        )
        .severity(severity)
        .evidence(evidence.iter().chain([&p.discover]));
    if severity == Severity::Warning {
        finding = finding
            .titled("UnsupportedProtocolVersion's data.supported disagrees with server/discover");
    }
    Ok(vec![finding])
}
