//! The published-fingerprint column and the skipped-rules list of the site: the labels, and the
//! sentences of their `title` attributes and "why" cells.

use crate::document::{Published, PublishedState};

/// A published-fingerprint state's label in the tables.
pub(super) fn published_label(p: PublishedState) -> &'static str {
    match p {
        PublishedState::Match => "match",
        PublishedState::Mismatch => "mismatch",
        PublishedState::None => "none",
        PublishedState::NotCompared => "not compared",
    }
}

/// The published-fingerprint cell of a row: its label and the sentence of its `title`
/// (whose block, which hashes, or why there is no comparison).
pub(super) fn published_cell(p: Option<&Published>) -> (&'static str, String) {
    let Some(p) = p else {
        return (
            "–",
            "no registry entry: nothing published to compare".to_owned(),
        );
    };
    let block = match (&p.block, &p.form) {
        (Some(b), Some(f)) => format!("{b}'s block ({f})"),
        (Some(b), None) => format!("{b}'s block"),
        _ => "the entry's block".to_owned(),
    };
    let hash = |h: &Option<String>| h.clone().unwrap_or_else(|| "–".to_owned());
    let title = match p.state {
        PublishedState::Match => format!(
            "the live surface has the fingerprint {block} publishes: {}",
            hash(&p.declared_sha256)
        ),
        PublishedState::Mismatch => format!(
            "{block} publishes {}; the live surface is {}",
            hash(&p.declared_sha256),
            hash(&p.live_sha256)
        ),
        PublishedState::None => format!(
            "the registry entry publishes no fingerprint this mcpseal can read{}",
            p.reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ),
        PublishedState::NotCompared => format!(
            "{block} publishes a fingerprint, but the surface was not captured{}",
            p.reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        ),
    };
    (published_label(p.state), title)
}

/// Why the index leaves a probe rule out (the one reason it has: see
/// [`Row::skipped_rules`]).
pub(super) const SKIPPED_WHY: &str = "remote target: no tool calls (the rule sends a <code>tools/call</code>, and the index never calls a tool on other people's servers); not run is not passed";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_state_has_a_label_and_a_title_that_says_what_it_means() {
        // Every state has its label and a title that says what it means.
        for (state, label, says) in [
            (PublishedState::Match, "match", "has the fingerprint"),
            (PublishedState::Mismatch, "mismatch", "the live surface is"),
            (PublishedState::None, "none", "publishes no fingerprint"),
            (PublishedState::NotCompared, "not compared", "not captured"),
        ] {
            let p = Published {
                state,
                block: Some("mcpseal".into()),
                form: Some("mcpseal/1".into()),
                declared_sha256: Some("sha256:d".into()),
                live_sha256: Some("sha256:l".into()),
                reason: Some("why".into()),
            };
            let (l, title) = published_cell(Some(&p));
            assert_eq!(l, label);
            assert!(title.contains(says), "{title}");
        }
        let (l, title) = published_cell(None);
        assert_eq!(l, "–");
        assert!(title.contains("no registry entry"), "{title}");
    }
}
