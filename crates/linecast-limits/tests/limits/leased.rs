//! The leasing Redis limiter against a real Redis (when
//! `LINECAST_TEST_REDIS_URL` is set): its script is the ledger of
//! `leases.rs`, two instances serve a quota exactly under 64 concurrent
//! callers, idle leases go back, and the per-second limit holds within the
//! leases' slack.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chrono::Utc;
use linecast_core::quota_calendar::month_of_day;
use linecast_core::testing::MemoryAccounts;
use linecast_limits::leases::{Entry, LeaseCall, Ledger};
use linecast_limits::{LEASE_SCRIPT, LeasedRedisLimiter, Limiter, MonthDecision, RateDecision};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::redis::{cleanup, redis_url, today};
use crate::support::RATE;

struct Pair {
    url: String,
    namespace: String,
    meter: Arc<MemoryAccounts>,
    a: Arc<LeasedRedisLimiter>,
    b: Arc<LeasedRedisLimiter>,
}

impl Pair {
    async fn new(url: String) -> Self {
        let namespace = format!("linecast-test-{:016x}", rand::rng().random::<u64>());
        let meter = Arc::new(MemoryAccounts::new());
        let connect =
            || LeasedRedisLimiter::connect(&url, meter.clone() as _, namespace.clone(), Duration::from_secs(30));
        let a = Arc::new(connect().await.unwrap());
        let b = Arc::new(connect().await.unwrap());
        Self {
            url: url.clone(),
            namespace,
            meter,
            a,
            b,
        }
    }

    fn both(&self) -> [Arc<dyn Limiter>; 2] {
        [self.a.clone() as _, self.b.clone() as _]
    }
}

/// The ledger as Redis holds it: `closed` and every entry.
async fn ledger_in_redis(conn: &mut redis::aio::MultiplexedConnection, key: &str) -> Option<Ledger> {
    let all: BTreeMap<String, String> = redis::cmd("HGETALL").arg(key).query_async(conn).await.unwrap();
    if all.is_empty() {
        return None;
    }
    let mut ledger = Ledger::seeded(all["closed"].parse().unwrap());
    for (field, value) in &all {
        if let Some(id) = field.strip_prefix("e:") {
            let (g, s) = value.split_once(':').unwrap();
            ledger.entries.insert(
                id.to_owned(),
                Entry {
                    granted: g.parse().unwrap(),
                    served: s.parse().unwrap(),
                },
            );
        }
    }
    Some(ledger)
}

#[tokio::test]
async fn the_lease_script_answers_every_call_exactly_as_the_ledger_of_leases_rs() {
    let Some(url) = redis_url() else { return };
    let namespace = format!("linecast-test-{:016x}", rand::rng().random::<u64>());
    let key = format!("{namespace}:q:ledger");
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let script = redis::Script::new(LEASE_SCRIPT);
    let mut rng = StdRng::seed_from_u64(23);
    let mut model: Option<Ledger> = None;
    let expire_at = (Utc::now() + chrono::Duration::days(1)).timestamp();
    for step in 0..3_000 {
        let id = ["a", "b", "c"][rng.random_range(0..3)];
        let known = model
            .as_ref()
            .and_then(|m| m.entries.get(id))
            .map_or(0, |e: &Entry| e.served);
        // Served counts mostly move on, sometimes arrive stale.
        let served = if rng.random_bool(0.2) {
            known.saturating_sub(rng.random_range(0..3))
        } else {
            known + rng.random_range(0..6)
        };
        let call = LeaseCall {
            served,
            keep: rng.random_range(0..12),
            want: rng.random_range(0..80),
            close: rng.random_bool(0.07),
        };
        let limit = if rng.random_bool(0.1) { 50 } else { 600 };
        let seed: Option<u64> = if model.is_none() && rng.random_bool(0.5) {
            Some(rng.random_range(0..40))
        } else {
            None
        };
        let (status, granted, served_back, served_total, reserved): (i64, u64, u64, u64, u64) = script
            .key(&key)
            .arg(id)
            .arg(call.served)
            .arg(call.keep)
            .arg(call.want)
            .arg(if call.close { "1" } else { "0" })
            .arg(limit)
            .arg(seed.map(|s| s.to_string()).unwrap_or_default())
            .arg(expire_at)
            .invoke_async(&mut conn)
            .await
            .unwrap();
        if model.is_none() {
            match seed {
                None => {
                    assert_eq!(status, -1, "step {step}: a missing ledger asks for a seed");
                    continue;
                }
                Some(seed) => model = Some(Ledger::seeded(seed)),
            }
        }
        let ledger = model.as_mut().unwrap();
        let expected = ledger.lease(id, call, limit);
        assert_eq!(status, 1, "step {step}");
        assert_eq!(
            (granted, served_back, served_total, reserved),
            (
                expected.granted,
                expected.served,
                expected.served_total,
                expected.reserved
            ),
            "step {step}: {call:?} under {limit}"
        );
        assert_eq!(
            ledger_in_redis(&mut conn, &key).await.as_ref(),
            Some(&*ledger),
            "step {step}"
        );
    }
    let _: () = redis::cmd("DEL").arg(&key).query_async(&mut conn).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_leasing_instances_serve_a_quota_of_1000_exactly_under_64_concurrent_callers() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let day = today();
    let month = month_of_day(day);
    let flushers = [
        pair.a.clone().spawn_flusher(Duration::from_millis(100)),
        pair.b.clone().spawn_flusher(Duration::from_millis(100)),
    ];
    let counted = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for limiter in pair.both() {
        for _ in 0..32 {
            let limiter = Arc::clone(&limiter);
            let counted = Arc::clone(&counted);
            tasks.push(tokio::spawn(async move {
                let mut held = 0;
                loop {
                    match limiter.try_count_month(7, day, 1_000).await.unwrap() {
                        MonthDecision::Counted { .. } => {
                            counted.fetch_add(1, Ordering::Relaxed);
                        }
                        MonthDecision::Exhausted { used } => return (used, held),
                        // The rest sits in the other instance's lease: it
                        // comes back when that one goes idle.
                        MonthDecision::Held { .. } => {
                            held += 1;
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                    }
                }
            }));
        }
    }
    for task in tasks {
        let (used, _) = task.await.unwrap();
        assert_eq!(used, 1_000, "a caller is told the month is used up only when it is");
    }
    assert_eq!(counted.load(Ordering::Relaxed), 1_000, "exactly the quota was served");
    for f in flushers {
        f.stop().await;
    }
    for limiter in [&pair.a, &pair.b] {
        limiter.release().await.unwrap();
        limiter.flush().await.unwrap();
    }
    assert_eq!(
        pair.meter.persisted(7, month),
        1_000,
        "the database holds what was served"
    );
    assert_eq!(
        pair.meter.persisted_day(7, day),
        1_000,
        "the day rides the same batches"
    );
    assert_eq!(pair.a.month_usage(7, month).await.unwrap(), 1_000);
    cleanup(&pair.url, &pair.namespace).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_lease_goes_back_at_the_next_sync_and_the_slot_closes_at_the_one_after() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let day = today();
    let month = month_of_day(day);
    for _ in 0..40 {
        pair.a.try_count_month(7, day, 10_000).await.unwrap();
    }
    assert!(pair.a.held() > 0, "a busy instance holds a block ahead");
    let client = redis::Client::open(pair.url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let key = format!("{}:q:7:{}-{:02}", pair.namespace, month.0, month.1);
    pair.a.flush().await.unwrap(); // busy since the last round: kept
    pair.a.flush().await.unwrap(); // idle: given back
    assert_eq!(pair.a.held(), 0);
    let ledger = ledger_in_redis(&mut conn, &key).await.unwrap();
    assert_eq!((ledger.reserved(), ledger.served()), (40, 40));
    pair.a.flush().await.unwrap(); // idle with nothing held: closed
    let ledger = ledger_in_redis(&mut conn, &key).await.unwrap();
    assert_eq!((ledger.closed, ledger.entries.len()), (40, 0));
    // The other instance now sees the whole count, and so does this one.
    assert_eq!(pair.b.month_usage(7, month).await.unwrap(), 40);
    assert_eq!(pair.a.month_usage(7, month).await.unwrap(), 40);
    assert_eq!(pair.meter.persisted(7, month), 40);
    cleanup(&pair.url, &pair.namespace).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_three_second_flood_on_the_real_clock_across_two_leasing_instances_stays_within_10_percent_of_the_bound() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let limiters = pair.both();
    let flushers = [
        pair.a.clone().spawn_flusher(Duration::from_millis(200)),
        pair.b.clone().spawn_flusher(Duration::from_millis(200)),
    ];
    let started = Instant::now();
    let mut admitted = 0u32;
    let mut k = 0usize;
    // One call about every 2 ms (500/s, ten times the rate), alternating.
    while started.elapsed() < Duration::from_secs(3) {
        if let RateDecision::Allowed { .. } = limiters[k % 2].check_rate(9, RATE, Utc::now()).await.unwrap() {
            admitted += 1;
        }
        k += 1;
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let span = started.elapsed().as_secs_f64();
    let bound = f64::from(RATE.burst) + f64::from(RATE.per_second) * span;
    eprintln!("{admitted} of {k} calls admitted in {span:.2} s; bound {bound:.0}");
    assert!(
        f64::from(admitted) <= 1.1 * bound,
        "{admitted} admitted in {span:.2} s; bound {bound:.0}"
    );
    // Liveness: the burst and most of the sustained rate got through.
    assert!(
        f64::from(admitted) >= 0.8 * bound.min(k as f64),
        "{admitted} of {k} calls admitted in {span:.2} s"
    );
    for f in flushers {
        f.stop().await;
    }
    cleanup(&pair.url, &pair.namespace).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_instance_gives_a_quiet_key_its_whole_burst_at_one_instant() {
    let Some(url) = redis_url() else { return };
    let pair = Pair::new(url).await;
    let now = Utc::now();
    let mut allowed = 0;
    for _ in 0..130 {
        if let RateDecision::Allowed { .. } = pair.a.check_rate(4, RATE, now).await.unwrap() {
            allowed += 1;
        }
    }
    assert_eq!(allowed, 100);
    cleanup(&pair.url, &pair.namespace).await;
}
