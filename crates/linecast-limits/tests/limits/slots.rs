//! The Redis slot registry (`RedisSlots`) against a real Redis, when
//! `LINECAST_TEST_REDIS_URL` is set: two registries on one namespace stand
//! for two API instances. Each test uses its own namespace and deletes it.

use std::sync::Arc;
use std::time::Duration;

use linecast_core::services::slots::{NoSlot, SlotKind, SlotRegistry, Slots};
use linecast_limits::{RedisSlots, SlotLeases};
use rand::Rng;

use crate::redis::{cleanup, redis_url};

const TIMEOUT: Duration = Duration::from_secs(5);

/// Two registries ("instances") on one Redis namespace.
struct Instances {
    url: String,
    namespace: String,
    a: Arc<RedisSlots>,
    b: Arc<RedisSlots>,
}

impl Instances {
    async fn new(url: String, leases: SlotLeases) -> Self {
        let namespace = format!("linecast-test-{:016x}", rand::rng().random::<u64>());
        let a = RedisSlots::connect(&url, namespace.clone(), TIMEOUT, leases)
            .await
            .unwrap();
        let b = RedisSlots::connect(&url, namespace.clone(), TIMEOUT, leases)
            .await
            .unwrap();
        Self {
            url,
            namespace,
            a: Arc::new(a),
            b: Arc::new(b),
        }
    }

    /// The stream slots of instance `registry`, `cap` per customer.
    fn streams(registry: &Arc<RedisSlots>, cap: u32) -> Arc<Slots> {
        Slots::new("event streams", SlotKind::Stream, cap, 15, registry.clone())
    }

    async fn cleanup(self) {
        cleanup(&self.url, &self.namespace).await;
    }
}

/// Tries to open a slot on `slots` every 20 ms until one is admitted or
/// `within` has passed.
async fn opens_within(slots: &Slots, customer_id: i64, within: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match slots.open(customer_id).await {
            Ok(slot) => {
                drop(slot);
                return true;
            }
            Err(NoSlot::Full(_)) if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            Err(NoSlot::Full(_)) => return false,
            Err(e) => panic!("{e}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_share_one_cap_and_concurrent_takes_never_pass_it() {
    let Some(url) = redis_url() else { return };
    let both = Instances::new(url, SlotLeases::DEFAULT).await;
    let (on_a, on_b) = (Instances::streams(&both.a, 5), Instances::streams(&both.b, 5));
    let mut tasks = Vec::new();
    for i in 0..24 {
        let slots = if i % 2 == 0 { on_a.clone() } else { on_b.clone() };
        tasks.push(tokio::spawn(async move { slots.open(7).await }));
    }
    let mut held = Vec::new();
    for task in tasks {
        match task.await.unwrap() {
            Ok(slot) => held.push(slot),
            Err(NoSlot::Full(full)) => assert_eq!((full.cap, full.retry_after_secs), (5, 15)),
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(held.len(), 5, "exactly the cap across both instances");
    assert_eq!(on_a.held(7).await.unwrap(), 5);
    assert_eq!(on_b.held(7).await.unwrap(), 5);
    assert_eq!(both.a.held_here() + both.b.held_here(), 5);
    // Another customer, and the other kind, have caps of their own.
    let _other = on_b.open(8).await.unwrap();
    let downloads = Slots::new("large downloads", SlotKind::Download, 1, 5, both.a.clone());
    let _download = downloads.open(7).await.unwrap();
    drop(held);
    both.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_slot_is_given_back_to_every_instance_at_once() {
    let Some(url) = redis_url() else { return };
    let both = Instances::new(url, SlotLeases::DEFAULT).await;
    let (on_a, on_b) = (Instances::streams(&both.a, 2), Instances::streams(&both.b, 2));
    let first = on_a.open(3).await.unwrap();
    let _second = on_a.open(3).await.unwrap();
    assert!(matches!(on_b.open(3).await, Err(NoSlot::Full(_))));
    // Dropping does not wait on Redis; the give-back follows in the
    // background, long before the 30 s lease would have lapsed.
    drop(first);
    assert_eq!(both.a.held_here(), 1);
    assert!(opens_within(&on_b, 3, Duration::from_secs(2)).await);
    both.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slots_outlive_their_lease_while_the_heartbeat_renews_them_and_lapse_a_lease_after_it_stops() {
    let Some(url) = redis_url() else { return };
    let leases = SlotLeases {
        lease: Duration::from_millis(800),
        renew_every: Duration::from_millis(200),
    };
    let both = Instances::new(url, leases).await;
    let (on_a, on_b) = (Instances::streams(&both.a, 2), Instances::streams(&both.b, 2));
    let heartbeat = both.a.spawn_heartbeat();
    let held = [on_a.open(4).await.unwrap(), on_a.open(4).await.unwrap()];
    // Two leases later, renewed: still counted on the other instance.
    tokio::time::sleep(leases.lease * 2).await;
    assert!(matches!(on_b.open(4).await, Err(NoSlot::Full(_))));
    assert_eq!(on_b.held(4).await.unwrap(), 2);
    // The instance stops renewing without giving its slots back (a
    // `kill -9`): they lapse within one lease, and the other instance
    // takes them.
    heartbeat.stop().await;
    tokio::time::sleep(leases.lease + Duration::from_millis(100)).await;
    assert_eq!(on_b.held(4).await.unwrap(), 0);
    let taken = [on_b.open(4).await.unwrap(), on_b.open(4).await.unwrap()];
    // The dead instance's late give-backs remove only its own members.
    drop(held);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(on_a.held(4).await.unwrap(), 2);
    drop(taken);
    both.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_release_gives_back_every_slot_of_the_instance() {
    let Some(url) = redis_url() else { return };
    let both = Instances::new(url, SlotLeases::DEFAULT).await;
    let (on_a, on_b) = (Instances::streams(&both.a, 2), Instances::streams(&both.b, 2));
    let held = [on_a.open(5).await.unwrap(), on_a.open(5).await.unwrap()];
    let theirs = on_b.open(6).await.unwrap();
    both.a.release().await.unwrap();
    assert_eq!(both.a.held_here(), 0);
    assert_eq!(on_b.held(5).await.unwrap(), 0);
    assert_eq!(on_b.held(6).await.unwrap(), 1, "another instance's slots stay");
    let _taken = [on_b.open(5).await.unwrap(), on_b.open(5).await.unwrap()];
    drop((held, theirs));
    both.cleanup().await;
}

/// A take Redis cannot run (here the key holds the wrong type) is
/// `Unavailable`, never a slot, and leaves nothing held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_take_redis_cannot_answer_is_unavailable_and_holds_nothing() {
    let Some(url) = redis_url() else { return };
    let both = Instances::new(url.clone(), SlotLeases::DEFAULT).await;
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = redis::cmd("SET")
        .arg(format!("{}:slots:streams:9", both.namespace))
        .arg("not a set")
        .query_async(&mut conn)
        .await
        .unwrap();
    let on_a = Instances::streams(&both.a, 5);
    assert!(matches!(on_a.open(9).await, Err(NoSlot::Unavailable(_))));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(both.a.held_here(), 0);
    both.cleanup().await;
}
