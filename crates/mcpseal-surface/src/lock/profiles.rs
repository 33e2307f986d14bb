//! Locks of named configuration profiles (`schemaVersion: 2`, issue 13 item 6).
//!
//! Many servers show a different surface per configuration (a read-only mode, a feature flag,
//! a key that unlocks tools). Such a lock's declared section is a map of profiles, each locked
//! on its own by `mcpseal lock --profile NAME` against its own target, and each a complete
//! declared section (version, hash, exclusions, items, surface, and its own anonymous section):
//!
//! ```json
//! {
//!   "schemaVersion": 2,
//!   "form": "mcpseal/1",
//!   "declared": {
//!     "sha256": "<SHA-256 of the JCS bytes of {NAME: surface after exclude, …}>",
//!     "profiles": {
//!       "full":     {"version": "1.2.0", "sha256": "…", "exclude": [], "items": {…}, "surface": {…}},
//!       "readonly": {"version": "1.2.0", "sha256": "…", "exclude": [], "items": {…}, "surface": {…},
//!                    "anonymous": {…}}
//!     }
//!   }
//! }
//! ```
//!
//! Each profile's `sha256` is the hash of its own surface (`sha256(canonical(map[NAME]))`,
//! mcp-surface's per-profile hash); `declared.sha256` covers the whole map, as mcp-surface's
//! `declarada.sha256` does for a profile map (the same value for `mcp-surface/1` surfaces
//! without exclusions). Both are checked on every read.
//!
//! A lock without named profiles stays a [`LockFile`] (`schemaVersion: 1`, byte-for-byte the
//! format from before): the two are never mixed in one file. [`ProfileLock::profile`] gives one
//! profile as a [`LockFile`], so `lock`, `check` and `verify` judge a profile with the one
//! comparison they use for a plain lock.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::file::{
    Declared, LOCK_SCHEMA_VERSION, LockError, LockFile, PROFILES_SCHEMA_VERSION, parse_declared,
    parse_form, parse_top, quote, render_declared, render_extra, short, unedited,
};
use crate::jcs::{jcs, sha256_hex};
use crate::surface::Form;

/// A profile name: what `--profile` accepts and the lock stores.
///
/// Letters, digits, `-`, `_` and `.`, 1 to 64 characters, starting with a letter or digit: it
/// is a key in the lock, a segment of every diff path and a word in text reports.
///
/// # Errors
/// A sentence saying what is wrong with `name`.
pub fn check_profile_name(name: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    match name.chars().next() {
        None => Err("a profile name cannot be empty".into()),
        Some(first) if !first.is_ascii_alphanumeric() => Err(format!(
            "profile name `{name}` must start with a letter or a digit"
        )),
        _ if name.len() > 64 => Err(format!(
            "profile name `{name}` is longer than 64 characters"
        )),
        _ if !name.chars().all(ok_char) => Err(format!(
            "profile name `{name}` may hold only letters, digits, `-`, `_` and `.`"
        )),
        _ => Ok(()),
    }
}

/// One profile: its declared section and the keys stored next to it (its `anonymous`
/// section, and any this version does not know, kept verbatim).
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The profile's declared section.
    pub declared: Declared,
    /// The other keys of the profile's object (`anonymous`, unknown ones).
    pub extra: Map<String, Value>,
}

/// A lock of named profiles (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileLock {
    /// The canonical form of every profile's surface.
    pub form: Form,
    /// The profiles by name.
    pub profiles: BTreeMap<String, Profile>,
    /// Top-level keys this version does not know, kept verbatim.
    pub extra: Map<String, Value>,
}

/// Any lock file: one surface, or named profiles.
#[derive(Debug, Clone, PartialEq)]
pub enum AnyLock {
    /// `schemaVersion: 1`.
    Plain(LockFile),
    /// `schemaVersion: 2`.
    Profiles(ProfileLock),
}

impl AnyLock {
    /// Reads either kind of lock file and checks its integrity.
    ///
    /// # Errors
    /// [`LockError`], as [`LockFile::parse`] and [`ProfileLock::parse`].
    pub fn parse(text: &str) -> Result<AnyLock, LockError> {
        match LockFile::parse(text) {
            Ok(l) => Ok(AnyLock::Plain(l)),
            Err(LockError::Profiles { .. }) => ProfileLock::parse(text).map(AnyLock::Profiles),
            Err(e) => Err(e),
        }
    }

    /// The form of the lock's surfaces.
    pub fn form(&self) -> Form {
        match self {
            AnyLock::Plain(l) => l.form,
            AnyLock::Profiles(p) => p.form,
        }
    }
}

impl ProfileLock {
    /// An empty profile lock in `form` (a first `lock --profile` fills it).
    pub fn new(form: Form) -> ProfileLock {
        ProfileLock {
            form,
            profiles: BTreeMap::new(),
            extra: Map::new(),
        }
    }

    /// The profile names, in order.
    pub fn names(&self) -> Vec<String> {
        self.profiles.keys().cloned().collect()
    }

    /// The hash of the whole map: SHA-256 of the JCS bytes of `{NAME: hashed surface}`.
    pub fn sha256(&self) -> String {
        let map: Map<String, Value> = self
            .profiles
            .iter()
            .map(|(n, p)| (n.clone(), p.declared.hashed_surface()))
            .collect();
        sha256_hex(&jcs(&Value::Object(map)))
    }

    /// One profile as a plain lock (its section, its `anonymous` section in `extra`), for the
    /// workflows that judge one surface.
    ///
    /// # Errors
    /// [`LockError::NoProfile`] naming the profiles the lock has.
    pub fn profile(&self, name: &str) -> Result<LockFile, LockError> {
        let p = self
            .profiles
            .get(name)
            .ok_or_else(|| LockError::NoProfile {
                name: name.to_owned(),
                have: self.names(),
            })?;
        Ok(LockFile {
            form: self.form,
            declared: p.declared.clone(),
            extra: p.extra.clone(),
        })
    }

    /// Stores `lock` (as the lock workflow wrote it for one profile) as profile `name`,
    /// replacing the profile's previous section and keys.
    pub fn set(&mut self, name: &str, lock: LockFile) {
        self.form = lock.form;
        self.profiles.insert(
            name.to_owned(),
            Profile {
                declared: lock.declared,
                extra: lock.extra,
            },
        );
    }

    /// Reads a profile lock and checks its integrity: every profile as a declared section
    /// ([`LockFile::parse`]'s rule), and `declared.sha256` as the hash of the whole map.
    ///
    /// # Errors
    /// [`LockError`]: conflict markers, not JSON, another schema version, wrong shape, edited
    /// by hand.
    pub fn parse(text: &str) -> Result<ProfileLock, LockError> {
        let mut top = parse_top(text)?;
        let shape = |m: String| LockError::Shape(m);
        match top.remove("schemaVersion").as_ref().and_then(Value::as_u64) {
            Some(PROFILES_SCHEMA_VERSION) => {}
            Some(found) if found > PROFILES_SCHEMA_VERSION => {
                return Err(LockError::Newer { found });
            }
            Some(LOCK_SCHEMA_VERSION) => {
                return Err(shape(
                    "a lock of `schemaVersion` 1 has no named profiles".into(),
                ));
            }
            _ => return Err(shape("`schemaVersion` must be 2".into())),
        }
        let form = parse_form(&mut top)?;
        let Some(Value::Object(mut d)) = top.remove("declared") else {
            return Err(shape("`declared` is missing".into()));
        };
        let stored = match d.remove("sha256") {
            Some(Value::String(s)) => s,
            _ => return Err(shape("`declared.sha256` must be a string".into())),
        };
        let Some(Value::Object(map)) = d.remove("profiles") else {
            return Err(shape("`declared.profiles` must be an object".into()));
        };
        if let Some(k) = d.keys().next() {
            return Err(shape(format!(
                "`declared.{k}` is not a field of a profile lock"
            )));
        }
        if map.is_empty() {
            return Err(shape("`declared.profiles` is empty".into()));
        }
        let mut profiles = BTreeMap::new();
        for (name, p) in map {
            check_profile_name(&name).map_err(shape)?;
            let Value::Object(p) = p else {
                return Err(shape(format!(
                    "`declared.profiles.{name}` must be an object"
                )));
            };
            let mut rest = p;
            let declared = parse_declared_keeping(&mut rest, &format!("declared.profiles.{name}"))?;
            profiles.insert(
                name,
                Profile {
                    declared,
                    extra: rest,
                },
            );
        }
        let lock = ProfileLock {
            form,
            profiles,
            extra: top,
        };
        unedited(&stored, &lock.sha256())?;
        Ok(lock)
    }

    /// The file's bytes: fixed order (`schemaVersion`, `form`, `declared` with `sha256` then
    /// `profiles` by name, each profile's section fields then its other keys in JCS order),
    /// two-space indentation, JCS key order below; ends with a newline.
    pub fn render(&self) -> String {
        let mut out = String::from("{\n");
        out.push_str(&format!(
            "  \"schemaVersion\": {PROFILES_SCHEMA_VERSION},\n"
        ));
        out.push_str(&format!("  \"form\": {},\n", quote(self.form.as_str())));
        out.push_str("  \"declared\": {\n");
        out.push_str(&format!("    \"sha256\": {},\n", quote(&self.sha256())));
        out.push_str("    \"profiles\": {");
        let mut names: Vec<&String> = self.profiles.keys().collect();
        names.sort_by(|a, b| crate::jcs::utf16_cmp(a, b));
        for (i, name) in names.into_iter().enumerate() {
            let p = &self.profiles[name];
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            out.push_str(&format!("      {}: {{\n", quote(name)));
            out.push_str(&render_declared(&p.declared, 3));
            render_extra(&mut out, &p.extra, 4);
            out.push_str("\n      }");
        }
        out.push_str("\n    }\n  }");
        render_extra(&mut out, &self.extra, 1);
        out.push_str("\n}\n");
        out
    }
}

/// [`parse_declared`] over a profile's object, leaving its other keys (`anonymous`, unknown
/// ones) in `p`.
fn parse_declared_keeping(p: &mut Map<String, Value>, at: &str) -> Result<Declared, LockError> {
    let mut section = Map::new();
    for k in ["version", "sha256", "exclude", "items", "surface"] {
        if let Some(v) = p.remove(k) {
            section.insert(k.to_owned(), v);
        }
    }
    parse_declared(section, at)
}

/// mcp-surface's declared section (`declarada`) when its `conteudo` is a map of profiles: each
/// profile's hash (`sha256(canonical(conteudo[P]))`, what `verificar --perfil P` expects) by
/// name, after checking the stored `sha256` against the whole map.
///
/// `None` when `conteudo` is a single surface (it has `initialize`); a map of profiles is an
/// object whose every value is a surface object.
///
/// # Errors
/// A sentence naming the trouble: the whole-map hash is not the stored one (edited by hand),
/// or a profile is not a surface object.
pub fn mcp_surface_profiles(declarada: &Value) -> Result<Option<BTreeMap<String, String>>, String> {
    let conteudo = declarada
        .get("conteudo")
        .ok_or("`declarada.conteudo` is missing")?;
    let Value::Object(map) = conteudo else {
        return Err("`declarada.conteudo` must be an object".into());
    };
    if map.contains_key("initialize") {
        return Ok(None);
    }
    let stored = declarada
        .get("sha256")
        .and_then(Value::as_str)
        .ok_or("`declarada.sha256` must be a string")?;
    let whole = sha256_hex(&jcs(conteudo));
    if whole != stored {
        return Err(format!(
            "`declarada.sha256` ({}) is not the hash of the profile map ({}): edited by hand",
            short(stored),
            short(&whole)
        ));
    }
    map.iter()
        .map(|(name, surface)| match surface {
            Value::Object(s) if s.contains_key("initialize") => {
                Ok((name.clone(), sha256_hex(&jcs(surface))))
            }
            _ => Err(format!(
                "`declarada.conteudo.{name}` is not a surface (no `initialize`)"
            )),
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lock::{Pointer, Version};
    use serde_json::json;

    fn surface(tools: &[&str]) -> Value {
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| json!({"name": t, "inputSchema": {"type": "object"}}))
            .collect();
        json!({"form": "mcpseal/1", "era": "2026-07-28", "server": {"serverInfo": {"name": "s"}},
            "tools": tools, "resources": [], "resourceTemplates": null, "prompts": []})
    }

    fn two() -> ProfileLock {
        let v = Version::parse("1.0.0").expect("version");
        let mut l = ProfileLock::new(Form::McpSeal1);
        l.set(
            "full",
            LockFile::new(
                Form::McpSeal1,
                Declared::new(&v, surface(&["a", "b"]), vec![]),
            ),
        );
        let mut ro = LockFile::new(
            Form::McpSeal1,
            Declared::new(
                &v,
                surface(&["a"]),
                vec![Pointer::parse("/tools/name=a/inputSchema").expect("pointer")],
            ),
        );
        ro.extra.insert("anonymous".into(), json!({"x": 1}));
        l.set("read-only", ro);
        l
    }

    #[test]
    fn round_trip_is_byte_stable_and_hashes_per_profile_and_whole() {
        let l = two();
        let text = l.render();
        let back = ProfileLock::parse(&text).expect("parses");
        assert_eq!(back, l);
        assert_eq!(back.render(), text);
        assert!(text.starts_with("{\n  \"schemaVersion\": 2,\n  \"form\": \"mcpseal/1\",\n"));
        let whole = json!({"full": l.profiles["full"].declared.hashed_surface(),
            "read-only": l.profiles["read-only"].declared.hashed_surface()});
        assert_eq!(l.sha256(), sha256_hex(&jcs(&whole)));
        assert_eq!(
            l.profiles["full"].declared.sha256,
            sha256_hex(&jcs(&surface(&["a", "b"])))
        );
        let view = back.profile("read-only").expect("profile");
        assert_eq!(view.extra["anonymous"], json!({"x": 1}));
        assert!(matches!(
            back.profile("nope"),
            Err(LockError::NoProfile { ref have, .. }) if have == &["full", "read-only"]
        ));
        assert!(matches!(AnyLock::parse(&text), Ok(AnyLock::Profiles(_))));
    }

    #[test]
    fn a_plain_reader_refuses_a_profile_lock_clearly() {
        let text = two().render();
        let err = LockFile::parse(&text).expect_err("refused");
        assert_eq!(
            err,
            LockError::Profiles {
                names: vec!["full".into(), "read-only".into()]
            }
        );
        assert!(
            err.to_string()
                .contains("configuration profiles (full, read-only")
        );
        // The plain format is untouched: a plain lock still reads as one.
        let v = Version::parse("1.0.0").expect("version");
        let plain = LockFile::new(Form::McpSeal1, Declared::new(&v, surface(&["a"]), vec![]));
        assert!(matches!(
            AnyLock::parse(&plain.render()),
            Ok(AnyLock::Plain(_))
        ));
        assert!(ProfileLock::parse(&plain.render()).is_err());
    }

    #[test]
    fn hand_edits_are_refused_per_profile_and_for_the_map() {
        let text = two().render();
        // Inside one profile's surface: that profile's hash fails.
        let edited = text.replacen("\"name\": \"b\"", "\"name\": \"c\"", 1);
        assert!(matches!(
            ProfileLock::parse(&edited),
            Err(LockError::EditedByHand {
                field: "sha256",
                ..
            })
        ));
        // The whole-map hash.
        let l = two();
        let wrong = text.replace(&l.sha256(), &"0".repeat(64));
        assert!(matches!(
            ProfileLock::parse(&wrong),
            Err(LockError::EditedByHand {
                field: "sha256",
                ..
            })
        ));
        let newer = text.replace("\"schemaVersion\": 2", "\"schemaVersion\": 3");
        assert_eq!(AnyLock::parse(&newer), Err(LockError::Newer { found: 3 }));
    }

    #[test]
    fn profile_names() {
        assert!(check_profile_name("read-only").is_ok());
        assert!(check_profile_name("v2.full_1").is_ok());
        assert!(check_profile_name("").is_err());
        assert!(check_profile_name("-x").is_err());
        assert!(check_profile_name("a/b").is_err());
        assert!(check_profile_name("a b").is_err());
    }

    #[test]
    fn mcp_surface_profile_maps() {
        let full =
            json!({"initialize": {"capabilities": {}}, "tools": [{"name": "a"}, {"name": "b"}]});
        let app = json!({"initialize": {"capabilities": {}}, "tools": [{"name": "a"}]});
        let conteudo = json!({"full": full, "openai-app": app});
        let declarada =
            json!({"versao": "1.0.0", "sha256": sha256_hex(&jcs(&conteudo)), "conteudo": conteudo});
        let p = mcp_surface_profiles(&declarada)
            .expect("reads")
            .expect("profiles");
        assert_eq!(p["full"], sha256_hex(&jcs(&full)));
        assert_eq!(p["openai-app"], sha256_hex(&jcs(&app)));
        let mut edited = declarada.clone();
        edited["conteudo"]["full"]["tools"] = json!([]);
        assert!(mcp_surface_profiles(&edited).is_err());
        let single =
            json!({"versao": "1.0.0", "sha256": sha256_hex(&jcs(&full)), "conteudo": full});
        assert_eq!(mcp_surface_profiles(&single), Ok(None));
    }
}
