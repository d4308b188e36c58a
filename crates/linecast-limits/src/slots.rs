//! `RedisSlots`: the per-customer slot caps (open event streams, large
//! downloads in flight) counted in Redis, so a cap holds across every
//! instance sharing it (core's `SlotRegistry` port).
//!
//! Per (namespace, kind, customer) one sorted set: its members are the slots
//! held, each a unique id (this instance's random id and a counter), scored
//! by the instant its lease runs out (ms, Redis's clock, so the instances'
//! clocks do not matter). Taking a slot is one Lua script: drop the lapsed
//! members, count the rest, add the new one if below the cap, keep the key
//! alive for a lease. Giving one back is a `ZREM`, sent in the background
//! (it runs from `Drop`); one that fails is retried by the next heartbeat,
//! and at worst lapses with its lease.
//!
//! Each instance renews the slots it holds every `renew_every` (the
//! heartbeat, [`RedisSlots::spawn_heartbeat`]), so the slots of an instance
//! that died (`kill -9`, a lost host) lapse within one lease of its last
//! renewal; a graceful shutdown gives them back at once
//! ([`SlotRegistry::release`]). A renewal never brings back a slot that
//! already lapsed (its holder was cut off from Redis for a whole lease): its
//! response runs on uncounted, and is logged.
//!
//! A Redis failure while taking a slot is `Unavailable` (a 503), never a
//! slot by default.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use linecast_core::ports::limits::LimitsError;
use linecast_core::ports::slots::{SlotId, SlotKind, SlotRegistry};
use redis::Script;
use redis::aio::ConnectionManager;

use crate::redis_limiter::{connect_manager, unavailable};

/// How long a slot lives without a renewal, and how often its instance
/// renews it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlotLeases {
    /// A slot not renewed for this long lapses: the bound on how long a
    /// crashed instance's slots keep counting.
    pub lease: Duration,
    /// How often the heartbeat renews the slots held (well under `lease`,
    /// so a slow round or two do not let them lapse).
    pub renew_every: Duration,
}

impl SlotLeases {
    /// A 30 s lease renewed every 10 s.
    pub const DEFAULT: Self = Self {
        lease: Duration::from_secs(30),
        renew_every: Duration::from_secs(10),
    };
}

impl Default for SlotLeases {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Redis's clock in ms, as the scripts below read it.
const NOW_MS: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
";

/// KEYS[1] the (kind, customer) set; ARGV[1] the cap, ARGV[2] the lease
/// (ms), ARGV[3] the new member. Returns {1, held} when the slot was taken
/// (`held` includes it) or {0, held} when `held` reached the cap (nothing
/// added). The key lives at least a lease past the newest member's renewal.
const TAKE_SCRIPT: &str = r"
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local held = redis.call('ZCARD', KEYS[1])
if held >= tonumber(ARGV[1]) then
  return {0, held}
end
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
if redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], lease)
end
return {1, held + 1}
";

/// KEYS[1] a (kind, customer) set; ARGV[1] the lease (ms), ARGV[2..] this
/// instance's members in it. Moves each live member's expiry a lease past
/// now; a member already lapsed (or gone) is left out. Returns how many
/// were not renewed.
const RENEW_SCRIPT: &str = r"
local lease = tonumber(ARGV[1])
local lapsed = 0
for i = 2, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) > now then
    redis.call('ZADD', KEYS[1], now + lease, ARGV[i])
  else
    lapsed = lapsed + 1
  end
end
if redis.call('EXISTS', KEYS[1]) == 1 and redis.call('PTTL', KEYS[1]) < lease then
  redis.call('PEXPIRE', KEYS[1], lease)
end
return lapsed
";

/// KEYS[1] a (kind, customer) set. Returns its live members.
const HELD_SCRIPT: &str = r"
return redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf')
";

/// A slot of this instance: its set and its member.
type Entry = (String, String);

/// The Redis slot registry. Share it behind an `Arc`; run its heartbeat.
pub struct RedisSlots {
    inner: Arc<Inner>,
}

struct Inner {
    conn: ConnectionManager,
    namespace: String,
    /// This instance's part of every member it adds.
    instance: String,
    next: AtomicU64,
    leases: SlotLeases,
    take: Script,
    renew: Script,
    count: Script,
    /// The slots this instance holds (renewed by the heartbeat), by id.
    held: Mutex<HashMap<u64, Entry>>,
    /// Slots given back whose `ZREM` has not been seen to succeed.
    returning: Mutex<HashMap<u64, Entry>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn script(body: &str) -> Script {
    Script::new(&format!("{NOW_MS}{body}"))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

impl RedisSlots {
    /// Connects to `endpoint` (plain or TLS, [`crate::RedisEndpoint`]); keys
    /// are `<namespace>:slots:<kind>:<customer>`.
    /// `timeout` bounds each connection attempt and each reply (past it a
    /// take is `Unavailable`).
    pub async fn connect(
        endpoint: impl Into<crate::RedisEndpoint>,
        namespace: String,
        timeout: Duration,
        leases: SlotLeases,
    ) -> Result<Self, LimitsError> {
        let conn = connect_manager(&endpoint.into(), timeout).await?;
        Ok(Self {
            inner: Arc::new(Inner {
                conn,
                namespace,
                instance: format!("{:016x}", rand::random::<u64>()),
                next: AtomicU64::new(0),
                leases,
                take: script(TAKE_SCRIPT),
                renew: script(RENEW_SCRIPT),
                count: script(HELD_SCRIPT),
                held: Mutex::new(HashMap::new()),
                returning: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The lease and the heartbeat's period.
    pub fn leases(&self) -> SlotLeases {
        self.inner.leases
    }

    /// Slots this instance holds now.
    pub fn held_here(&self) -> usize {
        lock(&self.inner.held).len()
    }

    /// Runs [`RedisSlots::renew`] every `renew_every` until stopped; a
    /// failed round is logged (the next one retries; past a lease without
    /// one, the slots lapse).
    pub fn spawn_heartbeat(self: &Arc<Self>) -> crate::Flusher {
        let slots = Arc::clone(self);
        crate::Flusher::spawn(self.inner.leases.renew_every, move || {
            let slots = Arc::clone(&slots);
            async move {
                if let Err(e) = slots.renew().await {
                    tracing::warn!(error = %e, "renewing stream and download slots failed; they lapse a lease after the last renewal");
                }
            }
        })
    }

    /// One heartbeat round: retries the give-backs not yet seen to succeed,
    /// then renews the lease of every slot this instance holds.
    pub async fn renew(&self) -> Result<(), LimitsError> {
        let inner = &self.inner;
        let returning: Vec<(u64, Entry)> = lock(&inner.returning).iter().map(|(id, e)| (*id, e.clone())).collect();
        for (id, (key, member)) in returning {
            inner.remove(&key, &member).await?;
            lock(&inner.returning).remove(&id);
        }
        let mut by_key: HashMap<String, Vec<String>> = HashMap::new();
        for (key, member) in lock(&inner.held).values() {
            by_key.entry(key.clone()).or_default().push(member.clone());
        }
        for (key, members) in by_key {
            let mut conn = inner.conn.clone();
            let lapsed: u64 = inner
                .renew
                .key(&key)
                .arg(millis(inner.leases.lease))
                .arg(&members)
                .invoke_async(&mut conn)
                .await
                .map_err(|e| unavailable(&e))?;
            if lapsed > 0 {
                tracing::warn!(
                    key,
                    lapsed,
                    "slots lapsed before their renewal (Redis unreachable for a whole lease): their responses run on uncounted"
                );
            }
        }
        Ok(())
    }
}

impl Inner {
    fn key(&self, kind: SlotKind, customer_id: i64) -> String {
        format!("{}:slots:{}:{customer_id}", self.namespace, kind.as_str())
    }

    fn member(&self, id: u64) -> String {
        format!("{}:{id}", self.instance)
    }

    async fn remove(&self, key: &str, member: &str) -> Result<(), LimitsError> {
        let mut conn = self.conn.clone();
        redis::cmd("ZREM")
            .arg(key)
            .arg(member)
            .query_async::<i64>(&mut conn)
            .await
            .map(drop)
            .map_err(|e| unavailable(&e))
    }

    /// Stops renewing slot `id` and sends its `ZREM` in the background
    /// (without a runtime, the next heartbeat or `release` sends it).
    fn give_back(self: &Arc<Self>, id: u64) {
        let Some(entry) = lock(&self.held).remove(&id) else {
            return;
        };
        lock(&self.returning).insert(id, entry.clone());
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let inner = Arc::clone(self);
            runtime.spawn(async move {
                let (key, member) = entry;
                if inner.remove(&key, &member).await.is_ok() {
                    lock(&inner.returning).remove(&id);
                }
            });
        }
    }
}

/// A slot being taken: given back if the take fails or is cancelled (its
/// request dropped while the script ran), so it never waits for its lease
/// to lapse.
struct Taking<'a> {
    inner: &'a Arc<Inner>,
    id: u64,
    armed: bool,
}

impl Drop for Taking<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.inner.give_back(self.id);
        }
    }
}

#[async_trait]
impl SlotRegistry for RedisSlots {
    async fn take(&self, kind: SlotKind, customer_id: i64, cap: u32) -> Result<Option<SlotId>, LimitsError> {
        let inner = &self.inner;
        let id = inner.next.fetch_add(1, Ordering::Relaxed);
        let (key, member) = (inner.key(kind, customer_id), inner.member(id));
        // Held (and so renewed, or given back) from before the script runs.
        lock(&inner.held).insert(id, (key.clone(), member.clone()));
        let mut taking = Taking { inner, id, armed: true };
        let mut conn = inner.conn.clone();
        let (taken, _held): (i64, i64) = inner
            .take
            .key(&key)
            .arg(cap)
            .arg(millis(inner.leases.lease))
            .arg(&member)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable(&e))?;
        taking.armed = false;
        if taken == 1 {
            Ok(Some(SlotId(id)))
        } else {
            // Nothing was added.
            lock(&inner.held).remove(&id);
            Ok(None)
        }
    }

    fn give_back(&self, _kind: SlotKind, _customer_id: i64, slot: SlotId) {
        self.inner.give_back(slot.0);
    }

    async fn held(&self, kind: SlotKind, customer_id: i64) -> Result<u32, LimitsError> {
        let mut conn = self.inner.conn.clone();
        self.inner
            .count
            .key(self.inner.key(kind, customer_id))
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable(&e))
    }

    /// Gives back every slot this instance holds or is giving back.
    async fn release(&self) -> Result<(), LimitsError> {
        let inner = &self.inner;
        let all: Vec<(u64, Entry)> = {
            let mut held = lock(&inner.held);
            let mut returning = lock(&inner.returning);
            returning.extend(held.drain());
            returning.iter().map(|(id, e)| (*id, e.clone())).collect()
        };
        for (id, (key, member)) in all {
            inner.remove(&key, &member).await?;
            lock(&inner.returning).remove(&id);
        }
        Ok(())
    }
}
