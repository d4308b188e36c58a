//! `RedisLimiter`: both limits counted in Redis, shared by every API
//! instance. Each decision is one Lua script, so check and increment run as
//! one atomic step in Redis (separate commands would race between
//! instances). Counted requests are also written behind to the `UsageMeter`
//! by the instance that counted them, so the database total is the sum over
//! instances.
//!
//! The monthly counter is seeded from the database the first time Redis lacks
//! it (new Redis, eviction): the script reports the missing key, the limiter
//! reads `get_usage` plus its own unflushed increments and runs the script
//! again with that seed; the script seeds only if the key is still missing,
//! so concurrent seeders agree. Increments other instances had not flushed
//! when Redis lost the key are not in the seed (at most one flush interval).
//!
//! The rate bucket is one key per API key holding its GCRA timestamp (see
//! [`crate::Gcra`]); the script does the same state step as the in-process
//! buckets and the answer is read by the same code. It uses the caller's
//! `now`, so instances whose clocks differ by `d` can admit up to `d ×
//! per_second` extra calls of one key while they alternate.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use linecast_core::ports::limits::{Limiter, LimitsError, MonthDecision, Rate, RateDecision};
use linecast_core::quota_calendar::month_key;
use linecast_core::quota_calendar::month_of_day;
use linecast_core::{Day, Month, UsageMeter};
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{AsyncCommands, Script};

use crate::gcra::{Gcra, Step};
use crate::write_behind::WriteBehind;
use linecast_core::services::access::next_month_start;

/// How long a rate bucket's key outlives the instant its bucket is full.
const RATE_KEY_SLACK_MS: u64 = 60_000;

/// KEYS[1] the key's bucket (its TAT in µs); ARGV[1] now (µs), ARGV[2] the
/// interval (µs), ARGV[3] the tolerance (burst × interval, µs), ARGV[4] the
/// expiry slack (ms). The step of
/// `Gcra::step`: returns {1, ahead} when admitted or {0, wait} when refused
/// (nothing stored). An admitted call stores the new TAT to expire
/// `RATE_KEY_SLACK_MS` after the bucket is full again: a missing TAT and a
/// past one both read as a full bucket, so the expiry only frees memory.
/// The slack keeps it from firing early when the caller's clock does not
/// run with Redis's (a frozen test clock, a clock stepped back).
const RATE_SCRIPT: &str = r"
local now = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or ARGV[1])
if tat < now then tat = now end
local nxt = tat + tonumber(ARGV[2])
local ahead = nxt - now
local over = ahead - tonumber(ARGV[3])
if over > 0 then
  return {0, over}
end
redis.call('SET', KEYS[1], string.format('%d', nxt), 'PX', math.ceil(ahead / 1000) + tonumber(ARGV[4]))
return {1, ahead}
";

/// Monthly counters outlive their month by this much, so late flushes and
/// `/me/usage` for last month still read Redis rather than reseeding.
const MONTH_KEY_GRACE_DAYS: i64 = 35;

/// KEYS[1] the month counter; ARGV[1] the limit, ARGV[2] the seed or '' when
/// none was fetched, ARGV[3] the EXPIREAT instant. Returns {status, count}:
/// status 1 counted, 0 exhausted (nothing counted), -1 key missing and no
/// seed given (nothing counted).
const MONTH_SCRIPT: &str = r"
local used = redis.call('GET', KEYS[1])
if used then
  used = tonumber(used)
elseif ARGV[2] == '' then
  return {-1, 0}
else
  used = tonumber(ARGV[2])
  redis.call('SET', KEYS[1], used)
end
if used >= tonumber(ARGV[1]) then
  redis.call('EXPIREAT', KEYS[1], ARGV[3])
  return {0, used}
end
used = redis.call('INCR', KEYS[1])
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return {1, used}
";

/// The Redis-backed limiter. Cheap to share behind an `Arc`; the connection
/// manager reconnects by itself after a Redis restart.
pub struct RedisLimiter {
    conn: ConnectionManager,
    namespace: String,
    rate_script: Script,
    month_script: Script,
    buffer: WriteBehind,
}

/// The default bound of one Redis connection attempt and of one reply.
pub const DEFAULT_REDIS_TIMEOUT: Duration = Duration::from_millis(500);

/// Requests wait on a reconnecting manager, so an outage must turn into a
/// quick 503 rather than stall every request through the library's default
/// backoff (about nine seconds for a refused connection). `timeout` bounds
/// one connection attempt and one reply.
fn connection_config(timeout: Duration) -> ConnectionManagerConfig {
    ConnectionManagerConfig::new()
        .set_number_of_retries(2)
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_millis(250))
        .set_connection_timeout(Some(timeout))
        .set_response_timeout(Some(timeout))
}

/// A reconnecting connection to `url` with `timeout` bounding each attempt
/// and reply.
pub(crate) async fn connect_manager(
    endpoint: &crate::RedisEndpoint,
    timeout: Duration,
) -> Result<ConnectionManager, LimitsError> {
    let client = endpoint.client().map_err(|e| unavailable(&e))?;
    ConnectionManager::new_with_config(client, connection_config(timeout))
        .await
        .map_err(|e| {
            if endpoint.is_tls() && crate::endpoint::is_untrusted_certificate(&e) {
                LimitsError::Unavailable(format!("redis: the server's TLS certificate is not trusted: {e}"))
            } else {
                unavailable(&e)
            }
        })
}

/// When a month's counter may go: the grace period after the month ends, but
/// never less than the grace period from the wall clock. A frozen demo clock
/// (`LINECAST_NOW`) may count an old month, and an EXPIREAT in the past would
/// delete the counter at once, reseeding it from the database on every call.
pub(crate) fn month_expiry(month: Month, wall_clock: DateTime<Utc>) -> Result<i64, LimitsError> {
    let end =
        next_month_start(month).ok_or_else(|| LimitsError::Unavailable(format!("month out of range: {month:?}")))?;
    let grace = chrono::Duration::days(MONTH_KEY_GRACE_DAYS);
    Ok((end.max(wall_clock) + grace).timestamp())
}

pub(crate) fn unavailable(e: &redis::RedisError) -> LimitsError {
    LimitsError::Unavailable(format!("redis: {e}"))
}

impl RedisLimiter {
    /// Connects to `endpoint` (`redis://host:port/db`, or `rediss://` for
    /// TLS: [`crate::RedisEndpoint`]). Keys are prefixed with
    /// `namespace`, so several deployments (or tests) can share one Redis.
    pub async fn connect(
        endpoint: impl Into<crate::RedisEndpoint>,
        meter: Arc<dyn UsageMeter>,
        namespace: String,
    ) -> Result<Self, LimitsError> {
        Self::connect_with_timeout(endpoint, meter, namespace, DEFAULT_REDIS_TIMEOUT).await
    }

    /// [`Self::connect`] with `timeout` bounding each connection attempt and
    /// each reply (past it the call is `Unavailable`).
    pub async fn connect_with_timeout(
        endpoint: impl Into<crate::RedisEndpoint>,
        meter: Arc<dyn UsageMeter>,
        namespace: String,
        timeout: Duration,
    ) -> Result<Self, LimitsError> {
        let conn = connect_manager(&endpoint.into(), timeout).await?;
        Ok(Self {
            conn,
            namespace,
            rate_script: Script::new(RATE_SCRIPT),
            month_script: Script::new(MONTH_SCRIPT),
            buffer: WriteBehind::new(meter),
        })
    }

    /// Spawns the periodic flush (see [`crate::spawn_flusher`]).
    pub fn spawn_flusher(self: Arc<Self>, every: Duration) -> crate::Flusher {
        crate::spawn_flusher(self, every)
    }

    /// Counted increments of this instance not yet persisted.
    pub fn pending_increments(&self) -> u64 {
        self.buffer.pending_total()
    }

    fn rate_key(&self, key_id: i64) -> String {
        format!("{}:r:{key_id}", self.namespace)
    }

    fn month_key(&self, customer_id: i64, month: Month) -> String {
        format!("{}:m:{customer_id}:{}", self.namespace, month_key(month))
    }

    /// The persisted count plus this instance's unflushed increments.
    async fn seed(&self, customer_id: i64, month: Month) -> Result<u64, LimitsError> {
        let persisted = self.buffer.meter().get_usage(customer_id, month).await?;
        Ok(persisted.saturating_add(self.buffer.pending_for(customer_id, month)))
    }

    async fn run_month_script(
        &self,
        key: &str,
        limit: u64,
        seed: Option<u64>,
        expire_at: i64,
    ) -> Result<(i64, u64), LimitsError> {
        let mut conn = self.conn.clone();
        let seed = seed.map(|s| s.to_string()).unwrap_or_default();
        self.month_script
            .key(key)
            .arg(limit)
            .arg(seed)
            .arg(expire_at)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable(&e))
    }
}

#[async_trait]
impl Limiter for RedisLimiter {
    async fn check_rate(&self, key_id: i64, rate: Rate, now: DateTime<Utc>) -> Result<RateDecision, LimitsError> {
        let gcra = Gcra::new(rate);
        let mut conn = self.conn.clone();
        let (admitted, micros): (i64, i64) = self
            .rate_script
            .key(self.rate_key(key_id))
            .arg(now.timestamp_micros())
            .arg(gcra.interval_us())
            .arg(gcra.tolerance_us())
            .arg(RATE_KEY_SLACK_MS)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable(&e))?;
        Ok(gcra.decision(if admitted == 1 {
            Step::Admit {
                tat: now.timestamp_micros() + micros,
                ahead_us: micros,
            }
        } else {
            Step::Refuse { wait_us: micros }
        }))
    }

    async fn try_count_month(&self, customer_id: i64, day: Day, limit: u64) -> Result<MonthDecision, LimitsError> {
        let month = month_of_day(day);
        let key = self.month_key(customer_id, month);
        let expire_at = month_expiry(month, Utc::now())?;
        let mut seed = None;
        loop {
            let (status, used) = self.run_month_script(&key, limit, seed, expire_at).await?;
            match status {
                1 => {
                    self.buffer.record(customer_id, day, 1);
                    return Ok(MonthDecision::Counted { used });
                }
                0 => return Ok(MonthDecision::Exhausted { used }),
                // Missing key: fetch the seed once, then the script seeds it
                // unless another caller did first.
                _ if seed.is_none() => seed = Some(self.seed(customer_id, month).await?),
                _ => {
                    return Err(LimitsError::Unavailable(format!(
                        "month script status {status} with a seed"
                    )));
                }
            }
        }
    }

    async fn month_usage(&self, customer_id: i64, month: Month) -> Result<u64, LimitsError> {
        let mut conn = self.conn.clone();
        let used: Option<u64> = conn
            .get(self.month_key(customer_id, month))
            .await
            .map_err(|e| unavailable(&e))?;
        match used {
            Some(used) => Ok(used),
            None => self.seed(customer_id, month).await,
        }
    }

    async fn flush(&self) -> Result<(), LimitsError> {
        self.buffer.flush().await.map(drop)
    }

    async fn ping(&self) -> Result<(), LimitsError> {
        ping(&self.conn).await
    }
}

/// One `PING` on `conn`, bounded by the connection's reply timeout.
pub(crate) async fn ping(conn: &ConnectionManager) -> Result<(), LimitsError> {
    let mut conn = conn.clone();
    let pong: String = redis::cmd("PING")
        .query_async(&mut conn)
        .await
        .map_err(|e| unavailable(&e))?;
    if pong == "PONG" {
        Ok(())
    } else {
        Err(LimitsError::Unavailable(format!("redis: PING answered {pong:?}")))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use chrono::TimeZone;

    #[test]
    fn a_month_counter_lives_35_days_past_the_month_end() {
        let wall = Utc.with_ymd_and_hms(2026, 3, 10, 0, 0, 0).unwrap();
        let expected = Utc.with_ymd_and_hms(2026, 5, 6, 0, 0, 0).unwrap().timestamp();
        assert_eq!(month_expiry((2026, 3), wall).unwrap(), expected);
    }

    #[test]
    fn an_old_month_counter_never_expires_in_the_past() {
        let wall = Utc.with_ymd_and_hms(2026, 9, 1, 0, 0, 0).unwrap();
        assert_eq!(
            month_expiry((2026, 1), wall).unwrap(),
            (wall + chrono::Duration::days(35)).timestamp()
        );
    }
}
