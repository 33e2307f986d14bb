//! `mcpseal card emit|check`: server cards from the lock, and a live server's cards checked.
//!
//! `check` asks every place in discovery order (`mcpseal_publish::card::discovery`) with the
//! header-free public GET — the user's headers never go with a card fetch, whichever origin it
//! is on — judges each card found over HTTP (status, media type, CORS, `Cache-Control`,
//! `ETag` and a 304 on revalidation), by shape and validity (offline), then against the live
//! server in its era: name and version, each remote really served, protocol versions, and for
//! cards that list primitives, the classified diff between the card's lists and the live ones.
//! The live server gets the user's headers only on the URL given; another remote of the card
//! is asked without them.

use std::path::PathBuf;

use mcpseal_client::{CaptureOptions, Options, Target, capture_surface};
use mcpseal_protocol::ListKind;
use mcpseal_publish::card::discovery::{CatalogEntry, Place, catalog_entries, origin, places};
use mcpseal_publish::card::{Card, CardShape, detect, emit, validate};
use mcpseal_publish::server_json::ServerJson;
use mcpseal_report::publish::card::{CardCheckReport, CardVerdict, FoundCard, LiveServer, Probed};
use mcpseal_report::publish::{Check, CheckState, any_failed};
use mcpseal_surface::{Form, Surface, server_info};
use serde_json::{Value, json};
use thiserror::Error;

use super::registry::ServerJsonWorkflowError;
use crate::lock::{WorkflowError, read_lock};
use crate::snapshot::{SnapshotOptions, TrustedCapture, capture_trusted};
use mcpseal_client::{PublicClient, PublicResponse};

/// Which card to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmitShape {
    /// The server-card extension's v1 (needs `server.json`).
    #[default]
    V1,
    /// Smithery's `/.well-known/mcp/server-card.json`.
    Smithery,
}

/// How to emit.
#[derive(Debug, Clone)]
pub struct EmitOptions {
    /// The lock.
    pub lock: PathBuf,
    /// `server.json` (v1 only).
    pub server_json: PathBuf,
    /// The shape.
    pub shape: EmitShape,
}

/// Why no card could be written (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CardEmitError {
    /// The lock or `server.json` is unusable.
    #[error("{0}")]
    Input(#[from] ServerJsonWorkflowError),
    /// A field the card needs is missing.
    #[error("{0}")]
    Emit(#[from] emit::EmitError),
    /// The card written would not validate (v1).
    #[error("the v1 card would not validate: {0}")]
    Invalid(String),
}

impl CardEmitError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            CardEmitError::Input(e) => e.hint(),
            CardEmitError::Emit(_) | CardEmitError::Invalid(_) => {
                "a v1 card takes `name` and `description` from server.json: fix them there (`--shape smithery` needs only the lock)"
            }
        }
    }
}

/// `mcpseal card emit`: the card's bytes (two-space JSON, final newline, byte-stable).
///
/// # Errors
/// [`CardEmitError`].
pub fn emit_card(options: &EmitOptions) -> Result<String, CardEmitError> {
    let lock = read_lock(&options.lock)
        .map_err(ServerJsonWorkflowError::from)?
        .ok_or_else(|| {
            ServerJsonWorkflowError::from(WorkflowError::NoLock(options.lock.clone()))
        })?;
    let card = match options.shape {
        EmitShape::Smithery => emit::smithery(&lock)?,
        EmitShape::V1 => {
            let text = std::fs::read_to_string(&options.server_json).map_err(|source| {
                ServerJsonWorkflowError::Read {
                    path: options.server_json.clone(),
                    source,
                }
            })?;
            let parsed =
                ServerJson::parse(&text).map_err(|source| ServerJsonWorkflowError::ServerJson {
                    path: options.server_json.clone(),
                    source,
                })?;
            let card = emit::v1(&parsed.value, &lock)?;
            let violations = validate::violations(&card.to_value());
            if !violations.is_empty() {
                return Err(CardEmitError::Invalid(
                    violations
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join("; "),
                ));
            }
            card
        }
    };
    Ok(card.render("  "))
}

/// How to check.
#[derive(Debug, Clone)]
pub struct CardCheckOptions {
    /// The MCP endpoint (`https://host/mcp`).
    pub url: String,
    /// Options for the live server at `url` (the user's headers go there, and only there).
    pub connect: Options,
    /// Most pages per list.
    pub page_cap: usize,
}

/// Why `card check` could not run at all (exit 2).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CardCheckError {
    /// Not an http(s) URL.
    #[error("`{0}` is not an http:// or https:// URL")]
    BadUrl(String),
    /// The HTTP client could not be built.
    #[error("cannot start an HTTP client: {0}")]
    Client(String),
}

impl CardCheckError {
    /// What the user can do about it.
    pub fn hint(&self) -> &'static str {
        match self {
            CardCheckError::BadUrl(_) => {
                "pass the server's Streamable HTTP endpoint, e.g. `https://host/mcp`"
            }
            CardCheckError::Client(_) => "check the TLS set-up of this machine",
        }
    }
}

struct Candidate {
    place: Place,
    url: String,
    doc: Value,
    fetched: Option<PublicResponse>,
}

/// `mcpseal card check` (see the module docs).
///
/// # Errors
/// [`CardCheckError`]; no card, an unreachable server or a lying card are reports.
pub async fn check(options: &CardCheckOptions) -> Result<CardCheckReport, CardCheckError> {
    let url = options.url.clone();
    if !(url.starts_with("http://") || url.starts_with("https://")) || origin(&url).is_none() {
        return Err(CardCheckError::BadUrl(url));
    }
    let client = PublicClient::new(
        options.connect.timeout,
        options.connect.limits.max_metadata_bytes,
    )
    .map_err(|e| CardCheckError::Client(e.to_string()))?;
    let mut probed = Vec::new();
    let mut candidates = Vec::new();
    let mut catalog_checks = Vec::new();
    for (place, at) in places(&url) {
        let f = client.get(&at, place.accept()).await;
        probed.push(Probed {
            place: place.as_str().into(),
            url: at.clone(),
            status: f.status,
            error: f.error.clone(),
        });
        if f.status != Some(200) {
            continue;
        }
        let doc = match f.json() {
            Ok(d) => d,
            Err(e) => {
                catalog_checks.push(
                    Check::new(
                        "card/json",
                        CheckState::Fail,
                        "the document is JSON",
                        e,
                        "a JSON document",
                    )
                    .on(at.clone()),
                );
                continue;
            }
        };
        if place != Place::Catalog {
            candidates.push(Candidate {
                place,
                url: at,
                doc,
                fetched: Some(f),
            });
            continue;
        }
        match catalog_entries(&doc) {
            Err(e) => catalog_checks.push(
                Check::new(
                    "card/catalog",
                    CheckState::Fail,
                    "the AI Catalog has card entries",
                    e,
                    "`entries[]`",
                )
                .on(at.clone()),
            ),
            Ok(entries) => {
                for entry in entries {
                    match entry {
                        CatalogEntry::Inline { identifier, data } => candidates.push(Candidate {
                            place: Place::CatalogEntry,
                            url: format!("inline:{identifier}"),
                            doc: data,
                            fetched: None,
                        }),
                        CatalogEntry::Url { url: card_url, .. } => {
                            // Header-free, whatever the origin: nothing of the user's goes along.
                            let cf = client.get(&card_url, Place::CatalogEntry.accept()).await;
                            probed.push(Probed {
                                place: Place::CatalogEntry.as_str().into(),
                                url: card_url.clone(),
                                status: cf.status,
                                error: cf.error.clone(),
                            });
                            match (cf.status, cf.json()) {
                                (Some(200), Ok(d)) => candidates.push(Candidate {
                                    place: Place::CatalogEntry,
                                    url: card_url,
                                    doc: d,
                                    fetched: Some(cf),
                                }),
                                (_, e) => catalog_checks.push(
                                    Check::new(
                                        "card/catalog-entry",
                                        CheckState::Fail,
                                        "the card a catalog entry names is served",
                                        e.err().unwrap_or_else(|| cf.failure()),
                                        "HTTP 200 and a JSON card",
                                    )
                                    .on(card_url),
                                ),
                            }
                        }
                    }
                }
            }
        }
    }
    let mut report = CardCheckReport {
        schema_version: 1,
        verdict: CardVerdict::NoCard,
        url: url.clone(),
        probed,
        cards: Vec::new(),
        live: None,
        live_error: None,
    };
    if candidates.is_empty() && catalog_checks.is_empty() {
        return Ok(report);
    }
    let live = live_capture(&url, options).await;
    let mut cards = Vec::new();
    for c in candidates {
        let mut checks = Vec::new();
        if let Some(f) = &c.fetched {
            checks.extend(http_checks(&client, c.place, f).await);
        }
        checks.extend(validity_checks(&c.doc));
        if let Ok(l) = &live {
            checks.extend(reconcile(&c.doc, l, &url, options).await);
        }
        cards.push(FoundCard {
            place: c.place.as_str().into(),
            shape: detect(&c.doc).as_str().into(),
            media_type: c
                .fetched
                .as_ref()
                .and_then(|f| f.header("content-type").map(str::to_owned)),
            cors: c
                .fetched
                .as_ref()
                .and_then(|f| f.header("access-control-allow-origin").map(str::to_owned)),
            cache_control: c
                .fetched
                .as_ref()
                .and_then(|f| f.header("cache-control").map(str::to_owned)),
            etag: c
                .fetched
                .as_ref()
                .and_then(|f| f.header("etag").map(str::to_owned)),
            revalidation_status: None,
            url: c.url,
            checks: checks.into_iter().map(|(chk, _)| chk).collect(),
        });
    }
    // The revalidation status, recorded by `http_checks` as the `card/revalidation` check.
    for card in &mut cards {
        card.revalidation_status = card
            .checks
            .iter()
            .find(|c| c.id == "card/revalidation")
            .and_then(|c| c.observed.strip_prefix("HTTP "))
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok());
    }
    if !catalog_checks.is_empty() {
        cards.push(FoundCard {
            place: Place::Catalog.as_str().into(),
            url: format!("{}/.well-known/ai-catalog.json", origin(&url).unwrap_or("")),
            shape: "catalog".into(),
            media_type: None,
            cors: None,
            cache_control: None,
            etag: None,
            revalidation_status: None,
            checks: catalog_checks,
        });
    }
    let failed = cards.iter().any(|c| any_failed(&c.checks));
    report.verdict = match &live {
        Err(e) => {
            report.live_error = Some(e.clone());
            CardVerdict::Unreachable
        }
        Ok(_) if failed => CardVerdict::Mismatch,
        Ok(_) => CardVerdict::Consistent,
    };
    if let Ok(l) = &live {
        report.live = Some(live_server(l));
    }
    report.cards = cards;
    Ok(report)
}

async fn live_capture(url: &str, options: &CardCheckOptions) -> Result<TrustedCapture, String> {
    let conn = crate::open(&Target::http(url), options.connect.clone())
        .await
        .map_err(|e| e.to_string())?;
    let captured = capture_trusted(
        &conn,
        &SnapshotOptions {
            form: Form::McpSeal1,
            page_cap: options.page_cap,
        },
    )
    .await;
    conn.close().await;
    captured.map_err(|e| e.to_string())
}

fn live_info(l: &TrustedCapture) -> Value {
    let result = l.raw.server_result().unwrap_or(Value::Null);
    server_info(&result).cloned().unwrap_or(Value::Null)
}

fn live_versions(l: &TrustedCapture) -> Vec<String> {
    l.surface
        .canonical_value(Form::McpSeal1)
        .pointer("/server/supportedVersions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn live_server(l: &TrustedCapture) -> LiveServer {
    let info = live_info(l);
    LiveServer {
        era: l.surface.era().as_str().to_owned(),
        name: info.get("name").and_then(Value::as_str).map(str::to_owned),
        version: info
            .get("version")
            .and_then(Value::as_str)
            .map(str::to_owned),
        supported_versions: live_versions(l),
    }
}

type Judged = (Check, ());

fn judged(c: Check) -> Judged {
    (c, ())
}

async fn http_checks(client: &PublicClient, place: Place, f: &PublicResponse) -> Vec<Judged> {
    let mut out = Vec::new();
    let media = f.header("content-type").unwrap_or("").to_owned();
    let essence = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let wanted = place.media_types();
    out.push(judged(Check::new(
        "card/media-type",
        if essence == wanted[0] {
            CheckState::Pass
        } else {
            CheckState::Warn
        },
        "the card is served with its media type",
        if media.is_empty() {
            "no Content-Type".to_owned()
        } else {
            media.clone()
        },
        wanted[0].to_owned(),
    )));
    let cors = f.header("access-control-allow-origin");
    out.push(judged(Check::new(
        "card/cors",
        if cors == Some("*") {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        "browser clients may read the card (CORS)",
        cors.map_or("no Access-Control-Allow-Origin".to_owned(), |c| {
            format!("Access-Control-Allow-Origin: {c}")
        }),
        "Access-Control-Allow-Origin: * (MUST)",
    )));
    let cache = f.header("cache-control");
    out.push(judged(Check::new(
        "card/cache-control",
        if cache.is_some() {
            CheckState::Pass
        } else {
            CheckState::Warn
        },
        "the card says how long it may be cached",
        cache.map_or("no Cache-Control".to_owned(), |c| {
            format!("Cache-Control: {c}")
        }),
        "Cache-Control: public, max-age=3600 (SHOULD)",
    )));
    match f.header("etag") {
        None => out.push(judged(Check::new(
            "card/etag",
            CheckState::Warn,
            "the card carries an entity tag",
            "no ETag",
            "an ETag, honoured with 304 (SHOULD)",
        ))),
        Some(tag) => {
            out.push(judged(Check::new(
                "card/etag",
                CheckState::Pass,
                "the card carries an entity tag",
                format!("ETag: {tag}"),
                "an ETag (SHOULD)",
            )));
            let again = client.revalidate(&f.url, place.accept(), tag).await;
            out.push(judged(Check::new(
                "card/revalidation",
                if again.status == Some(304) {
                    CheckState::Pass
                } else {
                    CheckState::Warn
                },
                "revalidation with If-None-Match answers 304",
                format!(
                    "HTTP {}",
                    again.status.map_or("-".into(), |s| s.to_string())
                ),
                "HTTP 304 Not Modified (SHOULD)",
            )));
        }
    }
    out
}

fn validity_checks(doc: &Value) -> Vec<Judged> {
    let shape = detect(doc);
    let v = validate::violations(doc);
    vec![judged(Check::new(
        "card/schema",
        if v.is_empty() {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        format!("the card is a valid {} card", shape.as_str()),
        if v.is_empty() {
            "valid".to_owned()
        } else {
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        },
        match shape {
            CardShape::V1 => "valid against the vendored v1 server-card schema".to_owned(),
            _ => "a card of a known shape with serverInfo name and version".to_owned(),
        },
    ))]
}

async fn reconcile(
    doc: &Value,
    live: &TrustedCapture,
    url: &str,
    options: &CardCheckOptions,
) -> Vec<Judged> {
    let card = Card::of(doc);
    let info = live_info(live);
    let live_text = |k: &str| info.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut out = Vec::new();
    match (&card.version, live_text("version")) {
        (Some(c), Some(l)) => out.push(judged(Check::new(
            "card/version",
            if *c == l {
                CheckState::Pass
            } else {
                CheckState::Fail
            },
            "the card's version is the live server's",
            format!("card {c}"),
            format!("{l} (serverInfo.version)"),
        ))),
        (Some(c), None) => out.push(judged(Check::new(
            "card/version",
            CheckState::Skipped,
            "the card's version is the live server's",
            format!("card {c}"),
            "the live server reports no version",
        ))),
        _ => {}
    }
    let live_name = live_text("name");
    if let (Some(c), Some(l)) = (&card.server_name, &live_name) {
        out.push(judged(Check::new(
            "card/name",
            if c == l {
                CheckState::Pass
            } else {
                CheckState::Fail
            },
            "the card's serverInfo.name is the live server's",
            format!("card {c}"),
            l.clone(),
        )));
    } else if let (Some(c), Some(l)) = (&card.name, &live_name)
        && !c.ends_with(&format!("/{l}"))
        && c != l
    {
        // A v1 name is reverse-DNS (`com.example/weather`); serverInfo.name is free: shown, not failed.
        out.push(judged(Check::new(
            "card/name",
            CheckState::Warn,
            "the card's name matches the live server's name",
            format!("card {c}"),
            format!("`…/{l}` (serverInfo.name {l})"),
        )));
    }
    let versions = live_versions(live);
    for remote in &card.remotes {
        out.push(judged(remote_served(remote, url, options).await));
        if let Some(claimed) = &remote.supported_versions {
            out.push(judged(
                versions_check(claimed, &versions).on(remote.url.clone()),
            ));
        }
    }
    if let Some(pv) = &card.protocol_version {
        out.push(judged(versions_check(std::slice::from_ref(pv), &versions)));
    }
    if !card.lists.is_empty() {
        out.extend(lists_checks(&card, live).into_iter().map(judged));
    }
    out
}

fn versions_check(claimed: &[String], live: &[String]) -> Check {
    let extra: Vec<&String> = claimed.iter().filter(|v| !live.contains(v)).collect();
    Check::new(
        "card/protocol-versions",
        if extra.is_empty() {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        "the protocol versions the card claims are supported",
        if extra.is_empty() {
            format!("card {}", claimed.join(", "))
        } else {
            format!(
                "card claims {} the live server does not support",
                extra
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
        format!(
            "a subset of {}",
            if live.is_empty() {
                "-".to_owned()
            } else {
                live.join(", ")
            }
        ),
    )
}

async fn remote_served(
    remote: &mcpseal_publish::card::CardRemote,
    url: &str,
    options: &CardCheckOptions,
) -> Check {
    let title = "the card's remote is really served";
    let skip = |why: &str| {
        Check::new(
            "card/remote",
            CheckState::Skipped,
            title,
            why.to_owned(),
            "an MCP endpoint answering",
        )
        .on(remote.url.clone())
    };
    if remote.url.contains('{') {
        return skip("a URL template");
    }
    if remote.kind != "streamable-http" {
        return skip(&format!(
            "transport `{}` is not spoken by mcpseal",
            remote.kind
        ));
    }
    if remote.url == url {
        return Check::new(
            "card/remote",
            CheckState::Pass,
            title,
            "the checked endpoint (captured)",
            "an MCP endpoint answering",
        )
        .on(remote.url.clone());
    }
    // Another URL: the user's headers go only to the URL they gave.
    let mut connect = options.connect.clone();
    if origin(&remote.url) != origin(url) {
        connect.headers.clear();
    }
    let served = match crate::open(&Target::http(&remote.url), connect).await {
        Ok(conn) => {
            let c = capture_surface(
                &conn,
                &CaptureOptions {
                    page_cap: 1,
                    ..CaptureOptions::default()
                },
            )
            .await;
            conn.close().await;
            c.raw.server.is_some()
        }
        Err(_) => false,
    };
    Check::new(
        "card/remote",
        if served {
            CheckState::Pass
        } else {
            CheckState::Fail
        },
        title,
        if served {
            "answered server/discover or initialize"
        } else {
            "no MCP answer"
        },
        "an MCP endpoint answering",
    )
    .on(remote.url.clone())
}

/// The card's lists against the live ones, with the classified diff: the card's lists are
/// normalised exactly as a capture (same server part, the live era), lists the card does not
/// enumerate are taken from the live side (not compared).
fn lists_checks(card: &Card, live: &TrustedCapture) -> Vec<Check> {
    let live_value = live.surface.canonical_value(Form::McpSeal1);
    let mut lists = serde_json::Map::new();
    for (kind, items) in &card.lists {
        lists.insert(kind.key().into(), json!({"pages": [{kind.key(): items}]}));
    }
    let raw = json!({"schemaVersion": 1, "era": live.surface.era().as_str(),
        "server": live.raw.server_result().unwrap_or(Value::Null), "lists": lists});
    let card_surface = match serde_json::to_vec(&raw)
        .map_err(|e| e.to_string())
        .and_then(|b| Surface::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => {
            return vec![Check::new(
                "card/lists",
                CheckState::Fail,
                "the card's lists are a surface",
                e,
                "unique identities, well-formed items",
            )];
        }
    };
    let mut card_value = card_surface.canonical_value(Form::McpSeal1);
    for kind in ListKind::ALL {
        if !card.lists.iter().any(|(k, _)| *k == kind) {
            card_value[kind.key()] = live_value[kind.key()].clone();
        }
    }
    let d = mcpseal_surface::diff(&card_value, &live_value);
    if d.changes.is_empty() && card_value == live_value {
        let listed: Vec<&str> = card.lists.iter().map(|(k, _)| k.key()).collect();
        return vec![Check::new(
            "card/lists",
            CheckState::Pass,
            "the card's lists are the live ones",
            format!("{} as served", listed.join(", ")),
            "the live lists",
        )];
    }
    if d.changes.is_empty() {
        return vec![Check::new(
            "card/lists",
            CheckState::Fail,
            "the card's lists are the live ones",
            "the lists differ in bytes the diff engine shows no change for",
            "the live lists",
        )];
    }
    d.changes
        .iter()
        .map(|c| {
            Check::new(
                "card/lists",
                CheckState::Fail,
                "the card's lists are the live ones",
                format!("{} ({}) at `{}`", c.explanation, c.class.as_str(), c.path),
                "card → live: no change",
            )
        })
        .collect()
}
