//! mcp-surface's anonymous section, `semToken`, read and checked (issue 13, compatibility).
//!
//! ```json
//! "semToken": {"versao": "1.1.0", "sha256": "<64 hex>",
//!              "conteudo": {"apiKeyAusente": {"POST /mcp": {"tools/list": true, …}}, …}}
//! ```
//!
//! `conteudo` is configuration → route → method → answered; `sha256` is mcp-surface's
//! `impressaoDigital(conteudo)`: SHA-256 of the canonical (RFC 8785 for these documents) bytes,
//! so [`crate::jcs`] reproduces it. mcp-surface records only the verdict, so a converted
//! section ([`SemToken::to_lock`]) says status 200 for an answer and 0 ("not recorded") for a
//! refusal; its default configuration is `apiKeyAusente` on `POST /mcp`, as `verificar`'s.

use std::collections::BTreeMap;

use serde_json::Value;

use super::anonymous::{AnonymousError, Answer, Configs, LockAnonymous};
use crate::jcs::{jcs, sha256_hex};

/// The lock file's top-level key of mcp-surface's section.
pub const SEM_TOKEN_KEY: &str = "semToken";

/// mcp-surface's default configuration (the server run without its API key).
pub const SEM_TOKEN_DEFAULT_CONFIG: &str = "apiKeyAusente";

/// Configuration → route → method → answered.
pub type SemTokenContent = BTreeMap<String, BTreeMap<String, BTreeMap<String, bool>>>;

/// A checked `semToken` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SemToken {
    /// `versao`: the version it was first locked under.
    pub version: String,
    /// `sha256` (checked).
    pub sha256: String,
    /// `conteudo`.
    pub content: SemTokenContent,
}

impl SemToken {
    /// Reads and checks a `semToken` section.
    ///
    /// # Errors
    /// [`AnonymousError::Shape`] or [`AnonymousError::EditedByHand`] (the hash of `conteudo`
    /// is not the stored one).
    pub fn parse(section: &Value) -> Result<SemToken, AnonymousError> {
        let text = |k: &str| {
            section
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| AnonymousError::Shape(format!("`semToken.{k}` must be a string")))
        };
        let version = text("versao")?;
        let stored = text("sha256")?;
        let raw = section
            .get("conteudo")
            .ok_or_else(|| AnonymousError::Shape("`semToken.conteudo` is missing".into()))?;
        let computed = sha256_hex(&jcs(raw));
        if computed != stored {
            return Err(AnonymousError::EditedByHand {
                stored: stored.chars().take(12).collect(),
                computed: computed.chars().take(12).collect(),
            });
        }
        let content: SemTokenContent = serde_json::from_value(raw.clone())
            .map_err(|e| AnonymousError::Shape(format!("`semToken.conteudo`: {e}")))?;
        Ok(SemToken {
            version,
            sha256: stored,
            content,
        })
    }

    /// The same verdicts in mcpseal's shape (see the module docs for the statuses).
    pub fn to_lock(&self) -> LockAnonymous {
        let configs: Configs = self
            .content
            .iter()
            .map(|(c, routes)| {
                let routes = routes
                    .iter()
                    .map(|(r, methods)| {
                        let answers = methods
                            .iter()
                            .map(|(m, &yes)| {
                                (
                                    m.clone(),
                                    Answer {
                                        answers: yes,
                                        status: if yes { 200 } else { 0 },
                                        code: None,
                                    },
                                )
                            })
                            .collect();
                        (r.clone(), answers)
                    })
                    .collect();
                (c.clone(), routes)
            })
            .collect();
        LockAnonymous::new(configs, SEM_TOKEN_DEFAULT_CONFIG, "POST /mcp")
    }
}
