//! `registry:NAME@VER` targets: the entry is read at run time from the MCP Registry's v0.1 API
//! (`GET {base}/v0.1/servers/{name}/versions/{version}`, each parameter encoded once, 5xx and
//! 429 retried with `Retry-After` by the same client as `registry verify`), and expanded into
//! what it names — its first npm or PyPI package (the pin `replay registry:` builds, with the
//! entry's `fileSha256` as the wheel's expected hash), else its first `streamable-http` remote.
//! The entry's fingerprint block, when it has one, is compared with the measured surface in
//! the block's own form and exclusions ([`published`]).

use std::time::Duration;

use mcpseal_client::PublicClient;
use mcpseal_index::document::{Published, PublishedState};
use mcpseal_publish::ClaimError;
use mcpseal_publish::block::{Claim, ClaimSource, read_claim};
use mcpseal_publish::keys::OFFICIAL_REGISTRY;
use mcpseal_publish::registry::{Entry, EntryRef, version_url};
use mcpseal_sources::Pin;
use mcpseal_surface::Surface;
use mcpseal_surface::lock::live_sha256;
use serde_json::Value;

use crate::publish::get_with_retry;
use crate::replay::registry::{package_pin, pin_label};

/// Attempts at the registry (5xx and 429 retried).
const ATTEMPTS: u32 = 3;
/// Largest entry read.
const MAX_ENTRY_BYTES: usize = 4 * 1024 * 1024;

/// What a registry entry expands into.
pub(crate) enum Expanded {
    /// Install and start this package.
    Package(Pin),
    /// Connect to this remote.
    Remote(String),
}

impl Expanded {
    /// `npm:PKG@VER`, `pypi:PKG==VER` or `url:URL` (the row's `expanded`).
    pub(crate) fn label(&self) -> String {
        match self {
            Expanded::Package(pin) => pin_label(pin),
            Expanded::Remote(url) => format!("url:{url}"),
        }
    }
}

/// Reads the entry `name@version` from the registry at `base` (default the official one).
///
/// # Errors
/// Why, in one line (unreachable, 404, not a `ServerResponse`).
pub(crate) async fn entry(
    base: Option<&str>,
    name: &str,
    version: &str,
    timeout: Duration,
) -> Result<Entry, String> {
    let base = base.unwrap_or(OFFICIAL_REGISTRY);
    let url = version_url(
        base,
        &EntryRef {
            name: name.to_owned(),
            version: version.to_owned(),
        },
    );
    let client = PublicClient::new(timeout, MAX_ENTRY_BYTES).map_err(|e| e.to_string())?;
    let (answer, n) = get_with_retry(
        &client,
        &url,
        "application/json",
        ATTEMPTS,
        Duration::from_millis(500),
    )
    .await;
    match answer.status {
        Some(200) => {}
        Some(404) => {
            return Err(format!(
                "the registry has no `{name}@{version}` ({url}: 404)"
            ));
        }
        _ => {
            return Err(format!(
                "the registry entry could not be read ({url}: {} after {n} attempt(s))",
                answer.failure()
            ));
        }
    }
    let doc = answer.json().map_err(|e| format!("{url}: {e}"))?;
    let entry = Entry::from_value(&doc).map_err(|e| format!("{url}: {e}"))?;
    // The registry answered for another entry than the one asked: never measured as it.
    if entry.name() != name || entry.version() != Some(version) {
        return Err(format!(
            "{url} answered `{}@{}`, not the entry asked for",
            entry.name(),
            entry.version().unwrap_or("?")
        ));
    }
    Ok(entry)
}

/// The first `streamable-http` remote without URL variables, when it may be reached (`https`,
/// or plain `http` on a loopback host, the cohort file's own rule).
fn remote(server: &Value) -> Option<String> {
    server
        .get("remotes")
        .and_then(Value::as_array)?
        .iter()
        .filter(|r| r.get("type").and_then(Value::as_str) == Some("streamable-http"))
        .filter_map(|r| r.get("url").and_then(Value::as_str))
        .find(|u| {
            !u.contains('{')
                && (u.starts_with("https://")
                    || u.starts_with("http://") && super::manners::loopback(u))
        })
        .map(str::to_owned)
}

/// What `entry` is measured as.
///
/// # Errors
/// Why there is nothing mcpseal can install or reach.
pub(crate) fn expand(entry: &Entry) -> Result<Expanded, String> {
    match package_pin(&entry.server) {
        Ok(pin) => Ok(Expanded::Package(pin)),
        Err(no_package) => remote(&entry.server)
            .map(Expanded::Remote)
            .ok_or_else(|| format!("{no_package}, and no `streamable-http` remote")),
    }
}

/// The entry's fingerprint block, read once.
pub(crate) fn claim(entry: &Entry) -> Result<Claim, ClaimError> {
    read_claim(&entry.server)
}

fn block_name(c: &Claim) -> String {
    match c.source {
        ClaimSource::Mcpseal => "mcpseal".into(),
        ClaimSource::McpSurface => "mcp-surface".into(),
    }
}

/// The published column: the block against `surface` (`None`: not captured).
pub(crate) fn published(claim: &Result<Claim, ClaimError>, surface: Option<&Surface>) -> Published {
    let blank = |state, reason: String| Published {
        state,
        block: None,
        form: None,
        declared_sha256: None,
        live_sha256: None,
        reason: Some(reason),
    };
    let c = match claim {
        Ok(c) => c,
        Err(e) => return blank(PublishedState::None, e.to_string()),
    };
    let mut p = Published {
        state: PublishedState::NotCompared,
        block: Some(block_name(c)),
        form: Some(c.form.as_str().to_owned()),
        declared_sha256: Some(c.sha256.clone()),
        live_sha256: None,
        reason: None,
    };
    match surface {
        None => {
            p.reason = Some("the surface was not captured".into());
        }
        Some(s) => {
            let live = live_sha256(&s.canonical_value(c.form), &c.exclude);
            p.state = if live == c.sha256 {
                PublishedState::Match
            } else {
                PublishedState::Mismatch
            };
            p.live_sha256 = Some(live);
        }
    }
    p
}
