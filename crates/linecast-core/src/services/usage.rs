//! Counted usage: this month's count of a customer, its history (requests
//! per day this month, totals of past months), the flush round that
//! persists buffered counts and `last_used_at`, and the health of that
//! write-behind.
//!
//! Counted requests reach the database once a second; while the database
//! cannot take them they stay buffered in memory, where a crash would lose
//! them. So once the last good flush is older than `stale_after`, the access
//! decision refuses counted requests (503) until a flush succeeds: a crash
//! loses at most `stale_after` of counting, outage or not. Measured on the
//! system clock, whatever the data clock says.

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::ports::accounts::{Accounts, AccountsError, UsageMeter};
use crate::ports::limits::{Limiter, LimitsError};
use crate::quota_calendar::{Day, Month};
use crate::quota_calendar::{day_of, first_day, month_of, previous_month};
use crate::{Clock, SystemClock};

/// What one flush round did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlushReport {
    /// Buffered counts reached the database (or why not: they stay buffered).
    pub counts: Result<(), LimitsError>,
    /// `last_used_at` of the keys used since the last round was written.
    pub last_used: Result<(), AccountsError>,
    /// Time since the last good flush, after this round.
    pub lag: Duration,
}

/// How precise `last_used_at` is: a key in steady use has it written once
/// per this span, so it is never more than this behind the key's real last
/// use (a key's first use is written at the next round). Without it a busy
/// service rewrote every active key once a second (in the load run, all
/// 2,400 of its keys).
pub const LAST_USED_PRECISION: chrono::TimeDelta = chrono::TimeDelta::seconds(60);

/// Past months the usage history shows, besides the current one.
pub const PAST_MONTHS: usize = 6;

/// A customer's usage over time, as the portal's overview charts it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageHistory {
    /// Every UTC day of this month up to today, oldest first, with the
    /// persisted count (0 for a day without requests). Today's may lag the
    /// write-behind by one flush.
    pub days: Vec<(Day, u64)>,
    /// The [`PAST_MONTHS`] months before this one (persisted counts, 0 for a
    /// month without requests) and this month last, with its count as
    /// [`Usage::month_count`] reports it; oldest first.
    pub months: Vec<(Month, u64)>,
}

/// The usage use cases over the limiter (which buffers counts), the usage
/// meter (the persisted counters) and the accounts port (which keeps
/// `last_used_at`).
pub struct Usage {
    limiter: Arc<dyn Limiter>,
    meter: Arc<dyn UsageMeter>,
    accounts: Arc<dyn Accounts>,
    health: Arc<UsageHealth>,
    /// When this instance last wrote each key's `last_used_at` (within
    /// [`LAST_USED_PRECISION`]; older entries are dropped).
    written: Mutex<HashMap<i64, DateTime<Utc>>>,
}

impl Usage {
    pub fn new(
        limiter: Arc<dyn Limiter>,
        meter: Arc<dyn UsageMeter>,
        accounts: Arc<dyn Accounts>,
        health: Arc<UsageHealth>,
    ) -> Self {
        Self {
            limiter,
            meter,
            accounts,
            health,
            written: Mutex::new(HashMap::new()),
        }
    }

    /// The write-behind's health, which the access decision reads.
    pub fn health(&self) -> &Arc<UsageHealth> {
        &self.health
    }

    /// Requests counted for the customer in the quota month of `now`,
    /// buffered ones included.
    pub async fn month_count(&self, customer_id: i64, now: DateTime<Utc>) -> Result<u64, LimitsError> {
        self.limiter.month_usage(customer_id, month_of(now)).await
    }

    /// The customer's usage per day of this month (UTC, up to the day of
    /// `now`) and per month over the [`PAST_MONTHS`] before it and this one.
    pub async fn history(&self, customer_id: i64, now: DateTime<Utc>) -> Result<UsageHistory, LimitsError> {
        let (today, month) = (day_of(now), month_of(now));
        let first = first_day(month).unwrap_or(today);
        let counted = self.meter.daily_usage(customer_id, first, today).await?;
        let oldest = (0..PAST_MONTHS).fold(month, |m, _| previous_month(m));
        let past = self
            .meter
            .monthly_usage(customer_id, oldest, previous_month(month))
            .await?;
        let this_month = self.month_count(customer_id, now).await?;
        Ok(UsageHistory {
            days: every_day(first, today, &counted),
            months: every_month(oldest, month, &past, this_month),
        })
    }

    /// One flush round: buffered counts to the database (a success marks the
    /// write-behind healthy), then `last_used_at = now` for those of
    /// `used_keys` not written within [`LAST_USED_PRECISION`]. A failed step
    /// is reported, never retried here: counts stay buffered for the next
    /// round, and keys whose write failed are written at their next use.
    pub async fn flush(&self, used_keys: &[i64], now: DateTime<Utc>) -> FlushReport {
        let counts = self.limiter.flush().await;
        if counts.is_ok() {
            self.health.succeeded();
        }
        let due = self.last_used_due(used_keys, now);
        let last_used = if due.is_empty() {
            Ok(())
        } else {
            let written = self.accounts.touch_last_used(&due, now).await;
            if written.is_ok() {
                let mut map = self.written.lock().unwrap_or_else(PoisonError::into_inner);
                map.extend(due.iter().map(|&id| (id, now)));
            }
            written
        };
        FlushReport {
            counts,
            last_used,
            lag: self.health.lag(),
        }
    }
}

impl Usage {
    /// The keys of `used` whose `last_used_at` is due at `now`; forgets
    /// writes too old to matter, so the map holds at most the keys used in
    /// the last [`LAST_USED_PRECISION`].
    fn last_used_due(&self, used: &[i64], now: DateTime<Utc>) -> Vec<i64> {
        let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        written.retain(|_, at| now - *at < LAST_USED_PRECISION);
        used.iter().copied().filter(|id| !written.contains_key(id)).collect()
    }
}

/// Each day from `first` to `last`, with its count in `counted` or 0.
fn every_day(first: Day, last: Day, counted: &[(Day, u64)]) -> Vec<(Day, u64)> {
    let counts: HashMap<Day, u64> = counted.iter().copied().collect();
    first
        .iter_days()
        .take_while(|d| *d <= last)
        .map(|d| (d, counts.get(&d).copied().unwrap_or(0)))
        .collect()
}

/// Each month from `oldest` to `current`, with its count in `past` or 0,
/// and `current` with `this_month`.
fn every_month(oldest: Month, current: Month, past: &[(Month, u64)], this_month: u64) -> Vec<(Month, u64)> {
    let counts: HashMap<Month, u64> = past.iter().copied().collect();
    let mut months = Vec::new();
    let mut m = current;
    while m > oldest {
        m = previous_month(m);
        months.push((m, counts.get(&m).copied().unwrap_or(0)));
    }
    months.reverse();
    months.push((current, this_month));
    months
}

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
    #![allow(clippy::unwrap_used)]

    use chrono::TimeZone;

    use super::*;
    use crate::ports::accounts::SubscriptionStatus;
    use crate::ports::limits::MonthDecision;
    use crate::services::keys::Keys;
    use crate::testing::{MemoryAccounts, MemoryLimiter};

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 30, 23, 59, 0).unwrap()
    }

    async fn world() -> (Arc<MemoryAccounts>, Arc<MemoryLimiter>, Usage, i64, i64) {
        let accounts = Arc::new(MemoryAccounts::new());
        let customer = accounts
            .seed_customer("a@example.com", "ai", SubscriptionStatus::Active, 100, now())
            .await
            .unwrap();
        let key = Keys::new(accounts.clone(), 5)
            .issue(&customer, "k", None, "test", now())
            .await
            .unwrap();
        let limiter = Arc::new(MemoryLimiter::new());
        let health = Arc::new(UsageHealth::new(Duration::from_millis(50)));
        let usage = Usage::new(limiter.clone(), accounts.clone(), accounts.clone(), health);
        (accounts, limiter, usage, customer.customer_id, key.record.id)
    }

    #[tokio::test]
    async fn the_month_count_is_the_quota_month_of_now_in_utc() {
        let (_, limiter, usage, customer, _) = world().await;
        limiter.set_month(customer, (2026, 11), 41);
        limiter.set_month(customer, (2026, 12), 3);
        assert_eq!(usage.month_count(customer, now()).await.unwrap(), 41);
        let december = Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap();
        assert_eq!(usage.month_count(customer, december).await.unwrap(), 3);
        let counted = limiter.try_count_month(customer, day_of(december), 100).await.unwrap();
        assert_eq!(counted, MonthDecision::Counted { used: 4 });
        assert_eq!(usage.month_count(customer, december).await.unwrap(), 4);
    }

    /// Every day of the month up to today is listed, days without requests
    /// as 0; the months are the six before this one (0 when never counted)
    /// and this one with the limiter's count.
    #[tokio::test]
    async fn the_history_lists_every_day_so_far_and_six_past_months_with_zeros() {
        let (accounts, limiter, usage, customer, _) = world().await;
        let day = |d: u32| chrono::NaiveDate::from_ymd_opt(2026, 11, d).unwrap();
        accounts
            .add_usage_batch(&[(customer, day(3), 4), (customer, day(30), 2)])
            .await
            .unwrap();
        accounts.set_persisted(customer, (2026, 5), 11);
        accounts.set_persisted(customer, (2026, 4), 99);
        limiter.set_month(customer, (2026, 11), 7);
        let history = usage.history(customer, now()).await.unwrap();
        assert_eq!(history.days.len(), 30);
        assert_eq!(history.days[0], (day(1), 0));
        assert_eq!(history.days[2], (day(3), 4));
        assert_eq!(history.days[29], (day(30), 2));
        assert_eq!(
            history.months,
            vec![
                ((2026, 5), 11),
                ((2026, 6), 0),
                ((2026, 7), 0),
                ((2026, 8), 0),
                ((2026, 9), 0),
                ((2026, 10), 0),
                ((2026, 11), 7),
            ]
        );
        let january = Utc.with_ymd_and_hms(2027, 1, 1, 0, 0, 0).unwrap();
        let history = usage.history(customer, january).await.unwrap();
        assert_eq!(history.days.len(), 1);
        assert_eq!(history.months.first().map(|m| m.0), Some((2026, 7)));
        assert_eq!(history.months.last().map(|m| m.0), Some((2027, 1)));
    }

    #[tokio::test]
    async fn a_failed_flush_leaves_the_write_behind_unhealthy_and_a_good_one_clears_it() {
        let (accounts, limiter, usage, _, key) = world().await;
        usage.health().last_success_ms.store(now_ms() - 60, Ordering::Relaxed);
        limiter.set_down(true);
        let report = usage.flush(&[key], now()).await;
        assert!(report.counts.is_err());
        assert!(report.lag >= Duration::from_millis(60));
        assert!(usage.health().is_stale());
        // last_used_at is written even when the counts could not be.
        assert_eq!(report.last_used, Ok(()));
        let keys = accounts.list_keys(1).await.unwrap();
        assert_eq!(keys[0].last_used_at, Some(now()));

        limiter.set_down(false);
        let report = usage.flush(&[], now()).await;
        assert_eq!(report.counts, Ok(()));
        assert!(report.lag < Duration::from_millis(50));
        assert!(!usage.health().is_stale());
    }

    #[tokio::test]
    async fn a_failed_last_used_write_is_reported_and_does_not_fail_the_counts() {
        let (accounts, _, usage, _, key) = world().await;
        accounts.set_down(true);
        let report = usage.flush(&[key], now()).await;
        assert_eq!(report.counts, Ok(()));
        assert!(matches!(report.last_used, Err(AccountsError::Unavailable(_))));
        assert!(!usage.health().is_stale());
    }

    #[tokio::test]
    async fn a_key_in_steady_use_has_last_used_written_once_a_minute_and_a_new_key_at_once() {
        let (accounts, _, usage, customer, key) = world().await;
        let other = Keys::new(accounts.clone(), 5)
            .issue(
                &accounts.get_customer(customer).await.unwrap(),
                "k2",
                None,
                "test",
                now(),
            )
            .await
            .unwrap()
            .record
            .id;
        let last_used = |id: i64| {
            let accounts = accounts.clone();
            async move {
                let keys = accounts.list_keys(customer).await.unwrap();
                keys.into_iter().find(|k| k.id == id).unwrap().last_used_at
            }
        };
        let at = |secs: i64| now() + chrono::TimeDelta::seconds(secs);
        usage.flush(&[key], at(0)).await;
        assert_eq!(last_used(key).await, Some(at(0)));
        // Used every second after: not rewritten within the minute.
        for s in 1..60 {
            usage.flush(&[key], at(s)).await;
        }
        assert_eq!(last_used(key).await, Some(at(0)));
        // A key first used meanwhile is written at once.
        usage.flush(&[key, other], at(30)).await;
        assert_eq!(last_used(other).await, Some(at(30)));
        // A minute after the last write, the next use is written.
        usage.flush(&[key], at(60)).await;
        assert_eq!(last_used(key).await, Some(at(60)));
    }

    #[tokio::test]
    async fn a_failed_last_used_write_is_tried_again_at_the_next_use() {
        let (accounts, _, usage, customer, key) = world().await;
        accounts.set_down(true);
        assert!(usage.flush(&[key], now()).await.last_used.is_err());
        accounts.set_down(false);
        let later = now() + chrono::TimeDelta::seconds(1);
        assert_eq!(usage.flush(&[key], later).await.last_used, Ok(()));
        let keys = accounts.list_keys(customer).await.unwrap();
        assert_eq!(keys[0].last_used_at, Some(later));
    }

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
