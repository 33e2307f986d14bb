//! Protocol revisions and the two eras they fall into.
//!
//! A *revision* is the date string a client and server agree on (`2025-06-18`, `2026-07-28`).
//! An *era* is what changes how a client talks: every revision up to 2025-11-25 has the
//! `initialize` handshake and sessions ([`Era::Legacy`]); 2026-07-28 is stateless, with a
//! per-request `_meta` envelope ([`Era::Modern`]). mcpseal speaks the newest revision of each era
//! and records the revision a server actually negotiated beside the era.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A protocol era, named (and serialised) by the newest revision that defines it.
///
/// Why an enum and not a string: the era changes which methods describe the server (discover vs
/// initialize) and it is part of the hashed canonical form, so an unknown era must fail to parse
/// rather than hash something new.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub enum Era {
    /// 2025-11-25 (and earlier revisions): `initialize` handshake, sessions.
    #[serde(rename = "2025-11-25")]
    Legacy,
    /// 2026-07-28: stateless, per-request `_meta`.
    #[serde(rename = "2026-07-28")]
    Modern,
}

impl Era {
    /// Both eras, oldest first.
    pub const ALL: [Era; 2] = [Era::Legacy, Era::Modern];

    /// The revision string of the era (`2025-11-25` or `2026-07-28`).
    pub fn revision(self) -> &'static str {
        match self {
            Era::Legacy => LATEST_LEGACY_REVISION,
            Era::Modern => MODERN_REVISION,
        }
    }

    /// The same as [`Era::revision`]; the name the canonical form uses.
    pub fn as_str(self) -> &'static str {
        self.revision()
    }

    /// Parses exactly `2025-11-25` or `2026-07-28` (the era names, not every revision: see
    /// [`era_of_revision`] for that).
    pub fn from_revision(s: &str) -> Option<Era> {
        match s {
            LATEST_LEGACY_REVISION => Some(Era::Legacy),
            MODERN_REVISION => Some(Era::Modern),
            _ => None,
        }
    }
}

impl std::fmt::Display for Era {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.revision())
    }
}

/// The stateless revision.
pub const MODERN_REVISION: &str = "2026-07-28";

/// The newest revision of the legacy era, the one mcpseal offers in `initialize`.
pub const LATEST_LEGACY_REVISION: &str = "2025-11-25";

/// Every published revision of the legacy era, oldest first. A server may negotiate any of
/// them in `initialize`; reports show the one it chose.
pub const LEGACY_REVISIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The revision table's own `&'static str` for a published legacy revision; `None` for any other
/// string.
pub fn legacy_revision(revision: &str) -> Option<&'static str> {
    LEGACY_REVISIONS.into_iter().find(|r| *r == revision)
}

/// The era a published revision belongs to; `None` for a string that is no published revision.
pub fn era_of_revision(revision: &str) -> Option<Era> {
    if revision == MODERN_REVISION {
        Some(Era::Modern)
    } else if legacy_revision(revision).is_some() {
        Some(Era::Legacy)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_revisions_are_found_in_the_table_and_nothing_else_is() {
        for r in LEGACY_REVISIONS {
            // A string that is not the table's, so the answer is the table's own.
            let asked = String::from(r);
            assert_eq!(legacy_revision(&asked), Some(r));
        }
        for other in [MODERN_REVISION, "2025-11-26", "", "2025-11-25 "] {
            assert_eq!(legacy_revision(other), None, "{other:?}");
        }
    }

    #[test]
    fn eras_serialise_as_their_revision() {
        assert_eq!(
            serde_json::to_string(&Era::Modern).ok().as_deref(),
            Some("\"2026-07-28\"")
        );
        assert_eq!(
            serde_json::from_str::<Era>("\"2025-11-25\"").ok(),
            Some(Era::Legacy)
        );
        assert!(serde_json::from_str::<Era>("\"2025-06-18\"").is_err());
        assert_eq!(era_of_revision("2024-11-05"), Some(Era::Legacy));
        assert_eq!(era_of_revision("2026-07-28"), Some(Era::Modern));
        assert_eq!(era_of_revision("1999-01-01"), None);
        assert_eq!(Era::from_revision("2024-11-05"), None);
    }
}
