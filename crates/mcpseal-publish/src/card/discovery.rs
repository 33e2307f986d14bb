//! Where cards are looked for, in order, and the AI Catalog that can point to them.
//!
//! Order (`card check`): the AI Catalog at `/.well-known/ai-catalog.json` (its card entries,
//! by `url` or inline `data`), then `<mcp-url>/server-card` (the extension's reserved place,
//! asked with `Accept: application/mcp-server-card+json`), then the paths in use in the wild:
//! `/.well-known/mcp/server-card`, `/.well-known/mcp/server-card.json`, `/.well-known/mcp.json`.

use serde_json::Value;

use crate::keys::{CARD_MEDIA_TYPE, CATALOG_MEDIA_TYPE};

/// A place a card is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Place {
    /// `/.well-known/ai-catalog.json` (a catalog, not a card).
    Catalog,
    /// A card named by a catalog entry (`url`) or carried inline (`data`).
    CatalogEntry,
    /// `<mcp-url>/server-card`.
    Reserved,
    /// `/.well-known/mcp/server-card`.
    WellKnownServerCard,
    /// `/.well-known/mcp/server-card.json` (Smithery's).
    WellKnownServerCardJson,
    /// `/.well-known/mcp.json` (SEP-1649).
    WellKnownMcpJson,
}

impl Place {
    /// A stable name for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Place::Catalog => "ai-catalog",
            Place::CatalogEntry => "catalog-entry",
            Place::Reserved => "server-card",
            Place::WellKnownServerCard => "well-known-server-card",
            Place::WellKnownServerCardJson => "well-known-server-card-json",
            Place::WellKnownMcpJson => "well-known-mcp-json",
        }
    }

    /// The `Accept` header to send.
    pub fn accept(self) -> &'static str {
        match self {
            Place::Catalog => "application/ai-catalog+json, application/json",
            Place::CatalogEntry | Place::Reserved => CARD_MEDIA_TYPE,
            _ => "application/json",
        }
    }

    /// The media types a good answer carries (the first is the preferred one).
    pub fn media_types(self) -> &'static [&'static str] {
        match self {
            Place::Catalog => &[CATALOG_MEDIA_TYPE, "application/json"],
            Place::CatalogEntry | Place::Reserved => &[CARD_MEDIA_TYPE],
            _ => &[CARD_MEDIA_TYPE, "application/json"],
        }
    }
}

/// The origin (`scheme://host[:port]`) of an absolute URL, `None` when it has none.
pub fn origin(url: &str) -> Option<&str> {
    let (scheme, rest) = url.split_once("://")?;
    if scheme.is_empty() {
        return None;
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if end == 0 {
        return None;
    }
    Some(&url[..scheme.len() + 3 + end])
}

/// The fixed places for an MCP endpoint URL, in discovery order (the catalog's entries come
/// after the catalog, when it answers).
pub fn places(mcp_url: &str) -> Vec<(Place, String)> {
    let Some(origin) = origin(mcp_url) else {
        return Vec::new();
    };
    let endpoint = mcp_url.split(['?', '#']).next().unwrap_or(mcp_url);
    vec![
        (
            Place::Catalog,
            format!("{origin}/.well-known/ai-catalog.json"),
        ),
        (
            Place::Reserved,
            format!("{}/server-card", endpoint.trim_end_matches('/')),
        ),
        (
            Place::WellKnownServerCard,
            format!("{origin}/.well-known/mcp/server-card"),
        ),
        (
            Place::WellKnownServerCardJson,
            format!("{origin}/.well-known/mcp/server-card.json"),
        ),
        (
            Place::WellKnownMcpJson,
            format!("{origin}/.well-known/mcp.json"),
        ),
    ]
}

/// A card entry of an AI Catalog.
#[derive(Debug, Clone, PartialEq)]
pub enum CatalogEntry {
    /// Fetch the card from this URL.
    Url {
        /// The entry's `identifier`.
        identifier: String,
        /// Where the card is.
        url: String,
    },
    /// The card itself.
    Inline {
        /// The entry's `identifier`.
        identifier: String,
        /// The card.
        data: Value,
    },
}

/// The card entries of an AI Catalog (`entries[]` of `type` `application/mcp-server-card+json`
/// with `url` or `data`); other entries are ignored. `Err` when the document is not a catalog.
pub fn catalog_entries(doc: &Value) -> Result<Vec<CatalogEntry>, String> {
    let entries = doc
        .get("entries")
        .and_then(Value::as_array)
        .ok_or("an AI Catalog has an `entries` array")?;
    Ok(entries
        .iter()
        .filter(|e| e.get("type").and_then(Value::as_str) == Some(CARD_MEDIA_TYPE))
        .filter_map(|e| {
            let identifier = e
                .get("identifier")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            if let Some(url) = e.get("url").and_then(Value::as_str) {
                Some(CatalogEntry::Url {
                    identifier,
                    url: url.to_owned(),
                })
            } else {
                e.get("data").map(|d| CatalogEntry::Inline {
                    identifier,
                    data: d.clone(),
                })
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn places_follow_the_issue_order() {
        let p = places("http://127.0.0.1:9/mcp?x=1");
        let urls: Vec<&str> = p.iter().map(|(_, u)| u.as_str()).collect();
        assert_eq!(
            urls,
            [
                "http://127.0.0.1:9/.well-known/ai-catalog.json",
                "http://127.0.0.1:9/mcp/server-card",
                "http://127.0.0.1:9/.well-known/mcp/server-card",
                "http://127.0.0.1:9/.well-known/mcp/server-card.json",
                "http://127.0.0.1:9/.well-known/mcp.json",
            ]
        );
        assert_eq!(origin("https://a.example"), Some("https://a.example"));
        assert_eq!(origin("nope"), None);
    }

    #[test]
    fn catalog_entries_are_read() {
        let doc = json!({"specVersion": "1.0", "entries": [
            {"identifier": "urn:air:a", "type": CARD_MEDIA_TYPE, "url": "https://b/card"},
            {"identifier": "urn:air:b", "type": CARD_MEDIA_TYPE, "data": {"name": "x/y"}},
            {"identifier": "urn:air:c", "type": "application/agent-card+json", "url": "https://c"}]});
        let e = catalog_entries(&doc).expect("catalog");
        assert_eq!(e.len(), 2);
        assert!(catalog_entries(&json!({})).is_err());
    }
}
