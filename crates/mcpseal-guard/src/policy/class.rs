//! The drift classes a guard decides on: one permanent id, a policy name, a default level and a
//! reference each, like a linter's lint table.
//!
//! The classes refine the diff engine's ([`mcpseal_surface::ChangeClass`]) along the lines users
//! of pinning proxies asked for: a purely descriptive addition to a description (`prose`) is not
//! the same event as a rewritten one, a flipped `destructiveHint` is not a schema change, and a
//! change hidden in an item's `_meta` is its own class rather than folded away. Ids are
//! permanent (a retired class leaves a hole), names are what a policy file spells.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a guard does with an item (or a server field) in a drift class.
///
/// Ordered from the mildest: when an item drifted in several classes, the strictest level wins.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Shown and callable; nothing is logged.
    Allow,
    /// Shown and callable; the decision is logged (stderr and the audit log).
    Warn,
    /// Hidden from the host's listing; calls, gets and reads are refused with a JSON-RPC error.
    Block,
}

impl Level {
    /// `allow`, `warn` or `block`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Block => "block",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One drift class (see the module docs and [`DriftClass::ALL`] for the table).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum DriftClass {
    /// Description text added (nothing removed) without URLs, instructions to the model,
    /// concealment, hidden characters or references to other tools.
    Prose,
    /// Any other description change: text removed or rewritten, or an addition that carries a
    /// URL, an instruction, concealment, hidden characters or another tool's name.
    Description,
    /// A tool annotation hint changed its effective value (`readOnlyHint`, `destructiveHint`,
    /// `idempotentHint`, `openWorldHint`).
    Annotations,
    /// The input schema changed (anything but descriptions inside it).
    InputSchema,
    /// The output schema changed (anything but descriptions inside it).
    OutputSchema,
    /// The item's own `_meta` changed (never folded away: poisoned text can hide there).
    Meta,
    /// An item the lock does not approve: new in the listing, or a call naming one.
    Added,
    /// A locked item is no longer listed.
    Removed,
    /// An added item that looks like a locked item renamed (same input schema); it never
    /// inherits the old item's approval.
    Renamed,
    /// Presentation only: titles, icons, annotation title, a resource's name or size, and
    /// spellings with the same meaning (an annotation set to its default).
    Cosmetic,
    /// The server's `instructions` changed (other than a `prose` addition).
    Instructions,
    /// The server's capabilities changed.
    Capabilities,
    /// A change the diff engine does not judge (`anyOf`, `$ref`, unknown fields, ...).
    Unjudged,
}

/// The static description of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassInfo {
    /// The class.
    pub class: DriftClass,
    /// Permanent id (`GUARD001`…).
    pub id: &'static str,
    /// The name a policy file uses (`prose`, `input-schema`, …).
    pub name: &'static str,
    /// The level without a policy.
    pub default: Level,
    /// What falls into the class, in one sentence.
    pub summary: &'static str,
    /// Where the class is documented.
    pub reference: &'static str,
}

const DOC: &str = "https://github.com/mcpseal/mcpseal/blob/main/docs/guard.md";

macro_rules! classes {
    ($( $class:ident, $id:literal, $name:literal, $default:ident, $summary:literal; )*) => {
        /// Every class, in id order.
        pub const CLASSES: &[ClassInfo] = &[
            $( ClassInfo {
                class: DriftClass::$class,
                id: $id,
                name: $name,
                default: Level::$default,
                summary: $summary,
                reference: concat!("https://github.com/mcpseal/mcpseal/blob/main/docs/guard.md#", $name),
            }, )*
        ];
    };
}

classes! {
    Prose, "GUARD001", "prose", Warn,
        "description text added without URLs, instructions, concealment, hidden characters or references to other tools";
    Description, "GUARD002", "description", Block,
        "a description rewritten, shortened, or extended with a URL, an instruction or another tool's name";
    Annotations, "GUARD003", "annotations", Block,
        "a tool annotation hint changed its effective value (read-only, destructive, idempotent, open world)";
    InputSchema, "GUARD004", "input-schema", Block,
        "the input schema changed";
    OutputSchema, "GUARD005", "output-schema", Block,
        "the output schema changed";
    Meta, "GUARD006", "meta", Block,
        "the item's own `_meta` changed";
    Added, "GUARD007", "added", Block,
        "an item the lock does not approve";
    Removed, "GUARD008", "removed", Block,
        "a locked item is no longer listed";
    Renamed, "GUARD009", "renamed", Block,
        "a new item that looks like a locked one renamed (same input schema); it never inherits the approval";
    Cosmetic, "GUARD010", "cosmetic", Allow,
        "presentation only: titles, icons, names of resources, equivalent spellings";
    Instructions, "GUARD011", "instructions", Block,
        "the server's instructions changed";
    Capabilities, "GUARD012", "capabilities", Block,
        "the server's capabilities changed";
    Unjudged, "GUARD013", "unjudged", Block,
        "a change the diff engine does not judge";
}

impl DriftClass {
    /// Every class, in id order.
    pub const ALL: [DriftClass; 13] = [
        DriftClass::Prose,
        DriftClass::Description,
        DriftClass::Annotations,
        DriftClass::InputSchema,
        DriftClass::OutputSchema,
        DriftClass::Meta,
        DriftClass::Added,
        DriftClass::Removed,
        DriftClass::Renamed,
        DriftClass::Cosmetic,
        DriftClass::Instructions,
        DriftClass::Capabilities,
        DriftClass::Unjudged,
    ];

    /// The class's table row.
    pub fn info(self) -> &'static ClassInfo {
        // `CLASSES` lists every variant in `ALL` order (tested).
        &CLASSES[self.index()]
    }

    /// Its position in [`DriftClass::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The policy name (`prose`, `input-schema`, …).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The permanent id (`GUARD001`, …).
    pub fn id(self) -> &'static str {
        self.info().id
    }

    /// The level without a policy: `block`, except `prose` (`warn`) and `cosmetic` (`allow`).
    pub fn default_level(self) -> Level {
        self.info().default
    }

    /// The class a policy file names, by name or by id (case-insensitive).
    pub fn parse(text: &str) -> Option<DriftClass> {
        CLASSES
            .iter()
            .find(|c| c.name.eq_ignore_ascii_case(text) || c.id.eq_ignore_ascii_case(text))
            .map(|c| c.class)
    }

    /// Every name, for error messages.
    pub fn names() -> String {
        CLASSES
            .iter()
            .map(|c| format!("`{}`", c.name))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for DriftClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The documentation page of the classes.
pub fn reference_page() -> &'static str {
    DOC
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_complete_ordered_and_permanent() {
        assert_eq!(CLASSES.len(), DriftClass::ALL.len());
        for (i, (info, class)) in CLASSES.iter().zip(DriftClass::ALL).enumerate() {
            assert_eq!(info.class, class);
            assert_eq!(class.index(), i);
            assert_eq!(info.id, format!("GUARD{:03}", i + 1));
            assert_eq!(DriftClass::parse(info.name), Some(class));
            assert_eq!(DriftClass::parse(&info.id.to_lowercase()), Some(class));
            assert!(info.reference.ends_with(info.name));
            let serialised = serde_json::to_value(class).unwrap_or_default();
            assert_eq!(serialised, info.name, "serde name is the policy name");
        }
        // Pinned: ids are public and permanent.
        let ids: Vec<(&str, &str)> = CLASSES.iter().map(|c| (c.id, c.name)).collect();
        assert_eq!(
            ids,
            [
                ("GUARD001", "prose"),
                ("GUARD002", "description"),
                ("GUARD003", "annotations"),
                ("GUARD004", "input-schema"),
                ("GUARD005", "output-schema"),
                ("GUARD006", "meta"),
                ("GUARD007", "added"),
                ("GUARD008", "removed"),
                ("GUARD009", "renamed"),
                ("GUARD010", "cosmetic"),
                ("GUARD011", "instructions"),
                ("GUARD012", "capabilities"),
                ("GUARD013", "unjudged"),
            ]
        );
    }

    #[test]
    fn defaults_block_everything_but_prose_and_cosmetic() {
        for class in DriftClass::ALL {
            let expected = match class {
                DriftClass::Prose => Level::Warn,
                DriftClass::Cosmetic => Level::Allow,
                _ => Level::Block,
            };
            assert_eq!(class.default_level(), expected, "{class}");
        }
        assert!(Level::Allow < Level::Warn && Level::Warn < Level::Block);
    }
}
