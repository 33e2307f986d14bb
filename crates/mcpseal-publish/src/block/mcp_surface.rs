//! mcp-surface's block, `publisher-provided["io.github.sidneybissoli/mcp-surface"]`, read and
//! written in its own shape (mcp-surface `registro.ts`, `metaDoRegistro`):
//!
//! ```json
//! {"form": "mcp-surface/1", "spec": "…/mcp-surface/SPEC.md", "endpoint": "https://…/mcp",
//!  "declared": {"sha256": "<64 hex>", "lockedAt": "1.1.0"},
//!  "anonymous": {"sha256": "<sha of answers>", "answers": {"initialize": true, "ping": true},
//!                "call": {"name": "…", "arguments": {}}}}
//! ```
//!
//! Its `answers` are booleans; mcpseal's richer answers are reduced to `answers` for the
//! methods mcp-surface's verifier replays (`initialize`, `ping`, the four lists), so that
//! verifier never meets a method it does not know how to send. `call` is never written:
//! mcpseal never calls a tool the user did not name, and a registry block names none.

use std::collections::BTreeMap;

use mcpseal_surface::lock::LockFile;
use mcpseal_surface::{Form, jcs, sha256_hex};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::BlockError;
use crate::anonymous::LockAnonymous;
use crate::keys::MCP_SURFACE_SPEC_URL;

/// The methods mcp-surface's anonymous probe sends (besides a named `tools/call`).
pub const MCP_SURFACE_PROBES: [&str; 6] = [
    "initialize",
    "ping",
    "tools/list",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
];

/// mcp-surface's block (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpSurfaceBlock {
    /// Always `mcp-surface/1`.
    pub form: String,
    /// mcp-surface's SPEC.
    pub spec: String,
    /// The endpoint.
    pub endpoint: String,
    /// `{sha256, lockedAt}`.
    pub declared: McpSurfaceDeclared,
    /// Anonymous answers, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anonymous: Option<McpSurfaceAnonymous>,
}

/// `declared` of [`McpSurfaceBlock`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpSurfaceDeclared {
    /// SHA-256 of the `mcp-surface/1` canonical surface.
    pub sha256: String,
    /// The version the surface was first locked under.
    pub locked_at: String,
}

/// `anonymous` of [`McpSurfaceBlock`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpSurfaceAnonymous {
    /// SHA-256 of the JCS bytes of `answers`.
    pub sha256: String,
    /// Method → answered without a credential.
    pub answers: BTreeMap<String, bool>,
    /// The tool mcp-surface calls anonymously (read, never written by mcpseal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Value>,
}

impl McpSurfaceAnonymous {
    /// Whether `sha256` is the hash of `answers`.
    pub fn hash_holds(&self) -> bool {
        bool_answers_sha256(&self.answers) == self.sha256
    }
}

/// SHA-256 of the JCS bytes of a boolean answers map.
pub fn bool_answers_sha256(answers: &BTreeMap<String, bool>) -> String {
    let value = serde_json::to_value(answers).unwrap_or(Value::Null);
    sha256_hex(&jcs(&value))
}

/// An `mcp-surface/1` fingerprint and the version it was locked at: from an mcpseal lock in
/// form `mcp-surface/1`, or from mcp-surface's own `surface.lock.json` ([`from_mcp_surface_lock`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpSurfaceDeclaration {
    /// The `mcp-surface/1` hash.
    pub sha256: String,
    /// The version.
    pub locked_at: String,
    /// Boolean anonymous answers, when known.
    pub answers: Option<BTreeMap<String, bool>>,
    /// For an mcp-surface lock whose `declarada.conteudo` is a map of profiles: each profile's
    /// own hash (`sha256(canonical(conteudo[P]))`, what `verificar --perfil P` expects) by
    /// name; `sha256` is then the whole map's. `None` for a single surface.
    pub profiles: Option<BTreeMap<String, String>>,
}

impl McpSurfaceDeclaration {
    /// From an mcpseal lock; `None` when the lock is not in form `mcp-surface/1` (an
    /// `mcpseal/1` hash cannot be turned into an `mcp-surface/1` one without the server).
    ///
    /// # Errors
    /// [`BlockError::Anonymous`] when the lock's anonymous section is unusable.
    pub fn from_lock(lock: &LockFile) -> Result<Option<McpSurfaceDeclaration>, BlockError> {
        if lock.form != Form::McpSurface1 || !lock.declared.exclude.is_empty() {
            // mcp-surface has no exclusions: a hash with some cannot be checked by it.
            return Ok(None);
        }
        let answers = LockAnonymous::from_lock_extra(&lock.extra)?.map(|a| {
            a.answers
                .iter()
                .filter(|(m, _)| MCP_SURFACE_PROBES.contains(&m.as_str()))
                .map(|(m, a)| (m.clone(), a.answers))
                .collect()
        });
        Ok(Some(McpSurfaceDeclaration {
            profiles: None,
            sha256: lock.declared.sha256.clone(),
            locked_at: lock.declared.version.clone(),
            answers,
        }))
    }

    /// The block for `endpoint`.
    pub fn block(&self, endpoint: &str) -> McpSurfaceBlock {
        McpSurfaceBlock {
            form: Form::McpSurface1.as_str().to_owned(),
            spec: MCP_SURFACE_SPEC_URL.to_owned(),
            endpoint: endpoint.to_owned(),
            declared: McpSurfaceDeclared {
                sha256: self.sha256.clone(),
                locked_at: self.locked_at.clone(),
            },
            anonymous: self.answers.as_ref().map(|a| McpSurfaceAnonymous {
                sha256: bool_answers_sha256(a),
                answers: a.clone(),
                call: None,
            }),
        }
    }
}

/// Reads mcp-surface's own lock file (`declarada` = `{versao, sha256, conteudo}`, `semToken`
/// = `{versao, sha256, conteudo: {config: {route: {method: bool}}}}`), checking each section's
/// hash. The anonymous answers are those of configuration `apiKeyAusente`, route `POST /mcp`
/// (mcp-surface's defaults), when present.
///
/// # Errors
/// [`BlockError::McpSurfaceLock`] naming what is wrong.
pub fn from_mcp_surface_lock(text: &str) -> Result<McpSurfaceDeclaration, BlockError> {
    let bad = |m: &str| BlockError::McpSurfaceLock(m.to_owned());
    let doc: Value = serde_json::from_str(text).map_err(|e| bad(&format!("not JSON: {e}")))?;
    let section = |name: &str| -> Result<Option<(String, String, Value)>, BlockError> {
        let Some(s) = doc.get(name) else {
            return Ok(None);
        };
        let text_of = |k: &str| {
            s.get(k)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| bad(&format!("`{name}.{k}` must be a string")))
        };
        let (versao, sha) = (text_of("versao")?, text_of("sha256")?);
        let conteudo = s
            .get("conteudo")
            .cloned()
            .ok_or_else(|| bad(&format!("`{name}.conteudo` is missing")))?;
        if sha256_hex(&jcs(&conteudo)) != sha {
            return Err(bad(&format!(
                "`{name}.sha256` is not the hash of `{name}.conteudo` (edited by hand)"
            )));
        }
        Ok(Some((versao, sha, conteudo)))
    };
    let (versao, sha256, _) = section("declarada")?.ok_or_else(|| bad("`declarada` is missing"))?;
    let profiles = doc
        .get("declarada")
        .map(mcpseal_surface::lock::mcp_surface_profiles)
        .transpose()
        .map_err(|m| bad(&m))?
        .flatten();
    let answers = section("semToken")?.and_then(|(_, _, c)| {
        let route = c.get("apiKeyAusente")?.get("POST /mcp")?.as_object()?;
        Some(
            route
                .iter()
                .filter(|(m, _)| *m != "tools/call")
                .filter_map(|(m, v)| Some((m.clone(), v.as_bool()?)))
                .collect(),
        )
    });
    Ok(McpSurfaceDeclaration {
        sha256,
        locked_at: versao,
        answers,
        profiles,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_an_mcp_surface_lock_and_refuses_a_hand_edit() {
        let conteudo = json!({"initialize": {"capabilities": {}}, "tools": []});
        let sem = json!({"apiKeyAusente": {"POST /mcp": {"initialize": true, "tools/list": false, "tools/call": true}}});
        let lock = json!({"$comentario": "x",
            "declarada": {"versao": "1.1.0", "sha256": sha256_hex(&jcs(&conteudo)), "conteudo": conteudo},
            "semToken": {"versao": "1.1.0", "sha256": sha256_hex(&jcs(&sem)), "conteudo": sem}});
        let d = from_mcp_surface_lock(&lock.to_string()).expect("reads");
        assert_eq!(d.locked_at, "1.1.0");
        let answers = d.answers.clone().expect("answers");
        assert_eq!(
            answers.len(),
            2,
            "tools/call is left out without a named call"
        );
        let block = d.block("https://x/mcp");
        assert!(block.anonymous.as_ref().expect("anonymous").hash_holds());
        let mut edited = lock.clone();
        edited["declarada"]["conteudo"]["tools"] = json!(null);
        assert!(from_mcp_surface_lock(&edited.to_string()).is_err());
        assert_eq!(d.profiles, None, "a single surface has no profiles");
    }

    #[test]
    fn reads_an_mcp_surface_profile_lock_with_a_hash_per_profile() {
        let full =
            json!({"initialize": {"capabilities": {}}, "tools": [{"name": "a"}, {"name": "b"}]});
        let app = json!({"initialize": {"capabilities": {}}, "tools": [{"name": "a"}]});
        let conteudo = json!({"full": full, "openai-app": app});
        let lock = json!({"declarada": {"versao": "2.0.0", "sha256": sha256_hex(&jcs(&conteudo)), "conteudo": conteudo}});
        let d = from_mcp_surface_lock(&lock.to_string()).expect("reads");
        assert_eq!(
            d.sha256,
            sha256_hex(&jcs(&conteudo)),
            "the whole map's hash"
        );
        let p = d.profiles.expect("profiles");
        assert_eq!(p["full"], sha256_hex(&jcs(&full)));
        assert_eq!(p["openai-app"], sha256_hex(&jcs(&app)));
        // A profile that is not a surface is refused, naming it.
        let bad = json!({"full": full, "x": {"tools": []}});
        let lock = json!({"declarada": {"versao": "2.0.0", "sha256": sha256_hex(&jcs(&bad)), "conteudo": bad}});
        let err = from_mcp_surface_lock(&lock.to_string()).expect_err("refused");
        assert!(err.to_string().contains("declarada.conteudo.x"), "{err}");
    }
}
