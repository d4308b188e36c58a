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

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;

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
