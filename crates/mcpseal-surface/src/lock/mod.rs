//! Locking a surface next to the server's version: the pure rules behind `mcpseal lock`,
//! `check` and `verify`.
//!
//! * [`anonymous`]: the anonymous-access section (which methods answer without a credential);
//! * [`sem_token`]: mcp-surface's `semToken` section, read and checked;
//! * [`file`](mod@file): the lock file (`surface.lock.json`), its integrity check and its stable bytes;
//! * [`profiles`]: locks of named configuration profiles (`schemaVersion: 2`);
//! * [`version`]: server versions (semver, a leading `v`, PEP 440 mapped to semver);
//! * [`exclude`]: JSON Pointers naming volatile parts left out of the hash;
//! * [`rules`]: which version a change needs, and what `lock` does about it;
//! * [`compare`](mod@compare): the one comparison of a live surface with a declared one, which
//!   `lock`, `check`, `verify` (and a guard, and `registry verify`) all call.
//!
//! No I/O here: the `mcpseal` crate reads manifests, captures servers and writes the file
//! atomically.

pub mod anonymous;
pub mod compare;
pub mod document;
pub mod exclude;
pub mod file;
pub mod profiles;
pub mod rules;
pub mod sem_token;
pub mod version;

pub use anonymous::{AnonymousError, Answer, Answers, Configs, LockAnonymous};
pub use compare::{Comparison, ItemState, ItemVerdict, compare, live_sha256};
pub use document::{
    AnonymousOnlySurface, CanonicalSurface, DeclaredDocument, ItemHashDocument, ItemsDocument,
    LockDocument, ProfileDocument, ProfileLockDocument, ProfilesDeclaredDocument, lock_schema,
    profile_lock_schema,
};
pub use exclude::{Pointer, PointerError};
pub use file::{
    Declared, LOCK_SCHEMA_VERSION, LockError, LockFile, PROFILES_SCHEMA_VERSION, items_of, pretty,
};
pub use profiles::{AnyLock, Profile, ProfileLock, check_profile_name, mcp_surface_profiles};
pub use rules::{
    ChangeKinds, LockDecision, Need, Refusal, RefusalReason, Relation, RuleOptions, decide_lock,
};
pub use version::{Version, VersionError};

/// The JSON Schema (2020-12) of the lock file, as committed in `schemas/surface-lock.schema.json`
/// (generated from [`LockDocument`] by [`lock_schema`]; `cargo xtask check` keeps it current).
/// Every lock [`LockFile::render`] writes validates against it (tested); the hash rule is
/// checked by [`LockFile::parse`].
pub const LOCK_SCHEMA: &str = include_str!("../../../../schemas/surface-lock.schema.json");

/// The JSON Schema (2020-12) of a lock of named profiles (`schemaVersion: 2`), as committed in
/// `schemas/surface-lock-profiles.schema.json` (generated from [`ProfileLockDocument`] by
/// [`profile_lock_schema`]).
pub const PROFILE_LOCK_SCHEMA: &str =
    include_str!("../../../../schemas/surface-lock-profiles.schema.json");
