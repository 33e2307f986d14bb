//! Editing and checking `server.json`: the text in, the text out, nothing else touched.
//!
//! [`stamp`] writes the blocks under `_meta["…/publisher-provided"]`, keeping every other key
//! inside and outside `publisher-provided` where it was (order included), the file's
//! indentation, and a final newline. It refuses, leaving the caller's bytes alone, when the
//! result would not publish: `publisher-provided` over 4096 bytes of marshalled JSON (the
//! count is in the error) or a document the vendored schema rejects. [`check`] tells whether a
//! committed file carries exactly the blocks the lock produces.

use mcpseal_surface::{jcs, sha256_hex};
use serde_json::Value;
use thiserror::Error;

use crate::block::{McpSurfaceBlock, SealBlock};
use crate::cap::{fits, marshalled_len};
use crate::keys::{MAX_PUBLISHER_PROVIDED_BYTES, MCP_SURFACE_KEY, MCPSEAL_KEY, PUBLISHER_PROVIDED};
use crate::ordered::{Ordered, detect_indent};
use crate::validate::{self, Violation};

/// Why `server.json` cannot be stamped or checked.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ServerJsonError {
    /// Not JSON.
    #[error("`server.json` is not valid JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object (or `_meta` / `publisher-provided` not objects).
    #[error("`server.json` is malformed: {0}")]
    Shape(String),
    /// `publisher-provided` would be over the registry's cap.
    #[error(
        "`_meta[\"{PUBLISHER_PROVIDED}\"]` would be {bytes} bytes of marshalled JSON; the registry accepts at most {MAX_PUBLISHER_PROVIDED_BYTES}"
    )]
    TooLarge {
        /// Its size.
        bytes: usize,
    },
    /// The stamped document would not validate.
    #[error("the stamped `server.json` would not validate against the 2025-12-11 schema: {}", list(.0))]
    Invalid(Vec<Violation>),
    /// No endpoint to publish.
    #[error("`server.json` has no `streamable-http` remote to name as the endpoint")]
    NoEndpoint,
    /// The endpoint is a URL template.
    #[error(
        "the endpoint `{0}` is a URL template; a fingerprint is published for one concrete URL"
    )]
    TemplatedEndpoint(String),
}

fn list(v: &[Violation]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl ServerJsonError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            ServerJsonError::NotJson(_) | ServerJsonError::Shape(_) => {
                "fix `server.json` (it must be one JSON object), or pass `--server-json FILE`"
            }
            ServerJsonError::TooLarge { .. } => {
                "shrink the other publisher-provided data, or drop `--also-mcp-surface`; the registry refuses a larger block at publish"
            }
            ServerJsonError::Invalid(_) => {
                "fix the fields named (`mcp-publisher validate` reports the same schema); the file was not changed"
            }
            ServerJsonError::NoEndpoint => {
                "add a `remotes` entry of type `streamable-http`, or pass `--endpoint URL`"
            }
            ServerJsonError::TemplatedEndpoint(_) => "pass `--endpoint` with the concrete URL",
        }
    }
}

/// The parts of a `server.json` this crate reads.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerJson {
    /// The document, keys in file order.
    pub doc: Ordered,
    /// The same, as a value.
    pub value: Value,
    /// The file's indentation unit.
    pub indent: String,
}

impl ServerJson {
    /// Parses `server.json` text.
    ///
    /// # Errors
    /// [`ServerJsonError::NotJson`] or [`ServerJsonError::Shape`].
    pub fn parse(text: &str) -> Result<ServerJson, ServerJsonError> {
        let doc = Ordered::parse(text).map_err(|e| ServerJsonError::NotJson(e.to_string()))?;
        if !matches!(doc, Ordered::Object(_)) {
            return Err(ServerJsonError::Shape(
                "the top level is not an object".into(),
            ));
        }
        Ok(ServerJson {
            value: doc.to_value(),
            doc,
            indent: detect_indent(text),
        })
    }

    /// `name`.
    pub fn name(&self) -> Option<&str> {
        self.value.get("name").and_then(Value::as_str)
    }

    /// `version`.
    pub fn version(&self) -> Option<&str> {
        self.value.get("version").and_then(Value::as_str)
    }

    /// The `publisher-provided` object, when there is one.
    pub fn publisher_provided(&self) -> Option<&Value> {
        self.value.get("_meta")?.get(PUBLISHER_PROVIDED)
    }

    /// The endpoint to publish: `explicit`, else the first `streamable-http` remote.
    ///
    /// # Errors
    /// [`ServerJsonError::NoEndpoint`], [`ServerJsonError::TemplatedEndpoint`].
    pub fn endpoint(&self, explicit: Option<&str>) -> Result<String, ServerJsonError> {
        let url = match explicit {
            Some(u) => u.to_owned(),
            None => first_streamable_http(&self.value).ok_or(ServerJsonError::NoEndpoint)?,
        };
        if url.contains('{') {
            return Err(ServerJsonError::TemplatedEndpoint(url));
        }
        Ok(url)
    }
}

/// The URL of the first `remotes[]` entry of type `streamable-http`.
pub fn first_streamable_http(server: &Value) -> Option<String> {
    server
        .get("remotes")?
        .as_array()?
        .iter()
        .find(|r| r.get("type").and_then(Value::as_str) == Some("streamable-http"))?
        .get("url")?
        .as_str()
        .map(str::to_owned)
}

/// A stamped `server.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamped {
    /// The new text.
    pub text: String,
    /// Bytes of marshalled `publisher-provided` (at most 4096).
    pub publisher_provided_bytes: usize,
    /// Whether the text differs from the input.
    pub changed: bool,
}

/// Writes the blocks into `server.json` text (see the module docs).
///
/// # Errors
/// [`ServerJsonError`]; the input is never modified (the caller writes [`Stamped::text`]).
pub fn stamp(
    text: &str,
    seal: &SealBlock,
    mcp_surface: Option<&McpSurfaceBlock>,
) -> Result<Stamped, ServerJsonError> {
    let parsed = ServerJson::parse(text)?;
    let mut doc = parsed.doc;
    let shape = |m: &str| ServerJsonError::Shape(m.to_owned());
    let meta = doc
        .object_entry("_meta")
        .ok_or_else(|| shape("`_meta` is not an object"))?;
    let provided = meta
        .object_entry(PUBLISHER_PROVIDED)
        .ok_or_else(|| shape("`_meta.publisher-provided` is not an object"))?;
    provided.set(MCPSEAL_KEY, Ordered::from_value(&to_value(seal)));
    if let Some(m) = mcp_surface {
        provided.set(MCP_SURFACE_KEY, Ordered::from_value(&to_value(m)));
    }
    let bytes = marshalled_len(&provided.to_value());
    if !fits(bytes) {
        return Err(ServerJsonError::TooLarge { bytes });
    }
    let violations = validate::server_json(&doc.to_value());
    if !violations.is_empty() {
        return Err(ServerJsonError::Invalid(violations));
    }
    let out = doc.render(&parsed.indent);
    Ok(Stamped {
        changed: out != text,
        text: out,
        publisher_provided_bytes: bytes,
    })
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// SHA-256 of a block's JCS bytes: what "the same block" means.
pub fn block_sha256(block: &Value) -> String {
    sha256_hex(&jcs(block))
}

/// One block of a committed file against the one the lock produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockCheck {
    /// The `publisher-provided` key.
    pub key: &'static str,
    /// Hash of the block the lock produces.
    pub expected_sha256: String,
    /// Hash of the committed block (`None`: absent).
    pub found_sha256: Option<String>,
}

impl BlockCheck {
    /// The committed block is the expected one.
    pub fn matches(&self) -> bool {
        self.found_sha256.as_deref() == Some(self.expected_sha256.as_str())
    }
}

/// What [`check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    /// mcpseal's block.
    pub seal: BlockCheck,
    /// mcp-surface's block, when one was expected.
    pub mcp_surface: Option<BlockCheck>,
    /// The file has an mcp-surface block that was not checked (none expected).
    pub unchecked_mcp_surface: bool,
    /// `server.json`'s `version`.
    pub server_version: Option<String>,
    /// Marshalled size of `publisher-provided` (0 when absent).
    pub publisher_provided_bytes: usize,
    /// Schema violations of the committed file.
    pub violations: Vec<Violation>,
}

/// Compares a committed `server.json` with the blocks the lock produces.
///
/// # Errors
/// [`ServerJsonError::NotJson`] / [`ServerJsonError::Shape`].
pub fn check(
    text: &str,
    seal: &SealBlock,
    mcp_surface: Option<&McpSurfaceBlock>,
) -> Result<Checked, ServerJsonError> {
    let parsed = ServerJson::parse(text)?;
    let provided = parsed.publisher_provided();
    let found = |key: &str| provided.and_then(|p| p.get(key)).map(block_sha256);
    Ok(Checked {
        seal: BlockCheck {
            key: MCPSEAL_KEY,
            expected_sha256: block_sha256(&to_value(seal)),
            found_sha256: found(MCPSEAL_KEY),
        },
        mcp_surface: mcp_surface.map(|m| BlockCheck {
            key: MCP_SURFACE_KEY,
            expected_sha256: block_sha256(&to_value(m)),
            found_sha256: found(MCP_SURFACE_KEY),
        }),
        unchecked_mcp_surface: mcp_surface.is_none() && found(MCP_SURFACE_KEY).is_some(),
        server_version: parsed.version().map(str::to_owned),
        publisher_provided_bytes: provided.map(marshalled_len).unwrap_or(0),
        violations: validate::server_json(&parsed.value),
    })
}
