//! The usage write-behind's health, and the flusher that keeps it.
//!
//! Counted requests reach the database once a second. While the database
//! cannot take them they stay buffered in memory, where a crash would lose
//! them; so once the last good flush is older than `stale_after`, the access
//! gate stops serving authenticated requests (503) until a flush succeeds.
//! A crash then loses at most `stale_after` of counting, outage or not.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::state::AppState;

/// How often counted requests are persisted: the crash bound when healthy.
pub const FLUSH_EVERY: Duration = linecast_limits::DEFAULT_FLUSH_INTERVAL;

/// When usage last reached the database.
#[derive(Debug)]
pub struct UsageHealth {
    last_success_ms: AtomicI64,
    stale_after: Duration,
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl UsageHealth {
    /// Healthy as of now.
    pub fn new(stale_after: Duration) -> Self {
        Self {
            last_success_ms: AtomicI64::new(now_ms()),
            stale_after,
        }
    }

    fn succeeded(&self) {
        self.last_success_ms.store(now_ms(), Ordering::Relaxed);
    }

    /// Seconds since the last good flush.
    pub fn lag(&self) -> Duration {
        let ms = now_ms() - self.last_success_ms.load(Ordering::Relaxed);
        Duration::from_millis(u64::try_from(ms).unwrap_or(0))
    }

    /// True once buffered counts have waited longer than the crash bound.
    pub fn is_stale(&self) -> bool {
        self.lag() > self.stale_after
    }
}

/// Persists buffered usage and `last_used_at` once.
pub async fn flush_once(state: &AppState) {
    match state.limiter.flush().await {
        Ok(()) => state.usage_health.succeeded(),
        Err(e) => tracing::warn!(error = %e, "usage flush failed; increments stay buffered"),
    }
    let lag = state.usage_health.lag();
    crate::metrics::usage_flush(lag < FLUSH_EVERY * 2, lag.as_secs_f64());
    if let Some(access) = &state.access {
        let keys = access.take_used_keys();
        if !keys.is_empty()
            && let Err(e) = state.accounts.touch_last_used(&keys, state.clock.now()).await
        {
            tracing::warn!(error = %e, "last_used_at update failed");
        }
    }
}

/// The periodic flusher: the limits crate's (one round a second, delayed
/// by a slow database, stopped only between rounds), each round being
/// [`flush_once`].
pub fn spawn_flusher(state: AppState) -> linecast_limits::Flusher {
    linecast_limits::Flusher::spawn(FLUSH_EVERY, move || {
        let state = state.clone();
        async move { flush_once(&state).await }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_goes_stale_only_after_the_bound() {
        let health = UsageHealth::new(Duration::from_millis(50));
        assert!(!health.is_stale());
        health.last_success_ms.store(now_ms() - 60, Ordering::Relaxed);
        assert!(health.is_stale());
        health.succeeded();
        assert!(!health.is_stale());
    }
}
