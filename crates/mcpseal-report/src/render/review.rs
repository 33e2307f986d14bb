//! Review order for surface changes (`lock`, `check`, `verify`, `diff` in text and Markdown):
//! what a reviewer must see first comes first.
//!
//! * one summary line, the classes in review order;
//! * the changes grouped by class — security, breaking, additive, cosmetic, unjudged — each
//!   group sorted by item, then path;
//! * changes of one `$schema` keyword that are the same on several schemas (`absent →
//!   draft-07` on every tool a generator emitted) folded into one line naming how many and
//!   which items.
//!
//! `full` keeps today's exhaustive listing instead: every change on its own line, in the
//! engine's path order. The JSON forms are never folded or reordered: they keep every change
//! in path order, and review order is derivable from `class`, `item` and `path`.

use std::fmt::Write as _;

use mcpseal_surface::diff::{Change, ChangeClass};

use crate::document::DiffDocument;

/// The classes in the order a reviewer reads them.
pub(crate) const REVIEW_ORDER: [ChangeClass; 5] = [
    ChangeClass::Security,
    ChangeClass::Breaking,
    ChangeClass::Additive,
    ChangeClass::Cosmetic,
    ChangeClass::Unjudged,
];

/// Folded lines name at most this many items, then "+N more".
const NAMED_ITEMS: usize = 3;

/// One line of the review.
pub(crate) enum Line<'a> {
    /// One change.
    One(&'a Change),
    /// The same `$schema` change on several schemas (at least two).
    Folded(Vec<&'a Change>),
}

impl Line<'_> {
    /// The class of the line's changes.
    pub(crate) fn class(&self) -> ChangeClass {
        match self {
            Line::One(c) => c.class,
            Line::Folded(cs) => cs[0].class,
        }
    }

    /// `(path, explanation)` as a line shows them.
    pub(crate) fn words(&self) -> (String, String) {
        match self {
            Line::One(c) => (c.path.clone(), c.explanation.clone()),
            Line::Folded(cs) => {
                let first = cs[0];
                let value = |v: &Option<serde_json::Value>| match v {
                    None => "absent".to_owned(),
                    Some(v) => v.to_string(),
                };
                let mut items: Vec<&str> = cs.iter().filter_map(|c| c.item.as_deref()).collect();
                items.dedup();
                let mut named = items
                    .iter()
                    .take(NAMED_ITEMS)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ");
                if items.len() > NAMED_ITEMS {
                    let _ = write!(named, ", +{} more", items.len() - NAMED_ITEMS);
                }
                (
                    format!(
                        "$schema on {} schemas ({named}): {} → {}",
                        cs.len(),
                        value(&first.before),
                        value(&first.after)
                    ),
                    format!("{} (`--full` lists each)", first.explanation),
                )
            }
        }
    }
}

fn is_schema_keyword(c: &Change) -> bool {
    c.path.rsplit('/').next() == Some("$schema")
}

/// The changes in review order (see the module docs), folded unless `full`.
pub(crate) fn review(diff: &DiffDocument, full: bool) -> Vec<Line<'_>> {
    if full {
        return diff.changes.iter().map(Line::One).collect();
    }
    let mut lines = Vec::new();
    for class in REVIEW_ORDER {
        let mut group: Vec<&Change> = diff.changes.iter().filter(|c| c.class == class).collect();
        group.sort_by(|a, b| (&a.item, &a.path).cmp(&(&b.item, &b.path)));
        let mut folded: Vec<Vec<&Change>> = Vec::new();
        let mut order: Vec<Result<&Change, usize>> = Vec::new();
        for c in group {
            if is_schema_keyword(c) {
                if let Some(i) = folded
                    .iter()
                    .position(|f| f[0].before == c.before && f[0].after == c.after)
                {
                    folded[i].push(c);
                    continue;
                }
                folded.push(vec![c]);
                order.push(Err(folded.len() - 1));
            } else {
                order.push(Ok(c));
            }
        }
        for entry in order {
            match entry {
                Ok(c) => lines.push(Line::One(c)),
                Err(i) => {
                    let f = std::mem::take(&mut folded[i]);
                    if f.len() == 1 {
                        lines.push(Line::One(f[0]));
                    } else {
                        lines.push(Line::Folded(f));
                    }
                }
            }
        }
    }
    lines
}

/// The one-line summary: counts in review order and the semver bump.
pub(crate) fn summary_line(diff: &DiffDocument) -> String {
    let s = &diff.summary;
    format!(
        "changes: {} security, {} breaking, {} additive, {} cosmetic, {} unjudged (semver bump: {})",
        s.security,
        s.breaking,
        s.additive,
        s.cosmetic,
        s.unjudged,
        diff.required_bump.as_str()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(class: ChangeClass, item: &str, path: &str) -> Change {
        Change {
            class,
            path: path.to_owned(),
            item: Some(item.to_owned()),
            before: None,
            after: Some(json!("http://json-schema.org/draft-07/schema#")),
            explanation: format!("{path} changed"),
        }
    }

    fn doc(changes: Vec<Change>) -> DiffDocument {
        DiffDocument {
            changes,
            ..DiffDocument::default()
        }
    }

    #[test]
    fn classes_in_review_order_then_item_then_path() {
        use ChangeClass::*;
        let d = doc(vec![
            change(Additive, "tool a", "/tools/name=a"),
            change(Breaking, "tool b", "/tools/name=b/x"),
            change(Security, "tool z", "/tools/name=z/description"),
            change(Security, "tool c", "/tools/name=c/description"),
            change(Unjudged, "tool a", "/tools/name=a/inputSchema/$schema"),
            change(Unjudged, "tool b", "/tools/name=b/inputSchema/$schema"),
            change(Unjudged, "tool b", "/tools/name=b/outputSchema/$schema"),
        ]);
        let lines = review(&d, false);
        let shown: Vec<(ChangeClass, String)> =
            lines.iter().map(|l| (l.class(), l.words().0)).collect();
        assert_eq!(shown[0], (Security, "/tools/name=c/description".to_owned()));
        assert_eq!(shown[1], (Security, "/tools/name=z/description".to_owned()));
        assert_eq!(shown[2].0, Breaking);
        assert_eq!(shown[3].0, Additive);
        assert_eq!(
            shown.len(),
            5,
            "three $schema changes fold into one: {shown:?}"
        );
        assert_eq!(
            shown[4].1,
            "$schema on 3 schemas (tool a, tool b): absent → \"http://json-schema.org/draft-07/schema#\""
        );
        // `full`: every change, in the engine's order.
        assert_eq!(review(&d, true).len(), 7);
    }

    #[test]
    fn a_lone_or_different_schema_change_is_not_folded() {
        let mut other = change(
            ChangeClass::Unjudged,
            "tool b",
            "/tools/name=b/inputSchema/$schema",
        );
        other.after = Some(json!("https://json-schema.org/draft/2020-12/schema"));
        let d = doc(vec![
            change(
                ChangeClass::Unjudged,
                "tool a",
                "/tools/name=a/inputSchema/$schema",
            ),
            other,
        ]);
        let lines = review(&d, false);
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|l| matches!(l, Line::One(_))));
    }
}
