//! Reading the answer to one HTTP POST into its exchange.
//!
//! The reader never trusts the server to end anything: a whole body is read against a byte
//! limit; an event stream event by event until the response carrying our id (or the
//! acknowledgement of our listen) arrives, keeping the first other events as evidence
//! (bounded: [`Attached`]) and answering server requests on the way. The caller runs it under
//! the request's timeout, so an endless stream costs at most that. A body in a
//! `Content-Encoding` is never decoded: mcpseal asks for none, so a compressed body (a gzip
//! bomb included) is refused unread.

use mcpseal_protocol::jsonrpc::{self, MessageKind, is_response};
use mcpseal_protocol::{Request, Wait};
use serde_json::Value;

use crate::connection::attached::Attached;
use crate::connection::server_request::Answerer;
use crate::diagnostics::Diagnostics;
use crate::error::{TransportError, TransportErrorKind as Kind};
use crate::exchange::Exchange;
use crate::redact::Redactor;
use crate::transport::{ReplyBody, ReplyStream, StreamItem, WholeBody, split_result};

/// Reads `body` (the reply to `request`, sent with `id`) into `exchange`.
///
/// With `keep` (a redactor), the answer's `result` may come back as its text instead of in the
/// exchange, as [`Connection::send_keeping_result`](crate::Connection::send_keeping_result)
/// says: when the answer is a response with a `result` that a `Value` parse accepts and the
/// redactor cannot touch. The exchange's `response` then has every other member.
pub(crate) async fn read_answer(
    body: ReplyBody,
    request: &Request,
    id: &Value,
    exchange: &mut Exchange,
    answerer: &Answerer,
    answer_headers: &[(String, String)],
    keep: Option<&Redactor>,
) -> Result<Option<String>, TransportError> {
    let status = exchange.http_status.unwrap_or(0);
    if let Some(encoding) = exchange
        .response_header("Content-Encoding")
        .map(str::trim)
        .filter(|e| !e.is_empty() && !e.eq_ignore_ascii_case("identity"))
    {
        return Err(TransportError::new(
            Kind::Protocol,
            format!(
                "HTTP {status} with a `{}`-encoded body although mcpseal asked for no encoding; not decoded",
                Diagnostics::cut(encoding)
            ),
        ));
    }
    match body {
        ReplyBody::Whole(body) => read_whole(body, request, status, exchange, keep).await,
        ReplyBody::Stream(stream) => {
            let reader = Reader {
                request,
                id,
                answerer,
                answer_headers,
                keep,
            };
            reader.read_stream(stream, exchange).await
        }
        ReplyBody::Inbox => Err(TransportError::new(
            Kind::Protocol,
            "no HTTP reply came back",
        )),
    }
}

/// What an event stream is read for ([`Reader::read_stream`]).
struct Reader<'a> {
    request: &'a Request,
    id: &'a Value,
    answerer: &'a Answerer,
    answer_headers: &'a [(String, String)],
    keep: Option<&'a Redactor>,
}

impl Reader<'_> {
    /// Reads `stream` into `exchange` until our answer (or listen acknowledgement) arrives.
    async fn read_stream(
        &self,
        mut stream: ReplyStream,
        exchange: &mut Exchange,
    ) -> Result<Option<String>, TransportError> {
        if self.keep.is_some() {
            stream.keep_results();
        }
        let mut kept = Attached::default();
        while let Some(item) = stream.next().await {
            let (value, size) = match item? {
                StreamItem::Message(m) => {
                    // Our answer, read lazily: its result is kept as text (see `read_answer`).
                    let ours = m.is_lazy()
                        && m.head().get("method").is_none()
                        && m.head().get("id") == Some(self.id)
                        && self.keep.is_some_and(|r| !r.may_touch(m.text()));
                    let m = if ours {
                        match m.into_raw_result() {
                            Ok((head, text)) => {
                                exchange.response = Some(head);
                                return Ok(Some(text));
                            }
                            Err(m) => m,
                        }
                    } else {
                        m
                    };
                    let size = m.text().len();
                    (m.into_value(), size)
                }
                // Not JSON (e.g. a legacy `endpoint` event): evidence, not an answer.
                StreamItem::Unparsed(data) => {
                    let cut = Diagnostics::cut(&data);
                    let size = cut.len();
                    kept.push(&mut exchange.notifications, Value::String(cut), size);
                    continue;
                }
            };
            if is_response(&value) && value.get("id") == Some(self.id) {
                exchange.response = Some(value);
                return Ok(None);
            }
            let is_ack = self.request.wait == Wait::ResponseOrAcknowledgement
                && jsonrpc::acknowledged_subscription(&value) == Some(self.id);
            if MessageKind::of(&value) == MessageKind::Request {
                self.answerer
                    .answer(value.clone(), self.answer_headers.to_vec());
            }
            kept.push(&mut exchange.notifications, value, size);
            if is_ack {
                return Ok(None);
            }
        }
        if self.request.notification {
            return Ok(None);
        }
        Err(TransportError::new(
            Kind::Protocol,
            format!(
                "the event stream ended without a response to request id {}",
                self.id
            ),
        ))
    }
}

async fn read_whole(
    body: WholeBody,
    request: &Request,
    status: u16,
    exchange: &mut Exchange,
    keep: Option<&Redactor>,
) -> Result<Option<String>, TransportError> {
    let content_type = body.content_type().to_owned();
    let bytes = body.read().await?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        if request.notification {
            return Ok(None);
        }
        return Err(TransportError::new(
            Kind::Protocol,
            format!("HTTP {status} with an empty body"),
        ));
    }
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(TransportError::new(
            Kind::InvalidUtf8,
            format!("HTTP {status}: the body is not valid UTF-8"),
        ));
    };
    // A response with a `result`, kept as text: exactly the bodies the parse below takes as a
    // response with a `result` (the same validation), so nothing else reads differently.
    if keep.is_some_and(|r| !r.may_touch(&text))
        && let Some((head, range)) = split_result(&text)
        && head.get("method").is_none()
    {
        let mut text = text;
        text.truncate(range.end);
        text.drain(..range.start);
        exchange.response = Some(head);
        return Ok(Some(text));
    }
    let bytes = text.into_bytes();
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if is_response(&v) => {
            exchange.response = Some(v);
            Ok(None)
        }
        _ if request.notification => Ok(None),
        Err(e) if jsonrpc::is_recursion_limit(&e) => Err(TransportError::new(
            Kind::Protocol,
            format!(
                "HTTP {status}: the body nests JSON deeper than serde_json's limit of 128 levels"
            ),
        )),
        _ => Err(TransportError::new(
            Kind::Protocol,
            format!(
                "HTTP {status} with no JSON-RPC response in the body ({}): {}",
                if content_type.is_empty() {
                    "no content-type"
                } else {
                    content_type.as_str()
                },
                Diagnostics::cut(&String::from_utf8_lossy(&bytes))
            ),
        )),
    }
}
