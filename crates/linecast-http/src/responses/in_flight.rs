//! Large bodies in flight, and the log line of each one cut short.
//!
//! A body sent in slices (`sliced`, over [`sliced::SLICE_ABOVE`] bytes: a
//! results page, an export, a dataset download) takes many writes, and can
//! end before its last byte: the client goes away or stops reading (the
//! stall timeout), or the stop's in-flight allowance
//! (`LINECAST_SHUTDOWN_TIMEOUT_SECS`) runs out and its connection is closed.
//! The access line was written when the answer began (status 200), so each
//! such end gets a line of its own with the route template, the request id
//! and the bytes handed to the connection:
//! - cut by the stop: WARN, `response cut by the stop: the in-flight
//!   allowance ran out before its last byte`;
//! - any other early end: INFO, `response ended before its last byte: the
//!   connection closed` (a client closing a download is its own business).
//!
//! Every watched body is registered here until it ends, so a stop names the
//! bodies it cut from the main thread once the server has stopped
//! ([`InFlight::report_cut`]), whether or not their worker thread has
//! dropped them yet; each body is logged once, by whichever sees it first.
//!
//! [`sliced::SLICE_ABOVE`]: super::sliced::SLICE_ABOVE

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use actix_web::body::{BodySize, BoxBody, MessageBody};
use bytes::Bytes;

/// The bodies being sent, and when the stop's in-flight allowance ends.
#[derive(Default)]
pub struct InFlight {
    next: AtomicU64,
    bodies: Mutex<HashMap<u64, Entry>>,
    /// Set once, when the listener closes after a stop signal.
    allowance_ends: OnceLock<(Instant, Duration)>,
}

/// What a cut body's line says.
struct Entry {
    route: String,
    request_id: String,
    total: u64,
    sent: Arc<AtomicU64>,
}

impl InFlight {
    /// Watches `body` (of `total` bytes, answering `route`) until it ends.
    pub fn watch(self: &Arc<Self>, body: BoxBody, route: String, request_id: String, total: u64) -> Watched {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let sent = Arc::new(AtomicU64::new(0));
        self.lock().insert(
            id,
            Entry {
                route,
                request_id,
                total,
                sent: sent.clone(),
            },
        );
        Watched {
            body,
            id,
            sent,
            total,
            finished: false,
            registry: self.clone(),
        }
    }

    /// The listener closed: requests in flight have `allowance` to finish,
    /// after which the server closes their connections.
    pub fn stop_accepting(&self, allowance: Duration) {
        let _ = self.allowance_ends.set((Instant::now() + allowance, allowance));
    }

    /// After the server stopped: logs each body still unfinished as cut by
    /// the stop (one WARN line each) and returns how many there were.
    pub fn report_cut(&self) -> usize {
        let cut: Vec<Entry> = self.lock().drain().map(|(_, entry)| entry).collect();
        let allowance = self.allowance_ends.get().map_or(Duration::ZERO, |(_, a)| *a);
        for entry in &cut {
            log_cut_by_stop(entry, allowance);
        }
        cut.len()
    }

    /// Bodies being sent now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no body is being sent.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Entry>> {
        self.bodies.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A body dropped before its end: logged here unless the stop's report
    /// already named it.
    fn dropped_unfinished(&self, id: u64) {
        let Some(entry) = self.lock().remove(&id) else {
            return;
        };
        match self.allowance_ends.get() {
            // Dropped once the allowance ran out: the stop closed it.
            Some((ends, allowance)) if Instant::now() >= *ends => log_cut_by_stop(&entry, *allowance),
            _ => {
                crate::metrics::response_cut("connection");
                tracing::info!(
                    route = %entry.route,
                    request_id = %entry.request_id,
                    bytes_sent = entry.sent.load(Ordering::Relaxed),
                    bytes_total = entry.total,
                    "response ended before its last byte: the connection closed (the client went away or stopped reading)"
                );
            }
        }
    }

    fn finished(&self, id: u64) {
        self.lock().remove(&id);
    }
}

fn log_cut_by_stop(entry: &Entry, allowance: Duration) {
    crate::metrics::response_cut("stop");
    tracing::warn!(
        route = %entry.route,
        request_id = %entry.request_id,
        bytes_sent = entry.sent.load(Ordering::Relaxed),
        bytes_total = entry.total,
        allowance_secs = allowance.as_secs(),
        "response cut by the stop: the in-flight allowance (LINECAST_SHUTDOWN_TIMEOUT_SECS) ran out before its last byte"
    );
}

/// A body under watch: counts the bytes it hands to the connection and,
/// dropped before its end, says so ([`InFlight`]).
pub struct Watched {
    body: BoxBody,
    id: u64,
    sent: Arc<AtomicU64>,
    total: u64,
    finished: bool,
    registry: Arc<InFlight>,
}

impl MessageBody for Watched {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.get_mut();
        let next = Pin::new(&mut this.body).poll_next(cx);
        match &next {
            Poll::Ready(Some(Ok(chunk))) => {
                this.sent.fetch_add(chunk.len() as u64, Ordering::Relaxed);
            }
            Poll::Ready(None) => {
                this.finished = true;
                this.registry.finished(this.id);
            }
            Poll::Ready(Some(Err(_))) | Poll::Pending => {}
        }
        next
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if self.sent.load(Ordering::Relaxed) >= self.total {
            // Every byte went out; only the end was not asked for.
            self.registry.finished(self.id);
        } else {
            self.registry.dropped_unfinished(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(len: usize) -> BoxBody {
        BoxBody::new(super::super::sliced::Sliced::new(Bytes::from(vec![7_u8; len]), None))
    }

    async fn next(body: &mut Watched) -> Option<usize> {
        futures::future::poll_fn(|cx| Pin::new(&mut *body).poll_next(cx))
            .await
            .map(|chunk| chunk.map(|c| c.len()).unwrap_or_default())
    }

    #[actix_rt::test]
    async fn a_body_sent_to_its_end_leaves_nothing_to_report() {
        let registry = Arc::new(InFlight::default());
        let len = 3 * super::super::sliced::CHUNK + 10;
        let mut watched = registry.watch(body(len), "/r".to_owned(), "id".to_owned(), len as u64);
        assert_eq!(registry.len(), 1);
        let mut sent = 0;
        while let Some(n) = next(&mut watched).await {
            sent += n;
        }
        assert_eq!(sent, len);
        assert!(registry.is_empty());
        drop(watched);
        assert_eq!(registry.report_cut(), 0);
    }

    #[actix_rt::test]
    async fn a_body_dropped_part_way_is_taken_out_once_and_one_the_stop_holds_is_reported() {
        let registry = Arc::new(InFlight::default());
        let len = 4 * super::super::sliced::CHUNK;
        let mut early = registry.watch(body(len), "/a".to_owned(), "1".to_owned(), len as u64);
        assert!(next(&mut early).await.is_some());
        drop(early);
        assert!(registry.is_empty(), "the drop took it out (and logged it)");

        let mut held = registry.watch(body(len), "/b".to_owned(), "2".to_owned(), len as u64);
        assert!(next(&mut held).await.is_some());
        registry.stop_accepting(Duration::ZERO);
        assert_eq!(registry.report_cut(), 1, "the stop names the body it cut");
        drop(held);
        assert_eq!(registry.report_cut(), 0, "and it is not named again");
    }
}
