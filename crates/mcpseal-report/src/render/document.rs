//! `snapshot` and `rpc` documents in their two formats, the error document, and the stderr
//! lines of `rpc` and `probe`.
//!
//! JSON keeps the documents' field order (`schemaVersion` first), pretty, one trailing newline,
//! as these commands have always printed it.

use std::fmt::Write as _;

use serde::Serialize;

use crate::document::{ErrorBody, ErrorDocument, RpcReport, Snapshot};
use crate::format::DocFormat;
use crate::model::ProbeReport;

/// `value` as pretty JSON in its field order, plus a newline.
fn json<T: Serialize>(value: &T) -> String {
    let mut out = serde_json::to_string_pretty(value).unwrap_or_else(|e| {
        serde_json::json!({ "error": format!("cannot serialise the document: {e}") }).to_string()
    });
    out.push('\n');
    out
}

/// A snapshot in `format`; `color` paints the fingerprint in the palette's hash colour (text only,
/// never JSON).
pub fn render_snapshot(s: &Snapshot, format: DocFormat, color: bool) -> String {
    if format == DocFormat::Json {
        return json(s);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "server   {}",
        s.server.as_deref().unwrap_or("(unnamed)")
    );
    match &s.protocol_version {
        Some(v) if *v != s.era => {
            let _ = writeln!(out, "era      {} (the server negotiated {v})", s.era);
        }
        _ => {
            let _ = writeln!(out, "era      {}", s.era);
        }
    }
    for (list, count) in &s.counts {
        let shown = match count {
            Some(n) => n.to_string(),
            None => format!(
                "not served ({})",
                s.not_served
                    .get(list)
                    .map(String::as_str)
                    .unwrap_or("no reason")
            ),
        };
        let _ = writeln!(out, "{list:<18} {shown}");
    }
    for (list, r) in &s.refused {
        let _ = writeln!(out, "{list:<18} {}", r.reason);
    }
    if s.anonymous_only {
        let _ = writeln!(out, "as seen without a credential (`--anonymous-only`)");
    }
    let _ = writeln!(
        out,
        "{}  {}",
        s.form,
        super::palette::paint(&s.sha256, super::palette::hash(), color)
    );
    if let Some(a) = &s.anonymous {
        out.push_str(&super::anonymous::anonymous_table(a));
    }
    if s.anonymous_skipped {
        out.push_str(super::anonymous::SKIPPED_LINE);
    }
    out
}

/// An `rpc` document in `format`: text lists each exchange's summary, the request and the
/// pretty response.
pub fn render_rpc(r: &RpcReport, format: DocFormat) -> String {
    if format == DocFormat::Json {
        return json(r);
    }
    let mut s = String::new();
    for ex in r.handshake.iter().chain(std::iter::once(&r.exchange)) {
        let _ = writeln!(s, "{}", ex.summary());
        let _ = writeln!(s, "→ {}", ex.request);
        if let Some(resp) = &ex.response {
            let _ = writeln!(
                s,
                "← {}",
                serde_json::to_string_pretty(resp).unwrap_or_else(|_| resp.to_string())
            );
        }
    }
    s
}

/// The lines `rpc` adds on stderr when the request got no answer: the error and the server's
/// last five diagnostic lines.
pub fn rpc_notes(r: &RpcReport) -> Vec<String> {
    let Some(err) = &r.exchange.transport_error else {
        return Vec::new();
    };
    let mut notes = vec![format!("error: no answer: {}", err.message)];
    let tail = r.diagnostics.len().saturating_sub(5);
    notes.extend(r.diagnostics[tail..].iter().map(|l| format!("  {l}")));
    notes
}

/// The lines `probe` adds on stderr when the run has no verdict.
pub fn probe_notes(report: &ProbeReport) -> Vec<String> {
    report.error().map(|e| error_text(&e)).into_iter().collect()
}

/// The error document as pretty JSON plus a newline.
pub fn render_error(doc: &ErrorDocument) -> String {
    json(doc)
}

/// `error: MESSAGE` and, when there is one, `hint: HINT` on the next line: the words people
/// read on stderr.
pub fn error_text(e: &ErrorBody) -> String {
    match &e.hint {
        Some(h) => format!("error: {}\nhint: {h}", e.message),
        None => format!("error: {}", e.message),
    }
}
