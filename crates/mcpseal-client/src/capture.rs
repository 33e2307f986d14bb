//! Raw surface capture: what the server said, untouched.
//!
//! The era is found the way 2026-07-28 tells clients to find it: `server/discover` first; a
//! result means modern; the errors only a modern server sends (`-32020`, `-32021`, `-32022`)
//! also mean modern, so the request is fixed and retried, never downgraded; anything else means
//! legacy, so `initialize` + `notifications/initialized` follow and the lists are read in that
//! session. The fallback is deliberately not keyed to one error code.
//!
//! Each list is paged through `nextCursor` with a page cap, a repeated-cursor check and a cap
//! on the bytes of the whole capture, so a server cannot keep the capture busy (or mcpseal's
//! memory growing) forever. Every list records what ended it precisely ([`FailureCause`]):
//! the server's answer that the method does not exist, another JSON-RPC error, or one of the
//! ways of getting no answer at all (timeout, oversize, closed, invalid output, an HTTP status
//! that is not a JSON-RPC answer, a 401/403 with its `WWW-Authenticate` challenge, a result
//! without the list array, a cap). Once a list got no answer the capture stops: the lists
//! after it are left out (not captured), since the capture is refused anyway and a dead server
//! would make each of them wait out the timeout again. Judging the result (not served vs
//! failed, null vs `[]`, duplicates, canonical form) is `mcpseal-surface`'s job; this module
//! only records.

use std::collections::HashSet;

use mcpseal_protocol::keys::META_CLIENT_CAPABILITIES;
use mcpseal_protocol::method::code::METHOD_NOT_FOUND;
use mcpseal_protocol::{
    Era, FailureCause, ListCapture, ListFailure, ListKind, RawCapture, Request,
    is_modern_error_code, method,
};
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::connection::Connection;
use crate::error::TransportErrorKind;
use crate::exchange::Exchange;
use crate::transport::Members;

/// How to capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureOptions {
    /// Most pages read per list before giving up (default 1000). The bytes of one capture
    /// are capped by the connection's [`Limits::max_capture_bytes`](crate::Limits).
    pub page_cap: usize,
    /// Capture exactly as mcp-surface does (for the `mcp-surface/1` form): `initialize` with
    /// protocol version `2025-06-18` and client `mcp-surface`, `notifications/initialized` only
    /// on stdio, list params `{}`, pagination only while `nextCursor` is a non-empty string,
    /// 100 pages at most.
    pub mcp_surface_compat: bool,
    /// Read the next list after one refused with 401/403 (`snapshot --anonymous-only`
    /// records what a stranger sees of every list); any other unanswered list still ends the
    /// read.
    pub past_refusals: bool,
    /// Keep each large list page (see [`Message`](crate::Message)) as the bytes the server
    /// wrote, not re-serialised from a parsed value: no value tree of the page is ever built.
    /// The surface is the same either way, but the capture document's page text is the server's
    /// (its key order, spacing and number spelling), so a caller that stores or hashes the
    /// capture's bytes leaves this off (the default) or normalises them
    /// ([`normalise_pages`]). Only stdio pages are read this way today; the capture cap counts
    /// the kept bytes either way.
    pub verbatim_pages: bool,
}

impl Default for CaptureOptions {
    fn default() -> Self {
        CaptureOptions {
            page_cap: 1000,
            mcp_surface_compat: false,
            past_refusals: false,
            verbatim_pages: false,
        }
    }
}

impl CaptureOptions {
    /// The options mcp-surface's own capture uses.
    pub fn mcp_surface() -> Self {
        CaptureOptions {
            page_cap: 100,
            mcp_surface_compat: true,
            past_refusals: false,
            verbatim_pages: false,
        }
    }
}

/// A capture and the exchanges behind it.
#[derive(Debug, Clone)]
pub struct Capture {
    /// What the server said.
    pub raw: RawCapture,
    /// Every exchange, in order, except the list pages kept in `raw`: their results are
    /// there verbatim, and keeping them twice (once as parsed trees) would multiply the memory
    /// a large surface costs.
    pub exchanges: Vec<Exchange>,
}

impl Capture {
    /// True when not a single exchange was answered (the server was never reached).
    pub fn unreachable(&self) -> bool {
        let pages = ListKind::ALL
            .iter()
            .filter_map(|&k| self.raw.lists.get(k))
            .any(|l| !l.pages.is_empty());
        !pages && !self.exchanges.iter().any(Exchange::is_answered)
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
    read_lists(conn, era, options, false, &mut raw, &mut exchanges).await;
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
        ..CaptureOptions::default()
    };
    let mut exchanges = Vec::new();
    let mut budget = conn.options().limits.max_capture_bytes;
    let list = read_list(
        conn,
        era,
        kind,
        &options,
        false,
        &mut budget,
        &mut exchanges,
        true,
    )
    .await;
    let mut items = Vec::new();
    let mut failure = list.failure;
    for page in &list.pages {
        let parsed: Option<Vec<Value>> = serde_json::from_str::<Value>(page.get())
            .ok()
            .and_then(|v| v.get(kind.key()).and_then(Value::as_array).cloned());
        match parsed {
            Some(more) => items.extend(more),
            None if failure.is_none() => {
                failure = Some(ListFailure::new(
                    FailureCause::MalformedResult,
                    format!("a page has no `{}` array", kind.key()),
                ));
            }
            None => {}
        }
    }
    (items, failure, exchanges)
}

/// Reads the four lists into `raw`, stopping after the first that got no answer (a refusal is
/// an answer for [`CaptureOptions::past_refusals`]).
async fn read_lists(
    conn: &Connection,
    era: Era,
    options: &CaptureOptions,
    compat: bool,
    raw: &mut RawCapture,
    exchanges: &mut Vec<Exchange>,
) {
    let mut budget = conn.options().limits.max_capture_bytes;
    for kind in ListKind::ALL {
        let list = read_list(
            conn,
            era,
            kind,
            options,
            compat,
            &mut budget,
            exchanges,
            false,
        )
        .await;
        let answered = list.failure.as_ref().is_none_or(|f| {
            f.cause.is_some_and(FailureCause::is_answer)
                || (options.past_refusals && f.cause == Some(FailureCause::Unauthorized))
        });
        *raw.lists.slot(kind) = Some(list);
        if !answered {
            return;
        }
    }
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

#[expect(
    clippy::too_many_arguments,
    reason = "one private reader with its two callers; a struct would only rename the arguments"
)]
async fn read_list(
    conn: &Connection,
    era: Era,
    kind: ListKind,
    options: &CaptureOptions,
    compat: bool,
    budget: &mut usize,
    exchanges: &mut Vec<Exchange>,
    // Keep each page's exchange too (`list_items`: a caller that quotes the listing as evidence).
    keep_exchanges: bool,
) -> ListCapture {
    let method = kind.method();
    let mut out = ListCapture::default();
    let mut cursor: Option<String> = None;
    let mut seen: HashSet<String> = HashSet::new();
    loop {
        let page = u32::try_from(out.pages.len() + 1).unwrap_or(u32::MAX);
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
        let (mut ex, text) = if options.verbatim_pages && !keep_exchanges {
            conn.send_keeping_result(request).await
        } else {
            (conn.send(request).await, None)
        };
        // A result that came back as text is judged on its text when it is a plain page;
        // anything else gets its value back and the usual judgement, word for word.
        let verbatim = match text {
            Some(text) => match plain_page(&ex, &text, kind) {
                Some(next) => Some((text, next)),
                None => {
                    ex.restore_result(&text);
                    None
                }
            },
            None => None,
        };
        if verbatim.is_none()
            && let Some(failure) = failure_of(&ex, kind, page)
        {
            out.failure = Some(failure);
            exchanges.push(ex);
            return out;
        }
        // The page is kept once, verbatim, in the capture; its exchange is not kept unless the
        // caller quotes it.
        if keep_exchanges {
            exchanges.push(ex.clone());
        }
        let (kept, next) = match verbatim {
            Some((text, next)) => (RawValue::from_string(text).ok(), next),
            None => {
                let result = ex
                    .response
                    .as_mut()
                    .and_then(|r| r.get_mut("result"))
                    .map(Value::take)
                    .unwrap_or_default();
                (raw_value(&result), result.get("nextCursor").cloned())
            }
        };
        let Some(kept) = kept else {
            out.failure = Some(
                ListFailure::new(
                    FailureCause::MalformedResult,
                    format!("page {page}: the result could not be kept"),
                )
                .on_page(page),
            );
            return out;
        };
        let size = kept.get().len();
        if size > *budget {
            out.failure = Some(
                ListFailure::new(
                    FailureCause::CaptureCap,
                    format!(
                        "page {page} would pass the {}-byte cap on one capture",
                        conn.options().limits.max_capture_bytes
                    ),
                )
                .on_page(page),
            );
            return out;
        }
        *budget -= size;
        out.pages.push(kept);
        let next = match next {
            None | Some(Value::Null) => return out,
            Some(Value::String(s)) => s,
            Some(other) => {
                if compat {
                    return out;
                }
                out.failure = Some(
                    ListFailure::new(
                        FailureCause::MalformedResult,
                        format!(
                            "page {page}: `nextCursor` is not a string: {}",
                            crate::diagnostics::Diagnostics::cut(&other.to_string())
                        ),
                    )
                    .on_page(page),
                );
                return out;
            }
        };
        // mcp-surface stops at an empty cursor; 2026-07-28 says an empty string is a cursor.
        if compat && next.is_empty() {
            return out;
        }
        if !seen.insert(next.clone()) {
            out.failure = Some(ListFailure::new(
                FailureCause::CursorLoop,
                format!(
                    "the cursor {:?} came back twice after {} pages",
                    crate::diagnostics::Diagnostics::cut(&next),
                    out.pages.len()
                ),
            ));
            return out;
        }
        if out.pages.len() >= options.page_cap {
            out.failure = Some(ListFailure::new(
                FailureCause::PageCap,
                format!("more than {} pages", options.page_cap),
            ));
            return out;
        }
        cursor = Some(next);
    }
}

/// For a result kept as `text`: its `nextCursor` (`Some(None)` when absent) when the page is
/// one [`failure_of`] would keep (no transport error, no refusal, no `error` member, an object
/// whose `kind` member is an array, the last of a repeated key counting, as in a parse);
/// `None` when it must be judged on its value.
#[expect(
    clippy::option_option,
    reason = "outer: a plain page or not; inner: the page's cursor, absent or not"
)]
fn plain_page(ex: &Exchange, text: &str, kind: ListKind) -> Option<Option<Value>> {
    if ex.transport_error.is_some()
        || ex.http_status.is_some_and(|s| !(200..300).contains(&s))
        || ex.error().is_some()
    {
        return None;
    }
    let members = serde_json::from_str::<Members<'_>>(text).ok()?.0;
    let last = |key: &str| {
        members
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| *v)
    };
    if !last(kind.key())?.get().starts_with('[') {
        return None;
    }
    match last("nextCursor") {
        None => Some(None),
        Some(raw) => serde_json::from_str::<Value>(raw.get()).ok().map(Some),
    }
}

/// What ended the list on this page, if the page is not one to keep: the server's answer
/// that the method does not exist or another JSON-RPC error (answers), or no usable answer.
fn failure_of(ex: &Exchange, kind: ListKind, page: u32) -> Option<ListFailure> {
    let status = ex.http_status;
    // A 401 or 403 is the server refusing the caller, whatever its body says.
    if let Some(s @ (401 | 403)) = status {
        let challenge = ex.response_header("WWW-Authenticate").map(str::to_owned);
        let mut f = ListFailure::new(
            FailureCause::Unauthorized,
            format!(
                "page {page}: refused with HTTP {s}: this list needs a credential{}",
                challenge
                    .as_deref()
                    .map(|c| format!(
                        " (WWW-Authenticate: {})",
                        crate::diagnostics::Diagnostics::cut(c)
                    ))
                    .unwrap_or_default()
            ),
        )
        .on_page(page);
        f.http_status = Some(s);
        f.challenge = challenge;
        return Some(f);
    }
    let failed = |cause: FailureCause, detail: String| {
        let mut f = ListFailure::new(cause, format!("page {page}: {detail}")).on_page(page);
        f.http_status = status;
        Some(f)
    };
    let not_ok = status.is_some_and(|s| !(200..300).contains(&s));
    if let Some(err) = &ex.transport_error {
        let cause = match err.kind {
            TransportErrorKind::Timeout => FailureCause::Timeout,
            TransportErrorKind::Closed => FailureCause::Closed,
            TransportErrorKind::Oversize => FailureCause::Oversize,
            TransportErrorKind::InvalidUtf8 => FailureCause::InvalidUtf8,
            TransportErrorKind::Protocol if not_ok => FailureCause::HttpStatus,
            TransportErrorKind::Protocol => FailureCause::InvalidJson,
            TransportErrorKind::Spawn => FailureCause::Spawn,
            TransportErrorKind::Network => FailureCause::Network,
        };
        let mut detail = err.message.clone();
        if let (FailureCause::HttpStatus, Some(location)) = (cause, ex.response_header("Location"))
        {
            detail = format!(
                "{detail}; it redirects to {} (mcpseal never follows a redirect, which would send your headers elsewhere: pass the final URL)",
                crate::target::redact_url(location)
            );
        }
        return failed(cause, detail);
    }
    if ex.error().is_some() {
        let code = ex.error_code();
        let mut f = if code == Some(METHOD_NOT_FOUND)
            && status.is_none_or(|s| (200..300).contains(&s) || s == 404)
        {
            failed(FailureCause::MethodNotFound, describe_error(ex))
        } else if status.is_some_and(|s| s >= 500) {
            failed(
                FailureCause::HttpStatus,
                format!("HTTP {}: {}", status.unwrap_or(0), describe_error(ex)),
            )
        } else {
            failed(FailureCause::ErrorAnswer, describe_error(ex))
        }?;
        f.code = code;
        return Some(f);
    }
    match ex.result() {
        Some(Value::Object(result)) => {
            if result.get(kind.key()).is_some_and(Value::is_array) {
                None
            } else {
                failed(
                    FailureCause::MalformedResult,
                    format!("the result has no array under `{}`", kind.key()),
                )
            }
        }
        Some(_) => failed(
            FailureCause::MalformedResult,
            "the result is not an object".to_owned(),
        ),
        // No response, no error: a request that was never answered nor failed (cannot
        // happen for a request; kept as no answer rather than guessed at).
        None => failed(FailureCause::InvalidJson, "no answer".to_owned()),
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
    read_lists(conn, Era::Legacy, options, true, &mut raw, &mut exchanges).await;
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

/// `raw` with every list page re-serialised from its parse: the page text a capture without
/// [`CaptureOptions::verbatim_pages`] holds, for callers that write or hash the document.
/// Pages that do not parse are left as they are.
pub fn normalise_pages(raw: &mut RawCapture) {
    for kind in ListKind::ALL {
        let Some(list) = raw.lists.slot(kind).as_mut() else {
            continue;
        };
        for page in &mut list.pages {
            if let Some(again) = serde_json::from_str::<Value>(page.get())
                .ok()
                .and_then(|v| raw_value(&v))
            {
                *page = again;
            }
        }
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
