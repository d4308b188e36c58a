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
    pub fn spawn<F, Fut>(every: Duration, round: F) -> Self
    where
        F: FnMut() -> Fut + Send + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        Self::spawn_waking(every, std::future::pending, round)
    }

    /// [`Self::spawn`], also running a round as soon as a future made by
    /// `wake` completes (a buffer that filled before the next tick), between
    /// rounds as a tick would. The ticks keep their own time.
    pub fn spawn_waking<W, WFut, F, Fut>(every: Duration, mut wake: W, mut round: F) -> Self
    where
        W: FnMut() -> WFut + Send + 'static,
        WFut: Future<Output = ()> + Send + 'static,
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
                    () = wake() => round().await,
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
    #![allow(clippy::unwrap_used)]

    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU32, Ordering};

    use async_trait::async_trait;
    use chrono::{DateTime, Utc};
    use linecast_core::ports::accounts::{AccountsError, UsageMeter};
    use linecast_core::quota_calendar::{Day, Month, month_of_day};
    use linecast_core::testing::MemoryAccounts;
    use tokio::sync::Notify;
    use tokio::time::Instant;

    use super::*;
    use crate::InProcessLimiter;

    /// After one slow round, the rounds it made the flusher miss are not
    /// replayed back to back: the next starts when the slow one ends, then
    /// the interval resumes. (Paused time: deterministic.)
    #[tokio::test(start_paused = true)]
    async fn a_slow_round_delays_the_next_instead_of_bursting_the_missed_ones() {
        let starts = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&starts);
        let flusher = Flusher::spawn(Duration::from_millis(10), move || {
            let seen = Arc::clone(&seen);
            async move {
                let first = {
                    let mut starts = seen.lock().unwrap();
                    starts.push(Instant::now());
                    starts.len() == 1
                };
                if first {
                    tokio::time::sleep(Duration::from_millis(55)).await;
                }
            }
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        flusher.stop().await;
        let starts = starts.lock().unwrap().clone();
        let gaps: Vec<Duration> = starts.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps.len() >= 5, "{gaps:?}");
        assert!(gaps[0] >= Duration::from_millis(55), "{gaps:?}");
        assert!(
            gaps[1..].iter().all(|g| *g >= Duration::from_millis(10)),
            "missed rounds ran back to back: {gaps:?}"
        );
    }

    /// A wake runs a round at once, however far the next tick is, and each
    /// wake runs one.
    #[tokio::test]
    async fn a_wake_runs_a_round_without_waiting_for_the_tick() {
        let bell = Arc::new(Notify::new());
        let ran = Arc::new(Notify::new());
        let rounds = Arc::new(AtomicU32::new(0));
        let flusher = Flusher::spawn_waking(
            Duration::from_hours(1),
            {
                let bell = Arc::clone(&bell);
                move || {
                    let bell = Arc::clone(&bell);
                    async move { bell.notified().await }
                }
            },
            {
                let (ran, rounds) = (Arc::clone(&ran), Arc::clone(&rounds));
                move || {
                    let (ran, rounds) = (Arc::clone(&ran), Arc::clone(&rounds));
                    async move {
                        rounds.fetch_add(1, Ordering::SeqCst);
                        ran.notify_one();
                    }
                }
            },
        );
        for expected in 1..=2 {
            bell.notify_one();
            // Far from the hour's tick: only the wake can run this round.
            tokio::time::timeout(Duration::from_mins(1), ran.notified())
                .await
                .expect("the wake ran a round");
            assert_eq!(rounds.load(Ordering::SeqCst), expected);
        }
        flusher.stop().await;
        assert_eq!(rounds.load(Ordering::SeqCst), 2);
    }

    /// A usage meter whose batch write takes a while, announcing its start.
    struct SlowMeter {
        inner: MemoryAccounts,
        writing: Notify,
    }

    #[async_trait]
    impl UsageMeter for SlowMeter {
        async fn add_usage(&self, customer_id: i64, month: Month, n: u64) -> Result<u64, AccountsError> {
            self.inner.add_usage(customer_id, month, n).await
        }
        async fn add_usage_batch(&self, increments: &[(i64, Day, u64)]) -> Result<(), AccountsError> {
            self.writing.notify_one();
            tokio::time::sleep(Duration::from_millis(50)).await;
            self.inner.add_usage_batch(increments).await
        }
        async fn get_usage(&self, customer_id: i64, month: Month) -> Result<u64, AccountsError> {
            self.inner.get_usage(customer_id, month).await
        }
        async fn daily_usage(&self, customer_id: i64, from: Day, to: Day) -> Result<Vec<(Day, u64)>, AccountsError> {
            self.inner.daily_usage(customer_id, from, to).await
        }
        async fn monthly_usage(
            &self,
            customer_id: i64,
            from: Month,
            to: Month,
        ) -> Result<Vec<(Month, u64)>, AccountsError> {
            self.inner.monthly_usage(customer_id, from, to).await
        }
        async fn try_consume_refresh(
            &self,
            customer_id: i64,
            month: Month,
            limit: u32,
            now: DateTime<Utc>,
        ) -> Result<Option<u32>, AccountsError> {
            self.inner.try_consume_refresh(customer_id, month, limit, now).await
        }
        async fn refreshes_used(&self, customer_id: i64, month: Month) -> Result<u32, AccountsError> {
            self.inner.refreshes_used(customer_id, month).await
        }
    }

    /// Stopping while a slow batch is being written lets it land, and the
    /// final flush after `stop` adds only what is still buffered: every
    /// counted request is persisted exactly once.
    #[tokio::test]
    async fn stopping_during_a_slow_write_then_flushing_persists_each_count_once() {
        let meter = Arc::new(SlowMeter {
            inner: MemoryAccounts::new(),
            writing: Notify::new(),
        });
        let limiter: Arc<dyn Limiter> = Arc::new(InProcessLimiter::new(meter.clone()));
        let day = chrono::NaiveDate::from_ymd_opt(2026, 11, 15).unwrap();
        let month = month_of_day(day);
        for _ in 0..7 {
            limiter.try_count_month(1, day, 100).await.unwrap();
        }
        let flusher = spawn_flusher(Arc::clone(&limiter), Duration::from_millis(5));
        meter.writing.notified().await;
        // Counted while the first batch is in flight: left for the final flush.
        for _ in 0..3 {
            limiter.try_count_month(1, day, 100).await.unwrap();
        }
        flusher.stop().await;
        limiter.flush().await.unwrap();
        assert_eq!(meter.inner.persisted(1, month), 10);
        limiter.flush().await.unwrap();
        assert_eq!(meter.inner.persisted(1, month), 10);
        assert_eq!(meter.inner.persisted_day(1, day), 10);
    }

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
