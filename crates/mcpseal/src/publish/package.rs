//! `registry verify --package`: each npm/PyPI package a registry entry publishes, installed at
//! its exact version with install-time code off and started over stdio in the sandbox, its
//! surface compared with the published fingerprint.
//!
//! The install → sandboxed start → fail-closed capture is `replay`'s own
//! (`replay::measure`): one implementation, one cache. A package that is not npm or
//! PyPI, pins no exact version, does not install or does not start is `unverifiable` with the
//! reason, never a match; its `packageArguments` and `environmentVariables` are not filled in
//! (they are the user's to give), which the report says.

use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use mcpseal_publish::block::Claim;
use mcpseal_report::publish::registry::{PackageReport, RemoteVerdict};
use mcpseal_report::publish::{Check, CheckState, any_failed};
use mcpseal_report::replay::Outcome;
use mcpseal_sources::{Config, LaunchOptions, Pin, Sources};
use mcpseal_surface::lock::live_sha256;
use serde_json::Value;

use super::registry::short;
use crate::replay::measure::{Sandboxed, Tally, measure};
use crate::snapshot::SnapshotOptions;

/// How `--package` installs and starts packages.
#[derive(Debug, Clone)]
pub struct PackageOptions {
    /// The install cache and tools (shared with `replay`).
    pub config: Config,
    /// The launcher and isolation (network off unless the caller turns it on).
    pub launch: LaunchOptions,
    /// The whole start + capture of one package.
    pub deadline: Duration,
}

fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn unverifiable(
    registry_type: &str,
    identifier: &str,
    version: Option<&str>,
    reason: String,
) -> PackageReport {
    PackageReport {
        registry_type: registry_type.to_owned(),
        identifier: identifier.to_owned(),
        version: version.map(str::to_owned),
        verdict: RemoteVerdict::Unverifiable,
        reason: Some(reason),
        era: None,
        live_sha256: None,
        reported_version: None,
        isolation: Vec::new(),
        checks: Vec::new(),
    }
}

/// Why a measured package has no surface, in one line (with the last words of the installer
/// or the server).
fn failure_reason(outcome: &Outcome) -> String {
    let last = |lines: &[String]| {
        lines
            .last()
            .map(|l| format!(" (last line: {l})"))
            .unwrap_or_default()
    };
    match outcome {
        Outcome::Captured { .. } => "captured".into(),
        Outcome::InstallFailed {
            stage,
            message,
            log_tail,
        } => format!("install failed at {stage}: {message}{}", last(log_tail)),
        Outcome::NotInstallable { message } | Outcome::NoEntryPoint { message } => message.clone(),
        Outcome::DidNotStart { reason, stderr } => {
            format!("did not start: {reason}{}", last(stderr))
        }
    }
}

/// Verifies every package of `server` (the entry's `server.json`) against `claim`.
pub(crate) async fn verify_packages(
    options: &PackageOptions,
    timeout: Duration,
    page_cap: usize,
    server: &Value,
    claim: &Claim,
) -> Vec<PackageReport> {
    let packages: Vec<&Value> = server
        .get("packages")
        .and_then(Value::as_array)
        .map(|p| p.iter().collect())
        .unwrap_or_default();
    let sources = match Sources::new(options.config.clone()) {
        Ok(s) => Some(s),
        Err(e) => {
            return packages
                .iter()
                .map(|p| {
                    unverifiable(
                        text(p, "registryType").unwrap_or("?"),
                        text(p, "identifier").unwrap_or("?"),
                        text(p, "version"),
                        format!("{e} ({})", e.hint()),
                    )
                })
                .collect();
        }
    };
    let mut out = Vec::new();
    for p in packages {
        let kind = text(p, "registryType").unwrap_or("?");
        let identifier = text(p, "identifier").unwrap_or("?");
        let version = text(p, "version");
        let transport = p
            .get("transport")
            .and_then(|t| text(t, "type"))
            .unwrap_or("stdio");
        if transport != "stdio" {
            out.push(unverifiable(
                kind,
                identifier,
                version,
                format!(
                    "transport `{transport}`: only stdio packages are installed and started here"
                ),
            ));
            continue;
        }
        let Some(sources) = &sources else { continue };
        out.push(
            one_package(
                options,
                sources,
                timeout,
                page_cap,
                (kind, identifier, version),
                p,
                claim,
            )
            .await,
        );
    }
    out
}

async fn one_package(
    options: &PackageOptions,
    sources: &Sources,
    timeout: Duration,
    page_cap: usize,
    (kind, identifier, version): (&str, &str, Option<&str>),
    p: &Value,
    claim: &Claim,
) -> PackageReport {
    let pin = match Pin::from_registry_package(
        kind,
        identifier,
        version,
        text(p, "registryBaseUrl"),
        text(p, "fileSha256"),
    ) {
        Ok(pin) => pin,
        Err(e) => return unverifiable(kind, identifier, version, e.to_string()),
    };
    let published = match sources.resolve_pin(&pin).await {
        Ok(v) => v,
        Err(e) => {
            return unverifiable(kind, identifier, version, format!("{e} ({})", e.hint()));
        }
    };
    let snapshot = SnapshotOptions {
        form: claim.form,
        page_cap,
    };
    let sandboxed = Sandboxed {
        launch: &options.launch,
        request_timeout: timeout,
        deadline: options.deadline,
    };
    let tally = Tally {
        job: "registry verify --package",
        done: AtomicUsize::new(0),
        total: 1,
    };
    let m = measure(
        sources,
        &sandboxed,
        &snapshot,
        &pin.source,
        &published,
        &tally,
    )
    .await;
    let isolation = m.isolation.clone().unwrap_or_default();
    let (
        Some(canonical),
        Outcome::Captured {
            era,
            reported_version,
            ..
        },
    ) = (m.canonical, &m.outcome)
    else {
        return PackageReport {
            isolation,
            ..unverifiable(kind, identifier, version, failure_reason(&m.outcome))
        };
    };
    let live = live_sha256(&canonical, &claim.exclude);
    let subject = format!("{kind}:{identifier}@{}", pin.version);
    let mut checks = vec![Check::new(
        "registry/package-fingerprint",
        if live == claim.sha256 {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        "the published package's stdio surface has the published fingerprint",
        format!("package {} ({})", short(&live), claim.form),
        format!(
            "published {} (locked at {})",
            short(&claim.sha256),
            claim.locked_at
        ),
    )];
    // The package is the version it was published as; one that says otherwise is shown, not
    // failed (the fingerprint is the promise).
    if let Some(reported) = reported_version {
        checks.push(Check::new(
            "registry/package-version",
            if *reported == pin.version {
                CheckState::Pass
            } else {
                CheckState::Warn
            },
            "the started package reports its published version",
            format!("serverInfo.version {reported}"),
            format!("{} (the package version)", pin.version),
        ));
    }
    if p.get("packageArguments").is_some() || p.get("environmentVariables").is_some() {
        checks.push(Check::new(
            "registry/package-arguments",
            CheckState::Skipped,
            "the package's declared arguments and environment",
            "started without them",
            "they are the user's to fill in",
        ));
    }
    let verdict = if any_failed(&checks) {
        RemoteVerdict::Mismatch
    } else {
        RemoteVerdict::Match
    };
    PackageReport {
        registry_type: kind.to_owned(),
        identifier: identifier.to_owned(),
        version: Some(pin.version.clone()),
        verdict,
        reason: None,
        era: Some(era.clone()),
        live_sha256: Some(live),
        reported_version: reported_version.clone(),
        isolation,
        checks: checks.into_iter().map(|c| c.on(&subject)).collect(),
    }
}
