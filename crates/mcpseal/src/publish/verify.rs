//! `mcpseal registry verify NAME[@VERSION|latest]`: is a registry entry served as published?
//!
//! 1. Fetch `/v0.1/servers/{name}/versions/{version}` (each parameter encoded once), retrying
//!    5xx and 429 with backoff and `Retry-After`.
//! 2. Read the published block (mcpseal's, else mcp-surface's) as a [`Claim`]; check its own
//!    anonymous hash.
//! 3. For each `streamable-http` remote of the entry (and the block's endpoint when it is not
//!    one of them), **without any credential**: the can-it-say-no check and a trusted capture
//!    ([`crate::capture_trusted`]), the fingerprint in the block's form with its exclusions,
//!    the identity the live server gives (version, title, description) against the entry, the
//!    transport really served, and the anonymous answers the capture itself measured (it was
//!    made without a credential). A remote that differs is asked again, `--attempts` times,
//!    `--wait` apart (a deploy in progress).
//! 4. The entry's status (deprecated, deleted) is reported, never a mismatch.
//!
//! The published anonymous answers are re-measured by the anonymous-access measurement
//! ([`crate::anonymous::measure`]: each probe alone, no credential) and compared method by
//! method ([`remeasure_anonymous`]); a measurement without an answer leaves the remote
//! unverifiable, never a match. With `--package`, each npm/PyPI package of the entry is also
//! installed at its exact version and its stdio surface compared ([`super::package`]).
//!
//! Verdict: `verified` when at least one remote or package was compared; `matches` when, on
//! top, no check failed and nothing compared is a mismatch.

use std::time::Duration;

use mcpseal_client::{Options, PublicClient, Target};
use mcpseal_publish::block::{Claim, ClaimSource, read_claim};
use mcpseal_publish::keys::{MCP_SURFACE_KEY, MCPSEAL_KEY};
use mcpseal_publish::registry::{Entry, EntryRef, version_url};
use mcpseal_report::publish::registry::{
    EntryInfo, PublishedBlock, RegistryVerifyReport, RemoteReport, RemoteVerdict,
};
use mcpseal_report::publish::{Check, CheckState, any_failed};
use mcpseal_surface::lock::anonymous::Answers;
use mcpseal_surface::lock::live_sha256;
use mcpseal_surface::server_info;
use serde_json::Value;
use thiserror::Error;

use super::package::{PackageOptions, verify_packages};
use super::registry::{RegistryReadError, short};
use super::retry::get_with_retry;
use crate::snapshot::{SnapshotOptions, TrustedCapture, capture_trusted};

/// How to verify a registry entry.
#[derive(Debug, Clone)]
pub struct RegistryVerifyOptions {
    /// The entry.
    pub entry: EntryRef,
    /// The registry's base URL.
    pub registry: String,
    /// Attempts, for the registry fetch and for a remote that differs.
    pub attempts: u32,
    /// Wait between attempts (first backoff step for the registry).
    pub wait: Duration,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Most pages per list.
    pub page_cap: usize,
    /// `--package`: also install and capture each published package.
    pub package: Option<PackageOptions>,
}

/// Why `registry verify` has no verdict (exit 2). A claim that does not hold is a report,
/// not an error.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RegistryVerifyError {
    /// The registry could not be read.
    #[error("{0}")]
    Registry(#[from] RegistryReadError),
    /// No such entry.
    #[error("the registry has no `{0}` (404)")]
    NotFound(String),
    /// The entry publishes no usable fingerprint.
    #[error("`{entry}`: {source}")]
    Claim {
        /// `NAME@VERSION`.
        entry: String,
        /// Why.
        #[source]
        source: mcpseal_publish::ClaimError,
    },
}

impl RegistryVerifyError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            RegistryVerifyError::Registry(e) => e.hint(),
            RegistryVerifyError::NotFound(_) => {
                "check the name (`NAMESPACE/NAME`) and version; `mcpseal registry list --search TEXT` shows what the registry has"
            }
            RegistryVerifyError::Claim { .. } => {
                "the publisher must stamp `server.json` before publishing (`mcpseal registry stamp`); a registry version cannot be re-published"
            }
        }
    }
}

/// `mcpseal registry verify` (see the module docs).
///
/// # Errors
/// [`RegistryVerifyError`].
pub async fn verify(
    options: &RegistryVerifyOptions,
) -> Result<RegistryVerifyReport, RegistryVerifyError> {
    let client = PublicClient::new(options.timeout, 4 * 1024 * 1024)
        .map_err(|e| RegistryVerifyError::Registry(RegistryReadError::Client(e.to_string())))?;
    let url = version_url(&options.registry, &options.entry);
    let (answer, fetch_attempts) = get_with_retry(
        &client,
        &url,
        "application/json",
        options.attempts,
        options.wait,
    )
    .await;
    if answer.status == Some(404) {
        return Err(RegistryVerifyError::NotFound(options.entry.to_string()));
    }
    if answer.status != Some(200) {
        return Err(RegistryReadError::Unreachable {
            reason: format!("{} after {fetch_attempts} attempt(s)", answer.failure()),
            url,
        }
        .into());
    }
    let bad = |reason: String| RegistryReadError::BadAnswer {
        url: url.clone(),
        reason,
    };
    let doc = answer.json().map_err(bad)?;
    let entry = Entry::from_value(&doc).map_err(|e| bad(e.to_string()))?;
    let claim = read_claim(&entry.server).map_err(|source| RegistryVerifyError::Claim {
        entry: options.entry.to_string(),
        source,
    })?;

    let mut checks = Vec::new();
    if let Some(a) = &claim.anonymous {
        checks.push(Check::new(
            "registry/anonymous-hash",
            if a.hash_holds {
                CheckState::Pass
            } else {
                CheckState::Fail
            },
            "the block's anonymous section hashes to its published sha256",
            if a.hash_holds {
                format!("sha256 {} holds", short(&a.sha256))
            } else {
                format!(
                    "sha256 {} is not the hash of the published answers",
                    short(&a.sha256)
                )
            },
            "the published hash of the published answers",
        ));
    }

    let mut remotes: Vec<(String, String)> = entry
        .server
        .get("remotes")
        .and_then(Value::as_array)
        .map(|rs| {
            rs.iter()
                .filter_map(|r| {
                    Some((
                        r.get("url")?.as_str()?.to_owned(),
                        r.get("type")?.as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    if !remotes.iter().any(|(u, _)| *u == claim.endpoint) {
        checks.push(Check::new(
            "registry/endpoint",
            CheckState::Warn,
            "the block's endpoint is one of the entry's remotes",
            format!("`{}` is not among the remotes", claim.endpoint),
            "the endpoint the fingerprint was published for is listed in `remotes`",
        ));
        remotes.push((claim.endpoint.clone(), "streamable-http".into()));
    }

    let mut reports = Vec::new();
    let mut attempts_used = 1;
    for (url, transport) in &remotes {
        let (report, n) = verify_remote(options, &entry, &claim, url, transport).await;
        attempts_used = attempts_used.max(n);
        reports.push(report);
    }
    let packages = match &options.package {
        Some(p) => {
            verify_packages(p, options.timeout, options.page_cap, &entry.server, &claim).await
        }
        None => Vec::new(),
    };
    let verdicts = || {
        reports
            .iter()
            .map(|r| r.verdict)
            .chain(packages.iter().map(|p| p.verdict))
    };
    let verified = verdicts().any(|v| v != RemoteVerdict::Unverifiable);
    let matches =
        verified && !any_failed(&checks) && verdicts().all(|v| v != RemoteVerdict::Mismatch);
    Ok(RegistryVerifyReport {
        schema_version: 1,
        matches,
        verified,
        registry: options.registry.clone(),
        asked: options.entry.to_string(),
        entry: EntryInfo {
            url: version_url(&options.registry, &options.entry),
            name: entry.name().to_owned(),
            version: entry.version().map(str::to_owned),
            status: entry.status.map(|s| s.as_str().to_owned()),
            is_latest: entry.is_latest,
            published_at: entry.published_at.clone(),
        },
        block: PublishedBlock {
            source: match claim.source {
                ClaimSource::Mcpseal => "mcpseal".into(),
                ClaimSource::McpSurface => "mcp-surface".into(),
            },
            key: match claim.source {
                ClaimSource::Mcpseal => MCPSEAL_KEY.into(),
                ClaimSource::McpSurface => MCP_SURFACE_KEY.into(),
            },
            form: claim.form.as_str().to_owned(),
            endpoint: claim.endpoint.clone(),
            declared_sha256: claim.sha256.clone(),
            locked_at: claim.locked_at.clone(),
            exclude: claim
                .exclude
                .iter()
                .map(|p| p.as_str().to_owned())
                .collect(),
            anonymous_methods: claim
                .anonymous
                .as_ref()
                .map(|a| a.answers.keys().cloned().collect())
                .unwrap_or_default(),
            anonymous_hash_holds: claim.anonymous.as_ref().map(|a| a.hash_holds),
        },
        checks,
        remotes: reports,
        packages,
        fetch_attempts,
        attempts: attempts_used,
    })
}

fn unverifiable(url: &str, transport: &str, reason: String) -> RemoteReport {
    RemoteReport {
        url: url.to_owned(),
        transport: transport.to_owned(),
        verdict: RemoteVerdict::Unverifiable,
        reason: Some(reason),
        era: None,
        live_sha256: None,
        reported_version: None,
        checks: Vec::new(),
    }
}

async fn verify_remote(
    options: &RegistryVerifyOptions,
    entry: &Entry,
    claim: &Claim,
    url: &str,
    transport: &str,
) -> (RemoteReport, u32) {
    if transport != "streamable-http" {
        return (
            unverifiable(
                url,
                transport,
                format!(
                    "transport `{transport}` (the 2024-11-05 HTTP+SSE transport) is not spoken by mcpseal"
                ),
            ),
            1,
        );
    }
    if url.contains('{') {
        return (
            unverifiable(
                url,
                transport,
                "a URL template: its variables are the user's to fill".into(),
            ),
            1,
        );
    }
    let attempts = options.attempts.max(1);
    let mut n = 1;
    loop {
        let report = one_remote(options, entry, claim, url, transport).await;
        if report.verdict != RemoteVerdict::Mismatch || n >= attempts {
            return (report, n);
        }
        tokio::time::sleep(options.wait).await;
        n += 1;
    }
}

async fn one_remote(
    options: &RegistryVerifyOptions,
    entry: &Entry,
    claim: &Claim,
    url: &str,
    transport: &str,
) -> RemoteReport {
    // No user header ever: the URL comes from the registry, and this verifies what any client
    // of the registry sees.
    let connect = Options {
        timeout: options.timeout,
        ..Options::default()
    };
    let conn = match crate::open(&Target::http(url), connect).await {
        Ok(c) => c,
        Err(e) => return unverifiable(url, transport, e.to_string()),
    };
    let captured = capture_trusted(
        &conn,
        &SnapshotOptions {
            form: claim.form,
            page_cap: options.page_cap,
        },
    )
    .await;
    let captured = match captured {
        Ok(c) => c,
        Err(e) => {
            conn.close().await;
            return unverifiable(url, transport, e.to_string());
        }
    };
    let measured = match &claim.anonymous {
        Some(_) => {
            let m = crate::anonymous::measure(
                &conn,
                &captured,
                &crate::anonymous::AnonymousOptions::default(),
            )
            .await;
            match m {
                Ok(m) => Some(m.answers),
                Err(e) => {
                    conn.close().await;
                    return unverifiable(url, transport, e.to_string());
                }
            }
        }
        None => None,
    };
    conn.close().await;
    let mut checks = Vec::new();
    // The hash `lock::compare` gives a lock's own check; the block carries no surface to diff.
    let live_sha256 = live_sha256(
        &captured.surface.canonical_value(claim.form),
        &claim.exclude,
    );
    checks.push(Check::new(
        "registry/fingerprint",
        if live_sha256 == claim.sha256 {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        "the live surface has the published fingerprint",
        format!("live {} ({})", short(&live_sha256), claim.form),
        format!(
            "published {} (locked at {})",
            short(&claim.sha256),
            claim.locked_at
        ),
    ));
    identity_checks(&mut checks, entry, &captured);
    checks.push(Check::new(
        "registry/transport",
        CheckState::Pass,
        "the remote's transport is really served",
        format!(
            "answered over Streamable HTTP ({} era)",
            captured.surface.era().as_str()
        ),
        format!("a `{transport}` endpoint"),
    ));
    if let (Some(a), Some(m)) = (&claim.anonymous, &measured) {
        checks.extend(remeasure_anonymous(a, m));
    }
    let verdict = if any_failed(&checks) {
        RemoteVerdict::Mismatch
    } else {
        RemoteVerdict::Match
    };
    RemoteReport {
        url: url.to_owned(),
        transport: transport.to_owned(),
        verdict,
        reason: None,
        era: Some(captured.surface.era().as_str().to_owned()),
        live_sha256: Some(live_sha256),
        reported_version: captured.raw.reported_version(),
        checks: checks.into_iter().map(|c| c.on(url)).collect(),
    }
}

/// Version, title and description: what the live server says of itself against the entry
/// (title and description only where the server offers them).
fn identity_checks(checks: &mut Vec<Check>, entry: &Entry, captured: &TrustedCapture) {
    let result = captured.raw.server_result().unwrap_or(Value::Null);
    let info = server_info(&result).cloned().unwrap_or(Value::Null);
    let live = |k: &str| info.get(k).and_then(Value::as_str).map(str::to_owned);
    let published = |k: &str| {
        entry
            .server
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    match (live("version"), published("version")) {
        (Some(l), Some(p)) => checks.push(Check::new(
            "registry/version",
            if l == p {
                CheckState::Pass
            } else {
                CheckState::Fail
            },
            "the live server reports the entry's version",
            format!("serverInfo.version {l}"),
            format!("{p} (the entry's version)"),
        )),
        (None, Some(p)) => checks.push(Check::new(
            "registry/version",
            CheckState::Skipped,
            "the live server reports the entry's version",
            "no serverInfo.version",
            p,
        )),
        _ => {}
    }
    for field in ["title", "description", "websiteUrl"] {
        if let (Some(l), Some(p)) = (live(field), published(field)) {
            checks.push(Check::new(
                &format!(
                    "registry/{}",
                    if field == "websiteUrl" {
                        "website-url"
                    } else {
                        field
                    }
                ),
                if l == p {
                    CheckState::Pass
                } else {
                    CheckState::Fail
                },
                format!("the live server's {field} is the entry's"),
                format!("serverInfo.{field} {l:?}"),
                format!("{p:?}"),
            ));
        }
    }
}

/// What the published anonymous answers say against the anonymous measurement: each
/// published method the measurement probed is compared (open = it answers, or for
/// `tools/call` it reaches the handler); one it does not probe (another era's handshake, a
/// method of another block's probe list) is listed as skipped.
pub fn remeasure_anonymous(
    claim: &mcpseal_publish::block::ClaimAnonymous,
    measured: &Answers,
) -> Vec<Check> {
    let mut out = Vec::new();
    let mut unmeasured = Vec::new();
    for (method, expected) in &claim.answers {
        let Some(x) = measured.get(method) else {
            unmeasured.push(method.clone());
            continue;
        };
        let answers = x.open(method);
        // Like with like: an mcpseal block records the status and code too, so its expected
        // verdict is the same `open` (a `tools/call` of the impossible tool that reached the
        // handler counts as open); mcp-surface's blocks carry the verdict alone.
        let expected_open = match expected.status {
            Some(status) => mcpseal_surface::lock::anonymous::Answer {
                answers: expected.answers,
                status,
                code: expected.code,
            }
            .open(method),
            None => expected.answers,
        };
        let state = if answers == expected_open {
            CheckState::Pass
        } else {
            CheckState::Fail
        };
        let word = |b: bool| if b { "answers" } else { "refused" };
        out.push(Check::new(
            "registry/anonymous",
            state,
            format!("`{method}` without a credential is as published"),
            format!("{} (HTTP {})", word(answers), x.status),
            if answers && !expected_open {
                format!("refused, as published: anonymous access widened to `{method}`")
            } else {
                word(expected_open).to_owned()
            },
        ));
    }
    if !unmeasured.is_empty() {
        out.push(Check::new(
            "registry/anonymous",
            CheckState::Skipped,
            "published anonymous answers not re-measured",
            unmeasured.join(", "),
            "not a probe of the anonymous measurement for this server's era",
        ));
    }
    out
}
