//! Judging one captured version against the previous captured one: the classified diff (the
//! `diff` engine), the bump the change needs vs the bump the versions declare, and the
//! violations of the compatibility line.
//!
//! Rules (semver, 0.x per the lock rules):
//! * any change under the same precedence (`1.1.0` → `1.1.0.post1`): changed without a
//!   version bump;
//! * a breaking change without a new compatibility line — a new major, or in 0.x a new minor
//!   when `zero_major` (the default, as the lock rules) — is a break without a new line; when
//!   an item is removed it is named as a removal outside a major;
//! * a change while the server still reports the previous version's `serverInfo.version`:
//!   changed under the same reported version (a lock made from the server would see two
//!   surfaces under one version).
//!
//! Additive or security changes in a patch are shown (needs minor, declared patch) but are not
//! violations, as the lock rules accept them without `--strict-semver`.

use mcpseal_report::replay::{BumpLevel, RowChange, Violation, ViolationKind};
use mcpseal_surface::diff::{Bump, ChangeClass, SurfaceDiff};
use mcpseal_surface::lock::Version;
use serde_json::Value;

use super::witness::witnesses;

/// The bump from `a` to `b` (precedence; build metadata ignored). With `zero_major`, a 0.x
/// minor (or `0.x` → `1.0`) is a major: a new compatibility line.
pub(crate) fn declared(a: &Version, b: &Version, zero_major: bool) -> BumpLevel {
    let (x, y) = (a.precedence(), b.precedence());
    if x == y {
        BumpLevel::None
    } else if x.major != y.major {
        BumpLevel::Major
    } else if x.minor != y.minor {
        if zero_major && x.major == 0 {
            BumpLevel::Major
        } else {
            BumpLevel::Minor
        }
    } else if x.patch != y.patch {
        if zero_major && x.major == 0 && x.minor == 0 {
            // 0.0.x: every patch is its own line, as semver's caret ranges read it.
            BumpLevel::Major
        } else {
            BumpLevel::Patch
        }
    } else {
        BumpLevel::Prerelease
    }
}

/// The bump a diff needs.
pub(crate) fn required(diff: &SurfaceDiff) -> BumpLevel {
    match diff.required_bump() {
        Bump::None => BumpLevel::None,
        Bump::Patch => BumpLevel::Patch,
        Bump::Minor => BumpLevel::Minor,
        Bump::Major => BumpLevel::Major,
    }
}

/// The diff's changes as report rows.
pub(crate) fn changes(diff: &SurfaceDiff) -> Vec<RowChange> {
    diff.changes
        .iter()
        .map(|c| RowChange {
            class: c.class.as_str().to_owned(),
            path: c.path.clone(),
            item: c.item.clone(),
            before: c.before.clone(),
            after: c.after.clone(),
            explanation: c.explanation.clone(),
        })
        .collect()
}

/// One side of a comparison.
pub(crate) struct Judged<'a> {
    pub version: &'a str,
    pub parsed: &'a Version,
    pub reported: Option<&'a str>,
    pub canonical: &'a Value,
}

/// The violations of going from `prev` to `cur` with `diff`.
pub(crate) fn violations(
    prev: &Judged<'_>,
    cur: &Judged<'_>,
    diff: &SurfaceDiff,
    zero_major: bool,
) -> Vec<Violation> {
    let mut out = Vec::new();
    if diff.is_empty() {
        return out;
    }
    let bump = declared(prev.parsed, cur.parsed, zero_major);
    let all_paths: Vec<String> = diff.changes.iter().map(|c| c.path.clone()).collect();
    let breaking: Vec<&mcpseal_surface::diff::Change> = diff.of(ChangeClass::Breaking).collect();
    let breaking_paths: Vec<String> = breaking.iter().map(|c| c.path.clone()).collect();
    let v = |kind: ViolationKind, message: String, paths: Vec<String>, witnesses| Violation {
        kind,
        version: cur.version.to_owned(),
        previous: prev.version.to_owned(),
        message,
        paths,
        witnesses,
    };
    if bump == BumpLevel::None {
        out.push(v(
            ViolationKind::ChangedWithoutVersionBump,
            format!(
                "the surface changed ({} changes) but {} has the precedence of {}",
                diff.changes.len(),
                cur.version,
                prev.version
            ),
            all_paths.clone(),
            witnesses(prev.canonical, cur.canonical, &breaking_paths, cur.version),
        ));
    } else if let (Some(a), Some(b)) = (prev.reported, cur.reported)
        && a == b
    {
        out.push(v(
            ViolationKind::ChangedUnderSameReportedVersion,
            format!(
                "the surface changed ({} changes) but {} still reports serverInfo.version {b}",
                diff.changes.len(),
                cur.version
            ),
            all_paths.clone(),
            Vec::new(),
        ));
    }
    if !breaking.is_empty() && bump != BumpLevel::Major && bump != BumpLevel::None {
        let removed: Vec<&&mcpseal_surface::diff::Change> = breaking
            .iter()
            // A whole item (`/tools/name=echo`), not a part of one.
            .filter(|c| c.after.is_none() && c.item.is_some() && c.path.matches('/').count() == 2)
            .collect();
        let w = witnesses(prev.canonical, cur.canonical, &breaking_paths, cur.version);
        if removed.is_empty() {
            out.push(v(
                ViolationKind::BreakWithoutNewLine,
                format!(
                    "{} breaking change(s) in a {} ({} → {}); a break needs a new major",
                    breaking.len(),
                    bump.as_str(),
                    prev.version,
                    cur.version
                ),
                breaking_paths,
                w,
            ));
        } else {
            let items: Vec<String> = removed.iter().filter_map(|c| c.item.clone()).collect();
            out.push(v(
                ViolationKind::RemovalOutsideMajor,
                format!(
                    "{} removed in a {} ({} → {}); a removal needs a new major",
                    items.join(", "),
                    bump.as_str(),
                    prev.version,
                    cur.version
                ),
                breaking_paths,
                w,
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).expect("version")
    }

    #[test]
    fn declared_bumps() {
        assert_eq!(
            declared(&v("1.1.0"), &v("1.1.0.post1"), true),
            BumpLevel::None
        );
        assert_eq!(declared(&v("1.1.0"), &v("1.1.1"), true), BumpLevel::Patch);
        assert_eq!(declared(&v("1.1.1"), &v("1.2.0"), true), BumpLevel::Minor);
        assert_eq!(declared(&v("1.2.0"), &v("2.0.0"), true), BumpLevel::Major);
        assert_eq!(declared(&v("0.4.0"), &v("0.5.0"), true), BumpLevel::Major);
        assert_eq!(declared(&v("0.4.0"), &v("0.5.0"), false), BumpLevel::Minor);
        assert_eq!(
            declared(&v("1.0.0-rc.1"), &v("1.0.0-rc.2"), true),
            BumpLevel::Prerelease
        );
    }
}
