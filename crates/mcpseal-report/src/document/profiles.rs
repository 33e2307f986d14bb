//! The reports of `mcpseal check` and `mcpseal verify` without `--profile` on a lock of named
//! profiles (`--format json`, `schemaVersion: 1`): every profile the lock has, judged against
//! its own target, in one document.
//!
//! ```json
//! {"schemaVersion": 1, "matches": false, "lock": "surface.lock.json",
//!  "profiles": [
//!    {"profile": "full", "verdict": "passed", "report": {…check report…}},
//!    {"profile": "read-only", "verdict": "failed", "report": {…}},
//!    {"profile": "admin", "verdict": "noVerdict", "error": {"kind": "unreachable", …}}],
//!  "diff": {…every profile's changes, each path under /profiles/NAME…},
//!  "error": {…the first profile error, naming the profile…}}
//! ```
//!
//! Each `report` is the whole document `check --profile NAME` (or `verify --profile NAME`)
//! prints for that profile. The top-level `matches` and `diff` are what a reader of one check
//! report looks at: `matches` is true only when every profile passed, and `diff` holds every
//! profile's changes (their paths already start with `/profiles/NAME`). The exit code is the
//! worst profile's ([`ProfileVerdict`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::check::CheckReport;
use super::diff::DiffDocument;
use super::error::ErrorBody;
use super::verify::VerifyReport;

/// How one profile fared, ordered from best to worst (the run's exit code is the worst one's).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum ProfileVerdict {
    /// The locked surface (exit 0 on its own).
    Passed,
    /// Drift (or, for `check --strict-version`, a server version below the lock's): exit 1.
    Failed,
    /// Could not be judged (unreachable, untrustworthy, a bad anonymous measurement): exit 2.
    NoVerdict,
}

impl ProfileVerdict {
    /// The exit code this verdict alone would give: 0, 1 or 2.
    pub fn code(self) -> u8 {
        match self {
            ProfileVerdict::Passed => 0,
            ProfileVerdict::Failed => 1,
            ProfileVerdict::NoVerdict => 2,
        }
    }
}

/// One profile of [`CheckProfilesReport`]: its check report, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileCheck {
    /// The profile's name, as in the lock.
    pub profile: String,
    /// How it fared.
    pub verdict: ProfileVerdict,
    /// What `check --profile NAME` reports for it (absent when `error` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<CheckReport>,
    /// Why it has no verdict (absent when `report` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// One profile of [`VerifyProfilesReport`]: its verify report, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProfileVerify {
    /// The profile's name, as in the lock.
    pub profile: String,
    /// How it fared.
    pub verdict: ProfileVerdict,
    /// What `verify --profile NAME` reports for it (absent when `error` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<VerifyReport>,
    /// Why it has no verdict (absent when `report` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// `mcpseal check` of every profile of a lock (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal check report of every profile",
    description = "`mcpseal check --format json` without `--profile` on a lock of named profiles, schemaVersion 1: one section per profile. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/check-profiles-report.schema.json")
)]
pub struct CheckProfilesReport {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// Every profile passed (exit 0).
    pub matches: bool,
    /// The lock file, as given.
    pub lock: String,
    /// Every profile of the lock, by name.
    pub profiles: Vec<ProfileCheck>,
    /// Every profile's changes, locked → live, each path under `/profiles/NAME`.
    pub diff: DiffDocument,
    /// The first profile without a verdict, its message naming the profile (absent when every
    /// profile was judged): where CI looks for why a run exited 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// `mcpseal verify` of every profile of a lock (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    title = "mcpseal verify report of every profile",
    description = "`mcpseal verify --format json` without `--profile` on a lock of named profiles, schemaVersion 1: one section per profile. Additive changes only.",
    extend("$id" = "https://github.com/mcpseal/mcpseal/blob/main/schemas/verify-profiles-report.schema.json")
)]
pub struct VerifyProfilesReport {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// Every profile's endpoint serves its locked surface (exit 0).
    pub matches: bool,
    /// The lock file, as given.
    pub lock: String,
    /// Every profile of the lock, by name.
    pub profiles: Vec<ProfileVerify>,
    /// Every profile's changes, locked → live, each path under `/profiles/NAME`.
    pub diff: DiffDocument,
    /// The first profile without a verdict, its message naming the profile (absent when every
    /// profile was judged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// The worst of `verdicts` (`Passed` for none).
fn worst(verdicts: impl Iterator<Item = ProfileVerdict>) -> ProfileVerdict {
    verdicts.max().unwrap_or(ProfileVerdict::Passed)
}

/// Every section's changes in one diff document, sorted by path as every diff is (a stable
/// sort: changes at one path keep their order).
fn joined<'a>(diffs: impl Iterator<Item = &'a DiffDocument>) -> DiffDocument {
    let mut changes: Vec<_> = diffs.flat_map(|d| d.changes.iter().cloned()).collect();
    changes.sort_by(|a, b| mcpseal_surface::utf16_cmp(&a.path, &b.path));
    DiffDocument::of(&mcpseal_surface::SurfaceDiff { changes })
}

/// The first error, its message prefixed with the profile's name.
fn first_error<'a>(
    mut errors: impl Iterator<Item = (&'a str, &'a ErrorBody)>,
) -> Option<ErrorBody> {
    errors.next().map(|(name, e)| ErrorBody {
        message: format!("profile `{name}`: {}", e.message),
        ..e.clone()
    })
}

impl ProfileCheck {
    /// The section of a profile checked (`Ok`) or not (`Err`).
    pub fn of(profile: String, result: Result<CheckReport, ErrorBody>) -> ProfileCheck {
        match result {
            Ok(r) => ProfileCheck {
                profile,
                verdict: if r.passed() {
                    ProfileVerdict::Passed
                } else {
                    ProfileVerdict::Failed
                },
                report: Some(r),
                error: None,
            },
            Err(e) => ProfileCheck {
                profile,
                verdict: ProfileVerdict::NoVerdict,
                report: None,
                error: Some(e),
            },
        }
    }
}

impl ProfileVerify {
    /// The section of a profile verified (`Ok`) or not (`Err`).
    pub fn of(profile: String, result: Result<VerifyReport, ErrorBody>) -> ProfileVerify {
        match result {
            Ok(r) => ProfileVerify {
                profile,
                verdict: if r.matches {
                    ProfileVerdict::Passed
                } else {
                    ProfileVerdict::Failed
                },
                report: Some(r),
                error: None,
            },
            Err(e) => ProfileVerify {
                profile,
                verdict: ProfileVerdict::NoVerdict,
                report: None,
                error: Some(e),
            },
        }
    }
}

impl CheckProfilesReport {
    /// The report of `profiles` (one section per profile of `lock`, in the lock's order).
    pub fn new(lock: String, profiles: Vec<ProfileCheck>) -> CheckProfilesReport {
        let verdict = worst(profiles.iter().map(|p| p.verdict));
        CheckProfilesReport {
            schema_version: 1,
            matches: verdict == ProfileVerdict::Passed,
            lock,
            diff: joined(
                profiles
                    .iter()
                    .filter_map(|p| p.report.as_ref().map(|r| &r.diff)),
            ),
            error: first_error(
                profiles
                    .iter()
                    .filter_map(|p| Some((p.profile.as_str(), p.error.as_ref()?))),
            ),
            profiles,
        }
    }

    /// The worst profile's verdict: the run's exit code.
    pub fn verdict(&self) -> ProfileVerdict {
        worst(self.profiles.iter().map(|p| p.verdict))
    }
}

impl VerifyProfilesReport {
    /// The report of `profiles` (one section per profile of `lock`, in the lock's order).
    pub fn new(lock: String, profiles: Vec<ProfileVerify>) -> VerifyProfilesReport {
        let verdict = worst(profiles.iter().map(|p| p.verdict));
        VerifyProfilesReport {
            schema_version: 1,
            matches: verdict == ProfileVerdict::Passed,
            lock,
            diff: joined(
                profiles
                    .iter()
                    .filter_map(|p| p.report.as_ref().map(|r| &r.diff)),
            ),
            error: first_error(
                profiles
                    .iter()
                    .filter_map(|p| Some((p.profile.as_str(), p.error.as_ref()?))),
            ),
            profiles,
        }
    }

    /// The worst profile's verdict: the run's exit code.
    pub fn verdict(&self) -> ProfileVerdict {
        worst(self.profiles.iter().map(|p| p.verdict))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::ErrorKind;
    use mcpseal_surface::diff;
    use serde_json::json;

    fn tools(names: &[&str]) -> serde_json::Value {
        let tools: Vec<_> = names
            .iter()
            .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
            .collect();
        json!({"form": "mcpseal/1", "era": "2026-07-28", "server": null, "resources": null,
               "resourceTemplates": null, "prompts": null, "tools": tools})
    }

    /// A profile's diff as `check --profile NAME` has it: every path under `/profiles/NAME`.
    fn profile_diff(name: &str, before: &[&str], after: &[&str]) -> DiffDocument {
        let mut d = diff(&tools(before), &tools(after));
        for c in &mut d.changes {
            c.path = format!("/profiles/{name}{}", c.path);
        }
        DiffDocument::of(&d)
    }

    #[test]
    fn the_worst_verdict_wins() {
        use ProfileVerdict::{Failed, NoVerdict, Passed};
        assert_eq!(worst([Passed, Passed].into_iter()), Passed);
        assert_eq!(worst([Passed, Failed].into_iter()), Failed);
        assert_eq!(worst([NoVerdict, Failed, Passed].into_iter()), NoVerdict);
        assert_eq!(worst(std::iter::empty()), Passed);
        assert_eq!(
            [Passed, Failed, NoVerdict].map(ProfileVerdict::code),
            [0, 1, 2]
        );
    }

    #[test]
    fn the_joined_diff_keeps_each_profiles_paths_in_path_order() {
        // `full` sorts after `full-x` in path order (`-` is below `/`): the join re-sorts.
        let a = profile_diff("full", &["a"], &["a", "b"]);
        let b = profile_diff("full-x", &["a"], &[]);
        let quiet = profile_diff("other", &["a"], &["a"]);
        let d = joined([&a, &quiet, &b].into_iter());
        let paths: Vec<&str> = d.changes.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "/profiles/full-x/tools/name=a",
                "/profiles/full/tools/name=b"
            ]
        );
        assert_eq!(d.summary.breaking, 1, "{d:?}");
        assert!(joined([&quiet].into_iter()).is_empty());
    }

    #[test]
    fn the_first_error_names_its_profile() {
        let e = ErrorBody {
            kind: ErrorKind::Unreachable,
            message: "connection refused".into(),
            hint: Some("start it".into()),
        };
        let first = first_error([("admin", &e), ("other", &e)].into_iter()).expect("one");
        assert_eq!(first.message, "profile `admin`: connection refused");
        assert_eq!(first.kind, ErrorKind::Unreachable);
        assert_eq!(first.hint.as_deref(), Some("start it"));
        assert!(first_error(std::iter::empty()).is_none());
        let section = ProfileCheck::of("admin".into(), Err(e));
        assert_eq!(section.verdict, ProfileVerdict::NoVerdict);
        let report = CheckProfilesReport::new("surface.lock.json".into(), vec![section]);
        assert!(!report.matches);
        assert_eq!(report.verdict(), ProfileVerdict::NoVerdict);
        assert!(
            report
                .error
                .is_some_and(|e| e.message.starts_with("profile `admin`: "))
        );
    }
}
