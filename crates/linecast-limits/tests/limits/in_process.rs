use std::sync::Arc;
use std::time::Duration;

use linecast_core::testing::MemoryAccounts;
use linecast_limits::{InProcessLimiter, Limiter, LimitsError, MonthDecision, RateDecision};

use crate::support::{DAY, HIGH_LIMIT, MONTH, RATE, assert_rate_script, at, count_concurrently, counted_values, flood};

/// A day of the month before [`crate::support::MONTH`].
fn february_day() -> linecast_core::Day {
    chrono::NaiveDate::from_ymd_opt(2026, 2, 20).unwrap()
}

fn limiter(meter: &Arc<MemoryAccounts>) -> Arc<InProcessLimiter> {
    Arc::new(InProcessLimiter::new(Arc::clone(meter) as _))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_four_tasks_of_forty_calls_count_exactly_and_flush_the_same_total() {
    let meter = Arc::new(MemoryAccounts::new());
    let limiter = limiter(&meter);
    let decisions = count_concurrently(&[limiter.clone() as _], 64, 40, 7, DAY, HIGH_LIMIT).await;

    // Every call got its own position in the count: none lost, none doubled.
    assert_eq!(counted_values(&decisions), (1..=2560).collect::<Vec<_>>());
    assert_eq!(limiter.month_usage(7, MONTH).await.unwrap(), 2560);
    assert_eq!(meter.persisted(7, MONTH), 0, "nothing reaches the meter before a flush");

    limiter.flush().await.unwrap();
    assert_eq!(meter.persisted(7, MONTH), 2560);
    assert_eq!(meter.persisted_day(7, DAY), 2560, "the day rides the same batch");
    assert_eq!(limiter.pending_increments(), 0);
    assert_eq!(limiter.month_usage(7, MONTH).await.unwrap(), 2560);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_limit_of_100_exactly_100_of_500_concurrent_attempts_are_counted() {
    let meter = Arc::new(MemoryAccounts::new());
    let limiter = limiter(&meter);
    let decisions = count_concurrently(&[limiter.clone() as _], 500, 1, 7, DAY, 100).await;

    assert_eq!(counted_values(&decisions), (1..=100).collect::<Vec<_>>());
    assert!(
        decisions
            .iter()
            .filter(|d| matches!(d, MonthDecision::Exhausted { .. }))
            .all(|d| *d == MonthDecision::Exhausted { used: 100 })
    );
    assert_eq!(
        limiter.month_usage(7, MONTH).await.unwrap(),
        100,
        "refused attempts are not counted"
    );
    limiter.flush().await.unwrap();
    assert_eq!(meter.persisted(7, MONTH), 100);
}

/// As a request counts: at once when the month is loaded and free, else
/// by waiting. Returns the decision and whether it was made at once.
async fn count_as_a_request(limiter: &InProcessLimiter, customer_id: i64, limit: u64) -> (MonthDecision, bool) {
    match limiter.try_count_month_at_once(customer_id, DAY, limit) {
        Some(decided) => (decided.unwrap(), true),
        None => (limiter.try_count_month(customer_id, DAY, limit).await.unwrap(), false),
    }
}

/// Counting at once is the same count as counting by waiting: 64 tasks of
/// 40 requests, each asking at once first, get every position exactly
/// once, a limit of 100 admits exactly 100 of them, and the flush carries
/// the same total. Both ways were taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counting_at_once_and_counting_by_waiting_make_one_exact_count() {
    for (limit, expected) in [(HIGH_LIMIT, 2560), (100, 100)] {
        let meter = Arc::new(MemoryAccounts::new());
        let limiter = limiter(&meter);
        // Not loaded yet: nothing can be counted at once, and nothing is.
        assert!(limiter.try_count_month_at_once(7, DAY, limit).is_none());
        let mut handles = Vec::new();
        for _ in 0..64 {
            let limiter = Arc::clone(&limiter);
            handles.push(tokio::spawn(async move {
                let mut out = Vec::new();
                for _ in 0..40 {
                    out.push(count_as_a_request(&limiter, 7, limit).await);
                    tokio::task::yield_now().await;
                }
                out
            }));
        }
        let mut decisions = Vec::new();
        for h in handles {
            decisions.extend(h.await.unwrap());
        }
        let at_once = decisions.iter().filter(|(_, at_once)| *at_once).count();
        assert!(
            at_once > 0 && at_once < decisions.len(),
            "both ways taken: {at_once} at once"
        );
        let decisions: Vec<MonthDecision> = decisions.into_iter().map(|(d, _)| d).collect();
        assert_eq!(counted_values(&decisions), (1..=expected).collect::<Vec<_>>());
        assert_eq!(limiter.month_usage(7, MONTH).await.unwrap(), expected);
        limiter.flush().await.unwrap();
        assert_eq!(meter.persisted(7, MONTH), expected);
        assert_eq!(meter.persisted_day(7, DAY), expected);
    }
}

/// The rate bucket answered at once is the same bucket: of 160 calls at one
/// instant, asked at once or by waiting in turn, exactly the burst passes.
#[tokio::test]
async fn the_rate_bucket_answered_at_once_is_the_same_bucket() {
    let limiter = limiter(&Arc::new(MemoryAccounts::new()));
    let mut admitted = 0;
    for i in 0..160 {
        let decision = if i % 2 == 0 {
            limiter.check_rate_at_once(3, RATE, at(20)).unwrap().unwrap()
        } else {
            limiter.check_rate(3, RATE, at(20)).await.unwrap()
        };
        if let RateDecision::Allowed { .. } = decision {
            admitted += 1;
        }
    }
    assert_eq!(admitted, 100);
}

/// Requests counted on different days reach each day's counter and the
/// day's month through the write-behind: the days of a month sum to it.
#[tokio::test]
async fn counted_requests_reach_their_days_and_months_through_the_write_behind() {
    let meter = Arc::new(MemoryAccounts::new());
    let limiter = limiter(&meter);
    let next_day = DAY.succ_opt().unwrap();
    for (day, n) in [(DAY, 4), (next_day, 2), (february_day(), 3)] {
        for _ in 0..n {
            limiter.try_count_month(7, day, HIGH_LIMIT).await.unwrap();
        }
    }
    assert_eq!(
        meter.persisted_day(7, DAY),
        0,
        "nothing reaches the meter before a flush"
    );
    limiter.flush().await.unwrap();
    assert_eq!(meter.persisted_day(7, DAY), 4);
    assert_eq!(meter.persisted_day(7, next_day), 2);
    assert_eq!(meter.persisted_day(7, february_day()), 3);
    assert_eq!(meter.persisted(7, MONTH), 6);
    assert_eq!(meter.persisted(7, (2026, 2)), 3);
    limiter.flush().await.unwrap();
    assert_eq!(meter.persisted_day(7, DAY), 4, "a second flush adds nothing");
}

#[tokio::test]
async fn the_rate_bucket_answers_the_shared_script() {
    let limiter = limiter(&Arc::new(MemoryAccounts::new()));
    assert_rate_script(limiter.as_ref()).await;
}

#[tokio::test]
async fn a_three_second_flood_on_one_key_is_served_at_most_burst_plus_three_seconds_of_rate() {
    let limiter = limiter(&Arc::new(MemoryAccounts::new()));
    assert_eq!(flood(&[limiter as _]).await, 249);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_callers_at_one_instant_get_exactly_the_burst() {
    let limiter = limiter(&Arc::new(MemoryAccounts::new()));
    let mut handles = Vec::new();
    for _ in 0..160 {
        let limiter = Arc::clone(&limiter);
        handles.push(tokio::spawn(async move {
            limiter.check_rate(3, RATE, at(20)).await.unwrap()
        }));
    }
    let mut admitted = 0;
    for h in handles {
        if let RateDecision::Allowed { .. } = h.await.unwrap() {
            admitted += 1;
        }
    }
    assert_eq!(admitted, 100);
}

#[tokio::test]
async fn a_failed_flush_keeps_every_increment_for_the_next_one() {
    let meter = Arc::new(MemoryAccounts::new());
    let limiter = limiter(&meter);
    for _ in 0..10 {
        limiter.try_count_month(7, DAY, HIGH_LIMIT).await.unwrap();
    }
    meter.set_down(true);
    assert!(matches!(limiter.flush().await, Err(LimitsError::Unavailable(_))));
    assert_eq!(limiter.pending_increments(), 10);
    // Counting goes on from memory while the database is down.
    for _ in 0..5 {
        limiter.try_count_month(7, DAY, HIGH_LIMIT).await.unwrap();
    }
    assert_eq!(limiter.month_usage(7, MONTH).await.unwrap(), 15);

    meter.set_down(false);
    limiter.flush().await.unwrap();
    assert_eq!(meter.persisted(7, MONTH), 15);
    assert_eq!(limiter.pending_increments(), 0);
}

#[tokio::test]
async fn a_new_limiter_over_the_same_meter_continues_from_the_persisted_count() {
    let meter = Arc::new(MemoryAccounts::new());
    let first = limiter(&meter);
    for _ in 0..30 {
        first.try_count_month(7, DAY, HIGH_LIMIT).await.unwrap();
    }
    first.flush().await.unwrap();
    drop(first);

    let second = limiter(&meter);
    assert_eq!(second.month_usage(7, MONTH).await.unwrap(), 30);
    assert_eq!(
        second.try_count_month(7, DAY, 31).await.unwrap(),
        MonthDecision::Counted { used: 31 }
    );
    assert_eq!(
        second.try_count_month(7, DAY, 31).await.unwrap(),
        MonthDecision::Exhausted { used: 31 }
    );
    second.flush().await.unwrap();
    assert_eq!(meter.persisted(7, MONTH), 31);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_callers_read_the_persisted_count_once() {
    let meter = Arc::new(MemoryAccounts::new());
    meter.set_persisted(7, MONTH, 1000);
    let limiter = limiter(&meter);
    let decisions = count_concurrently(&[limiter.clone() as _], 100, 1, 7, DAY, HIGH_LIMIT).await;
    assert_eq!(counted_values(&decisions), (1001..=1100).collect::<Vec<_>>());
    assert_eq!(meter.usage_reads(), 1);
}

#[tokio::test]
async fn a_meter_outage_on_first_touch_is_unavailable_and_a_later_call_loads_again() {
    let meter = Arc::new(MemoryAccounts::new());
    meter.set_persisted(7, MONTH, 40);
    let limiter = limiter(&meter);
    meter.set_down(true);
    assert!(matches!(
        limiter.try_count_month(7, DAY, HIGH_LIMIT).await,
        Err(LimitsError::Unavailable(_))
    ));
    meter.set_down(false);
    assert_eq!(
        limiter.try_count_month(7, DAY, HIGH_LIMIT).await.unwrap(),
        MonthDecision::Counted { used: 41 }
    );
}

#[tokio::test]
async fn months_and_customers_are_counted_apart_and_an_old_month_survives_its_eviction() {
    let meter = Arc::new(MemoryAccounts::new());
    let limiter = limiter(&meter);
    for _ in 0..3 {
        limiter.try_count_month(7, february_day(), HIGH_LIMIT).await.unwrap();
    }
    limiter.try_count_month(7, DAY, HIGH_LIMIT).await.unwrap();
    limiter.try_count_month(8, DAY, HIGH_LIMIT).await.unwrap();
    // This flush persists February and then drops it from memory.
    limiter.flush().await.unwrap();
    assert_eq!(meter.persisted(7, (2026, 2)), 3);

    assert_eq!(limiter.month_usage(7, (2026, 2)).await.unwrap(), 3);
    assert_eq!(
        limiter.try_count_month(7, february_day(), HIGH_LIMIT).await.unwrap(),
        MonthDecision::Counted { used: 4 }
    );
    assert_eq!(limiter.month_usage(7, (2026, 3)).await.unwrap(), 1);
    assert_eq!(limiter.month_usage(8, (2026, 3)).await.unwrap(), 1);
}

#[tokio::test]
async fn the_flusher_task_persists_counts_without_an_explicit_flush() {
    let meter = Arc::new(MemoryAccounts::new());
    let limiter = limiter(&meter);
    let flusher = limiter.clone().spawn_flusher(Duration::from_millis(10));
    for _ in 0..25 {
        limiter.try_count_month(7, DAY, HIGH_LIMIT).await.unwrap();
    }
    // Bounded wait for the background task: a deadline, not a speed target.
    for _ in 0..500 {
        if meter.persisted(7, MONTH) == 25 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    flusher.stop().await;
    assert_eq!(meter.persisted(7, MONTH), 25);
}
