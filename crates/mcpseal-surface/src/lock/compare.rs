//! The one lock comparison: a live surface against a declared one.
//!
//! "Apply the exclusions, hash, compare, diff, classify" is what `lock`, `check` and `verify`
//! do with a lock, and what a pinning guard and `registry verify` will do: [`compare`] is the
//! only place it is written, so they cannot disagree on what "the same surface" means.
//!
//! Contract:
//! * both sides are compared with the **same** exclusions applied (the caller's, usually the
//!   lock's own; `lock --exclude` passes the new ones);
//! * the verdict is the hash: [`Comparison::matches`] is true exactly when the SHA-256 of the
//!   JCS bytes of the two excluded surfaces are equal;
//! * the diff is computed only when the hashes differ (equal bytes have no change to show);
//! * [`Comparison::kinds`] classifies the diff for the lock rules, and counts a hash difference
//!   the diff engine shows no change for (an annotation set to its default, see
//!   `diff`'s module docs) as a change: a different hash is never "nothing changed";
//! * [`Comparison::items`] gives the per-item verdicts (same, changed, added, removed) from the
//!   per-item hashes, for callers that approve or refuse one tool at a time.
//!
//! Pure: no I/O, no clock.

use mcpseal_protocol::ListKind;
use serde_json::Value;

use super::exclude::{Pointer, apply};
use super::file::{Declared, items_of};
use super::rules::ChangeKinds;
use crate::diff::{SurfaceDiff, diff};
use crate::jcs::{jcs, sha256_hex};

/// A live surface compared with a declared one (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The declared surface with the exclusions applied (what its hash covers).
    pub locked: Value,
    /// The live surface with the same exclusions applied.
    pub live: Value,
    /// SHA-256 of the JCS bytes of [`Comparison::locked`].
    pub locked_sha256: String,
    /// SHA-256 of the JCS bytes of [`Comparison::live`].
    pub live_sha256: String,
    /// Locked → live; empty when the hashes are equal.
    pub diff: SurfaceDiff,
}

/// What happened to one list item between the declared and the live surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ItemState {
    /// The item hashes the same.
    Same,
    /// The item is on both sides with a different hash; `description` says whether its
    /// description is among what changed (the text a model reads).
    Changed {
        /// The description hash differs (or the description appeared or went away).
        description: bool,
    },
    /// Only on the live side: the lock never approved it.
    Added,
    /// Only on the declared side.
    Removed,
}

/// The verdict on one list item, by its identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ItemVerdict {
    /// The list.
    pub list: ListKind,
    /// The item's identity (`name`, `uri` or `uriTemplate`).
    pub id: String,
    /// What happened to it.
    pub state: ItemState,
}

impl Comparison {
    /// The live surface is the declared one: the two hashes are equal.
    pub fn matches(&self) -> bool {
        self.locked_sha256 == self.live_sha256
    }

    /// The lock rules' view of the change (see the module docs: a hash difference is a change
    /// even when the diff shows none).
    pub fn kinds(&self) -> ChangeKinds {
        let mut kinds = ChangeKinds::of(&self.diff);
        kinds.any = kinds.any || !self.matches();
        kinds
    }

    /// Per-item verdicts for every item of the four lists on either side, in list order
    /// (`tools`, `resources`, `resourceTemplates`, `prompts`), then by identity. A list that is
    /// not served (or absent) on a side contributes no items on that side.
    pub fn items(&self) -> Vec<ItemVerdict> {
        let (before, after) = (items_of(&self.locked), items_of(&self.live));
        let mut out = Vec::new();
        for list in ListKind::ALL {
            let empty = serde_json::Map::new();
            let b = before.get(list.key()).and_then(Value::as_object);
            let a = after.get(list.key()).and_then(Value::as_object);
            let (b, a) = (b.unwrap_or(&empty), a.unwrap_or(&empty));
            let mut ids: Vec<&String> = b.keys().chain(a.keys()).collect();
            ids.sort();
            ids.dedup();
            for id in ids {
                let state = match (b.get(id), a.get(id)) {
                    (Some(old), Some(new)) if old.get("sha256") == new.get("sha256") => {
                        ItemState::Same
                    }
                    (Some(old), Some(new)) => ItemState::Changed {
                        description: old.get("descriptionSha256") != new.get("descriptionSha256"),
                    },
                    (None, _) => ItemState::Added,
                    (Some(_), None) => ItemState::Removed,
                };
                out.push(ItemVerdict {
                    list,
                    id: id.clone(),
                    state,
                });
            }
        }
        out
    }
}

/// Compares `live_surface` (a canonical surface object, exclusions not applied) with the
/// declared surface, both with `exclude` applied (see the module docs).
///
/// `check`, `verify`, a guard and `registry verify` pass the lock's own exclusions
/// (`&locked.exclude`); `lock` passes the exclusions it is about to write.
pub fn compare(locked: &Declared, live_surface: &Value, exclude: &[Pointer]) -> Comparison {
    let locked_hashed = apply(&locked.surface, exclude);
    // The stored hash covers the stored exclusions; other exclusions need a fresh one.
    let locked_sha256 = if exclude == locked.exclude.as_slice() {
        locked.sha256.clone()
    } else {
        sha256_hex(&jcs(&locked_hashed))
    };
    let (live, live_sha256) = excluded(live_surface, exclude);
    let diff = if locked_sha256 == live_sha256 {
        SurfaceDiff::default()
    } else {
        diff(&locked_hashed, &live)
    };
    Comparison {
        locked: locked_hashed,
        live,
        locked_sha256,
        live_sha256,
        diff,
    }
}

/// The fingerprint a declared hash is compared with: SHA-256 of the JCS bytes of `surface`
/// with `exclude` applied. For a caller that holds only a published hash, not the declared
/// surface (`registry verify` against a server.json block): the same bytes [`compare`] hashes,
/// so the two cannot disagree; without the declared surface there is no diff to show.
pub fn live_sha256(surface: &Value, exclude: &[Pointer]) -> String {
    excluded(surface, exclude).1
}

/// `surface` with `exclude` applied, and its hash.
fn excluded(surface: &Value, exclude: &[Pointer]) -> (Value, String) {
    let hashed = apply(surface, exclude);
    let sha256 = sha256_hex(&jcs(&hashed));
    (hashed, sha256)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::Version;
    use serde_json::json;

    fn surface() -> Value {
        json!({"form": "mcpseal/1", "era": "2026-07-28", "server": {"capabilities": {}},
            "tools": [
                {"name": "clock", "description": "t 1", "inputSchema": {"type": "object"}},
                {"name": "echo", "description": "Echo", "inputSchema": {"type": "object"}}],
            "resources": [], "resourceTemplates": null, "prompts": []})
    }

    fn declared(exclude: &[&str]) -> Declared {
        let v = Version::parse("1.0.0").expect("version");
        let ex = exclude
            .iter()
            .map(|p| Pointer::parse(p).expect("pointer"))
            .collect();
        Declared::new(&v, surface(), ex)
    }

    #[test]
    fn same_surface_matches_with_no_diff() {
        let d = declared(&[]);
        let c = compare(&d, &surface(), &d.exclude);
        assert!(c.matches());
        assert!(c.diff.is_empty());
        assert_eq!(c.kinds(), ChangeKinds::default());
        assert!(c.items().iter().all(|i| i.state == ItemState::Same));
        assert_eq!(c.items().len(), 2);
    }

    #[test]
    fn the_hash_alone_is_the_one_compare_uses() {
        let d = declared(&["/tools/name=clock/description"]);
        let mut live = surface();
        live["tools"][0]["description"] = json!("t 2");
        assert_eq!(live_sha256(&live, &d.exclude), d.sha256);
        assert_eq!(
            live_sha256(&live, &d.exclude),
            compare(&d, &live, &d.exclude).live_sha256
        );
        assert_ne!(
            live_sha256(&live, &[]),
            d.sha256,
            "the description now counts"
        );
    }

    #[test]
    fn exclusions_apply_to_both_sides() {
        let d = declared(&["/tools/name=clock/description"]);
        let mut live = surface();
        live["tools"][0]["description"] = json!("t 2");
        let c = compare(&d, &live, &d.exclude);
        assert!(c.matches(), "the excluded description is not compared");
        // Without the exclusion the same pair differs, and the stored hash is not reused.
        let c = compare(&d, &live, &[]);
        assert!(!c.matches());
        assert_eq!(c.diff.changes[0].path, "/tools/name=clock/description");
        assert!(c.kinds().security);
        assert_eq!(c.items()[0].state, ItemState::Changed { description: true });
    }

    #[test]
    fn per_item_verdicts() {
        let d = declared(&[]);
        let mut live = surface();
        live["tools"] = json!([
            {"name": "echo", "description": "Echo", "inputSchema": {"type": "string"}},
            {"name": "mail", "inputSchema": {"type": "object"}}]);
        let c = compare(&d, &live, &d.exclude);
        let items = c.items();
        let states: Vec<(&str, ItemState)> =
            items.iter().map(|i| (i.id.as_str(), i.state)).collect();
        assert_eq!(
            states,
            [
                ("clock", ItemState::Removed),
                ("echo", ItemState::Changed { description: false }),
                ("mail", ItemState::Added),
            ]
        );
        assert!(c.kinds().breaking);
    }

    #[test]
    fn a_hash_difference_without_a_shown_change_is_still_a_change() {
        let d = declared(&[]);
        let mut live = surface();
        // An annotation set to its default: different bytes, no change for any client.
        live["tools"][1]["annotations"] = json!({"readOnlyHint": false});
        let c = compare(&d, &live, &d.exclude);
        assert!(!c.matches());
        assert!(c.diff.is_empty());
        assert!(c.kinds().any);
    }
}
