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
    /// versions (`2026-07-28` or later). One finding per fault, each with its own fix: the
    /// error's `data`; the versions advertised against those accepted; the HTTP status (unless
    /// every error comes with 200: SEAL044). Two behaviours allowed, no finding: a dual-era server
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
    // A server that sends every error with 200 is told so once, by SEAL044.
    let always_200 = http && ctx.errors_always_200().await;
    let method = super::seal023::version_probe_method(ctx).unwrap_or(method::SERVER_DISCOVER);
    // One bucket per fault, each its own finding: the error's `data`, the versions it
    // advertises, its HTTP status.
    let mut data_faults = Bucket::default();
    let mut list_faults = Bucket::default();
    let mut advisories = Bucket::default();
    let mut status_faults = Bucket::default();
    for version in probes {
        let ex = ctx
            .call_with(Request::modern(method, Some(json!({}))).with_protocol_version(&version))
            .await;
        if ex.error_code() != Some(UNSUPPORTED_VERSION) {
            continue;
        }
        let data = ex.error().and_then(|e| e.get("data"));
        let supported = strings(data.and_then(|d| d.get("supported")));
        let requested = data.and_then(|d| d.get("requested"));
        if advertised.contains(&version) {
            list_faults.push(
                format!(
                    "`{version}` is in `supportedVersions` yet was refused: {}",
                    describe(&ex)
                ),
                &ex,
            );
        }
        match &supported {
            None => data_faults.push(
                format!(
                    "refusing `{version}`, `error.data.supported` is missing or not an array of strings (data: {})",
                    data.map_or_else(|| "absent".to_owned(), Value::to_string)
                ),
                &ex,
            ),
            Some(s) if s.contains(&version) => list_faults.push(
                format!(
                    "refusing `{version}`, `error.data.supported` lists that very version ({})",
                    s.join(", ")
                ),
                &ex,
            ),
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
                    advisories.push(
                        format!(
                            "`error.data.supported` is [{}] but `server/discover` lists [{}]",
                            s.join(", "),
                            advertised.join(", ")
                        ),
                        &ex,
                    );
                }
            }
        }
        match requested {
            Some(Value::String(r)) if *r == version => {}
            other => data_faults.push(
                format!(
                    "refusing `{version}`, `error.data.requested` is {}",
                    other.map_or_else(|| "absent".to_owned(), Value::to_string)
                ),
                &ex,
            ),
        }
        if http
            && !always_200
            && let Some(status) = ex.http_status.filter(|s| *s != 400)
        {
            status_faults.push(
                format!("refusing `{version}` came with HTTP {status}, not 400"),
                &ex,
            );
        }
    }
    advisories.facts.dedup();
    let mut findings = Vec::new();
    if !data_faults.is_empty() {
        findings.push(
            SEAL024
                .finding(
                    format!("{}.", data_faults.facts.join("; ")),
                    "UnsupportedProtocolVersion (`-32022`) has REQUIRED `data.supported` (the versions the server accepts) and `data.requested` (the version refused).",
                    "Build the -32022 error with `data.supported` from the list `server/discover` returns and `data.requested` echoing the request's version.",
                )
                .titled("UnsupportedProtocolVersion errors lack or misstate data.supported and data.requested")
                .evidence(data_faults.evidence.iter()),
        );
    }
    if !list_faults.is_empty() || !advisories.is_empty() {
        let severity = if list_faults.is_empty() {
            Severity::Warning
        } else {
            Severity::Error
        };
        let mut facts = list_faults.facts.clone();
        facts.extend(advisories.facts.iter().cloned());
        let mut finding = SEAL024
            .finding(
                format!("{}.", facts.join("; ")),
                "Every version in `server/discover`'s `supportedVersions` is accepted, and a -32022's `data.supported` lists the same (2026-style) versions and never the one it refuses.",
                "Advertise only the versions the request validation accepts, and build `data.supported` from that same list.",
            )
            .severity(severity)
            .evidence(
                list_faults
                    .evidence
                    .iter()
                    .chain(advisories.evidence.iter())
                    .chain([&p.discover]),
            );
        if severity == Severity::Warning {
            finding = finding.titled(
                "UnsupportedProtocolVersion's data.supported disagrees with server/discover",
            );
        }
        findings.push(finding);
    }
    if !status_faults.is_empty() {
        findings.push(
            SEAL024
                .finding(
                    format!("{}.", status_faults.facts.join("; ")),
                    "Over Streamable HTTP an UnsupportedProtocolVersion error is sent with status 400 Bad Request.",
                    "Send HTTP 400 with the -32022 error body.",
                )
                .titled("UnsupportedProtocolVersion errors are not sent with HTTP 400")
                .evidence(status_faults.evidence.iter()),
        );
    }
    Ok(findings)
}

/// The facts of one fault and the exchanges behind them (each exchange once).
#[derive(Default)]
struct Bucket {
    facts: Vec<String>,
    evidence: Vec<Exchange>,
}

impl Bucket {
    fn push(&mut self, fact: String, ex: &Exchange) {
        self.facts.push(fact);
        if !self.evidence.contains(ex) {
            self.evidence.push(ex.clone());
        }
    }

    fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }
}
