//! Streamable HTTP: one POST per message; the answer is a whole body (JSON, or an empty 202) or
//! an event stream read event by event.
//!
//! The transport sends exactly the headers it is given (see [`HttpTransport::base_headers`] for
//! the ones every POST starts from) and never follows a redirect, which would re-send the
//! user's headers to wherever the server points.

use std::time::Duration;

use reqwest::header::CONTENT_TYPE;
use tokio::sync::mpsc;

use crate::error::{ConnectError, TransportError, TransportErrorKind as Kind};
use crate::headers::{headers_of, to_header_map};
use crate::target::Options;
use crate::transport::message::{Inbound, Inbox, Message};
use crate::transport::raw::{RawResponse, raw_request};
use crate::transport::reply::{Reply, ReplyBody, ReplyStream, WholeBody};

pub(crate) struct HttpTransport {
    client: reqwest::Client,
    url: String,
    options: Options,
    // Held so the inbox stays open (and empty) while the transport lives.
    _inbox: mpsc::Sender<Inbound>,
}

impl HttpTransport {
    pub(crate) fn new(
        url: &str,
        options: &Options,
    ) -> Result<(HttpTransport, Inbox), ConnectError> {
        let client = reqwest::Client::builder()
            // Loopback probing must not go through a proxy from the environment.
            .no_proxy()
            .connect_timeout(options.timeout)
            // A redirect would re-send the user's headers to wherever the server points.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ConnectError::HttpClient(e.to_string()))?;
        let (tx, inbox) = Inbox::channel();
        Ok((
            HttpTransport {
                client,
                url: url.to_owned(),
                options: options.clone(),
                _inbox: tx,
            },
            inbox,
        ))
    }

    /// `Content-Type: application/json`, `Accept: application/json, text/event-stream`, then
    /// the user's headers.
    pub(crate) fn base_headers(&self) -> Vec<(String, String)> {
        let mut list: Vec<(String, String)> = vec![
            ("Content-Type".into(), "application/json".into()),
            (
                "Accept".into(),
                "application/json, text/event-stream".into(),
            ),
        ];
        list.extend(self.options.headers.iter().cloned());
        list
    }

    /// POSTs `message` with exactly `headers`; the request body written and the status line
    /// received within `timeout`. The body is left to the caller.
    pub(crate) async fn send(
        &self,
        message: &Message,
        headers: &[(String, String)],
        timeout: Duration,
    ) -> Result<Reply, TransportError> {
        let post = self.client.post(&self.url).body(message.text().to_owned());
        self.exchange(post, headers, timeout, &message.label())
            .await
    }

    /// GETs the endpoint with exactly `headers` (a 2025 server's standalone event stream);
    /// the status line within `timeout`, the body left to the caller.
    pub(crate) async fn get(
        &self,
        headers: &[(String, String)],
        timeout: Duration,
    ) -> Result<Reply, TransportError> {
        self.exchange(self.client.get(&self.url), headers, timeout, "GET")
            .await
    }

    async fn exchange(
        &self,
        request: reqwest::RequestBuilder,
        headers: &[(String, String)],
        timeout: Duration,
        what: &str,
    ) -> Result<Reply, TransportError> {
        let map = to_header_map(headers).map_err(|m| TransportError::new(Kind::Protocol, m))?;
        let response = match tokio::time::timeout(timeout, request.headers(map).send()).await {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return Err(TransportError::network(&e)),
            Err(_) => return Err(TransportError::timeout(what, timeout)),
        };
        let status = response.status().as_u16();
        let headers = headers_of(response.headers());
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let limits = &self.options.limits;
        let body = if content_type.starts_with("text/event-stream") {
            ReplyBody::Stream(ReplyStream::new(
                response,
                limits.max_message_bytes,
                limits.max_stream_bytes,
            ))
        } else {
            ReplyBody::Whole(WholeBody::new(
                response,
                content_type,
                limits.max_message_bytes,
            ))
        };
        Ok(Reply {
            status: Some(status),
            headers,
            body,
        })
    }

    pub(crate) async fn raw_request(
        &self,
        method: &str,
        headers: &[(String, String)],
    ) -> RawResponse {
        raw_request(&self.client, &self.url, &self.options, method, headers).await
    }
}
