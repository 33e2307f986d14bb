//! The list table: the four lists of a surface, each with its method, its result key and the
//! field that identifies an item. Defined once; the capture, the canonical form, the lock, the
//! diff and the fixtures all read it from here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::method;

/// The four MCP lists, in the order mcpseal processes them.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum ListKind {
    /// `tools/list`, identity `name`.
    Tools,
    /// `resources/list`, identity `uri`.
    Resources,
    /// `resources/templates/list`, identity `uriTemplate`.
    ResourceTemplates,
    /// `prompts/list`, identity `name`.
    Prompts,
}

impl ListKind {
    /// All four, in processing order.
    pub const ALL: [ListKind; 4] = [
        ListKind::Tools,
        ListKind::Resources,
        ListKind::ResourceTemplates,
        ListKind::Prompts,
    ];

    /// The JSON-RPC method that reads the list.
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => method::TOOLS_LIST,
            ListKind::Resources => method::RESOURCES_LIST,
            ListKind::ResourceTemplates => method::RESOURCES_TEMPLATES_LIST,
            ListKind::Prompts => method::PROMPTS_LIST,
        }
    }

    /// The key of the item array in a page, of the list in the canonical form and in the raw
    /// capture (`tools`, `resources`, `resourceTemplates`, `prompts`).
    pub fn key(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }

    /// The item field that identifies an item within its list.
    pub fn identity_key(self) -> &'static str {
        match self {
            ListKind::Tools | ListKind::Prompts => "name",
            ListKind::Resources => "uri",
            ListKind::ResourceTemplates => "uriTemplate",
        }
    }

    /// The capability (in `capabilities`) that announces the list.
    pub fn capability(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources | ListKind::ResourceTemplates => "resources",
            ListKind::Prompts => "prompts",
        }
    }

    /// The notification a server sends when the list changed.
    pub fn list_changed_notification(self) -> &'static str {
        match self {
            ListKind::Tools => method::NOTIFICATION_TOOLS_LIST_CHANGED,
            ListKind::Resources | ListKind::ResourceTemplates => {
                method::NOTIFICATION_RESOURCES_LIST_CHANGED
            }
            ListKind::Prompts => method::NOTIFICATION_PROMPTS_LIST_CHANGED,
        }
    }

    /// The position of this list in [`ListKind::ALL`].
    pub fn index(self) -> usize {
        match self {
            ListKind::Tools => 0,
            ListKind::Resources => 1,
            ListKind::ResourceTemplates => 2,
            ListKind::Prompts => 3,
        }
    }

    /// The list read by `method`.
    pub fn from_method(method: &str) -> Option<ListKind> {
        ListKind::ALL.into_iter().find(|k| k.method() == method)
    }

    /// The list stored under `key`.
    pub fn from_key(key: &str) -> Option<ListKind> {
        ListKind::ALL.into_iter().find(|k| k.key() == key)
    }
}

impl std::fmt::Display for ListKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_round_trips() {
        for (i, k) in ListKind::ALL.into_iter().enumerate() {
            assert_eq!(k.index(), i);
            assert_eq!(ListKind::from_method(k.method()), Some(k));
            assert_eq!(ListKind::from_key(k.key()), Some(k));
        }
        assert_eq!(ListKind::from_method("tools/call"), None);
    }
}
