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
//!
//! Both commands' documents are one type, [`ProfilesReport`], over the profile's own report
//! ([`ProfileOutcome`]: [`CheckReport`] or [`VerifyReport`]); [`CheckProfilesReport`] and
//! [`VerifyProfilesReport`] name the two. Each keeps its own schema (title, `$id`, the names
//! `ProfileCheck` / `ProfileVerify` and the words that differ), which the trait supplies.

use std::borrow::Cow;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// What the report of every profile needs of one profile's own report (`check`'s
/// [`CheckReport`], `verify`'s [`VerifyReport`]), and the words its schema has for that command.
pub trait ProfileOutcome {
    /// The command, as typed (`check`, `verify`): the schema's title, `$id` and names.
    const COMMAND: &'static str;
    /// The schema's description of [`ProfilesReport::matches`], in the command's words.
    const MATCHES: &'static str;
    /// The schema's description of [`ProfilesReport::error`], in the command's words.
    const ERROR: &'static str;

    /// The profile passed: exit 0 on its own.
    fn passed(&self) -> bool;

    /// The profile's changes, locked → live, each path under `/profiles/NAME`.
    fn diff(&self) -> &DiffDocument;
}

impl ProfileOutcome for CheckReport {
    const COMMAND: &'static str = "check";
    const MATCHES: &'static str = "Every profile passed (exit 0).";
    const ERROR: &'static str = "The first profile without a verdict, its message naming the profile (absent when every\n\
        profile was judged): where CI looks for why a run exited 2.";

    fn passed(&self) -> bool {
        CheckReport::passed(self)
    }

    fn diff(&self) -> &DiffDocument {
        &self.diff
    }
}

impl ProfileOutcome for VerifyReport {
    const COMMAND: &'static str = "verify";
    const MATCHES: &'static str = "Every profile's endpoint serves its locked surface (exit 0).";
    const ERROR: &'static str = "The first profile without a verdict, its message naming the profile (absent when every\n\
        profile was judged).";

    fn passed(&self) -> bool {
        self.matches
    }

    fn diff(&self) -> &DiffDocument {
        &self.diff
    }
}

/// One profile of a [`ProfilesReport`]: its own report, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", bound(deserialize = "R: Deserialize<'de>"))]
pub struct ProfileSection<R> {
    /// The profile's name, as in the lock.
    pub profile: String,
    /// How it fared.
    pub verdict: ProfileVerdict,
    /// What `COMMAND --profile NAME` reports for it (absent when `error` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<R>,
    /// Why it has no verdict (absent when `report` is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// One profile of [`CheckProfilesReport`]: its check report, or why there is none.
pub type ProfileCheck = ProfileSection<CheckReport>;

/// One profile of [`VerifyProfilesReport`]: its verify report, or why there is none.
pub type ProfileVerify = ProfileSection<VerifyReport>;

/// `mcpseal check` or `mcpseal verify` of every profile of a lock (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(
    bound = "R: ProfileOutcome + JsonSchema",
    transform = report_schema::<R>
)]
pub struct ProfilesReport<R> {
    /// Always 1.
    #[schemars(schema_with = "super::const_one")]
    pub schema_version: u32,
    /// Every profile passed (exit 0); the schema words it as [`ProfileOutcome::MATCHES`].
    pub matches: bool,
    /// The lock file, as given.
    pub lock: String,
    /// Every profile of the lock, by name.
    #[schemars(with = "Vec<SectionSchema<R>>")]
    pub profiles: Vec<ProfileSection<R>>,
    /// Every profile's changes, locked → live, each path under `/profiles/NAME`.
    pub diff: DiffDocument,
    /// The first profile without a verdict, its message naming the profile (absent when every
    /// profile was judged); the schema words it as [`ProfileOutcome::ERROR`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

/// `mcpseal check` of every profile of a lock (see the module docs).
pub type CheckProfilesReport = ProfilesReport<CheckReport>;

/// `mcpseal verify` of every profile of a lock (see the module docs).
pub type VerifyProfilesReport = ProfilesReport<VerifyReport>;

/// `Check` for `check`: how the command's name starts a type's.
fn type_prefix(command: &str) -> String {
    let mut chars = command.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// Sets the description of `schema`'s property `name`.
fn describe(schema: &mut Schema, name: &str, description: impl Into<String>) {
    if let Some(property) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut(name))
        .and_then(Value::as_object_mut)
    {
        property.insert("description".into(), Value::String(description.into()));
    }
}

/// The command's title, description, `$id` and words on the report's schema.
fn report_schema<R: ProfileOutcome>(schema: &mut Schema) {
    let command = R::COMMAND;
    schema.insert(
        "title".into(),
        format!("mcpseal {command} report of every profile").into(),
    );
    schema.insert(
        "description".into(),
        format!(
            "`mcpseal {command} --format json` without `--profile` on a lock of named profiles, \
             schemaVersion 1: one section per profile. Additive changes only."
        )
        .into(),
    );
    schema.insert(
        "$id".into(),
        format!(
            "https://github.com/mcpseal/mcpseal/blob/main/schemas/{command}-profiles-report.schema.json"
        )
        .into(),
    );
    describe(schema, "matches", R::MATCHES);
    describe(schema, "error", R::ERROR);
}

/// The schema of [`ProfileSection<R>`] under the command's own name (`ProfileCheck`,
/// `ProfileVerify`) and words, as each report's schema has always had it.
struct SectionSchema<R>(PhantomData<R>);

impl<R: ProfileOutcome + JsonSchema> JsonSchema for SectionSchema<R> {
    fn schema_name() -> Cow<'static, str> {
        format!("Profile{}", type_prefix(R::COMMAND)).into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let (command, prefix) = (R::COMMAND, type_prefix(R::COMMAND));
        let mut schema = ProfileSection::<R>::json_schema(generator);
        schema.insert(
            "description".into(),
            format!(
                "One profile of [`{prefix}ProfilesReport`]: its {command} report, or why there is none."
            )
            .into(),
        );
        describe(
            &mut schema,
            "report",
            format!("What `{command} --profile NAME` reports for it (absent when `error` is set)."),
        );
        schema
    }
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

impl<R: ProfileOutcome> ProfileSection<R> {
    /// The section of a profile judged (`Ok`) or not (`Err`).
    pub fn of(profile: String, result: Result<R, ErrorBody>) -> ProfileSection<R> {
        match result {
            Ok(r) => ProfileSection {
                profile,
                verdict: if r.passed() {
                    ProfileVerdict::Passed
                } else {
                    ProfileVerdict::Failed
                },
                report: Some(r),
                error: None,
            },
            Err(e) => ProfileSection {
                profile,
                verdict: ProfileVerdict::NoVerdict,
                report: None,
                error: Some(e),
            },
        }
    }
}

impl<R: ProfileOutcome> ProfilesReport<R> {
    /// The report of `profiles` (one section per profile of `lock`, in the lock's order).
    pub fn new(lock: String, profiles: Vec<ProfileSection<R>>) -> ProfilesReport<R> {
        let verdict = worst(profiles.iter().map(|p| p.verdict));
        ProfilesReport {
            schema_version: 1,
            matches: verdict == ProfileVerdict::Passed,
            lock,
            diff: joined(
                profiles
                    .iter()
                    .filter_map(|p| p.report.as_ref().map(R::diff)),
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
