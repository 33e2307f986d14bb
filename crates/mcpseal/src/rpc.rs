//! `mcpseal rpc`: one request, the whole exchange back.

use mcpseal_client::{Connection, Era, Exchange, Header, Options, Request, Target, TransportKind};
use mcpseal_report::{
    ErrorBody, ErrorKind, ExchangeRecord, HeaderRecord, RpcReport, TransportErrorRecord,
    TransportName,
};
use serde::Serialize;
use serde_json::Value;

use crate::connect::OpenError;
use crate::described::Described;

/// Why `--params` could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ParamsError {
    /// Inline params that are not JSON.
    #[error("`--params` is not valid JSON: {0}")]
    Inline(serde_json::Error),
    /// `@FILE` that cannot be read.
    #[error("`--params @{path}`: cannot read `{path}`: {source}")]
    Read {
        /// The file as given.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// `@FILE` that does not hold JSON.
    #[error("`--params @{path}`: `{path}` is not valid JSON: {source}")]
    File {
        /// The file as given.
        path: String,
        /// Why.
        source: serde_json::Error,
    },
}

impl Described for ParamsError {
    fn body(&self) -> ErrorBody {
        let hint = match self {
            ParamsError::Inline(_) => {
                r#"pass a JSON object, e.g. --params '{"name":"echo"}', or @FILE"#
            }
            ParamsError::Read { .. } => {
                "name a readable file holding the params JSON, e.g. --params @params.json"
            }
            ParamsError::File { .. } => {
                "the file must hold one JSON value, e.g. {\"name\":\"echo\"}"
            }
        };
        ErrorBody {
            kind: ErrorKind::Usage,
            message: self.to_string(),
            hint: Some(hint.to_owned()),
        }
    }
}

/// `--params`: inline JSON, or `@FILE` naming a file that holds it (large params do not fit on
/// a command line).
///
/// # Errors
/// [`ParamsError`] naming the text or file that is not JSON.
pub fn params(raw: &str) -> Result<Value, ParamsError> {
    let Some(path) = raw.strip_prefix('@') else {
        return serde_json::from_str(raw).map_err(ParamsError::Inline);
    };
    let text = std::fs::read_to_string(path).map_err(|source| ParamsError::Read {
        path: path.to_owned(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ParamsError::File {
        path: path.to_owned(),
        source,
    })
}

/// One request to send.
#[derive(Debug, Clone)]
pub struct RpcCall {
    /// JSON-RPC method.
    pub method: String,
    /// Params (the 2026 envelope is merged into `params._meta`).
    pub params: Option<Value>,
    /// The era to dress the request for.
    pub era: Era,
    /// Run the 2025 `initialize` handshake first.
    pub handshake: bool,
}

/// What `rpc` saw. JSON: `{"schemaVersion": 1, "exchange", "handshake", "diagnostics"}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RpcOutcome {
    /// Always 1.
    pub schema_version: u32,
    /// The exchange of the request asked for.
    pub exchange: Exchange,
    /// The handshake exchanges, when one was asked for.
    pub handshake: Vec<Exchange>,
    /// What the server said outside the protocol.
    pub diagnostics: Vec<String>,
}

/// Sends one request (after the handshake, if asked) and returns every exchange.
pub async fn rpc(conn: &Connection, call: RpcCall) -> RpcOutcome {
    let mut handshake = Vec::new();
    if call.handshake {
        let (init, initialized) = conn.handshake().await;
        handshake.push(init);
        handshake.extend(initialized);
    }
    let request = match call.era {
        Era::Modern => Request::modern(call.method, call.params),
        Era::Legacy => Request::legacy(call.method, call.params),
    };
    let exchange = conn.send(request).await;
    RpcOutcome {
        schema_version: 1,
        exchange,
        handshake,
        diagnostics: conn.diagnostics(),
    }
}

/// `mcpseal rpc`: opens `target`, sends the request (after the handshake, if asked), closes,
/// and returns every exchange as the public document. A request that got no valid answer is
/// still a document, with `error` set (kind `noAnswer`; exit 2 at the CLI).
///
/// # Errors
/// [`OpenError`] when the server cannot even be contacted.
pub async fn run(target: &Target, connect: Options, call: RpcCall) -> Result<RpcReport, OpenError> {
    let conn = crate::connect::open(target, connect).await?;
    let outcome = rpc(&conn, call).await;
    conn.close().await;
    let error = outcome.exchange.transport_error.as_ref().map(|e| ErrorBody {
        kind: ErrorKind::NoAnswer,
        message: format!("no answer: {}", e.message),
        hint: Some(
            "the server's last diagnostic lines are in `diagnostics`; check that it speaks MCP (newline-delimited JSON-RPC on stdout, or Streamable HTTP at this URL)"
                .to_owned(),
        ),
    });
    Ok(RpcReport {
        schema_version: 1,
        exchange: record(&outcome.exchange),
        handshake: outcome.handshake.iter().map(record).collect(),
        diagnostics: outcome.diagnostics,
        error,
    })
}

/// The report's record of an exchange: the same fields, the same JSON.
pub fn record(e: &Exchange) -> ExchangeRecord {
    let headers = |list: &[Header]| {
        list.iter()
            .map(|h| HeaderRecord {
                name: h.name.clone(),
                value: h.value.clone(),
            })
            .collect()
    };
    ExchangeRecord {
        transport: match e.transport {
            TransportKind::Stdio => TransportName::Stdio,
            TransportKind::Http => TransportName::Http,
        },
        request: e.request.clone(),
        request_headers: headers(&e.request_headers),
        response: e.response.clone(),
        response_headers: headers(&e.response_headers),
        http_status: e.http_status,
        notifications: e.notifications.clone(),
        duration_ms: e.duration_ms,
        transport_error: e.transport_error.as_ref().map(|t| TransportErrorRecord {
            // The kind's serialised name, as the exchange itself writes it.
            kind: serde_json::to_value(t.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_else(|| "unknown".to_owned()),
            message: t.message.clone(),
        }),
        // `mcpseal call` quotes its exchange whole: it is the one thing it prints.
        truncated: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpseal_client::Options;

    /// The record serialises exactly as the exchange does (the document did not change when
    /// the report became typed).
    #[tokio::test]
    async fn a_record_is_the_exchange() {
        let target = Target::stdio(mcpseal_fixtures::stdio_argv(&[]));
        let conn = crate::connect::open(&target, Options::default())
            .await
            .expect("fixture starts");
        let (init, _) = conn.handshake().await;
        let listed = conn.send(Request::modern("tools/list", None)).await;
        let missing = conn.send(Request::modern("no/such", None)).await;
        conn.close().await;
        for e in [init, listed, missing] {
            assert_eq!(
                serde_json::to_value(&e).expect("exchange"),
                serde_json::to_value(record(&e)).expect("record")
            );
        }
        let dead = Target::stdio(mcpseal_fixtures::stdio_argv(&["--hang-on", "tools/list"]));
        let options = Options {
            timeout: std::time::Duration::from_millis(300),
            ..Options::default()
        };
        let conn = crate::connect::open(&dead, options)
            .await
            .expect("fixture starts");
        let e = conn.send(Request::modern("tools/list", None)).await;
        conn.close().await;
        assert!(e.transport_error.is_some(), "{e:?}");
        assert_eq!(
            serde_json::to_value(&e).expect("exchange"),
            serde_json::to_value(record(&e)).expect("record")
        );
    }
}
