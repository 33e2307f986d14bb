//! The lock and check rules: which version a surface change needs.
//!
//! * Same surface: always fine. `lock` re-stamps the version **upwards only**, so that a later
//!   change under the new version is caught.
//! * Changed surface under the locked version or a lower one: refused.
//! * Changed surface under a higher version: accepted by `lock` unless
//!   * a contract break (the diff's `Breaking` class) is not on a new compatibility line: a new
//!     major, or in 0.x a new minor (`0.4.0 → 0.5.0` may break, `0.4.0 → 0.4.1` may not);
//!   * `--strict-semver`, and an additive or security change without a new minor (or major),
//!     as semver asks for new features;
//!   * `--deny-security`, and a security-class change (otherwise accepted and shown loudly).
//!
//! Versions compare by semver precedence, build metadata ignored ([`Version`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::version::Version;
use crate::diff::{ChangeClass, SurfaceDiff};

/// What kinds of change a surface diff holds (built from the diff engine's classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ChangeKinds {
    /// Anything changed at all.
    pub any: bool,
    /// A contract break.
    pub breaking: bool,
    /// A change that widens what the server can do to its user.
    pub security: bool,
    /// Something new that breaks no client.
    pub additive: bool,
}

impl ChangeKinds {
    /// The kinds of change in `diff` (`any` is true when it has any change at all; a caller
    /// that also compares hashes adds a hash difference, as [`compare`](super::compare()) does).
    pub fn of(diff: &SurfaceDiff) -> ChangeKinds {
        ChangeKinds {
            any: !diff.is_empty(),
            breaking: diff.has(ChangeClass::Breaking),
            security: diff.has(ChangeClass::Security),
            additive: diff.has(ChangeClass::Additive),
        }
    }
}

/// Rule switches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RuleOptions {
    /// Additive and security changes need at least a new minor.
    pub strict_semver: bool,
    /// Security-class changes are refused whatever the version.
    pub deny_security: bool,
}

/// The least a change set needs from the version. Serialised in camelCase (`"nothing"`,
/// `"higher"`, `"newMinor"`, `"newLine"`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum Need {
    /// Nothing changed.
    Nothing,
    /// Any higher version.
    Higher,
    /// A new minor (or major).
    NewMinor,
    /// A new compatibility line: major, or minor in 0.x.
    NewLine,
}

impl Need {
    /// What `changes` need under `options`.
    pub fn of(changes: &ChangeKinds, options: &RuleOptions) -> Need {
        if !changes.any {
            Need::Nothing
        } else if changes.breaking {
            Need::NewLine
        } else if options.strict_semver && (changes.additive || changes.security) {
            Need::NewMinor
        } else {
            Need::Higher
        }
    }

    /// The smallest version above `locked` that satisfies this need.
    pub fn smallest_after(self, locked: &Version) -> semver::Version {
        let v = locked.semver();
        let (major, minor, patch) = (v.major, v.minor, v.patch);
        let on_pre = !v.pre.is_empty();
        match self {
            Need::Nothing => locked.precedence(),
            // 1.2.3-rc.1 → 1.2.3 is higher; 1.2.3 → 1.2.4.
            Need::Higher if on_pre => semver::Version::new(major, minor, patch),
            Need::Higher => semver::Version::new(major, minor, patch + 1),
            Need::NewMinor if on_pre && patch == 0 => semver::Version::new(major, minor, 0),
            Need::NewMinor => semver::Version::new(major, minor + 1, 0),
            Need::NewLine if major == 0 => {
                if on_pre && patch == 0 {
                    semver::Version::new(0, minor, 0)
                } else {
                    semver::Version::new(0, minor + 1, 0)
                }
            }
            Need::NewLine if on_pre && minor == 0 && patch == 0 => {
                semver::Version::new(major, 0, 0)
            }
            Need::NewLine => semver::Version::new(major + 1, 0, 0),
        }
    }

    /// Whether going from `locked` to `current` satisfies this need.
    pub fn satisfied_by(self, locked: &Version, current: &Version) -> bool {
        match self {
            Need::Nothing => true,
            Need::Higher => current > locked,
            Need::NewMinor => {
                current > locked && current.precedence() >= Need::NewMinor.smallest_after(locked)
            }
            Need::NewLine => {
                current > locked
                    && (current.line() != locked.line()
                        || current.precedence() >= Need::NewLine.smallest_after(locked))
            }
        }
    }

    /// What the change needs, in words: `a higher version`, `a new minor`, `a new major`, or
    /// `a new minor (the 0.x compatibility line)`.
    pub fn phrase(self, locked: &Version) -> &'static str {
        match self {
            Need::Nothing => "no new version",
            Need::Higher => "a higher version",
            Need::NewMinor => "a new minor",
            Need::NewLine if locked.semver().major == 0 => {
                "a new minor (the 0.x compatibility line)"
            }
            Need::NewLine => "a new major",
        }
    }
}

/// How the current version relates to the locked one. Serialised in lowercase (`"lower"`,
/// `"same"`, `"higher"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// Below the lock's version.
    Lower,
    /// The lock's version.
    Same,
    /// Above it.
    Higher,
}

impl Relation {
    /// `current` against `locked`.
    pub fn of(locked: &Version, current: &Version) -> Relation {
        match current.cmp(locked) {
            std::cmp::Ordering::Less => Relation::Lower,
            std::cmp::Ordering::Equal => Relation::Same,
            std::cmp::Ordering::Greater => Relation::Higher,
        }
    }
}

/// What `lock` does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockDecision {
    /// No lock yet: write one.
    Create,
    /// Same surface, same version: nothing to write.
    UpToDate,
    /// Same surface under a higher version: write the new version.
    Restamp,
    /// Changed surface under a version that satisfies the rules: write it.
    Accept,
    /// Refused; the file stays as it is.
    Refuse(Refusal),
}

/// Why `lock` refused, and the smallest version it would accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The rule that refused.
    pub reason: RefusalReason,
    /// What the change needs.
    pub need: Need,
    /// The smallest version that would be accepted (`None` for `--deny-security`).
    pub accepted: Option<semver::Version>,
}

/// The rule behind a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalReason {
    /// The surface changed, the version did not go up.
    NotHigher(Relation),
    /// A contract break without a new compatibility line.
    BreakWithoutNewLine,
    /// `--strict-semver`: an additive or security change without a new minor.
    AdditiveWithoutMinor,
    /// `--deny-security`.
    Security,
    /// The surface is unchanged but the version is lower than the lock's (a release mistake).
    UnchangedLowerVersion,
}

/// Decides what `lock` does with `current` against the lock (if any).
pub fn decide_lock(
    locked: Option<&Version>,
    current: &Version,
    changes: &ChangeKinds,
    options: &RuleOptions,
) -> LockDecision {
    let Some(locked) = locked else {
        return LockDecision::Create;
    };
    let relation = Relation::of(locked, current);
    let need = Need::of(changes, options);
    if need == Need::Nothing {
        return match relation {
            Relation::Same => LockDecision::UpToDate,
            // A lower version is a release mistake (an old branch, a wrong tag), never a
            // stamp to keep quiet about: refused, the file untouched (SPEC.md section 9).
            Relation::Lower => LockDecision::Refuse(Refusal {
                reason: RefusalReason::UnchangedLowerVersion,
                need,
                accepted: Some(locked.semver().clone()),
            }),
            Relation::Higher => LockDecision::Restamp,
        };
    }
    let refuse = |reason| {
        LockDecision::Refuse(Refusal {
            reason,
            need,
            accepted: Some(need.smallest_after(locked)),
        })
    };
    if options.deny_security && changes.security {
        return LockDecision::Refuse(Refusal {
            reason: RefusalReason::Security,
            need,
            accepted: None,
        });
    }
    if relation != Relation::Higher {
        return refuse(RefusalReason::NotHigher(relation));
    }
    if need.satisfied_by(locked, current) {
        return LockDecision::Accept;
    }
    refuse(match need {
        Need::NewMinor => RefusalReason::AdditiveWithoutMinor,
        _ => RefusalReason::BreakWithoutNewLine,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).expect("version")
    }

    const NONE: ChangeKinds = ChangeKinds {
        any: false,
        breaking: false,
        security: false,
        additive: false,
    };
    const COSMETIC: ChangeKinds = ChangeKinds { any: true, ..NONE };
    const BREAK: ChangeKinds = ChangeKinds {
        any: true,
        breaking: true,
        ..NONE
    };
    const ADD: ChangeKinds = ChangeKinds {
        any: true,
        additive: true,
        ..NONE
    };
    const SEC: ChangeKinds = ChangeKinds {
        any: true,
        security: true,
        ..NONE
    };

    fn lock(locked: &str, current: &str, c: ChangeKinds, o: RuleOptions) -> LockDecision {
        decide_lock(Some(&v(locked)), &v(current), &c, &o)
    }

    fn accepted(d: &LockDecision) -> Option<String> {
        match d {
            LockDecision::Refuse(r) => r.accepted.as_ref().map(ToString::to_string),
            _ => None,
        }
    }

    #[test]
    fn unchanged_surface() {
        let o = RuleOptions::default();
        assert_eq!(
            decide_lock(None, &v("1.0.0"), &BREAK, &o),
            LockDecision::Create
        );
        assert_eq!(lock("1.0.0", "1.0.0", NONE, o), LockDecision::UpToDate);
        assert_eq!(lock("1.0.0", "1.0.0+b7", NONE, o), LockDecision::UpToDate);
        assert_eq!(lock("1.0.0", "1.1.0", NONE, o), LockDecision::Restamp);
        assert!(matches!(
            lock("1.1.0", "1.0.0", NONE, o),
            LockDecision::Refuse(Refusal {
                reason: RefusalReason::UnchangedLowerVersion,
                ..
            })
        ));
    }

    #[test]
    fn changed_surface() {
        let o = RuleOptions::default();
        let d = lock("1.0.0", "1.0.0", COSMETIC, o);
        assert_eq!(accepted(&d).as_deref(), Some("1.0.1"));
        assert!(matches!(
            lock("1.0.0", "0.9.0", COSMETIC, o),
            LockDecision::Refuse(_)
        ));
        assert_eq!(lock("1.0.0", "1.0.1", COSMETIC, o), LockDecision::Accept);
        assert_eq!(lock("1.0.0", "1.0.1", ADD, o), LockDecision::Accept);
        let d = lock("1.0.0", "1.1.0", BREAK, o);
        assert_eq!(accepted(&d).as_deref(), Some("2.0.0"));
        assert_eq!(lock("1.0.0", "2.0.0", BREAK, o), LockDecision::Accept);
        assert_eq!(lock("1.0.0", "2.0.0-rc.1", BREAK, o), LockDecision::Accept);
        assert_eq!(lock("0.4.0", "0.5.0", BREAK, o), LockDecision::Accept);
        let d = lock("0.4.0", "0.4.1", BREAK, o);
        assert_eq!(accepted(&d).as_deref(), Some("0.5.0"));
        assert_eq!(lock("2.0.0-rc.1", "2.0.0", BREAK, o), LockDecision::Accept);
        assert_eq!(lock("1.0.0", "1.0.1", SEC, o), LockDecision::Accept);
    }

    #[test]
    fn switches() {
        let strict = RuleOptions {
            strict_semver: true,
            ..RuleOptions::default()
        };
        assert_eq!(
            accepted(&lock("1.0.0", "1.0.1", ADD, strict)).as_deref(),
            Some("1.1.0")
        );
        assert_eq!(lock("1.0.0", "1.1.0", ADD, strict), LockDecision::Accept);
        assert_eq!(
            lock("1.0.0", "1.0.1", COSMETIC, strict),
            LockDecision::Accept
        );
        let deny = RuleOptions {
            deny_security: true,
            ..RuleOptions::default()
        };
        let d = lock("1.0.0", "2.0.0", SEC, deny);
        assert!(matches!(
            d,
            LockDecision::Refuse(Refusal {
                reason: RefusalReason::Security,
                accepted: None,
                ..
            })
        ));
    }

    #[test]
    fn words() {
        assert_eq!(
            Need::NewLine.phrase(&v("0.4.0")),
            "a new minor (the 0.x compatibility line)"
        );
        assert_eq!(Need::NewLine.phrase(&v("1.4.0")), "a new major");
        assert_eq!(Need::of(&NONE, &RuleOptions::default()), Need::Nothing);
    }
}
