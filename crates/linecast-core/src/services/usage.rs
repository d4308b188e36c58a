//! The health of the usage write-behind. Counted requests reach the database
//! once a second; while the database cannot take them they stay buffered in
//! memory, where a crash would lose them. So once the last good flush is
//! older than `stale_after`, the access decision refuses counted requests
//! (503) until a flush succeeds: a crash loses at most `stale_after` of
//! counting, outage or not. Measured on the system clock, whatever the data
//! clock says.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use crate::{Clock, SystemClock};

/// When usage last reached the database.
#[derive(Debug)]
pub struct UsageHealth {
    last_success_ms: AtomicI64,
    stale_after: Duration,
}

fn now_ms() -> i64 {
    SystemClock.now().timestamp_millis()
}

impl UsageHealth {
    /// Healthy as of now.
    pub fn new(stale_after: Duration) -> Self {
        Self {
            last_success_ms: AtomicI64::new(now_ms()),
            stale_after,
        }
    }

    /// Records a flush that reached the database.
    pub fn succeeded(&self) {
        self.last_success_ms.store(now_ms(), Ordering::Relaxed);
    }

    /// Time since the last good flush.
    pub fn lag(&self) -> Duration {
        let ms = now_ms() - self.last_success_ms.load(Ordering::Relaxed);
        Duration::from_millis(u64::try_from(ms).unwrap_or(0))
    }

    /// True once buffered counts have waited longer than the crash bound.
    pub fn is_stale(&self) -> bool {
        self.lag() > self.stale_after
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_goes_stale_only_after_the_bound_and_a_good_flush_clears_it() {
        let health = UsageHealth::new(Duration::from_millis(50));
        assert!(!health.is_stale());
        health.last_success_ms.store(now_ms() - 60, Ordering::Relaxed);
        assert!(health.is_stale());
        health.succeeded();
        assert!(!health.is_stale());
    }
}
