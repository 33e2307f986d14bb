//! The registry's v0.1 read API, as data: request URLs and response documents.
//!
//! * [`EntryRef`]: `NAME[@VERSION|latest]` as given on the command line;
//! * [`version_url`], [`list_url`]: the paths of `openapi.yaml`, each path parameter
//!   URL-encoded **once** as `encodeURIComponent` does (`io.github.me%2Fweather`,
//!   `1.0.0%2B20130313144700`);
//! * [`Entry`]: a `ServerResponse` (`server` + registry-managed `_meta`), [`Page`]: a
//!   `ServerList` with its `metadata.nextCursor`.
//!
//! No I/O: the facade fetches, this module builds and reads.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::Value;
use thiserror::Error;

use crate::keys::{MCP_SURFACE_KEY, MCPSEAL_KEY, OFFICIAL, PUBLISHER_PROVIDED};

/// What `encodeURIComponent` leaves alone: `A-Z a-z 0-9 - _ . ! ~ * ' ( )`.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `s` URL-encoded as one path segment or query value (`encodeURIComponent`).
pub fn encode_component(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// `NAME[@VERSION|latest]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryRef {
    /// The server name (`io.github.me/weather`).
    pub name: String,
    /// The version, or `latest`.
    pub version: String,
}

/// A reference that is not `NAME[@VERSION]`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "`{0}` is not a registry name: expected `NAMESPACE/NAME[@VERSION|latest]`, e.g. `io.github.me/weather@1.2.0`"
)]
pub struct BadEntryRef(pub String);

impl EntryRef {
    /// Parses `NAME[@VERSION]` (server names never contain `@`; `latest` when no version).
    ///
    /// # Errors
    /// [`BadEntryRef`] when the name has no `/` or either part is empty.
    pub fn parse(s: &str) -> Result<EntryRef, BadEntryRef> {
        let (name, version) = match s.rsplit_once('@') {
            Some((n, v)) => (n, v),
            None => (s, "latest"),
        };
        let ok = name
            .split_once('/')
            .is_some_and(|(ns, n)| !ns.is_empty() && !n.is_empty())
            && !version.is_empty()
            && !name.chars().any(char::is_whitespace);
        if !ok {
            return Err(BadEntryRef(s.to_owned()));
        }
        Ok(EntryRef {
            name: name.to_owned(),
            version: version.to_owned(),
        })
    }
}

impl std::fmt::Display for EntryRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}@{}", self.name, self.version)
    }
}

fn base(registry: &str) -> &str {
    registry.trim_end_matches('/')
}

/// `GET {registry}/v0.1/servers/{name}/versions/{version}`.
pub fn version_url(registry: &str, entry: &EntryRef) -> String {
    format!(
        "{}/v0.1/servers/{}/versions/{}",
        base(registry),
        encode_component(&entry.name),
        encode_component(&entry.version)
    )
}

/// `GET {registry}/v0.1/servers?…` with the given query parameters (values encoded once).
pub fn list_url(registry: &str, query: &[(&str, &str)]) -> String {
    let mut url = format!("{}/v0.1/servers", base(registry));
    for (i, (k, v)) in query.iter().enumerate() {
        url.push(if i == 0 { '?' } else { '&' });
        url.push_str(k);
        url.push('=');
        url.push_str(&encode_component(v));
    }
    url
}

/// A registry entry's lifecycle status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// `active`.
    Active,
    /// `deprecated`.
    Deprecated,
    /// `deleted`.
    Deleted,
}

impl Status {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Deprecated => "deprecated",
            Status::Deleted => "deleted",
        }
    }
}

/// A `ServerResponse`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The published `server.json`.
    pub server: Value,
    /// `_meta[official].status` (`None`: absent or unknown).
    pub status: Option<Status>,
    /// `_meta[official].isLatest`.
    pub is_latest: Option<bool>,
    /// `_meta[official].publishedAt`.
    pub published_at: Option<String>,
    /// `_meta[official].statusMessage` (unreleased API; shown when present).
    pub status_message: Option<String>,
}

/// A response that is not the documented shape.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the registry's answer is not a {what}: {reason}")]
pub struct BadResponse {
    /// `ServerResponse` or `ServerList`.
    pub what: &'static str,
    /// Why.
    pub reason: String,
}

impl Entry {
    /// Reads a `ServerResponse`.
    ///
    /// # Errors
    /// [`BadResponse`] when there is no `server` object with a string `name`.
    pub fn from_value(v: &Value) -> Result<Entry, BadResponse> {
        let bad = |reason: &str| BadResponse {
            what: "ServerResponse",
            reason: reason.to_owned(),
        };
        let server = v.get("server").ok_or_else(|| bad("no `server` member"))?;
        if server.get("name").and_then(Value::as_str).is_none() {
            return Err(bad("`server.name` is not a string"));
        }
        let official = v.get("_meta").and_then(|m| m.get(OFFICIAL));
        let text = |k: &str| {
            official
                .and_then(|o| o.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        Ok(Entry {
            server: server.clone(),
            status: match text("status").as_deref() {
                Some("active") => Some(Status::Active),
                Some("deprecated") => Some(Status::Deprecated),
                Some("deleted") => Some(Status::Deleted),
                _ => None,
            },
            is_latest: official
                .and_then(|o| o.get("isLatest"))
                .and_then(Value::as_bool),
            published_at: text("publishedAt"),
            status_message: text("statusMessage"),
        })
    }

    /// `server.name`.
    pub fn name(&self) -> &str {
        self.server
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// `server.version`.
    pub fn version(&self) -> Option<&str> {
        self.server.get("version").and_then(Value::as_str)
    }

    /// Which fingerprint blocks the entry publishes (`mcpseal`, `mcp-surface`).
    pub fn blocks(&self) -> Vec<&'static str> {
        let provided = self
            .server
            .get("_meta")
            .and_then(|m| m.get(PUBLISHER_PROVIDED));
        [(MCPSEAL_KEY, "mcpseal"), (MCP_SURFACE_KEY, "mcp-surface")]
            .into_iter()
            .filter(|(k, _)| provided.and_then(|p| p.get(*k)).is_some())
            .map(|(_, n)| n)
            .collect()
    }
}

/// A `ServerList` page.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// The entries.
    pub servers: Vec<Entry>,
    /// `metadata.nextCursor` when non-empty.
    pub next_cursor: Option<String>,
}

impl Page {
    /// Reads a `ServerList`.
    ///
    /// # Errors
    /// [`BadResponse`] when `servers` is not an array of `ServerResponse`s.
    pub fn from_value(v: &Value) -> Result<Page, BadResponse> {
        let servers = v
            .get("servers")
            .and_then(Value::as_array)
            .ok_or_else(|| BadResponse {
                what: "ServerList",
                reason: "no `servers` array".into(),
            })?
            .iter()
            .map(Entry::from_value)
            .collect::<Result<_, _>>()?;
        let next_cursor = v
            .get("metadata")
            .and_then(|m| m.get("nextCursor"))
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        Ok(Page {
            servers,
            next_cursor,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_and_versions_are_encoded_once() {
        let e = EntryRef::parse("io.github.me/weather@1.0.0+20130313144700").expect("parses");
        assert_eq!(
            version_url("https://r.example/", &e),
            "https://r.example/v0.1/servers/io.github.me%2Fweather/versions/1.0.0%2B20130313144700"
        );
        let latest = EntryRef::parse("com.example/a-b_c.d").expect("parses");
        assert_eq!(latest.version, "latest");
        assert_eq!(
            list_url("http://h", &[("search", "a b/c"), ("cursor", "x+y")]),
            "http://h/v0.1/servers?search=a%20b%2Fc&cursor=x%2By"
        );
        for bad in ["weather", "/x", "a/", "a/b@", "a b/c"] {
            assert!(EntryRef::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn responses_are_read() {
        let v = json!({"servers": [{"server": {"name": "a/b", "version": "1"},
            "_meta": {OFFICIAL: {"status": "deprecated", "isLatest": true}}}],
            "metadata": {"nextCursor": "", "count": 1}});
        let p = Page::from_value(&v).expect("page");
        assert_eq!(p.next_cursor, None, "an empty cursor ends the listing");
        assert_eq!(p.servers[0].status, Some(Status::Deprecated));
        assert!(Page::from_value(&json!({"servers": [{}]})).is_err());
    }
}
