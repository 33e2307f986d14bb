//! A JSON response body sent as it was written: the bytes the writer produced, with the large
//! shared pieces of an [`crate::Answer`] (a cached artifact's escaped text) left where they are
//! instead of copied into the body. hyper writes the head and every part in one `writev`, so
//! the kernel copies a cached artifact straight from the cache: a per-response buffer of its
//! size, and the copy into it, are gone.

use std::convert::Infallible;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};

use crate::answer::Sink;

/// Shared text at least this long is sent as it is. Below it, copying is cheaper than what a
/// part of its own costs (one more buffer to track, and an allocation for its owner).
const SHARE_FROM: usize = 4096;

/// One part of the body.
#[derive(Debug)]
enum Part {
    /// A range of the copied bytes.
    Copied(Range<usize>),
    /// Shared text, sent as it is.
    Shared(Arc<str>),
}

/// A [`Sink`] that copies small pieces into one buffer and keeps large shared ones apart.
#[derive(Debug, Default)]
pub(crate) struct Wire {
    buf: Vec<u8>,
    parts: Vec<Part>,
    /// Where the copied bytes not yet in `parts` begin.
    open: usize,
}

impl Wire {
    /// An empty body whose copied bytes will be about `capacity`.
    pub(crate) fn with_capacity(capacity: usize) -> Wire {
        Wire {
            buf: Vec::with_capacity(capacity),
            parts: Vec::new(),
            open: 0,
        }
    }

    /// Closes the run of copied bytes since the last shared part.
    fn close(&mut self) {
        if self.buf.len() > self.open {
            self.parts.push(Part::Copied(self.open..self.buf.len()));
            self.open = self.buf.len();
        }
    }

    /// The body: its parts in order, and its exact length.
    pub(crate) fn finish(mut self) -> WireBody {
        self.close();
        // One shared buffer for all copied runs; each run is a slice of it (no copy).
        let copied = Bytes::from(self.buf);
        let mut len = 0u64;
        let mut parts: Vec<Bytes> = self
            .parts
            .into_iter()
            .map(|p| match p {
                Part::Copied(r) => copied.slice(r),
                Part::Shared(text) => Bytes::from_owner(SharedText(text)),
            })
            .inspect(|b| len += b.len() as u64)
            .collect();
        parts.reverse();
        WireBody { parts, len }
    }
}

impl std::io::Write for Wire {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Sink for Wire {
    fn put(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    fn put_shared(&mut self, text: &Arc<str>) {
        if text.len() < SHARE_FROM {
            return self.put(text.as_bytes());
        }
        self.close();
        self.parts.push(Part::Shared(Arc::clone(text)));
    }
}

/// Shared text as the owner of a [`Bytes`].
struct SharedText(Arc<str>);

impl AsRef<[u8]> for SharedText {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// A body of a few buffers and a known length (so hyper sends its `Content-Length`).
#[derive(Debug)]
pub(crate) struct WireBody {
    /// The parts still to send, last first.
    parts: Vec<Bytes>,
    /// Bytes still to send.
    len: u64,
}

impl Body for WireBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        Poll::Ready(this.parts.pop().map(|part| {
            this.len -= part.len() as u64;
            Ok(Frame::data(part))
        }))
    }

    fn is_end_stream(&self) -> bool {
        self.parts.is_empty()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::poll_fn;

    async fn collect(mut body: WireBody) -> (Vec<u8>, usize) {
        let mut out = Vec::new();
        let mut frames = 0;
        while let Some(frame) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            let data = frame.map(|f| f.into_data().unwrap_or_default());
            out.extend_from_slice(&data.unwrap_or_default());
            frames += 1;
        }
        (out, frames)
    }

    #[tokio::test]
    async fn the_body_is_the_bytes_written_with_large_shared_text_kept_apart() {
        let large: Arc<str> = Arc::from("x".repeat(SHARE_FROM));
        let small: Arc<str> = Arc::from("small");
        let mut w = Wire::with_capacity(16);
        w.put(b"{\"a\":");
        w.put_shared(&large);
        w.put(b",\"b\":");
        w.put_shared(&small);
        w.put_shared(&large);
        w.put(b"}");
        let body = w.finish();
        let want = format!("{{\"a\":{large},\"b\":small{large}}}");
        assert_eq!(body.size_hint().exact(), Some(want.len() as u64));
        assert!(!body.is_end_stream());
        let (bytes, frames) = collect(body).await;
        assert_eq!(String::from_utf8_lossy(&bytes), want);
        // Copied, large, copied (", b: small"), large, copied: the small text was copied.
        assert_eq!(frames, 5);

        let mut w = Wire::default();
        w.put_shared(&small);
        let (bytes, frames) = collect(w.finish()).await;
        assert_eq!((bytes.as_slice(), frames), (&b"small"[..], 1));
        let empty = Wire::default().finish();
        assert!(empty.is_end_stream());
        assert_eq!(collect(empty).await, (Vec::new(), 0));
    }
}
