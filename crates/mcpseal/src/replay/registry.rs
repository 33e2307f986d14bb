//! `replay registry:NAME`: the versions an MCP Registry lists for NAME, each pinned to its
//! package version; and registry presence, per row, when a registry is known.
//!
//! The listing is `GET {base}/v0.1/servers/{name}/versions` (the name encoded once, pages
//! followed through `metadata.nextCursor`) through the header-free public client, retried on
//! 5xx and 429 like `registry verify`. Each listed `server.json` version is a row, ordered by
//! its own semver; what is installed is its first npm or PyPI package entry, resolved with
//! [`Pin::from_registry_package`] and checked against that package registry
//! ([`Sources::resolve_pin`]). A version without such a package, or whose package version is
//! not published, is a row saying so (never skipped silently, never captured).

use std::time::Duration;

use mcpseal_client::PublicClient;
use mcpseal_publish::registry::{Entry, Page, Status as EntryStatus, encode_component};
use mcpseal_report::replay::{Outcome, RegistryPresence};
use mcpseal_sources::{Artifact, Pin, PublishedVersion, Source, Sources, Status};
use serde_json::Value;

use super::ReplayError;
use crate::publish::get_with_retry;

/// An MCP Registry to read: its base URL (without `/v0.1`) and the server name.
#[derive(Debug, Clone)]
pub struct RegistryLookup {
    /// The registry's base URL (`https://registry.modelcontextprotocol.io`).
    pub base: String,
    /// The server name (`io.github.me/weather`).
    pub name: String,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Attempts per page (5xx and 429 are retried with backoff).
    pub attempts: u32,
}

/// Most pages read from one listing (a registry that never ends its cursor).
const MAX_PAGES: usize = 100;

/// The listing URL of `lookup`, page `cursor`.
fn versions_url(lookup: &RegistryLookup, cursor: Option<&str>) -> String {
    let mut url = format!(
        "{}/v0.1/servers/{}/versions",
        lookup.base.trim_end_matches('/'),
        encode_component(&lookup.name)
    );
    if let Some(c) = cursor {
        url.push_str("?cursor=");
        url.push_str(&encode_component(c));
    }
    url
}

/// Every entry the registry lists for the name.
///
/// # Errors
/// [`ReplayError::Registry`] when the registry cannot be read or answers something else than a
/// `ServerList`; a 404 means the name is unknown.
pub(crate) async fn listing(lookup: &RegistryLookup) -> Result<Vec<Entry>, ReplayError> {
    let fail = |url: &str, why: String| ReplayError::Registry {
        url: url.to_owned(),
        reason: why,
    };
    let client = PublicClient::new(lookup.timeout, 16 * 1024 * 1024)
        .map_err(|e| fail(&lookup.base, e.to_string()))?;
    let mut out = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let url = versions_url(lookup, cursor.as_deref());
        let (answer, n) = get_with_retry(
            &client,
            &url,
            "application/json",
            lookup.attempts,
            Duration::from_millis(500),
        )
        .await;
        if answer.status == Some(404) {
            return Err(fail(
                &url,
                format!("the registry has no `{}` (404)", lookup.name),
            ));
        }
        if answer.status != Some(200) {
            return Err(fail(
                &url,
                format!("{} after {n} attempt(s)", answer.failure()),
            ));
        }
        let doc = answer.json().map_err(|e| fail(&url, e))?;
        let page = Page::from_value(&doc).map_err(|e| fail(&url, e.to_string()))?;
        out.extend(page.servers);
        match page.next_cursor {
            Some(c) if Some(&c) != cursor.as_ref() => cursor = Some(c),
            _ => return Ok(out),
        }
    }
    Ok(out)
}

/// One row of a registry replay, before it is measured.
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    /// The row: the server.json version, its publish date and status.
    pub row: PublishedVersion,
    /// What to install: the package source and its resolved version; or why there is none.
    pub install: Result<(Source, PublishedVersion), Outcome>,
    /// `npm:PKG@VER` / `pypi:PKG==VER` when the row pins a package.
    pub package: Option<String>,
    /// Registry presence.
    pub presence: Option<RegistryPresence>,
}

fn presence_of(e: &Entry) -> RegistryPresence {
    RegistryPresence {
        listed: true,
        status: e.status.map(|s| s.as_str().to_owned()),
    }
}

fn text<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// The first npm or PyPI package entry of a `server.json`, as a pin.
pub(crate) fn package_pin(server: &Value) -> Result<Pin, String> {
    let packages = server
        .get("packages")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let installable = packages
        .iter()
        .find(|p| matches!(text(p, "registryType"), Some("npm" | "pypi")));
    let Some(p) = installable else {
        let kinds: Vec<&str> = packages
            .iter()
            .filter_map(|p| text(p, "registryType"))
            .collect();
        return Err(if kinds.is_empty() {
            "this server.json version lists no package (remotes only): nothing to install".into()
        } else {
            format!(
                "this server.json version lists no npm or PyPI package (only {}): nothing mcpseal installs",
                kinds.join(", ")
            )
        });
    };
    Pin::from_registry_package(
        text(p, "registryType").unwrap_or(""),
        text(p, "identifier").unwrap_or(""),
        text(p, "version"),
        text(p, "registryBaseUrl"),
        text(p, "fileSha256"),
    )
    .map_err(|e| e.to_string())
}

/// `npm:PKG@VER` / `pypi:PKG==VER`.
pub(crate) fn pin_label(pin: &Pin) -> String {
    match &pin.source {
        Source::Pypi(p) => format!("pypi:{}=={}", p.name, pin.version),
        other => format!("{}@{}", other.id(), pin.version),
    }
}

/// The listed versions as rows (server.json version, publish date, registry status), for the
/// one ordering and filter ([`mcpseal_sources::select`]).
pub(crate) fn rows(entries: &[Entry]) -> Vec<PublishedVersion> {
    entries
        .iter()
        .map(|e| {
            let status = match e.status {
                Some(s @ (EntryStatus::Deprecated | EntryStatus::Deleted)) => Status::Deprecated {
                    message: format!(
                        "{} in the registry{}",
                        s.as_str(),
                        e.status_message
                            .as_deref()
                            .map(|m| format!(": {m}"))
                            .unwrap_or_default()
                    ),
                },
                _ => Status::Current,
            };
            PublishedVersion::new(
                e.version().unwrap_or(""),
                e.published_at.as_deref().and_then(|t| t.parse().ok()),
                status,
                // Nothing is installed from the row itself: its package is resolved by `plan`.
                Artifact::GitCommit {
                    commit: String::new(),
                    tag: None,
                },
            )
        })
        .collect()
}

/// One kept row of `registry:NAME`, pinned to its package.
pub(crate) async fn plan(sources: &Sources, entries: &[Entry], row: PublishedVersion) -> Planned {
    let entry = entries
        .iter()
        .find(|e| e.version() == Some(row.version.as_str()));
    let presence = entry.map(presence_of);
    let (install, package) = match entry.map(|e| package_pin(&e.server)) {
        None => (
            Err(Outcome::NotInstallable {
                message: "not in the listing".into(),
            }),
            None,
        ),
        Some(Err(message)) => (Err(Outcome::NotInstallable { message }), None),
        Some(Ok(pin)) => {
            let label = pin_label(&pin);
            match sources.resolve_pin(&pin).await {
                Ok(v) => (Ok((pin.source.clone(), v)), Some(label)),
                Err(err) => (
                    Err(Outcome::NotInstallable {
                        message: format!("{label}: {err}"),
                    }),
                    Some(label),
                ),
            }
        }
    };
    Planned {
        row,
        install,
        package,
        presence,
    }
}

/// For an npm or PyPI replay: whether the registry lists each package version (an entry
/// whose package of the same kind and identifier pins exactly that version).
pub(crate) fn presence_for(source: &Source, entries: &[Entry], version: &str) -> RegistryPresence {
    let found = entries.iter().find(|e| {
        package_pin(&e.server)
            .is_ok_and(|pin| pin.source.id() == source.id() && pin.version == version)
    });
    match found {
        Some(e) => presence_of(e),
        None => RegistryPresence {
            listed: false,
            status: None,
        },
    }
}
