//! The periodic write-behind flush: the one home of its timing rules, used
//! by the server (which adds its own bookkeeping to each round) and by any
//! embedder of a limiter.
//!
//! - One round every interval, the first one interval after the start
//!   (there is nothing to flush before).
//! - A slow database delays the next round instead of causing a burst of
//!   back-to-back rounds (`MissedTickBehavior::Delay`).
//! - It stops only between rounds: a round cancelled halfway could have
//!   committed a batch that the final flush would then write again, counting
//!   it twice.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use linecast_core::ports::limits::Limiter;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

/// How often buffered increments are persisted by default: the crash bound
/// of the write-behind.
pub const DEFAULT_FLUSH_INTERVAL: Duration = Duration::from_secs(1);

/// A running flush task.
#[derive(Debug)]
pub struct Flusher {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Flusher {
    /// Runs `round` every `every` (see the module docs for the rules).
    pub fn spawn<F, Fut>(every: Duration, mut round: F) -> Self
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        let (stop, mut stopped) = watch::channel(false);
        let task = tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                // A stop asked for during a round wins over the next tick.
                tokio::select! {
                    biased;
                    _ = stopped.changed() => break,
                    _ = ticks.tick() => round().await,
                }
            }
        });
        Self { stop, task }
    }

    /// Lets a running round finish, then ends the task. Call the limiter's
    /// `flush` once more afterwards to persist what is still buffered.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

/// Flushes `limiter` every `every`; a failed flush is logged and retried on
/// the next round (the increments stay buffered).
pub fn spawn_flusher(limiter: Arc<dyn Limiter>, every: Duration) -> Flusher {
    Flusher::spawn(every, move || {
        let limiter = Arc::clone(&limiter);
        async move {
            if let Err(e) = limiter.flush().await {
                tracing::warn!(error = %e, "usage flush failed; increments stay buffered");
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use tokio::sync::Notify;

    use super::*;

    #[tokio::test]
    async fn stopping_lets_the_running_round_finish_and_starts_no_other() {
        let finished = Arc::new(AtomicU32::new(0));
        let started = Arc::new(Notify::new());
        let (f, s) = (Arc::clone(&finished), Arc::clone(&started));
        let flusher = Flusher::spawn(Duration::from_millis(5), move || {
            let (f, s) = (Arc::clone(&f), Arc::clone(&s));
            async move {
                s.notify_one();
                tokio::time::sleep(Duration::from_millis(50)).await;
                f.fetch_add(1, Ordering::SeqCst);
            }
        });
        started.notified().await;
        flusher.stop().await;
        assert_eq!(finished.load(Ordering::SeqCst), 1);
    }
}
