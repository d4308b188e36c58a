//! `LeasedRedisLimiter`: both limits shared through Redis, without a round
//! trip per request. Each instance borrows allowance in blocks and serves
//! from it locally:
//!
//! - **Monthly quota**: leases from a per-customer-month ledger (one Redis
//!   hash), by the protocol of [`crate::leases`]: never more served than the
//!   quota, whatever the interleaving. The ledger call is made when a lease
//!   runs dry and once per sync round (every flush, 1 s): it reports what
//!   was served, renews the lease, and gives an idle lease back.
//! - **Per-second limit**: takes a few tokens at once from the key's GCRA
//!   bucket (the same bucket as [`crate::RedisLimiter`]) and uses them for
//!   a short while; leftovers go back. [`crate::tokens`] is the one
//!   definition of how many, for how long, and the bound it keeps: no
//!   instant admits more than the burst, and any 3 s window at most 10%
//!   over `burst + 3 × rate`, however many instances share the key.
//!
//! Leases are alive for [`LEASE_TTL`] after the call that renewed them was
//! sent. When Redis is unreachable the instance keeps serving from what it
//! holds until the lease is used up or dies, then answers `Unavailable`
//! (a 503), as the unleased limiter does at once.
//!
//! Counted requests are written behind to the `UsageMeter` by the instance
//! that served them, exactly as [`crate::RedisLimiter`] does.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::ports::limits::{Limiter, LimitsError, MonthDecision, Rate, RateDecision};
use linecast_core::quota_calendar::month_key;
use linecast_core::quota_calendar::month_of_day;
use linecast_core::{Day, Month, UsageMeter};
use redis::Script;
use redis::aio::ConnectionManager;

use crate::gcra::Gcra;
use crate::leases::{Holding, LeaseCall, LeaseReply, Purpose};
use crate::redis_limiter::{connect_manager, month_expiry, unavailable};
use crate::tokens::Tokens;
use crate::write_behind::WriteBehind;

/// How long a monthly lease may be used after the call that renewed it was
/// sent. Every sync round renews it, so it dies only when Redis has not
/// answered for this long.
pub const LEASE_TTL: Duration = Duration::from_secs(10);

/// How soon a request refused because the rest of the month is leased to
/// other instances may retry: they give idle leases back within two sync
/// rounds.
const HELD_RETRY_SECS: u64 = 2;

/// KEYS[1] the customer-month ledger hash; ARGV: 1 entry id, 2 served, 3
/// keep, 4 want, 5 close ('1' or '0'), 6 limit, 7 seed ('' when none), 8
/// EXPIREAT instant. Returns {status, granted, served, served_total,
/// reserved}; status -1 (nothing done) when the ledger is missing and no seed
/// was given. `Ledger::lease` in `leases.rs` is this script in Rust.
pub const LEASE_SCRIPT: &str = r"
local h = KEYS[1]
if redis.call('EXISTS', h) == 0 then
  if ARGV[7] == '' then return {-1, 0, 0, 0, 0} end
  redis.call('HSET', h, 'closed', ARGV[7])
end
local field = 'e:' .. ARGV[1]
local closed = tonumber(redis.call('HGET', h, 'closed') or '0')
local reserved, served = closed, closed
local g, s = 0, 0
local all = redis.call('HGETALL', h)
for i = 1, #all, 2 do
  local f = all[i]
  if f ~= 'closed' then
    local v = all[i + 1]
    local sep = string.find(v, ':', 1, true)
    local fg = tonumber(string.sub(v, 1, sep - 1))
    local fs = tonumber(string.sub(v, sep + 1))
    if f == field then g, s = fg, fs else reserved = reserved + fg; served = served + fs end
  end
end
local cs = tonumber(ARGV[2])
if cs > s then s = cs end
local kept = s + tonumber(ARGV[3])
if kept < g then g = kept end
if g < s then g = s end
redis.call('EXPIREAT', h, ARGV[8])
if ARGV[5] == '1' then
  redis.call('HDEL', h, field)
  redis.call('HSET', h, 'closed', string.format('%d', closed + s))
  return {1, s, s, served + s, reserved + s}
end
local free = tonumber(ARGV[6]) - reserved - g
local grant = 0
if free > 0 then
  local cap = math.floor(free / 8)
  if cap < 1 then cap = 1 end
  grant = math.min(tonumber(ARGV[4]), cap)
end
g = g + grant
redis.call('HSET', h, field, string.format('%d:%d', g, s))
return {1, g, s, served + s, reserved + g}
";

/// KEYS[1] the key's GCRA bucket (as `RedisLimiter`'s); ARGV: 1 now (µs), 2
/// interval (µs), 3 tolerance (µs), 4 tokens wanted, 5 tokens given back, 6
/// expiry slack (ms). Gives back first (moving the TAT back by their
/// intervals), then takes up to the wanted tokens that fit. Returns {n,
/// ahead} with n ≥ 1 tokens taken and the new TAT `ahead` µs past now, or
/// {0, wait} when none fit (the next one does `wait` µs after now).
const TOKENS_SCRIPT: &str = r"
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1]) - tonumber(ARGV[5]) * interval
if tat < now then tat = now end
local room = math.floor((tolerance - (tat - now)) / interval)
local n = math.min(tonumber(ARGV[4]), room)
if n < 1 then
  if tonumber(ARGV[5]) > 0 then
    redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', math.ceil((tat - now) / 1000) + tonumber(ARGV[6]))
  end
  return {0, tat + interval - now - tolerance}
end
tat = tat + n * interval
redis.call('SET', KEYS[1], string.format('%d', tat), 'PX', math.ceil((tat - now) / 1000) + tonumber(ARGV[6]))
return {n, tat - now}
";

/// How long a key's bucket outlives the instant it is full (as the unleased
/// limiter's).
const RATE_KEY_SLACK_MS: u64 = 60_000;

/// One customer-month's lease on this instance.
struct MonthSlot {
    /// The ledger entry: this instance and the slot's sequence number, so a
    /// retired slot and its successor never share an entry.
    entry: String,
    holding: Mutex<Holding>,
    /// One ledger call at a time per slot.
    calls: tokio::sync::Mutex<()>,
    /// The limit of the last request (the sync round has no request).
    limit: AtomicU64,
    /// Set under `calls` when the slot leaves the map.
    retired: std::sync::atomic::AtomicBool,
}

struct KeySlot {
    tokens: Mutex<Tokens>,
    calls: tokio::sync::Mutex<()>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The Redis limiter that leases (see the module docs).
pub struct LeasedRedisLimiter {
    conn: ConnectionManager,
    namespace: String,
    instance: String,
    lease_script: Script,
    tokens_script: Script,
    months: Mutex<foldhash::HashMap<(i64, Month), Arc<MonthSlot>>>,
    keys: Mutex<foldhash::HashMap<i64, Arc<KeySlot>>>,
    next_slot: AtomicU64,
    buffer: WriteBehind,
    epoch: Instant,
    lease_ttl: Duration,
}

impl LeasedRedisLimiter {
    /// Connects to `endpoint` (plain or TLS, [`crate::RedisEndpoint`]);
    /// keys are prefixed with `namespace` (as
    /// [`crate::RedisLimiter`]'s, so both share one bucket per key).
    /// `timeout` bounds each connection attempt and reply.
    pub async fn connect(
        endpoint: impl Into<crate::RedisEndpoint>,
        meter: Arc<dyn UsageMeter>,
        namespace: String,
        timeout: Duration,
    ) -> Result<Self, LimitsError> {
        let conn = connect_manager(&endpoint.into(), timeout).await?;
        let instance = format!("{:016x}", instance_nonce());
        Ok(Self {
            conn,
            namespace,
            instance,
            lease_script: Script::new(LEASE_SCRIPT),
            tokens_script: Script::new(TOKENS_SCRIPT),
            months: Mutex::new(foldhash::HashMap::default()),
            keys: Mutex::new(foldhash::HashMap::default()),
            next_slot: AtomicU64::new(0),
            buffer: WriteBehind::new(meter),
            epoch: Instant::now(),
            lease_ttl: LEASE_TTL,
        })
    }

    /// Spawns the periodic flush, which is also the sync round.
    pub fn spawn_flusher(self: Arc<Self>, every: Duration) -> crate::Flusher {
        crate::spawn_flusher(self, every)
    }

    /// Counted increments of this instance not yet persisted.
    pub fn pending_increments(&self) -> u64 {
        self.buffer.pending_total()
    }

    /// Unserved allowance this instance holds over every customer-month.
    pub fn held(&self) -> u64 {
        lock(&self.months)
            .values()
            .map(|slot| {
                let h = lock(&slot.holding);
                h.granted - h.served
            })
            .sum()
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn ledger_key(&self, customer_id: i64, month: Month) -> String {
        format!("{}:q:{customer_id}:{}", self.namespace, month_key(month))
    }

    fn rate_key(&self, key_id: i64) -> String {
        format!("{}:r:{key_id}", self.namespace)
    }

    fn month_slot(&self, customer_id: i64, month: Month) -> Arc<MonthSlot> {
        let mut months = lock(&self.months);
        Arc::clone(months.entry((customer_id, month)).or_insert_with(|| {
            let seq = self.next_slot.fetch_add(1, Ordering::Relaxed);
            Arc::new(MonthSlot {
                entry: format!("{}:{seq}", self.instance),
                holding: Mutex::new(Holding::default()),
                calls: tokio::sync::Mutex::new(()),
                limit: AtomicU64::new(0),
                retired: std::sync::atomic::AtomicBool::new(false),
            })
        }))
    }

    fn key_slot(&self, key_id: i64) -> Arc<KeySlot> {
        Arc::clone(lock(&self.keys).entry(key_id).or_insert_with(|| {
            Arc::new(KeySlot {
                tokens: Mutex::new(Tokens::default()),
                calls: tokio::sync::Mutex::new(()),
            })
        }))
    }

    /// One ledger call for `slot` (the caller holds `slot.calls`), seeding
    /// the ledger from the database when Redis lacks it.
    async fn ledger_call(
        &self,
        customer_id: i64,
        month: Month,
        slot: &MonthSlot,
        purpose: Purpose,
    ) -> Result<LeaseReply, LimitsError> {
        let sent = self.now_ms();
        let call = lock(&slot.holding).call(purpose, sent);
        let limit = slot.limit.load(Ordering::Relaxed);
        let key = self.ledger_key(customer_id, month);
        let expire_at = month_expiry(month, Utc::now())?;
        let mut seed = None;
        loop {
            let (status, granted, served, served_total, reserved) =
                self.run_lease(&key, &slot.entry, call, limit, seed, expire_at).await?;
            if status == 1 {
                let reply = LeaseReply {
                    granted,
                    served,
                    served_total,
                    reserved,
                };
                lock(&slot.holding).reply(reply, sent, ms(self.lease_ttl));
                return Ok(reply);
            }
            if seed.is_some() {
                return Err(LimitsError::Unavailable(format!(
                    "lease script status {status} with a seed"
                )));
            }
            let persisted = self.buffer.meter().get_usage(customer_id, month).await?;
            seed = Some(persisted.saturating_add(self.buffer.pending_for(customer_id, month)));
        }
    }

    async fn run_lease(
        &self,
        key: &str,
        entry: &str,
        call: LeaseCall,
        limit: u64,
        seed: Option<u64>,
        expire_at: i64,
    ) -> Result<(i64, u64, u64, u64, u64), LimitsError> {
        let mut conn = self.conn.clone();
        self.lease_script
            .key(key)
            .arg(entry)
            .arg(call.served)
            .arg(call.keep)
            .arg(call.want)
            .arg(if call.close { "1" } else { "0" })
            .arg(limit)
            .arg(seed.map(|s| s.to_string()).unwrap_or_default())
            .arg(expire_at)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable(&e))
    }

    async fn run_tokens(
        &self,
        key_id: i64,
        gcra: Gcra,
        now_us: i64,
        want: u32,
        give_back: u32,
    ) -> Result<(i64, i64), LimitsError> {
        let mut conn = self.conn.clone();
        self.tokens_script
            .key(self.rate_key(key_id))
            .arg(now_us)
            .arg(gcra.interval_us())
            .arg(gcra.tolerance_us())
            .arg(want)
            .arg(give_back)
            .arg(RATE_KEY_SLACK_MS)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable(&e))
    }

    /// The sync round: reports and renews every monthly lease (giving idle
    /// ones back and closing slots idle since the round before), and gives
    /// back the tokens of keys gone quiet. Failures leave the state for the
    /// next round.
    async fn sync(&self) -> Result<(), LimitsError> {
        let mut first_error = None;
        let slots: Vec<((i64, Month), Arc<MonthSlot>)> =
            lock(&self.months).iter().map(|(k, v)| (*k, Arc::clone(v))).collect();
        for ((customer_id, month), slot) in slots {
            let _call = slot.calls.lock().await;
            let idle = {
                let h = lock(&slot.holding);
                h.granted == h.served && h.served_since_sync == 0
            };
            // An idle slot with nothing held is closed and dropped: its
            // served count moves to the ledger's closed total.
            let purpose = if idle { Purpose::Close } else { Purpose::Sync };
            match self.ledger_call(customer_id, month, &slot, purpose).await {
                Ok(_) if idle => {
                    slot.retired.store(true, Ordering::Release);
                    lock(&self.months).remove(&(customer_id, month));
                }
                Ok(_) => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        let keys: Vec<(i64, Arc<KeySlot>)> = lock(&self.keys).iter().map(|(k, v)| (*k, Arc::clone(v))).collect();
        let now_ms = self.now_ms();
        for (key_id, slot) in keys {
            let _call = slot.calls.lock().await;
            let Some((give_back, rate)) = lock(&slot.tokens).quiet(now_ms) else {
                continue;
            };
            if let (true, Some(rate)) = (give_back > 0, rate) {
                let now_us = Utc::now().timestamp_micros();
                if let Err(e) = self.run_tokens(key_id, Gcra::new(rate), now_us, 0, give_back).await {
                    first_error.get_or_insert(e);
                    continue;
                }
                lock(&slot.tokens).gave_back(give_back, rate);
            }
            lock(&self.keys).remove(&key_id);
        }
        first_error.map_or(Ok(()), Err)
    }
}

fn ms(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A per-process nonce naming this instance's ledger entries.
fn instance_nonce() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    h.finish()
}

#[async_trait]
impl Limiter for LeasedRedisLimiter {
    async fn check_rate(&self, key_id: i64, rate: Rate, now: DateTime<Utc>) -> Result<RateDecision, LimitsError> {
        // The instant of `now` on this side's monotonic clock: the tokens'
        // ttl runs from here, so a request that waits for the call lock
        // below does not stretch it (the bucket is stepped at `now`).
        let entered = self.now_ms();
        let slot = self.key_slot(key_id);
        if let Some(d) = lock(&slot.tokens).use_one(entered) {
            return Ok(d);
        }
        let _call = slot.calls.lock().await;
        let sent = self.now_ms();
        let call = {
            let mut t = lock(&slot.tokens);
            if let Some(d) = t.use_one(sent) {
                return Ok(d);
            }
            t.next_call(rate)
        };
        let gcra = Gcra::new(rate);
        let (n, micros) = self
            .run_tokens(key_id, gcra, now.timestamp_micros(), call.want, call.give_back)
            .await?;
        let first = if n < 1 {
            gcra.refused(micros)
        } else {
            gcra.admitted(micros)
        };
        let taken = u32::try_from(n.max(0)).unwrap_or(u32::MAX);
        Ok(lock(&slot.tokens).took(call, rate, entered, taken, first))
    }

    async fn try_count_month(&self, customer_id: i64, day: Day, limit: u64) -> Result<MonthDecision, LimitsError> {
        let month = month_of_day(day);
        loop {
            let slot = self.month_slot(customer_id, month);
            slot.limit.store(limit, Ordering::Relaxed);
            let served = |h: &mut Holding, now| h.try_serve(now).then(|| h.used());
            if let Some(used) = served(&mut lock(&slot.holding), self.now_ms()) {
                self.buffer.record(customer_id, day, 1);
                return Ok(MonthDecision::Counted { used });
            }
            let _call = slot.calls.lock().await;
            if slot.retired.load(Ordering::Acquire) {
                continue;
            }
            if let Some(used) = served(&mut lock(&slot.holding), self.now_ms()) {
                self.buffer.record(customer_id, day, 1);
                return Ok(MonthDecision::Counted { used });
            }
            let reply = self.ledger_call(customer_id, month, &slot, Purpose::Refill).await?;
            let mut h = lock(&slot.holding);
            if let Some(used) = served(&mut h, self.now_ms()) {
                self.buffer.record(customer_id, day, 1);
                return Ok(MonthDecision::Counted { used });
            }
            return Ok(if reply.served_total >= limit {
                MonthDecision::Exhausted {
                    used: reply.served_total,
                }
            } else {
                MonthDecision::Held {
                    used: reply.served_total,
                    retry_after_secs: HELD_RETRY_SECS,
                }
            });
        }
    }

    async fn month_usage(&self, customer_id: i64, month: Month) -> Result<u64, LimitsError> {
        loop {
            let slot = self.month_slot(customer_id, month);
            let _call = slot.calls.lock().await;
            if slot.retired.load(Ordering::Acquire) {
                continue;
            }
            self.ledger_call(customer_id, month, &slot, Purpose::Report).await?;
            return Ok(lock(&slot.holding).used());
        }
    }

    async fn flush(&self) -> Result<(), LimitsError> {
        let synced = self.sync().await;
        self.buffer.flush().await.map(drop)?;
        synced
    }

    async fn release(&self) -> Result<(), LimitsError> {
        let mut first_error = None;
        let slots: Vec<((i64, Month), Arc<MonthSlot>)> = lock(&self.months).drain().collect();
        for ((customer_id, month), slot) in slots {
            let _call = slot.calls.lock().await;
            slot.retired.store(true, Ordering::Release);
            if let Err(e) = self.ledger_call(customer_id, month, &slot, Purpose::Close).await {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }

    async fn ping(&self) -> Result<(), LimitsError> {
        crate::redis_limiter::ping(&self.conn).await
    }
}
