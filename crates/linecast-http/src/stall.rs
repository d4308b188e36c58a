//! Slow readers: a connection whose client stops taking the response's
//! bytes is ended once it has made no progress for the stall timeout
//! (`LINECAST_STALL_TIMEOUT_SECS`, 30 s by default), and logged.
//!
//! The server wraps every accepted socket in a [`StallGuard`]. While the
//! socket takes bytes nothing happens; when a write finds it full (the
//! client's window is closed: it is not reading) the guard starts a timer,
//! and the first write that goes through stops it. If the timer fires
//! first, the write fails with `TimedOut`, actix closes the connection and
//! drops the response (and any download slot it held). A connection idle
//! between requests has no write pending and is left to keep-alive.
//!
//! Slow senders: every request body has a deadline
//! (`LINECAST_BODY_TIMEOUT_SECS`, 10 s by default) counted from the moment
//! its head was read. [`BodyDeadline`] wraps the body of each request that
//! has one, whoever reads it (an access gate, an extractor, a handler), and
//! races the answer against the deadline: a body not received whole by
//! then is answered 408 and its connection closed, whatever was waiting for
//! it. A request without a body is not touched.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use actix_web::HttpMessage;
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use actix_web::http::{ConnectionType, StatusCode};
use bytes::Bytes;
use futures::Stream;
use futures::future::LocalBoxFuture;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

/// The body deadline of one request, armed by [`BodyDeadline::arm`].
pub struct BodyDeadline {
    limit: Duration,
    /// Set once the body was read to its end (or failed).
    received: Rc<Cell<bool>>,
    /// The body itself, shared with the [`Watched`] stream the request
    /// reads: an answer sent while it is unread keeps it (see
    /// [`Holding`]), so actix closes the connection after the answer
    /// instead of draining the rest for as long as the client sends.
    body: Rc<RefCell<Payload>>,
    /// The request, for the 408 (its head and extensions, not its body).
    request: actix_web::HttpRequest,
}

impl BodyDeadline {
    /// Wraps the body of `req` so its end is seen, and returns the deadline
    /// to answer it within; `None` when the request has no body (no
    /// `Content-Length` above 0, not chunked), which is left as it is.
    pub fn arm(req: &mut ServiceRequest, limit: Duration) -> Option<Self> {
        let headers = req.headers();
        let chunked = headers.contains_key(TRANSFER_ENCODING);
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if !chunked && declared.is_none_or(|len| len == 0) {
            return None;
        }
        let body = req.take_payload();
        if matches!(body, Payload::None) {
            req.set_payload(body);
            return None;
        }
        let received = Rc::new(Cell::new(false));
        let body = Rc::new(RefCell::new(body));
        let watched = Watched {
            body: Rc::clone(&body),
            received: Rc::clone(&received),
        };
        req.set_payload(Payload::Stream {
            payload: Box::pin(watched),
        });
        Some(Self {
            limit,
            received,
            body,
            request: req.request().clone(),
        })
    }

    /// `answer` (the request's access check and handler), unless the body
    /// is still not received whole when the deadline passes: then the
    /// answer is dropped and the request answered 408, `Connection: close`.
    /// Any answer sent before its body was read to the end closes the
    /// connection.
    /// `shape` makes the 408 as the path answers errors (the portal's page
    /// under `/portal`); the connection is closed whatever it returns.
    pub fn race(
        self,
        answer: LocalBoxFuture<'static, Result<ServiceResponse, actix_web::Error>>,
        shape: fn(actix_web::HttpResponse) -> actix_web::HttpResponse,
    ) -> LocalBoxFuture<'static, Result<ServiceResponse, actix_web::Error>> {
        Box::pin(async move {
            let mut answer = answer;
            let early = tokio::select! {
                res = &mut answer => Some(res),
                () = tokio::time::sleep(self.limit) => None,
            };
            let res = match early {
                Some(res) => res?,
                // The body came in time; the answer may take as long as it takes.
                None if self.received.get() => answer.await?,
                None => {
                    drop(answer);
                    crate::metrics::body_timeout();
                    let res = crate::error::error_response(
                        StatusCode::REQUEST_TIMEOUT,
                        &format!(
                            "The request body was not received within {} s; the connection is closed",
                            seconds(self.limit)
                        ),
                    );
                    ServiceResponse::new(self.request, shape(res))
                }
            };
            if self.received.get() {
                return Ok(res);
            }
            let body = self.body;
            Ok(res.map_body(move |head, answer| {
                head.set_connection_type(ConnectionType::Close);
                BoxBody::new(Holding { answer, _body: body })
            }))
        })
    }
}

/// `limit` as the 408 says it: whole seconds, or one decimal below ten.
fn seconds(limit: Duration) -> String {
    let secs = limit.as_secs_f64();
    if secs.fract() == 0.0 || secs >= 10.0 {
        format!("{secs:.0}")
    } else {
        format!("{secs:.1}")
    }
}

/// A request body that says when it has been read to its end.
struct Watched {
    body: Rc<RefCell<Payload>>,
    received: Rc<Cell<bool>>,
}

impl Stream for Watched {
    type Item = Result<Bytes, actix_web::error::PayloadError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut *this.body.borrow_mut()).poll_next(cx);
        if matches!(polled, Poll::Ready(None | Some(Err(_)))) {
            this.received.set(true);
        }
        polled
    }
}

/// An answer to a request whose body was not read to its end, holding
/// that body until the answer's last byte: actix sees a body still owned
/// and unfinished, and closes the connection after the answer (a body
/// dropped unread would be drained first, without end while it trickles).
struct Holding {
    answer: BoxBody,
    _body: Rc<RefCell<Payload>>,
}

impl MessageBody for Holding {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        self.answer.size()
    }

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.get_mut().answer).poll_next(cx)
    }
}

/// A socket whose writes fail once it has taken no byte for `limit`.
pub struct StallGuard<T> {
    io: T,
    limit: Duration,
    peer: Option<SocketAddr>,
    /// Armed by the first write that found the socket full since the last
    /// write that went through.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<T> StallGuard<T> {
    pub fn new(io: T, limit: Duration, peer: Option<SocketAddr>) -> Self {
        Self {
            io,
            limit,
            peer,
            stalled: None,
        }
    }

    /// A write found the socket full: `Pending` until the timer fires, then
    /// the error that ends the connection.
    fn blocked<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        let limit = self.limit;
        let timer = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(()) => {
                tracing::warn!(
                    peer = ?self.peer,
                    stalled_ms = limit.as_millis() as u64,
                    "client took no response bytes for the stall timeout; connection closed"
                );
                crate::metrics::stalled_connection();
                Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "response made no progress for the stall timeout",
                )))
            }
        }
    }

    /// What a write returned: progress disarms the timer, a full socket
    /// arms it.
    fn after_write(&mut self, cx: &mut Context<'_>, polled: Poll<io::Result<usize>>) -> Poll<io::Result<usize>> {
        match polled {
            Poll::Pending => self.blocked(cx),
            Poll::Ready(Ok(n)) if n > 0 => {
                self.stalled = None;
                Poll::Ready(Ok(n))
            }
            other @ Poll::Ready(_) => other,
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for StallGuard<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for StallGuard<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_write(cx, buf);
        this.after_write(cx, polled)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.after_write(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.io).poll_flush(cx) {
            Poll::Pending => this.blocked(cx),
            ready @ Poll::Ready(_) => ready,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_reader_that_stops_ends_the_writes_after_the_limit_and_one_that_reads_does_not() {
        // A pipe holding 1 KiB: the writer blocks as soon as it is full.
        let (server, mut client) = tokio::io::duplex(1024);
        let mut guard = StallGuard::new(server, Duration::from_secs(30), None);
        let chunk = vec![7u8; 4096];
        // The client reads for a while: each read makes room, so the
        // writer blocks for less than the limit at a time and goes on.
        let reader = tokio::spawn(async move {
            let mut buf = vec![0u8; 512];
            let mut taken = 0usize;
            for _ in 0..40 {
                tokio::time::sleep(Duration::from_secs(20)).await;
                taken += client.read(&mut buf).await.unwrap_or(0);
            }
            (client, taken)
        });
        let mut written = 0usize;
        let started = tokio::time::Instant::now();
        let err = loop {
            match guard.write(&chunk).await {
                Ok(n) => written += n,
                Err(e) => break e,
            }
        };
        let (_client, taken) = reader.await.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        // 40 reads of 512 bytes, 20 s apart, kept it going; once they
        // stopped, 30 s later (not before) the write failed.
        assert_eq!(taken, 40 * 512);
        assert_eq!(written, 1024 + 40 * 512);
        assert_eq!(started.elapsed(), Duration::from_secs(40 * 20 + 30));
    }
}
