//! The guard's policy: a level (`block`, `warn`, `allow`) for each drift class, globally and per
//! item, and the mode (`enforce` or `warn`).
//!
//! The policy file (`--policy guard.toml`) is TOML; [`policy_schema`] is its JSON Schema,
//! generated from [`PolicyFile`]. Unknown keys, classes and item kinds are refused with the valid
//! choices (a typo must never silently allow something):
//!
//! ```toml
//! mode = "enforce"            # or "warn": forward everything, only log
//!
//! [classes]                   # global levels, by class name or id
//! prose = "warn"
//! annotations = "block"
//!
//! [items."tool:search"]       # per item: tool:NAME, resource:URI, template:URITEMPLATE,
//! description = "warn"        # prompt:NAME, or server
//! ```
//!
//! Without a file every class has its default ([`DriftClass::default_level`]): block everything
//! except `prose` (warn) and `cosmetic` (allow).

mod class;

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use mcpseal_protocol::ListKind;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;

pub use class::{CLASSES, ClassInfo, DriftClass, Level, reference_page};

/// `enforce` (the default) or `warn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Blocked items are hidden and their calls refused.
    #[default]
    Enforce,
    /// Everything is forwarded; what would have been blocked is logged as a warning.
    Warn,
}

impl Mode {
    /// `enforce` or `warn`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Enforce => "enforce",
            Mode::Warn => "warn",
        }
    }
}

/// The policy file as written (see the module docs).
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "mcpseal guard policy")]
pub struct PolicyFile {
    /// `enforce` (default) or `warn`; `--mode` on the command line wins.
    #[serde(default)]
    pub mode: Option<Mode>,
    /// Global levels by drift class name (`prose`, `input-schema`, …) or id (`GUARD001`, …).
    #[serde(default)]
    pub classes: BTreeMap<String, Level>,
    /// Per-item levels: `tool:NAME`, `resource:URI`, `template:URITEMPLATE`, `prompt:NAME` or
    /// `server` → class → level. An item level wins over the global one.
    #[serde(default)]
    pub items: BTreeMap<String, BTreeMap<String, Level>>,
}

/// The JSON Schema (2020-12) of the policy file.
pub fn policy_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(PolicyFile)).unwrap_or_default()
}

/// An item of the surface: one of the four lists and its identity, or the server part.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemRef {
    /// The list, `None` for the server part (instructions, capabilities).
    pub list: Option<ListKind>,
    /// The identity (`name`, `uri`, `uriTemplate`); empty for the server part.
    pub id: String,
}

impl ItemRef {
    /// An item of a list.
    pub fn new(list: ListKind, id: impl Into<String>) -> ItemRef {
        ItemRef {
            list: Some(list),
            id: id.into(),
        }
    }

    /// The server part.
    pub fn server() -> ItemRef {
        ItemRef {
            list: None,
            id: String::new(),
        }
    }

    /// `tool`, `resource`, `template`, `prompt` or `server`.
    pub fn kind_word(&self) -> &'static str {
        match self.list {
            Some(ListKind::Tools) => "tool",
            Some(ListKind::Resources) => "resource",
            Some(ListKind::ResourceTemplates) => "template",
            Some(ListKind::Prompts) => "prompt",
            None => "server",
        }
    }

    /// Parses `tool:NAME`, `resource:URI`, `template:URITEMPLATE`, `prompt:NAME` or `server`; a
    /// text without one of these prefixes is a tool name (the common case on a command line).
    pub fn parse(text: &str) -> ItemRef {
        if text == "server" {
            return ItemRef::server();
        }
        let kinds = [
            ("tool", ListKind::Tools),
            ("resource", ListKind::Resources),
            ("template", ListKind::ResourceTemplates),
            ("prompt", ListKind::Prompts),
        ];
        if let Some((prefix, rest)) = text.split_once(':')
            && let Some((_, list)) = kinds.iter().find(|(w, _)| *w == prefix)
        {
            return ItemRef::new(*list, rest);
        }
        ItemRef::new(ListKind::Tools, text)
    }
}

impl fmt::Display for ItemRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.list {
            None => f.write_str("server"),
            Some(_) => write!(f, "{}:{}", self.kind_word(), self.id),
        }
    }
}

/// Why a policy file cannot be used.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// Not TOML of the policy's shape.
    #[error("the policy file is invalid: {0}")]
    Toml(String),
    /// A class name that is none of the classes.
    #[error("unknown drift class `{0}`")]
    UnknownClass(String),
    /// An item key without a kind prefix.
    #[error(
        "unknown item `{0}`: write `tool:NAME`, `resource:URI`, `template:URITEMPLATE`, `prompt:NAME` or `server`"
    )]
    UnknownItem(String),
}

impl PolicyError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            PolicyError::Toml(_) => {
                "the keys are `mode`, `[classes]` and `[items.\"KIND:ID\"]`; `mcpseal guard schema` prints the file's JSON Schema".to_owned()
            }
            PolicyError::UnknownClass(_) => {
                format!("the classes are {}", DriftClass::names())
            }
            PolicyError::UnknownItem(_) => {
                "quote the key: `[items.\"tool:search\"]`".to_owned()
            }
        }
    }
}

/// A policy, resolved: one level per class, item overrides, the mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    mode: Mode,
    classes: [Level; DriftClass::ALL.len()],
    items: HashMap<ItemRef, [Option<Level>; DriftClass::ALL.len()]>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            mode: Mode::Enforce,
            classes: DriftClass::ALL.map(DriftClass::default_level),
            items: HashMap::new(),
        }
    }
}

impl Policy {
    /// Parses and resolves a policy file.
    ///
    /// # Errors
    /// [`PolicyError`] for invalid TOML, unknown keys, classes or item kinds.
    pub fn parse(text: &str) -> Result<Policy, PolicyError> {
        let file: PolicyFile =
            toml::from_str(text).map_err(|e| PolicyError::Toml(e.to_string()))?;
        Policy::from_file(&file)
    }

    /// Resolves a parsed policy file.
    ///
    /// # Errors
    /// [`PolicyError::UnknownClass`] and [`PolicyError::UnknownItem`].
    pub fn from_file(file: &PolicyFile) -> Result<Policy, PolicyError> {
        let mut policy = Policy {
            mode: file.mode.unwrap_or_default(),
            ..Policy::default()
        };
        let class = |name: &str| {
            DriftClass::parse(name).ok_or_else(|| PolicyError::UnknownClass(name.to_owned()))
        };
        for (name, level) in &file.classes {
            policy.classes[class(name)?.index()] = *level;
        }
        for (key, levels) in &file.items {
            let item = ItemRef::parse(key);
            if item.list == Some(ListKind::Tools) && !key.starts_with("tool:") && key.contains(':')
            {
                return Err(PolicyError::UnknownItem(key.clone()));
            }
            let slot = policy
                .items
                .entry(item)
                .or_insert([None; DriftClass::ALL.len()]);
            for (name, level) in levels {
                slot[class(name)?.index()] = Some(*level);
            }
        }
        Ok(policy)
    }

    /// The mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The same policy in another mode (`--mode` on the command line).
    pub fn with_mode(mut self, mode: Mode) -> Policy {
        self.mode = mode;
        self
    }

    /// The level of `class` for `item`: the item's own level, else the global one.
    pub fn level(&self, item: &ItemRef, class: DriftClass) -> Level {
        self.items
            .get(item)
            .and_then(|l| l[class.index()])
            .unwrap_or(self.classes[class.index()])
    }

    /// The level of an item that drifted in `classes`: the strictest of their levels (`allow`
    /// for no class at all).
    pub fn decide(&self, item: &ItemRef, classes: &[DriftClass]) -> Level {
        classes
            .iter()
            .map(|c| self.level(item, *c))
            .max()
            .unwrap_or(Level::Allow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let p = Policy::default();
        let search = ItemRef::new(ListKind::Tools, "search");
        assert_eq!(p.level(&search, DriftClass::Prose), Level::Warn);
        assert_eq!(
            p.decide(&search, &[DriftClass::Prose, DriftClass::Cosmetic]),
            Level::Warn
        );
        assert_eq!(
            p.decide(&search, &[DriftClass::Prose, DriftClass::Meta]),
            Level::Block
        );
        assert_eq!(p.decide(&search, &[]), Level::Allow);

        let p = Policy::parse(
            r#"
mode = "warn"
[classes]
prose = "allow"
GUARD004 = "warn"
[items."tool:search"]
description = "warn"
[items."resource:fixture://readme"]
cosmetic = "block"
[items.server]
instructions = "allow"
"#,
        )
        .expect("valid");
        assert_eq!(p.mode(), Mode::Warn);
        assert_eq!(p.level(&search, DriftClass::Prose), Level::Allow);
        assert_eq!(p.level(&search, DriftClass::InputSchema), Level::Warn);
        assert_eq!(p.level(&search, DriftClass::Description), Level::Warn);
        let other = ItemRef::new(ListKind::Tools, "other");
        assert_eq!(p.level(&other, DriftClass::Description), Level::Block);
        let readme = ItemRef::new(ListKind::Resources, "fixture://readme");
        assert_eq!(p.level(&readme, DriftClass::Cosmetic), Level::Block);
        assert_eq!(
            p.level(&ItemRef::server(), DriftClass::Instructions),
            Level::Allow
        );
    }

    #[test]
    fn refusals_name_what_was_wrong() {
        let e = Policy::parse("[classes]\npros = \"warn\"").expect_err("unknown class");
        assert!(
            matches!(e, PolicyError::UnknownClass(ref c) if c == "pros"),
            "{e}"
        );
        assert!(e.hint().contains("`prose`"));
        let e = Policy::parse("[classes]\nprose = \"maybe\"").expect_err("bad level");
        assert!(matches!(e, PolicyError::Toml(_)), "{e}");
        let e = Policy::parse("colour = 1").expect_err("unknown key");
        assert!(matches!(e, PolicyError::Toml(_)), "{e}");
        let e = Policy::parse("[items.\"widget:x\"]\nprose = \"warn\"").expect_err("kind");
        assert!(matches!(e, PolicyError::UnknownItem(_)), "{e}");
    }

    #[test]
    fn item_refs_round_trip() {
        for text in [
            "tool:echo",
            "resource:fixture://readme",
            "template:fixture://items/{id}",
            "prompt:greet",
            "server",
        ] {
            assert_eq!(ItemRef::parse(text).to_string(), text);
        }
        assert_eq!(
            ItemRef::parse("echo"),
            ItemRef::new(ListKind::Tools, "echo")
        );
    }

    #[test]
    fn the_schema_describes_the_file() {
        let schema = policy_schema();
        assert_eq!(schema["title"], "mcpseal guard policy");
        for key in ["mode", "classes", "items"] {
            assert!(schema["properties"].get(key).is_some(), "{key}");
        }
        assert_eq!(schema["additionalProperties"], false);
    }
}
