//! What one send brings back: nothing on stdio (answers arrive on the inbox), a status, headers
//! and a body on HTTP. Bodies are read lazily, so the caller keeps the status and headers even
//! when the body then fails or never ends, and bounds the body in time itself.

use mcpseal_protocol::sse::{SseItem, SseParser};
use std::collections::VecDeque;

use crate::error::{TransportError, TransportErrorKind as Kind};
use crate::exchange::Header;
use crate::transport::message::{Message, split_result};

/// The answer to one send.
#[derive(Debug)]
pub struct Reply {
    /// The HTTP status (`None` on stdio).
    pub status: Option<u16>,
    /// The HTTP response headers, verbatim (empty on stdio).
    pub headers: Vec<Header>,
    /// The body.
    pub body: ReplyBody,
}

impl Reply {
    /// A reply header by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| h.value.as_str())
    }
}

/// The body of a reply.
#[derive(Debug)]
pub enum ReplyBody {
    /// stdio: the message was written; whatever answers it arrives on the
    /// [`Inbox`](crate::Inbox).
    Inbox,
    /// HTTP: a body that is not an event stream (JSON, an empty 202, an error page).
    Whole(WholeBody),
    /// HTTP: an event stream (`text/event-stream`), read event by event.
    Stream(ReplyStream),
}

/// A non-stream HTTP body, not read yet.
#[derive(Debug)]
pub struct WholeBody {
    response: reqwest::Response,
    content_type: String,
    max: usize,
    taken: usize,
}

impl WholeBody {
    pub(crate) fn new(response: reqwest::Response, content_type: String, max: usize) -> Self {
        WholeBody {
            response,
            content_type,
            max,
            taken: 0,
        }
    }

    /// The `Content-Type`, lowercased (empty when the server sent none).
    pub fn content_type(&self) -> &str {
        &self.content_type
    }

    /// The next chunk of the body as it arrives (`None` at its end), for a caller that passes
    /// the body on without holding it whole (a proxy). Counted against the same
    /// `max_message_bytes` as [`WholeBody::read`].
    ///
    /// # Errors
    /// [`Oversize`](Kind::Oversize) once the chunks pass the limit, [`Network`](Kind::Network)
    /// when the body breaks off.
    pub async fn chunk(&mut self) -> Result<Option<bytes::Bytes>, TransportError> {
        let Some(chunk) = self
            .response
            .chunk()
            .await
            .map_err(|e| TransportError::network(&e))?
        else {
            return Ok(None);
        };
        self.taken += chunk.len();
        if self.taken > self.max {
            return Err(TransportError::new(
                Kind::Oversize,
                format!("the response body exceeded the {}-byte limit", self.max),
            ));
        }
        Ok(Some(chunk))
    }

    /// Reads the whole body, at most `max_message_bytes` of it.
    ///
    /// # Errors
    /// [`Oversize`](Kind::Oversize) past the limit, [`Network`](Kind::Network) when the body
    /// breaks off.
    pub async fn read(mut self) -> Result<Vec<u8>, TransportError> {
        let mut body = Vec::new();
        self.max = self.max.saturating_sub(self.taken);
        while let Some(chunk) = self
            .response
            .chunk()
            .await
            .map_err(|e| TransportError::network(&e))?
        {
            if body.len() + chunk.len() > self.max {
                return Err(TransportError::new(
                    Kind::Oversize,
                    format!("the response body exceeded the {}-byte limit", self.max),
                ));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }
}

/// One item of an event stream.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    /// An event whose data is JSON (a response, a notification, a server-to-client request, or
    /// any other JSON the server put there).
    Message(Message),
    /// An event whose data is not JSON (e.g. the legacy HTTP+SSE `endpoint` event): evidence,
    /// never an answer.
    Unparsed(String),
}

/// A request-scoped event stream, yielding each event as it arrives.
///
/// Bounded in bytes: one event by `max_message_bytes`, the whole stream by
/// `max_stream_bytes`. Not bounded in time: a `subscriptions/listen` stream is meant to stay
/// open, so the caller decides how long to read (the connection reads until the answer or the
/// request timeout).
#[derive(Debug)]
pub struct ReplyStream {
    response: reqwest::Response,
    parser: SseParser,
    ready: VecDeque<Result<StreamItem, TransportError>>,
    total: usize,
    max_stream: usize,
    max_event: usize,
    ended: bool,
    /// Read each event carrying a `result` lazily ([`ReplyStream::keep_results`]).
    lazy: bool,
}

impl ReplyStream {
    pub(crate) fn new(response: reqwest::Response, max_event: usize, max_stream: usize) -> Self {
        ReplyStream {
            response,
            parser: SseParser::new(max_event),
            ready: VecDeque::new(),
            total: 0,
            max_stream,
            max_event,
            ended: false,
            lazy: false,
        }
    }

    /// From now on, an event that is a JSON-RPC message with a `result` is read lazily (see
    /// [`Message`]: validated as a `Value` parse would, the result's bytes kept, no value tree),
    /// for a caller that keeps the result as bytes. Every event reads the same as without.
    pub(crate) fn keep_results(&mut self) {
        self.lazy = true;
    }

    /// The next item, `None` when the server ended the stream. After an error the stream is
    /// over (the next call gives `None`).
    pub async fn next(&mut self) -> Option<Result<StreamItem, TransportError>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                if item.is_err() {
                    self.ended = true;
                    self.ready.clear();
                }
                return Some(item);
            }
            if self.ended {
                return None;
            }
            let chunk = match self.response.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => {
                    self.ended = true;
                    return None;
                }
                Err(e) => {
                    self.ended = true;
                    return Some(Err(TransportError::network(&e)));
                }
            };
            self.total += chunk.len();
            if self.total > self.max_stream {
                self.ended = true;
                return Some(Err(TransportError::endless_stream(self.max_stream)));
            }
            for item in self.parser.feed(&chunk) {
                self.ready.push_back(match item {
                    SseItem::Event(event) => match self
                        .lazy
                        .then(|| split_result(&event.data))
                        .flatten()
                    {
                        Some((head, result)) => {
                            Ok(StreamItem::Message(Message::lazy(event.data, head, result)))
                        }
                        None => match serde_json::from_str::<serde_json::Value>(&event.data) {
                            Ok(value) => Ok(StreamItem::Message(Message::from_parts(
                                event.data, value,
                            ))),
                            Err(e) if mcpseal_protocol::jsonrpc::is_recursion_limit(&e) => {
                                Err(TransportError::new(
                                    Kind::Protocol,
                                    "an event nests JSON deeper than serde_json's limit of 128 levels",
                                ))
                            }
                            Err(_) => Ok(StreamItem::Unparsed(event.data)),
                        },
                    },
                    SseItem::Oversize => Err(TransportError::new(
                        Kind::Oversize,
                        format!("an event exceeded the {}-byte limit", self.max_event),
                    )),
                });
            }
        }
    }
}
