//! Runs against a real Redis when `LINECAST_TEST_REDIS_URL` is set (for
//! example `redis://127.0.0.1:6379`); each test uses its own key namespace
//! and deletes it afterwards.

use std::sync::Arc;

use chrono::Utc;
use linecast_core::Day;
use linecast_core::quota_calendar::{day_of, month_of_day};
use linecast_core::testing::MemoryAccounts;
use linecast_limits::{Limiter, LimitsError, MonthDecision, RateDecision, RedisLimiter};
use rand::Rng;

use crate::support::{HIGH_LIMIT, RATE, assert_rate_script, at, count_concurrently, counted_values, flood};

pub fn redis_url() -> Option<String> {
    let url = std::env::var("LINECAST_TEST_REDIS_URL").ok().filter(|u| !u.is_empty());
    if url.is_none() {
        assert!(
            std::env::var_os("LINECAST_REQUIRE_EXTERNAL").is_none(),
            "LINECAST_TEST_REDIS_URL is not set but LINECAST_REQUIRE_EXTERNAL asks for the Redis suite"
        );
        eprintln!("LINECAST_TEST_REDIS_URL not set: Redis test skipped");
    }
    url
}

/// Today (UTC): the Redis counters expire by the wall clock, so these
/// tests count on the real day.
pub fn today() -> Day {
    day_of(Utc::now())
}

/// Two limiters on one Redis and one meter, like two API instances.
struct Pair {
    url: String,
    namespace: String,
    meter: Arc<MemoryAccounts>,
    a: Arc<RedisLimiter>,
    b: Arc<RedisLimiter>,
}

impl Pair {
    async fn new(url: String) -> Self {
        let namespace = format!("linecast-test-{:016x}", rand::rng().random::<u64>());
        let meter = Arc::new(MemoryAccounts::new());
        let a = RedisLimiter::connect(&url, meter.clone() as _, namespace.clone())
            .await
            .unwrap();
        let b = RedisLimiter::connect(&url, meter.clone() as _, namespace.clone())
            .await
            .unwrap();
        Self {
            url,
            namespace,
            meter,
            a: Arc::new(a),
            b: Arc::new(b),
        }
    }

    fn both(&self) -> [Arc<dyn Limiter>; 2] {
        [self.a.clone() as _, self.b.clone() as _]
    }

    async fn cleanup(self) {
        cleanup(&self.url, &self.namespace).await;
    }
}

/// Deletes every key of `namespace`.
pub async fn cleanup(url: &str, namespace: &str) {
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{namespace}:*"))
        .query_async(&mut conn)
        .await
        .unwrap();
    if !keys.is_empty() {
        let _: () = redis::cmd("DEL").arg(keys).query_async(&mut conn).await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_count_a_shared_month_exactly_and_their_flushes_sum_to_it() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let day = today();
    let month = month_of_day(day);
    let decisions = count_concurrently(&pair.both(), 32, 25, 7, day, HIGH_LIMIT).await;

    assert_eq!(counted_values(&decisions), (1..=1600).collect::<Vec<_>>());
    assert_eq!(pair.a.month_usage(7, month).await.unwrap(), 1600);
    assert_eq!(pair.b.month_usage(7, month).await.unwrap(), 1600);
    assert_eq!(pair.a.pending_increments() + pair.b.pending_increments(), 1600);

    pair.a.flush().await.unwrap();
    pair.b.flush().await.unwrap();
    assert_eq!(pair.meter.persisted(7, month), 1600);
    assert_eq!(pair.meter.persisted_day(7, day), 1600, "the day rides the same batches");
    pair.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_give_one_key_exactly_its_burst_at_one_instant() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let mut handles = Vec::new();
    for limiter in pair.both() {
        for _ in 0..80 {
            let limiter = Arc::clone(&limiter);
            handles.push(tokio::spawn(async move {
                limiter.check_rate(3, RATE, at(20)).await.unwrap()
            }));
        }
    }
    let mut allowed = 0;
    for h in handles {
        match h.await.unwrap() {
            RateDecision::Allowed { .. } => allowed += 1,
            RateDecision::Refused { retry_after_secs } => assert_eq!(retry_after_secs, 1),
        }
    }
    assert_eq!(allowed, 100);
    // Two seconds later the bucket is full again, on either instance.
    assert_eq!(
        pair.b.check_rate(3, RATE, at(22)).await.unwrap(),
        RateDecision::Allowed {
            remaining: 99,
            full_in_secs: 1
        }
    );
    pair.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_answers_the_shared_rate_script_exactly_as_the_in_process_bucket_does() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    assert_rate_script(pair.a.as_ref()).await;
    pair.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_second_flood_across_two_instances_is_served_at_most_burst_plus_three_seconds_of_rate() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    assert_eq!(flood(&pair.both()).await, 249);
    pair.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_s_bucket_is_one_redis_key_that_expires_a_minute_after_the_bucket_is_full() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url.clone()).await;
    for _ in 0..10 {
        pair.a.check_rate(5, RATE, Utc::now()).await.unwrap();
    }
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:r:*", pair.namespace))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(keys, vec![format!("{}:r:5", pair.namespace)]);
    // Ten calls put the bucket 200 ms ahead: it expires a minute after that.
    let ttl: i64 = redis::cmd("PTTL").arg(&keys[0]).query_async(&mut conn).await.unwrap();
    assert!((60_000..=60_200).contains(&ttl), "PTTL {ttl}");
    pair.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_share_a_monthly_limit_of_100() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let day = today();
    let month = month_of_day(day);
    let decisions = count_concurrently(&pair.both(), 250, 1, 7, day, 100).await;

    assert_eq!(counted_values(&decisions), (1..=100).collect::<Vec<_>>());
    assert_eq!(
        pair.a.month_usage(7, month).await.unwrap(),
        100,
        "refused attempts are not counted"
    );
    pair.a.flush().await.unwrap();
    pair.b.flush().await.unwrap();
    assert_eq!(pair.meter.persisted(7, month), 100);
    pair.cleanup().await;
}

#[tokio::test]
async fn a_counter_missing_from_redis_starts_from_the_persisted_count() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let day = today();
    let month = month_of_day(day);
    pair.meter.set_persisted(7, month, 500);

    assert_eq!(pair.a.month_usage(7, month).await.unwrap(), 500);
    assert_eq!(
        pair.a.try_count_month(7, day, 501).await.unwrap(),
        MonthDecision::Counted { used: 501 }
    );
    assert_eq!(
        pair.b.try_count_month(7, day, 501).await.unwrap(),
        MonthDecision::Exhausted { used: 501 }
    );
    // Once seeded, Redis holds the count: the database is not read again.
    let reads = pair.meter.usage_reads();
    pair.b.try_count_month(7, day, HIGH_LIMIT).await.unwrap();
    assert_eq!(pair.meter.usage_reads(), reads);
    pair.cleanup().await;
}

#[tokio::test]
async fn a_failed_flush_keeps_the_increments_of_that_instance() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let day = today();
    let month = month_of_day(day);
    for _ in 0..10 {
        pair.a.try_count_month(7, day, HIGH_LIMIT).await.unwrap();
    }
    pair.meter.set_down(true);
    assert!(matches!(pair.a.flush().await, Err(LimitsError::Unavailable(_))));
    assert_eq!(pair.a.pending_increments(), 10);
    pair.meter.set_down(false);
    pair.a.flush().await.unwrap();
    assert_eq!(pair.meter.persisted(7, month), 10);
    pair.cleanup().await;
}

#[tokio::test]
async fn an_unreachable_redis_is_unavailable() {
    let meter = Arc::new(MemoryAccounts::new());
    let result = RedisLimiter::connect("redis://127.0.0.1:1", meter as _, "linecast-test".into()).await;
    assert!(matches!(result, Err(LimitsError::Unavailable(_))));
}
