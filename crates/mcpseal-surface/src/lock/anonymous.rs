//! The lock's anonymous-access section: which methods answer **without a credential**, per
//! configuration and route (issue 13; mcp-surface's `semToken` section, in mcpseal's shape).
//!
//! ```json
//! "anonymous": {"sha256": "…",
//!               "answers": {"tools/list": {"answers": true, "status": 200}},
//!               "configs": {"default": {"POST /mcp": {"tools/list": {…}}}}}
//! ```
//!
//! `answers` is the default configuration on the target's own route; `configs` every measured
//! one (the default included). The section is hashed on its own ([`section_sha256`]: SHA-256 of
//! the JCS bytes of the section without its `sha256` member), so it can change without touching
//! the declared surface's hash, and a hand edit of it is caught on read.
//!
//! This is the one definition of the section: the lock rules (`mcpseal lock/check/verify`), the
//! registry block and the server card all read it from here. It lives in `mcpseal-surface`, not
//! `mcpseal-protocol`, because it is a part of the lock file with the lock's hash rule, not a
//! wire concept; `mcpseal-publish` re-exports it.
//!
//! [`changes`] turns two sections into diff [`Change`]s, so every renderer (text, JSON,
//! Markdown, SARIF) shows them with the surface's own changes:
//! * a method that newly answers anonymously is **security** (widened access, always shown);
//! * a method that stops answering anonymously is **breaking** (a client that relied on it
//!   now needs a credential it may not have; SPEC.md section 10);
//! * the same verdict with another status or error code is **cosmetic** (still a change of the
//!   section, so still a version bump).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use thiserror::Error;

use crate::diff::{Change, ChangeClass};
use crate::jcs::{jcs, sha256_hex};

/// The lock file's top-level key of the section.
pub const SECTION_KEY: &str = "anonymous";

/// The configuration name of a measurement without `--anonymous-config`.
pub const DEFAULT_CONFIG: &str = "default";

/// How one method answered without a credential.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// HTTP 200 and a JSON-RPC `result`.
    pub answers: bool,
    /// The HTTP status (0 over stdio).
    pub status: u16,
    /// The JSON-RPC error code, when refused with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
}

impl Answer {
    /// Whether a stranger gets past the credential check: the method answered, or (for
    /// `tools/call` of a tool that cannot exist) the handler itself refused the unknown tool
    /// with HTTP 200 and a JSON-RPC error, not a credential refusal.
    pub fn open(&self, method: &str) -> bool {
        self.answers || (method == "tools/call" && self.status == 200 && self.code.is_some())
    }
}

/// Method → answer.
pub type Answers = BTreeMap<String, Answer>;

/// Configuration → route (`"POST /mcp"`) → method → answer.
pub type Configs = BTreeMap<String, BTreeMap<String, Answers>>;

/// The lock's anonymous section (see the module docs).
///
/// It serialises as the lock stores it (`sha256`, `answers`, `configs`), so a report can carry
/// it as a typed field; reading it back through serde checks nothing: a lock's section is read
/// through [`LockAnonymous::from_lock_extra`], which checks the hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LockAnonymous {
    /// The stored hash (checked on read; [`LockAnonymous::new`] computes it).
    pub sha256: String,
    /// Default configuration, own route.
    pub answers: Answers,
    /// Every measured configuration.
    #[serde(default)]
    pub configs: Configs,
}

/// Why a lock's anonymous section cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum AnonymousError {
    /// Not the documented shape.
    #[error("the lock's `anonymous` section is malformed: {0}")]
    Shape(String),
    /// The stored hash is not the section's.
    #[error(
        "the lock's `anonymous` section was edited by hand: stored sha256 {stored}, computed {computed}"
    )]
    EditedByHand {
        /// Stored (shortened).
        stored: String,
        /// Computed (shortened).
        computed: String,
    },
}

/// SHA-256 of the JCS bytes of a lock's anonymous section without its `sha256` member.
pub fn section_sha256(section: &Map<String, Value>) -> String {
    let mut rest = section.clone();
    rest.remove("sha256");
    sha256_hex(&jcs(&Value::Object(rest)))
}

impl LockAnonymous {
    /// A section for `configs`; `answers` is `configs[default_config][default_route]` (empty
    /// when that was not measured).
    pub fn new(configs: Configs, default_config: &str, default_route: &str) -> LockAnonymous {
        let answers = configs
            .get(default_config)
            .and_then(|c| c.get(default_route))
            .cloned()
            .unwrap_or_default();
        let mut s = LockAnonymous {
            sha256: String::new(),
            answers,
            configs,
        };
        s.sha256 = section_sha256(&s.body());
        s
    }

    fn body(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("answers".into(), json!(self.answers));
        m.insert("configs".into(), json!(self.configs));
        m
    }

    /// The section as the lock stores it (`sha256`, `answers`, `configs`).
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("sha256".into(), Value::String(self.sha256.clone()));
        m.extend(self.body());
        Value::Object(m)
    }

    /// Reads the section from a lock's unknown top-level keys; `Ok(None)` when the lock has
    /// none.
    ///
    /// # Errors
    /// [`AnonymousError`]: wrong shape, or a hash that does not hold.
    pub fn from_lock_extra(
        extra: &Map<String, Value>,
    ) -> Result<Option<LockAnonymous>, AnonymousError> {
        let Some(section) = extra.get(SECTION_KEY) else {
            return Ok(None);
        };
        let Value::Object(map) = section else {
            return Err(AnonymousError::Shape("not an object".into()));
        };
        let Some(Value::String(stored)) = map.get("sha256") else {
            return Err(AnonymousError::Shape("`sha256` must be a string".into()));
        };
        let answers: Answers = match map.get("answers") {
            Some(a) => serde_json::from_value(a.clone())
                .map_err(|e| AnonymousError::Shape(format!("`answers`: {e}")))?,
            None => return Err(AnonymousError::Shape("`answers` is missing".into())),
        };
        let configs: Configs = match map.get("configs") {
            Some(c) => serde_json::from_value(c.clone())
                .map_err(|e| AnonymousError::Shape(format!("`configs`: {e}")))?,
            None => Configs::new(),
        };
        let computed = section_sha256(map);
        if &computed != stored {
            return Err(AnonymousError::EditedByHand {
                stored: stored.chars().take(12).collect(),
                computed: computed.chars().take(12).collect(),
            });
        }
        Ok(Some(LockAnonymous {
            sha256: stored.clone(),
            answers,
            configs,
        }))
    }

    /// Writes the section into a lock's top-level keys (replacing an older one).
    pub fn store(&self, extra: &mut Map<String, Value>) {
        extra.insert(SECTION_KEY.into(), self.to_value());
    }

    /// Every (config, route, method, answer), in key order; a section without `configs` (an
    /// older or a hand-built one) yields its `answers` under the default configuration.
    fn cells(&self) -> Vec<(String, String, String, &Answer)> {
        let mut out = Vec::new();
        if self.configs.is_empty() {
            for (m, a) in &self.answers {
                out.push((DEFAULT_CONFIG.to_owned(), String::new(), m.clone(), a));
            }
        }
        for (c, routes) in &self.configs {
            for (r, answers) in routes {
                for (m, a) in answers {
                    out.push((c.clone(), r.clone(), m.clone(), a));
                }
            }
        }
        out
    }
}

fn path_of(config: &str, route: &str, method: &str) -> String {
    let esc = |s: &str| s.replace('~', "~0").replace('/', "~1");
    format!("/anonymous/{}/{}/{}", esc(config), esc(route), esc(method))
}

fn place(config: &str, route: &str, method: &str) -> String {
    if route.is_empty() {
        format!("{method}, config {config}")
    } else {
        format!("{method} on {route}, config {config}")
    }
}

/// The changes from `before` to `after` (see the module docs for the classes). A cell measured
/// on one side only is a change too: a method now measured and open is widened access.
pub fn changes(before: &LockAnonymous, after: &LockAnonymous) -> Vec<Change> {
    let key = |(c, r, m, _): &(String, String, String, &Answer)| (c.clone(), r.clone(), m.clone());
    let old: BTreeMap<_, _> = before.cells().into_iter().map(|x| (key(&x), x.3)).collect();
    let new: BTreeMap<_, _> = after.cells().into_iter().map(|x| (key(&x), x.3)).collect();
    let mut out = Vec::new();
    let mut keys: Vec<_> = old.keys().chain(new.keys()).cloned().collect();
    keys.sort();
    keys.dedup();
    for (c, r, m) in keys {
        let (b, a) = (
            old.get(&(c.clone(), r.clone(), m.clone())),
            new.get(&(c.clone(), r.clone(), m.clone())),
        );
        if b == a {
            continue;
        }
        let was = b.is_some_and(|x| x.open(&m));
        let is = a.is_some_and(|x| x.open(&m));
        let (class, explanation) = match (was, is) {
            (false, true) => (
                ChangeClass::Security,
                format!("widened anonymous access: {}", place(&c, &r, &m)),
            ),
            (true, false) => (
                ChangeClass::Breaking,
                format!(
                    "narrowed anonymous access: {} no longer answers without a credential (a client that relied on it breaks)",
                    place(&c, &r, &m)
                ),
            ),
            _ => (
                ChangeClass::Cosmetic,
                format!(
                    "anonymous answer of {} changed its status or code, not its verdict",
                    place(&c, &r, &m)
                ),
            ),
        };
        out.push(Change {
            class,
            path: path_of(&c, &r, &m),
            item: Some(format!("anonymous {m}")),
            before: b.map(|x| json!(x)),
            after: a.map(|x| json!(x)),
            explanation,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ans(answers: bool, status: u16, code: Option<i64>) -> Answer {
        Answer {
            answers,
            status,
            code,
        }
    }

    fn section(list_open: bool) -> LockAnonymous {
        let mut a = Answers::new();
        a.insert("ping".into(), ans(true, 200, None));
        a.insert(
            "tools/list".into(),
            if list_open {
                ans(true, 200, None)
            } else {
                ans(false, 401, None)
            },
        );
        let mut routes = BTreeMap::new();
        routes.insert("POST /mcp".to_owned(), a);
        let mut configs = Configs::new();
        configs.insert(DEFAULT_CONFIG.into(), routes);
        LockAnonymous::new(configs, DEFAULT_CONFIG, "POST /mcp")
    }

    #[test]
    fn a_stored_section_reads_back_and_a_tampered_one_is_refused() {
        let s = section(false);
        let mut extra = Map::new();
        s.store(&mut extra);
        assert_eq!(LockAnonymous::from_lock_extra(&extra), Ok(Some(s.clone())));
        assert!(!s.answers["tools/list"].answers);
        extra["anonymous"]["answers"]["tools/list"]["answers"] = json!(true);
        assert!(matches!(
            LockAnonymous::from_lock_extra(&extra),
            Err(AnonymousError::EditedByHand { .. })
        ));
        assert_eq!(LockAnonymous::from_lock_extra(&Map::new()), Ok(None));
    }

    #[test]
    fn widened_access_is_security_narrowed_is_breaking_same_is_quiet() {
        let closed = section(false);
        let open = section(true);
        assert!(changes(&closed, &closed).is_empty());
        let widened = changes(&closed, &open);
        assert_eq!(widened.len(), 1);
        assert_eq!(widened[0].class, ChangeClass::Security);
        assert_eq!(widened[0].path, "/anonymous/default/POST ~1mcp/tools~1list");
        assert!(
            widened[0]
                .explanation
                .contains("widened anonymous access: tools/list on POST /mcp, config default"),
            "{}",
            widened[0].explanation
        );
        let narrowed = changes(&open, &closed);
        assert_eq!(narrowed[0].class, ChangeClass::Breaking);
    }

    #[test]
    fn a_call_reaching_the_handler_is_open_a_credential_refusal_is_not() {
        assert!(ans(false, 200, Some(-32602)).open("tools/call"));
        assert!(!ans(false, 401, None).open("tools/call"));
        assert!(!ans(false, 200, Some(-32602)).open("tools/list"));
    }
}
