//! Server cards: the public, pre-connection description of a server.
//!
//! Three shapes are in use ([`CardShape`]):
//! * **v1**, the server-card extension's (`$schema` `…/schemas/v1/server-card.schema.json`,
//!   `name`, `version`, `description`, `remotes[]` with `supportedProtocolVersions`; no
//!   primitives);
//! * **Smithery**'s `/.well-known/mcp/server-card.json`: `serverInfo {name, version}`,
//!   `authentication`, and the lists shaped like MCP list results;
//! * **legacy** (SEP-1649 `/.well-known/mcp.json`): a mirrored `initialize` (`serverInfo`,
//!   `protocolVersion`, `capabilities`) without lists;
//! * anything else is **unknown**.
//!
//! [`detect`] classifies, [`validate`](mod@validate) judges each shape offline, [`Card`]
//! extracts what a card claims (identity, remotes, versions, lists) for reconciliation with
//! the live server, [`emit`] writes v1 and Smithery cards from a lock, and [`discovery`] names
//! the places a card is looked for.

pub mod discovery;
pub mod emit;
pub mod validate;

use serde_json::Value;

use mcpseal_protocol::ListKind;

/// The shape of a card (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CardShape {
    /// The server-card extension's v1.
    V1,
    /// Smithery's.
    Smithery,
    /// SEP-1649's mirrored `initialize`.
    Legacy,
    /// None of the above.
    Unknown,
}

impl CardShape {
    /// `v1`, `smithery`, `legacy`, `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            CardShape::V1 => "v1",
            CardShape::Smithery => "smithery",
            CardShape::Legacy => "legacy",
            CardShape::Unknown => "unknown",
        }
    }
}

/// Classifies a card document.
///
/// v1: a `$schema` member, or top-level string `name` and `version` without `serverInfo` (so
/// a v1 card with a wrong `$schema` is judged by the v1 schema, which names the fault).
/// Smithery: `serverInfo` plus lists or `authentication`. Legacy: `serverInfo` alone.
pub fn detect(doc: &Value) -> CardShape {
    let Some(obj) = doc.as_object() else {
        return CardShape::Unknown;
    };
    let has_server_info = obj.get("serverInfo").is_some_and(Value::is_object);
    if obj.contains_key("$schema")
        || (!has_server_info
            && obj.get("name").is_some_and(Value::is_string)
            && obj.get("version").is_some_and(Value::is_string))
    {
        return CardShape::V1;
    }
    if has_server_info {
        let lists = ListKind::ALL.iter().any(|k| obj.contains_key(k.key()));
        if lists || obj.contains_key("authentication") {
            return CardShape::Smithery;
        }
        return CardShape::Legacy;
    }
    CardShape::Unknown
}

/// One remote a card names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardRemote {
    /// `streamable-http` or `sse`.
    pub kind: String,
    /// The URL (possibly a template).
    pub url: String,
    /// `supportedProtocolVersions`, when given.
    pub supported_versions: Option<Vec<String>>,
}

/// What a card claims, whatever its shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Card {
    /// The shape.
    pub shape: CardShape,
    /// The v1 reverse-DNS `name`.
    pub name: Option<String>,
    /// `serverInfo.name` (Smithery, legacy).
    pub server_name: Option<String>,
    /// The version (v1 `version`, else `serverInfo.version`).
    pub version: Option<String>,
    /// `title` (v1, or `serverInfo.title`).
    pub title: Option<String>,
    /// Remotes (v1).
    pub remotes: Vec<CardRemote>,
    /// A single `protocolVersion` (Smithery, legacy).
    pub protocol_version: Option<String>,
    /// The lists the card enumerates, by kind (absent: the card does not list it).
    pub lists: Vec<(ListKind, Value)>,
}

impl Card {
    /// Reads what `doc` claims (best effort: a field of the wrong type is simply not claimed;
    /// [`validate`](mod@validate) reports it).
    pub fn of(doc: &Value) -> Card {
        let shape = detect(doc);
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let info = doc.get("serverInfo");
        let remotes = doc
            .get("remotes")
            .and_then(Value::as_array)
            .map(|rs| {
                rs.iter()
                    .filter_map(|r| {
                        Some(CardRemote {
                            kind: r.get("type")?.as_str()?.to_owned(),
                            url: r.get("url")?.as_str()?.to_owned(),
                            supported_versions: r
                                .get("supportedProtocolVersions")
                                .and_then(Value::as_array)
                                .map(|a| {
                                    a.iter()
                                        .filter_map(|v| v.as_str().map(str::to_owned))
                                        .collect()
                                }),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let lists = if shape == CardShape::V1 {
            Vec::new()
        } else {
            ListKind::ALL
                .iter()
                .filter_map(|k| doc.get(k.key()).map(|v| (*k, v.clone())))
                .collect()
        };
        Card {
            shape,
            name: if shape == CardShape::V1 {
                text(doc.get("name"))
            } else {
                None
            },
            server_name: text(info.and_then(|i| i.get("name"))),
            version: if shape == CardShape::V1 {
                text(doc.get("version"))
            } else {
                text(info.and_then(|i| i.get("version")))
            },
            title: text(doc.get("title")).or_else(|| text(info.and_then(|i| i.get("title")))),
            remotes,
            protocol_version: text(doc.get("protocolVersion")),
            lists,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_are_told_apart() {
        assert_eq!(
            detect(&json!({"$schema": "x", "name": "a/b"})),
            CardShape::V1
        );
        assert_eq!(
            detect(&json!({"name": "a/b", "version": "1"})),
            CardShape::V1
        );
        assert_eq!(
            detect(&json!({"serverInfo": {"name": "a", "version": "1"}, "tools": []})),
            CardShape::Smithery
        );
        assert_eq!(
            detect(&json!({"serverInfo": {"name": "a"}, "protocolVersion": "2025-06-18"})),
            CardShape::Legacy
        );
        assert_eq!(detect(&json!({"hello": 1})), CardShape::Unknown);
        assert_eq!(detect(&json!([1])), CardShape::Unknown);
        let c = Card::of(
            &json!({"serverInfo": {"name": "a", "version": "2"}, "tools": [{"name": "t"}]}),
        );
        assert_eq!((c.version.as_deref(), c.lists.len()), (Some("2"), 1));
    }
}
