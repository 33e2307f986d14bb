//! Raw surface capture: what the server said, untouched.
//!
//! The era is found the way 2026-07-28 tells clients to find it: `server/discover` first; a
//! result means modern; the errors only a modern server sends (`-32020`, `-32021`, `-32022`)
//! also mean modern, so the request is fixed and retried, never downgraded; anything else means
//! legacy, so `initialize` + `notifications/initialized` follow and the lists are read in that
//! session. The fallback is deliberately not keyed to one error code.
//!
//! Each list is paged through `nextCursor` with a page cap and a repeated-cursor check, so a
//! server cannot keep the capture busy forever. Judging the result (null vs `[]`, duplicates,
//! canonical form) is `mcpseal-surface`'s job; this module only records.

use std::collections::HashSet;

use mcpseal_protocol::keys::META_CLIENT_CAPABILITIES;
use mcpseal_protocol::{
    Era, FailureKind, ListCapture, ListFailure, ListKind, RawCapture, Request,
    is_modern_error_code, method,
};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::connection::Connection;
use crate::exchange::Exchange;

/// How to capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureOptions {
    /// Most pages read per list before giving up (default 1000).
    pub page_cap: usize,
    /// Capture exactly as mcp-surface does (for the `mcp-surface/1` form): `initialize` with
    /// protocol version `2025-06-18` and client `mcp-surface`, `notifications/initialized` only
    /// on stdio, list params `{}`, pagination only while `nextCursor` is a non-empty string,
    /// 100 pages at most.
    pub mcp_surface_compat: bool,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            page_cap: 1000,
            mcp_surface_compat: false,
        }
    }
}

impl CaptureOptions {
    /// The options mcp-surface's own capture uses.
    pub fn mcp_surface() -> Self {
        CaptureOptions {
            page_cap: 100,
            mcp_surface_compat: true,
        }
    }
}

/// A capture and the exchanges behind it.
#[derive(Debug, Clone)]
pub struct Capture {
    /// What the server said.
    pub raw: RawCapture,
    /// Every exchange, in order.
    pub exchanges: Vec<Exchange>,
}

impl Capture {
    /// True when not a single exchange was answered (the server was never reached).
    pub fn unreachable(&self) -> bool {
        !self.exchanges.iter().any(Exchange::is_answered)
    }

    /// The first transport error, for messages.
    pub fn first_transport_error(&self) -> Option<String> {
        self.exchanges
            .iter()
            .find_map(|e| e.transport_error.as_ref().map(|t| t.message.clone()))
    }
}

fn describe_error(ex: &Exchange) -> String {
    match (ex.error_code(), ex.error_message()) {
        (Some(code), Some(msg)) => format!("error {code}: {msg}"),
        (Some(code), None) => format!("error {code}"),
        _ => "a malformed error".to_owned(),
    }
}

/// Captures the raw surface. Never fails: what could not be read is recorded in the capture.
pub async fn capture_surface(conn: &Connection, options: &CaptureOptions) -> Capture {
    let mut exchanges = Vec::new();
    if options.mcp_surface_compat {
        return capture_compat(conn, options, exchanges).await;
    }
    let (era, server, server_failure) = discover_era(conn, &mut exchanges).await;
    let mut raw = RawCapture::new(era);
    raw.server = server.as_ref().and_then(raw_value);
    raw.server_failure = server_failure;
    for kind in ListKind::ALL {
        *raw.lists.slot(kind) =
            Some(read_list(conn, era, kind, options, false, &mut exchanges).await);
    }
    Capture { raw, exchanges }
}

/// What finding a server's era found.
#[derive(Debug, Clone)]
pub struct Discovery {
    /// The era the server speaks (legacy when `server/discover` failed in a way only a legacy
    /// server fails).
    pub era: Era,
    /// The `server/discover` (modern) or `initialize` (legacy) result.
    pub server: Option<Value>,
    /// Why there is no such result, when there is none.
    pub failure: Option<String>,
    /// The exchanges, in order.
    pub exchanges: Vec<Exchange>,
}

/// Finds the era the way [`capture_surface`] does, declaring `capabilities` as the client's:
/// in `server/discover`'s `_meta` (2026) and in `initialize` (2025), so a server knows it may
/// ask for what they name (elicitation, sampling, roots).
pub async fn discover(conn: &Connection, capabilities: &Value) -> Discovery {
    let mut exchanges = Vec::new();
    let (era, server, failure) =
        discover_era_declaring(conn, &mut exchanges, Some(capabilities)).await;
    Discovery {
        era,
        server,
        failure,
        exchanges,
    }
}

/// The items of every page of `kind` in `era` (a page cap and a repeated-cursor check as in
/// [`capture_surface`]), the failure that ended the read early if any, and the exchanges.
pub async fn list_items(
    conn: &Connection,
    era: Era,
    kind: ListKind,
    page_cap: usize,
) -> (Vec<Value>, Option<ListFailure>, Vec<Exchange>) {
    let options = CaptureOptions {
        page_cap,
        mcp_surface_compat: false,
    };
    let mut exchanges = Vec::new();
    let list = read_list(conn, era, kind, &options, false, &mut exchanges).await;
    let mut items = Vec::new();
    let mut failure = list.failure;
    for page in &list.pages {
        let parsed: Option<Vec<Value>> = serde_json::from_str::<Value>(page.get())
            .ok()
            .and_then(|v| v.get(kind.key()).and_then(Value::as_array).cloned());
        match parsed {
            Some(more) => items.extend(more),
            None if failure.is_none() => {
                failure = Some(ListFailure {
                    kind: FailureKind::Error,
                    message: format!("a page has no `{}` array", kind.key()),
                });
            }
            None => {}
        }
    }
    (items, failure, exchanges)
}

/// Finds the era: returns it, the discover/initialize result, and why it is missing.
async fn discover_era(
    conn: &Connection,
    exchanges: &mut Vec<Exchange>,
) -> (Era, Option<Value>, Option<String>) {
    discover_era_declaring(conn, exchanges, None).await
}

async fn discover_era_declaring(
    conn: &Connection,
    exchanges: &mut Vec<Exchange>,
    capabilities: Option<&Value>,
) -> (Era, Option<Value>, Option<String>) {
    let mut request = Request::modern(method::SERVER_DISCOVER, None);
    if let Some(caps) = capabilities {
        request = request.with_meta(META_CLIENT_CAPABILITIES, caps.clone());
    }
    // At most one fix per modern error kind, so a confused server cannot keep us looping.
    for _ in 0..3 {
        let ex = conn.send(request.clone()).await;
        let result = ex.result().cloned();
        let code = ex.error_code();
        let data = ex.error().and_then(|e| e.get("data")).cloned();
        exchanges.push(ex);
        if let Some(result) = result {
            return (Era::Modern, Some(result), None);
        }
        let Some(code) = code.filter(|c| is_modern_error_code(*c)) else {
            break;
        };
        match code {
            -32021 => {
                let Some(required) = data.as_ref().and_then(|d| d.get("requiredCapabilities"))
                else {
                    return modern_failure("it requires client capabilities it did not name");
                };
                request = request.with_meta(META_CLIENT_CAPABILITIES, required.clone());
            }
            -32022 => {
                let supported: Vec<String> = data
                    .as_ref()
                    .and_then(|d| d.get("supported"))
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                return modern_failure(&format!(
                    "it does not support {} (it supports {}), and mcpseal speaks no other modern revision",
                    Era::Modern.revision(),
                    if supported.is_empty() {
                        "nothing it named".to_owned()
                    } else {
                        supported.join(", ")
                    }
                ));
            }
            _ => {
                return modern_failure(
                    "it rejected mcpseal's routing headers (-32020) although they match the request",
                );
            }
        }
    }
    let (init, _) = match capabilities {
        Some(caps) => {
            conn.handshake_declaring(Era::Legacy.revision(), crate::client_info(), caps.clone())
                .await
        }
        None => conn.handshake().await,
    };
    let result = init.result().cloned();
    let failure = if result.is_some() {
        None
    } else if let Some(err) = &init.transport_error {
        Some(format!(
            "neither `server/discover` nor `initialize` was answered: {}",
            err.message
        ))
    } else {
        Some(format!(
            "`server/discover` failed and `initialize` was refused ({})",
            describe_error(&init)
        ))
    };
    exchanges.push(init);
    (Era::Legacy, result, failure)
}

fn modern_failure(why: &str) -> (Era, Option<Value>, Option<String>) {
    (
        Era::Modern,
        None,
        Some(format!("the server is a 2026-07-28 server, but {why}")),
    )
}

async fn read_list(
    conn: &Connection,
    era: Era,
    kind: ListKind,
    options: &CaptureOptions,
    compat: bool,
    exchanges: &mut Vec<Exchange>,
) -> ListCapture {
    let method = kind.method();
    let mut out = ListCapture::default();
    let mut cursor: Option<String> = None;
    let mut seen: HashSet<String> = HashSet::new();
    loop {
        let params = match (&cursor, compat) {
            (Some(c), _) => Some(json!({"cursor": c})),
            (None, true) => Some(json!({})),
            (None, false) => None,
        };
        let request = match era {
            Era::Modern => Request::modern(method, params),
            Era::Legacy => Request::legacy(method, params),
        };
        let request = if compat {
            // mcp-surface sends no routing or version headers.
            request.without_standard_headers()
        } else {
            request
        };
        let ex = conn.send(request).await;
        let failure = if let Some(err) = &ex.transport_error {
            Some((
                FailureKind::Transport,
                format!("page {}: {}", out.pages.len() + 1, err),
            ))
        } else if ex.error().is_some() {
            Some((
                FailureKind::Error,
                format!("page {}: {}", out.pages.len() + 1, describe_error(&ex)),
            ))
        } else if !ex.result().is_some_and(Value::is_object) {
            Some((
                FailureKind::Error,
                format!("page {}: the result is not an object", out.pages.len() + 1),
            ))
        } else {
            None
        };
        let result = ex.result().cloned();
        exchanges.push(ex);
        if let Some((kind, message)) = failure {
            out.failure = Some(ListFailure { kind, message });
            return out;
        }
        let Some(result) = result else {
            return out;
        };
        let next = result.get("nextCursor").cloned();
        let Some(page) = raw_value(&result) else {
            out.failure = Some(ListFailure {
                kind: FailureKind::Error,
                message: format!("page {}: the result could not be kept", out.pages.len() + 1),
            });
            return out;
        };
        out.pages.push(page);
        let next = match next {
            None | Some(Value::Null) => return out,
            Some(Value::String(s)) => s,
            Some(other) => {
                if compat {
                    return out;
                }
                out.failure = Some(ListFailure {
                    kind: FailureKind::Error,
                    message: format!("`nextCursor` is not a string: {other}"),
                });
                return out;
            }
        };
        // mcp-surface stops at an empty cursor; 2026-07-28 says an empty string is a cursor.
        if compat && next.is_empty() {
            return out;
        }
        if !seen.insert(next.clone()) {
            out.failure = Some(ListFailure {
                kind: FailureKind::CursorLoop,
                message: format!(
                    "the cursor {:?} came back twice after {} pages",
                    crate::diagnostics::Diagnostics::cut(&next),
                    out.pages.len()
                ),
            });
            return out;
        }
        if out.pages.len() >= options.page_cap {
            out.failure = Some(ListFailure {
                kind: FailureKind::PageCap,
                message: format!("more than {} pages", options.page_cap),
            });
            return out;
        }
        cursor = Some(next);
    }
}

async fn capture_compat(
    conn: &Connection,
    options: &CaptureOptions,
    mut exchanges: Vec<Exchange>,
) -> Capture {
    let client = json!({"name": "mcp-surface", "version": "1.0.0"});
    let init = conn
        .send(
            Request::legacy(
                method::INITIALIZE,
                Some(json!({"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": client})),
            )
            .without_standard_headers(),
        )
        .await;
    let server = init.result().cloned();
    let server_failure = server
        .is_none()
        .then(|| format!("`initialize` failed: {}", init.summary()));
    let stateful = conn.transport() == crate::exchange::TransportKind::Stdio;
    exchanges.push(init);
    if server.is_some() && stateful {
        let n = conn
            .send(
                Request::legacy(method::NOTIFICATION_INITIALIZED, None)
                    .notification()
                    .without_standard_headers(),
            )
            .await;
        exchanges.push(n);
    }
    // mcp-surface speaks 2025-06-18, a legacy-era revision; the form does not hash the era.
    let mut raw = RawCapture::new(Era::Legacy);
    raw.server = server.as_ref().and_then(raw_value);
    raw.server_failure = server_failure;
    for kind in ListKind::ALL {
        *raw.lists.slot(kind) =
            Some(read_list(conn, Era::Legacy, kind, options, true, &mut exchanges).await);
    }
    Capture { raw, exchanges }
}

/// The result of asking for a method that cannot exist.
#[derive(Debug, Clone)]
pub struct SanityCheck {
    /// The exchange.
    pub exchange: Exchange,
}

impl SanityCheck {
    /// The method asked for.
    pub const METHOD: &'static str = "mcpseal/this-method-does-not-exist";

    /// True when the endpoint answered the impossible method with a result: it says yes to
    /// everything, so nothing it says proves anything.
    pub fn is_liar(&self) -> bool {
        self.exchange.result().is_some()
    }

    /// True when the endpoint said no (a JSON-RPC error, as it should).
    pub fn says_no(&self) -> bool {
        self.exchange.error().is_some()
    }
}

/// The verbatim JSON of a value, as the capture document keeps it.
fn raw_value(value: &Value) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(value).ok()
}

/// Asks for a method that cannot exist, dressed for `era`.
pub async fn sanity_check(conn: &Connection, era: Era) -> SanityCheck {
    let request = match era {
        Era::Modern => Request::modern(SanityCheck::METHOD, None),
        Era::Legacy => Request::legacy(SanityCheck::METHOD, Some(json!({}))),
    };
    SanityCheck {
        exchange: conn.send(request).await,
    }
}
