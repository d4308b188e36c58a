//! Where large bodies are made: a few threads of their own, off the
//! request threads.
//!
//! A cold export loads and grades every season it holds, then writes and
//! compresses tens of megabytes. Done on an actix worker, that blocked
//! every other request the worker held, cached hits and `/health`
//! included. The read pipeline's heavy routes (`pipeline::serve_heavy`)
//! send their misses here instead: a runtime with `threads` worker threads,
//! and a semaphore of as many permits around each miss, so at most
//! `threads` large bodies are in the making at once (the rest wait, holding
//! only their request) and the request threads keep answering.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Semaphore;

use crate::error::ApiError;

/// The heavy-work threads and their permits.
pub struct HeavyWork {
    runtime: Option<tokio::runtime::Runtime>,
    permits: Arc<Semaphore>,
    waiting: Arc<AtomicUsize>,
}

impl HeavyWork {
    /// `threads` threads (at least 1), each miss holding one permit.
    pub fn new(threads: usize) -> std::io::Result<Self> {
        let threads = threads.max(1);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .thread_name("linecast-heavy")
            .enable_all()
            .build()?;
        Ok(Self {
            runtime: Some(runtime),
            permits: Arc::new(Semaphore::new(threads)),
            waiting: Arc::default(),
        })
    }

    /// Runs `work` on the heavy threads once a permit is free, and waits
    /// for it. The work goes on if the caller goes away (what it renders
    /// is cached for the next request).
    pub async fn run<T, F>(&self, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, ApiError>> + Send + 'static,
    {
        let Some(runtime) = &self.runtime else {
            return Err(ApiError::Internal("heavy-work threads stopped".to_owned()));
        };
        let (permits, waiting) = (self.permits.clone(), self.waiting.clone());
        waiting.fetch_add(1, Ordering::Relaxed);
        let task = runtime.spawn(async move {
            let permit = permits.acquire_owned().await;
            waiting.fetch_sub(1, Ordering::Relaxed);
            let _permit = permit.map_err(|e| ApiError::Internal(format!("heavy-work permits: {e}")))?;
            work.await
        });
        task.await
            .map_err(|e| ApiError::Internal(format!("heavy work ended abnormally: {e}")))?
    }

    /// Misses waiting for a permit now (for metrics and tests).
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }
}

impl Drop for HeavyWork {
    fn drop(&mut self) {
        // A runtime may not be dropped (blocking) inside another's context,
        // which is where servers and tests drop their state.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[actix_rt::test]
    async fn work_runs_on_its_own_threads_at_most_threads_at_once() {
        let heavy = Arc::new(HeavyWork::new(1).unwrap_or_else(|e| panic!("{e}")));
        let here = std::thread::current().id();
        let there = heavy.run(async { Ok(std::thread::current().id()) }).await;
        assert!(matches!(there, Ok(id) if id != here));
        // One permit: a second piece of work waits until the first ends.
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let (started_tx, started) = tokio::sync::oneshot::channel::<()>();
        let first = {
            let heavy = heavy.clone();
            actix_rt::spawn(async move {
                heavy
                    .run(async move {
                        let _ = started_tx.send(());
                        let _ = rx.await;
                        Ok(1)
                    })
                    .await
            })
        };
        let _ = started.await;
        let second = {
            let heavy = heavy.clone();
            actix_rt::spawn(async move { heavy.run(async { Ok(2) }).await })
        };
        let mut waited = false;
        for _ in 0..500 {
            if heavy.waiting() == 1 {
                waited = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(waited, "the second waits for the permit");
        assert!(!second.is_finished());
        let _ = tx.send(());
        assert!(matches!(first.await, Ok(Ok(1))));
        assert!(matches!(second.await, Ok(Ok(2))));
        assert_eq!(heavy.waiting(), 0);
    }
}
