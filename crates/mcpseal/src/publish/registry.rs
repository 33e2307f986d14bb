//! `mcpseal registry stamp|check|list`: the fingerprint block in `server.json`, and a
//! registry's listing.
//!
//! `stamp` writes the file only through [`crate::atomic`], and only when the stamped text is
//! publishable (under the 4096-byte cap, valid against the vendored schema); a refusal leaves
//! it byte-identical. `check` never writes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpseal_publish::block::{McpSurfaceDeclaration, from_mcp_surface_lock};
use mcpseal_publish::keys::{MAX_PUBLISHER_PROVIDED_BYTES, MCP_SURFACE_KEY, MCPSEAL_KEY};
use mcpseal_publish::registry::{Entry, Page, list_url};
use mcpseal_publish::server_json::{self, ServerJson, ServerJsonError};
use mcpseal_publish::{BlockError, McpSurfaceBlock, SealBlock};
use mcpseal_report::publish::registry::{
    BlockState, ListedServer, RegistryCheckReport, RegistryListReport, StampOutcome, StampReport,
};
use mcpseal_report::publish::{Check, CheckState};
use mcpseal_surface::lock::LockFile;
use serde_json::Value;
use thiserror::Error;

use super::retry::get_with_retry;
use crate::lock::{WorkflowError, read_lock};
use mcpseal_client::PublicClient;

/// The default `server.json`, in the working directory.
pub const DEFAULT_SERVER_JSON: &str = "server.json";

/// Why `registry stamp` or `registry check` has no verdict (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ServerJsonWorkflowError {
    /// The lock is missing or unusable.
    #[error("{0}")]
    Lock(#[from] WorkflowError),
    /// `server.json` cannot be read.
    #[error("cannot read `{path}`: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// `server.json` is unusable.
    #[error("`{path}`: {source}")]
    ServerJson {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: ServerJsonError,
    },
    /// A block cannot be built from the lock.
    #[error("{0}")]
    Block(#[from] BlockError),
    /// `--also-mcp-surface` without an `mcp-surface/1` hash to publish.
    #[error(
        "`--also-mcp-surface` needs an `mcp-surface/1` fingerprint, and `{0}` is in form `mcpseal/1` (or has exclusions, which mcp-surface cannot apply)"
    )]
    NoMcpSurfaceHash(PathBuf),
    /// The file could not be written.
    #[error("cannot write `{path}`: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl ServerJsonWorkflowError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            ServerJsonWorkflowError::Lock(e) => e.hint(),
            ServerJsonWorkflowError::Read { .. } => {
                "pass `--server-json FILE` (default `./server.json`); `mcp-publisher init` writes one"
            }
            ServerJsonWorkflowError::ServerJson { source, .. } => source.hint(),
            ServerJsonWorkflowError::Block(_) => {
                "the lock's anonymous section must be as `mcpseal lock` wrote it: restore it from version control"
            }
            ServerJsonWorkflowError::NoMcpSurfaceHash(_) => {
                "lock in that form too (`mcpseal lock --form mcp-surface/1 --lock surface.mcp-surface.lock.json`) and pass `--mcp-surface-lock FILE`, or drop `--also-mcp-surface`"
            }
            ServerJsonWorkflowError::Write { .. } => "check the path and its permissions",
        }
    }
}

/// Inputs of `stamp` and `check`.
#[derive(Debug, Clone)]
pub struct ServerJsonOptions {
    /// `server.json`.
    pub server_json: PathBuf,
    /// The lock.
    pub lock: PathBuf,
    /// The endpoint to publish (default: the first `streamable-http` remote).
    pub endpoint: Option<String>,
    /// Also write mcp-surface's block.
    pub also_mcp_surface: bool,
    /// Where its `mcp-surface/1` hash comes from when the lock is not in that form: an mcpseal
    /// lock in form `mcp-surface/1`, or mcp-surface's own `surface.lock.json`.
    pub mcp_surface_lock: Option<PathBuf>,
}

fn read_text(path: &Path) -> Result<String, ServerJsonWorkflowError> {
    std::fs::read_to_string(path).map_err(|source| ServerJsonWorkflowError::Read {
        path: path.to_owned(),
        source,
    })
}

fn require_lock(path: &Path) -> Result<LockFile, ServerJsonWorkflowError> {
    Ok(read_lock(path)?.ok_or_else(|| WorkflowError::NoLock(path.to_owned()))?)
}

fn sj_error(path: &Path) -> impl Fn(ServerJsonError) -> ServerJsonWorkflowError + '_ {
    move |source| ServerJsonWorkflowError::ServerJson {
        path: path.to_owned(),
        source,
    }
}

/// The blocks the lock produces for `server.json`.
struct Blocks {
    seal: SealBlock,
    mcp_surface: Option<McpSurfaceBlock>,
}

fn blocks(
    options: &ServerJsonOptions,
    lock: &LockFile,
    parsed: &ServerJson,
) -> Result<Blocks, ServerJsonWorkflowError> {
    let endpoint = parsed
        .endpoint(options.endpoint.as_deref())
        .map_err(sj_error(&options.server_json))?;
    let seal = SealBlock::from_lock(lock, &endpoint)?;
    let mcp_surface = if options.also_mcp_surface {
        let declaration = match &options.mcp_surface_lock {
            None => McpSurfaceDeclaration::from_lock(lock)?
                .ok_or_else(|| ServerJsonWorkflowError::NoMcpSurfaceHash(options.lock.clone()))?,
            Some(path) => {
                let text = read_text(path)?;
                if serde_json::from_str::<Value>(&text)
                    .ok()
                    .is_some_and(|v| v.get("declarada").is_some())
                {
                    from_mcp_surface_lock(&text)?
                } else {
                    let other = require_lock(path)?;
                    McpSurfaceDeclaration::from_lock(&other)?
                        .ok_or_else(|| ServerJsonWorkflowError::NoMcpSurfaceHash(path.clone()))?
                }
            }
        };
        Some(declaration.block(&endpoint))
    } else {
        None
    };
    Ok(Blocks { seal, mcp_surface })
}

/// `mcpseal registry stamp` (see the module docs).
///
/// # Errors
/// [`ServerJsonWorkflowError`]; a refusal (too large, invalid) is an `Ok` report.
pub fn stamp(options: &ServerJsonOptions) -> Result<StampReport, ServerJsonWorkflowError> {
    let lock = require_lock(&options.lock)?;
    let text = read_text(&options.server_json)?;
    let parsed = ServerJson::parse(&text).map_err(sj_error(&options.server_json))?;
    let b = blocks(options, &lock, &parsed)?;
    let mut keys = vec![MCPSEAL_KEY.to_owned()];
    if b.mcp_surface.is_some() {
        keys.push(MCP_SURFACE_KEY.to_owned());
    }
    let mut report = StampReport {
        schema_version: 1,
        outcome: StampOutcome::Unchanged,
        server_json: options.server_json.display().to_string(),
        lock: options.lock.display().to_string(),
        endpoint: b.seal.endpoint.clone(),
        form: b.seal.form.clone(),
        sha256: b.seal.declared.sha256.clone(),
        locked_at: b.seal.declared.locked_at.clone(),
        keys,
        anonymous: b.seal.anonymous.is_some(),
        publisher_provided_bytes: 0,
        limit_bytes: MAX_PUBLISHER_PROVIDED_BYTES,
        violations: Vec::new(),
    };
    match server_json::stamp(&text, &b.seal, b.mcp_surface.as_ref()) {
        Ok(stamped) => {
            report.publisher_provided_bytes = stamped.publisher_provided_bytes;
            if stamped.changed {
                crate::atomic::write_atomic(&options.server_json, stamped.text.as_bytes())
                    .map_err(|source| ServerJsonWorkflowError::Write {
                        path: options.server_json.clone(),
                        source,
                    })?;
                report.outcome = StampOutcome::Written;
            }
        }
        Err(ServerJsonError::TooLarge { bytes }) => {
            report.outcome = StampOutcome::TooLarge;
            report.publisher_provided_bytes = bytes;
        }
        Err(ServerJsonError::Invalid(v)) => {
            report.outcome = StampOutcome::Invalid;
            report.violations = v.iter().map(ToString::to_string).collect();
        }
        Err(other) => return Err(sj_error(&options.server_json)(other)),
    }
    Ok(report)
}

/// `mcpseal registry check`: the committed file carries exactly the blocks the lock produces
/// (same endpoint rule as `stamp`), its `version` is the lock's, and it would publish.
///
/// # Errors
/// [`ServerJsonWorkflowError`].
pub fn check(options: &ServerJsonOptions) -> Result<RegistryCheckReport, ServerJsonWorkflowError> {
    let lock = require_lock(&options.lock)?;
    let text = read_text(&options.server_json)?;
    let parsed = ServerJson::parse(&text).map_err(sj_error(&options.server_json))?;
    let b = blocks(options, &lock, &parsed)?;
    let found = server_json::check(&text, &b.seal, b.mcp_surface.as_ref())
        .map_err(sj_error(&options.server_json))?;
    let mut checks = Vec::new();
    let mut states = Vec::new();
    for block in std::iter::once(&found.seal).chain(found.mcp_surface.as_ref()) {
        let id = if block.key == MCPSEAL_KEY {
            "registry/block"
        } else {
            "registry/mcp-surface-block"
        };
        let observed = match &block.found_sha256 {
            None => "absent".to_owned(),
            Some(h) if block.matches() => format!("block {}", short(h)),
            Some(h) => format!("block {} (stale)", short(h)),
        };
        checks.push(Check::new(
            id,
            if block.matches() {
                CheckState::Pass
            } else {
                CheckState::Fail
            },
            format!("`{}` carries what the lock produces", block.key),
            observed,
            format!(
                "block {} (run `mcpseal registry stamp`)",
                short(&block.expected_sha256)
            ),
        ));
        states.push(BlockState {
            key: block.key.to_owned(),
            expected_sha256: block.expected_sha256.clone(),
            found_sha256: block.found_sha256.clone(),
            matches: block.matches(),
        });
    }
    if found.unchecked_mcp_surface {
        checks.push(Check::new(
            "registry/mcp-surface-block",
            CheckState::Skipped,
            "mcp-surface's block was not checked",
            "present",
            "pass `--also-mcp-surface` to check it against the lock",
        ));
    }
    let version_ok = found.server_version.as_deref() == Some(lock.declared.version.as_str());
    checks.push(Check::new(
        "registry/version",
        if version_ok {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        "`server.json`'s version is the lock's",
        found
            .server_version
            .clone()
            .unwrap_or_else(|| "no version".into()),
        lock.declared.version.clone(),
    ));
    checks.push(Check::new(
        "registry/size",
        if found.publisher_provided_bytes <= MAX_PUBLISHER_PROVIDED_BYTES {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        "publisher-provided fits the registry's cap",
        format!("{} bytes", found.publisher_provided_bytes),
        format!("at most {MAX_PUBLISHER_PROVIDED_BYTES} bytes"),
    ));
    checks.push(Check::new(
        "registry/schema",
        if found.violations.is_empty() {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        "`server.json` validates against the 2025-12-11 schema",
        if found.violations.is_empty() {
            "valid".to_owned()
        } else {
            found
                .violations
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        },
        "no violation",
    ));
    Ok(RegistryCheckReport {
        schema_version: 1,
        matches: !mcpseal_report::publish::any_failed(&checks),
        server_json: options.server_json.display().to_string(),
        lock: options.lock.display().to_string(),
        blocks: states,
        server_version: found.server_version,
        locked_version: lock.declared.version.clone(),
        publisher_provided_bytes: found.publisher_provided_bytes,
        checks,
    })
}

pub(crate) fn short(hex: &str) -> String {
    hex.chars().take(12).collect()
}

/// Why a registry could not be read (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RegistryReadError {
    /// The HTTP client could not be built.
    #[error("cannot start an HTTP client: {0}")]
    Client(String),
    /// No usable answer.
    #[error("the registry did not answer `{url}`: {reason}")]
    Unreachable {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
    /// Not the documented shape.
    #[error("`{url}`: {reason}")]
    BadAnswer {
        /// The URL.
        url: String,
        /// Why.
        reason: String,
    },
}

impl RegistryReadError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            RegistryReadError::Client(_) => "check the TLS set-up of this machine",
            RegistryReadError::Unreachable { .. } => {
                "check `--registry` (the base URL, without /v0.1) and the network; `--attempts`/`--wait` ride out a busy registry"
            }
            RegistryReadError::BadAnswer { .. } => {
                "`--registry` must point at an MCP Registry v0.1 API"
            }
        }
    }
}

/// How to list.
#[derive(Debug, Clone)]
pub struct ListOptions {
    /// The registry's base URL.
    pub registry: String,
    /// `search`.
    pub search: Option<String>,
    /// Only the latest version of each server.
    pub latest_only: bool,
    /// Page size asked (the registry caps it).
    pub limit: u32,
    /// Most pages read.
    pub max_pages: u32,
    /// Attempts per page (5xx and 429 retried).
    pub attempts: u32,
    /// First backoff step.
    pub wait: Duration,
    /// Per-request timeout.
    pub timeout: Duration,
}

/// Every entry of every page, following `metadata.nextCursor`; with the pages read and
/// whether `max_pages` cut the listing short.
///
/// # Errors
/// [`RegistryReadError`].
pub async fn list_entries(
    options: &ListOptions,
) -> Result<(Vec<Entry>, u32, bool), RegistryReadError> {
    let client = PublicClient::new(options.timeout, 16 * 1024 * 1024)
        .map_err(|e| RegistryReadError::Client(e.to_string()))?;
    let mut cursor: Option<String> = None;
    let mut entries = Vec::new();
    let mut pages = 0;
    let limit = options.limit.to_string();
    let truncated = loop {
        if pages >= options.max_pages.max(1) {
            break true;
        }
        let mut query: Vec<(&str, &str)> = vec![("limit", &limit)];
        if let Some(s) = &options.search {
            query.push(("search", s));
        }
        if options.latest_only {
            query.push(("version", "latest"));
        }
        if let Some(c) = &cursor {
            query.push(("cursor", c));
        }
        let url = list_url(&options.registry, &query);
        let (answer, _) = get_with_retry(
            &client,
            &url,
            "application/json",
            options.attempts,
            options.wait,
        )
        .await;
        if answer.status != Some(200) {
            return Err(RegistryReadError::Unreachable {
                reason: answer.failure(),
                url,
            });
        }
        let doc = answer
            .json()
            .map_err(|reason| RegistryReadError::BadAnswer {
                url: url.clone(),
                reason,
            })?;
        let page = Page::from_value(&doc).map_err(|e| RegistryReadError::BadAnswer {
            url: url.clone(),
            reason: e.to_string(),
        })?;
        pages += 1;
        entries.extend(page.servers);
        match page.next_cursor {
            // A cursor that does not move would loop forever.
            Some(c) if cursor.as_deref() != Some(c.as_str()) => cursor = Some(c),
            _ => break false,
        }
    };
    Ok((entries, pages, truncated))
}

/// `mcpseal registry list`: every page, following `metadata.nextCursor`.
///
/// # Errors
/// [`RegistryReadError`].
pub async fn list(options: &ListOptions) -> Result<RegistryListReport, RegistryReadError> {
    let (entries, pages, truncated) = list_entries(options).await?;
    let servers = entries
        .iter()
        .map(|e| ListedServer {
            name: e.name().to_owned(),
            version: e.version().map(str::to_owned),
            status: e.status.map(|s| s.as_str().to_owned()),
            is_latest: e.is_latest,
            remotes: e
                .server
                .get("remotes")
                .and_then(Value::as_array)
                .map(|rs| {
                    rs.iter()
                        .filter_map(|r| r.get("url").and_then(Value::as_str).map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            blocks: e.blocks().into_iter().map(str::to_owned).collect(),
        })
        .collect();
    Ok(RegistryListReport {
        schema_version: 1,
        registry: options.registry.clone(),
        search: options.search.clone(),
        pages,
        truncated,
        servers,
    })
}
