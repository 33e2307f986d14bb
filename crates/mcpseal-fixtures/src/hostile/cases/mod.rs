//! The attacks, one module each, and what the transports do with them.
//!
//! A case decides what happens when the trigger method arrives: on stdio a [`StdioAct`], on
//! HTTP an [`HttpAct`]. Acts are plain data (bytes, chunks, a pace), so the transports stay
//! small and every case is exactly the bytes its module writes.

pub mod bomb;
pub mod cursors;
pub mod echo;
pub mod flood;
pub mod grandchildren;
pub mod half_close;
pub mod headers;
pub mod huge;
pub mod malformed;
pub mod nesting;
pub mod redirect;
pub mod sigterm;
pub mod slowloris;
pub mod status;
pub mod utf8;

use std::time::Duration;

use clap::ValueEnum;
use serde_json::Value;

use crate::Args;

/// The attacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Case {
    /// No attack: the control case.
    Clean,
    /// Notifications without end, never the answer.
    NotificationFlood,
    /// One 100 MB message without a newline (HTTP: a body that never ends), then silence.
    HugeMessage,
    /// HTTP: 1 MB of response headers (one header line).
    HugeHeaders,
    /// HTTP: 10,000 response header lines.
    ManyHeaders,
    /// The answer one byte a second (HTTP: an event stream).
    Slowloris,
    /// Bytes that are not UTF-8 inside a JSON string.
    InvalidUtf8,
    /// JSON nested 100,000 levels deep.
    DeepJson,
    /// A `tools/list` result without the `tools` array.
    NoListArray,
    /// HTTP: `503` with an HTML page.
    ServerError,
    /// `nextCursor` repeats forever.
    CursorLoop,
    /// `nextCursor` changes forever (every page a new one).
    CursorForever,
    /// 1,000,000 tools over pages of 1,000.
    ManyTools,
    /// HTTP: a gzip bomb (`Content-Encoding: gzip`, ~1 GiB of zeros in ~6 MiB).
    GzipBomb,
    /// HTTP: a deflate (zlib) bomb (`Content-Encoding: deflate`).
    DeflateBomb,
    /// HTTP: `307 Temporary Redirect` to itself.
    RedirectLoop,
    /// stdio: SIGTERM blocked, end of input ignored, and the trigger never answered.
    IgnoreSigterm,
    /// stdio: starts two grandchildren that keep stdout open, then exits at the trigger.
    Grandchildren,
    /// stdio: closes its stdout at the trigger and keeps running.
    HalfClose,
    /// stdio: puts its argv and environment into its answers and its stderr (secrets tests).
    EchoSecrets,
}

impl Case {
    /// The name on the command line.
    pub fn name(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().to_owned())
            .unwrap_or_default()
    }

    /// Only over HTTP.
    pub fn over_http(self) -> bool {
        matches!(
            self,
            Case::HugeHeaders
                | Case::ManyHeaders
                | Case::ServerError
                | Case::GzipBomb
                | Case::DeflateBomb
                | Case::RedirectLoop
        )
    }

    /// Over either transport.
    pub fn over_both(self) -> bool {
        !self.over_http()
            && !matches!(
                self,
                Case::IgnoreSigterm | Case::Grandchildren | Case::HalfClose | Case::EchoSecrets
            )
    }

    /// stdio: keep running after stdin reaches EOF.
    pub fn ignores_eof(self) -> bool {
        matches!(self, Case::IgnoreSigterm | Case::HalfClose)
    }
}

/// What happens at start, before the first message.
pub fn prepare(args: &Args) -> std::io::Result<()> {
    match args.case {
        Case::IgnoreSigterm => sigterm::block(),
        Case::Grandchildren => grandchildren::start(args),
        Case::EchoSecrets => {
            echo::to_stderr();
            Ok(())
        }
        _ => Ok(()),
    }
}

/// A stdio act.
pub enum StdioAct {
    /// Write this line (a newline is added).
    Line(Vec<u8>),
    /// Write these chunks, each after `pace`, from a thread; nothing else is ever written to
    /// stdout afterwards (the line may never end).
    Wedge {
        /// The bytes.
        chunks: Box<dyn Iterator<Item = Vec<u8>> + Send>,
        /// Delay before each chunk.
        pace: Option<Duration>,
    },
    /// Write these lines forever from a thread, beside the normal answers.
    Forever(Box<dyn Iterator<Item = Vec<u8>> + Send>),
    /// Never answer.
    Hang,
    /// Exit with this code, without answering.
    Exit(i32),
    /// Close stdout and keep running.
    HalfClose,
}

/// An HTTP act.
pub enum HttpAct {
    /// A complete response: these exact bytes (status line, headers, body), then close.
    Raw(Vec<u8>),
    /// A response head, then these chunks, each after `pace`; then the connection stays open
    /// and silent.
    Stream {
        /// Status line and headers, ending in the blank line.
        head: Vec<u8>,
        /// The body.
        chunks: Box<dyn Iterator<Item = Vec<u8>> + Send>,
        /// Delay before each chunk.
        pace: Option<Duration>,
    },
}

/// The stdio act for the trigger `msg`; `None`: answer as the clean server.
pub fn stdio(args: &Args, msg: &Value) -> Option<StdioAct> {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    Some(match args.case {
        Case::Clean | Case::EchoSecrets => return None,
        Case::NotificationFlood => StdioAct::Forever(flood::lines()),
        Case::HugeMessage => StdioAct::Wedge {
            chunks: huge::chunks(&id),
            pace: None,
        },
        Case::Slowloris => StdioAct::Wedge {
            chunks: slowloris::bytes(&id),
            pace: Some(slowloris::PACE),
        },
        Case::InvalidUtf8 => StdioAct::Line(utf8::message(&id)),
        Case::DeepJson => StdioAct::Line(nesting::message(&id)),
        Case::NoListArray => StdioAct::Line(malformed::message(&id)),
        Case::CursorLoop => StdioAct::Line(cursors::looping(msg)),
        Case::CursorForever => StdioAct::Line(cursors::forever(msg)),
        Case::ManyTools => StdioAct::Line(cursors::many_tools(msg)),
        Case::IgnoreSigterm => StdioAct::Hang,
        Case::Grandchildren => StdioAct::Exit(3),
        Case::HalfClose => StdioAct::HalfClose,
        Case::HugeHeaders
        | Case::ManyHeaders
        | Case::ServerError
        | Case::GzipBomb
        | Case::DeflateBomb
        | Case::RedirectLoop => return None,
    })
}

/// The HTTP act for the trigger `msg`; `None`: answer as the clean server.
pub fn http(args: &Args, msg: &Value) -> Option<HttpAct> {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    Some(match args.case {
        Case::Clean
        | Case::EchoSecrets
        | Case::IgnoreSigterm
        | Case::Grandchildren
        | Case::HalfClose => return None,
        Case::NotificationFlood => HttpAct::Stream {
            head: sse_head(),
            chunks: flood::events(),
            pace: None,
        },
        Case::HugeMessage => HttpAct::Stream {
            head: head(200, "application/json", &[]),
            chunks: huge::chunks(&id),
            pace: None,
        },
        Case::HugeHeaders => HttpAct::Raw(headers::huge(&id)),
        Case::ManyHeaders => HttpAct::Raw(headers::many(&id)),
        Case::Slowloris => HttpAct::Stream {
            head: sse_head(),
            chunks: slowloris::event(&id),
            pace: Some(slowloris::PACE),
        },
        Case::InvalidUtf8 => HttpAct::Raw(json_response(&utf8::message(&id))),
        Case::DeepJson => HttpAct::Raw(json_response(&nesting::message(&id))),
        Case::NoListArray => HttpAct::Raw(json_response(&malformed::message(&id))),
        Case::ServerError => HttpAct::Raw(status::response()),
        Case::CursorLoop => HttpAct::Raw(json_response(&cursors::looping(msg))),
        Case::CursorForever => HttpAct::Raw(json_response(&cursors::forever(msg))),
        Case::ManyTools => HttpAct::Raw(json_response(&cursors::many_tools(msg))),
        Case::GzipBomb => HttpAct::Raw(bomb::response(bomb::Encoding::Gzip)),
        Case::DeflateBomb => HttpAct::Raw(bomb::response(bomb::Encoding::Deflate)),
        Case::RedirectLoop => HttpAct::Raw(redirect::response()),
    })
}

/// A response head: status line, `Content-Type`, `Connection: close`, `extra` lines.
pub fn head(status: u16, content_type: &str, extra: &[String]) -> Vec<u8> {
    let reason = match status {
        200 => "OK",
        307 => "Temporary Redirect",
        404 => "Not Found",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let mut h = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nConnection: close\r\n"
    );
    for line in extra {
        h.push_str(line);
        h.push_str("\r\n");
    }
    h.push_str("\r\n");
    h.into_bytes()
}

fn sse_head() -> Vec<u8> {
    head(
        200,
        "text/event-stream",
        &["Cache-Control: no-cache".to_owned()],
    )
}

/// A complete 200 JSON response with `Content-Length`.
pub fn json_response(body: &[u8]) -> Vec<u8> {
    json_response_with(200, body)
}

/// A complete JSON response with `status` and `Content-Length`.
pub fn json_response_with(status: u16, body: &[u8]) -> Vec<u8> {
    let mut r = head(
        status,
        "application/json",
        &[format!("Content-Length: {}", body.len())],
    );
    r.extend_from_slice(body);
    r
}
