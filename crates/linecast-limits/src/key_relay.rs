//! `RedisKeyRelay`: core's `KeyRelay` port through Redis, so an instance
//! cut off from the accounts database learns of revocations and lapsed
//! subscriptions from the instances that still reach it.
//!
//! Three kinds of keys per namespace (one hash tag, so a Redis Cluster
//! keeps them in one slot):
//! - `<namespace>:{keyrelay}:asked`, a sorted set of the key hashes asked
//!   for, each scored by when it was last asked (ms, Redis's clock). Members
//!   older than [`ASK_WINDOW`] are dropped by the next ask, and are no
//!   longer answered.
//! - `<namespace>:{keyrelay}:key:<hash>`, one answer: `<read ms>|<json>`,
//!   where `<read ms>` is when the database read that found it started
//!   (Redis's clock) and `<json>` the key and its customer (`null`: no key
//!   has this hash). It expires when it is no longer fresh enough to serve.
//! - `<namespace>:{keyrelay}:listened`: when an instance that had just
//!   reached the database last listened for asks (ms, Redis's clock).
//!
//! Every instant is Redis's own clock, so the instances' clocks do not
//! matter. Nothing here is read on the request path: the key cache asks and
//! answers once a second, in its own round.

use std::time::Duration;

use async_trait::async_trait;
use linecast_core::ports::accounts::{AccountsError, ApiKeyRecord, Customer};
use linecast_core::ports::key_directory::KeyEntry;
use linecast_core::ports::key_relay::{KeyRelay, RelayAnswers, RelayedKey};
use linecast_core::ports::limits::LimitsError;
use redis::Script;
use redis::aio::ConnectionManager;
use serde::{Deserialize, Serialize};

use crate::redis_limiter::connect_manager;

/// How long a hash stays asked for after its last ask. Well over the ask
/// round (a second), so a slow round or two keep it asked.
pub const ASK_WINDOW: Duration = Duration::from_secs(10);

/// Redis's clock in ms.
const NOW_MS: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
";

/// KEYS[1] the asked set, KEYS[2] the listened stamp, KEYS[3..] the answers
/// of ARGV[2..]; ARGV[1] the ask window (ms). Marks each hash asked now and
/// returns {now, listened or -1, answer...} (an empty string where there is
/// none).
const ASK_SCRIPT: &str = r"
local window = tonumber(ARGV[1])
if #ARGV > 1 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
  for i = 2, #ARGV do
    redis.call('ZADD', KEYS[1], now, ARGV[i])
  end
  redis.call('PEXPIRE', KEYS[1], window)
end
local listened = tonumber(redis.call('GET', KEYS[2]) or '-1')
local out = {now, listened}
for i = 3, #KEYS do
  local v = redis.call('GET', KEYS[i])
  if v then out[i] = v else out[i] = '' end
end
return out
";

/// KEYS[1] the asked set, KEYS[2] the listened stamp; ARGV[1] the window
/// (ms), ARGV[2] the most to return. Stamps the listen and returns the
/// hashes asked within the window.
const LISTEN_SCRIPT: &str = r"
local window = tonumber(ARGV[1])
redis.call('SET', KEYS[2], now, 'PX', window)
return redis.call('ZRANGEBYSCORE', KEYS[1], now - window, '+inf', 'LIMIT', 0, tonumber(ARGV[2]))
";

/// KEYS the answers; ARGV[1] how long ago the read started (ms), ARGV[2]
/// how long after the read an answer is kept (ms), ARGV[3..] the answers'
/// JSON. An answer already kept from a later read stays.
const ANSWER_SCRIPT: &str = r"
local read = now - tonumber(ARGV[1])
local keep = tonumber(ARGV[2]) - tonumber(ARGV[1])
if keep <= 0 then return 0 end
local stored = 0
for i = 1, #KEYS do
  local old = redis.call('GET', KEYS[i])
  local old_read = old and tonumber(string.match(old, '^(%d+)|'))
  if not old_read or old_read <= read then
    redis.call('SET', KEYS[i], read .. '|' .. ARGV[i + 2], 'PX', keep)
    stored = stored + 1
  end
end
return stored
";

/// A key and its customer as relayed (the port's types, field for field).
#[derive(Serialize, Deserialize)]
struct Wire {
    key: ApiKeyRecord,
    customer: Customer,
}

/// The Redis key relay. Cheap to clone (the connection is shared).
#[derive(Clone)]
pub struct RedisKeyRelay {
    conn: ConnectionManager,
    namespace: String,
    ask: Script,
    listen: Script,
    answer: Script,
}

fn script(body: &str) -> Script {
    Script::new(&format!("{NOW_MS}{body}"))
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn unavailable(e: &redis::RedisError) -> AccountsError {
    AccountsError::Unavailable(format!("the key relay (redis): {e}"))
}

impl RedisKeyRelay {
    /// Connects to `endpoint` (plain or TLS, [`crate::RedisEndpoint`]);
    /// `timeout` bounds each connection attempt and each reply.
    pub async fn connect(
        endpoint: impl Into<crate::RedisEndpoint>,
        namespace: String,
        timeout: Duration,
    ) -> Result<Self, LimitsError> {
        let conn = connect_manager(&endpoint.into(), timeout).await?;
        Ok(Self {
            conn,
            namespace,
            ask: script(ASK_SCRIPT),
            listen: script(LISTEN_SCRIPT),
            answer: script(ANSWER_SCRIPT),
        })
    }

    fn asked_key(&self) -> String {
        format!("{}:{{keyrelay}}:asked", self.namespace)
    }

    fn listened_key(&self) -> String {
        format!("{}:{{keyrelay}}:listened", self.namespace)
    }

    fn answer_key(&self, key_hash: &str) -> String {
        format!("{}:{{keyrelay}}:key:{key_hash}", self.namespace)
    }
}

/// One stored answer read back at `now` (ms): the hash's entry and age, or
/// `None` when it is malformed or not younger than `fresher_than`.
fn parse_answer(key_hash: &str, stored: &str, now: u64, fresher_than: Duration) -> Option<RelayedKey> {
    let (read, json) = stored.split_once('|')?;
    let age = Duration::from_millis(now.saturating_sub(read.parse().ok()?));
    if age >= fresher_than {
        return None;
    }
    let entry = match serde_json::from_str::<Option<Wire>>(json) {
        Ok(wire) => wire.map(|w| KeyEntry::new((w.key, w.customer))),
        Err(e) => {
            tracing::warn!(error = %e, "a relayed key record does not parse; it is ignored");
            return None;
        }
    };
    Some(RelayedKey {
        key_hash: key_hash.to_owned(),
        entry,
        age,
    })
}

#[async_trait]
impl KeyRelay for RedisKeyRelay {
    async fn ask(&self, hashes: &[String], fresher_than: Duration) -> Result<RelayAnswers, AccountsError> {
        let mut invocation = self.ask.key(self.asked_key());
        invocation.key(self.listened_key());
        for hash in hashes {
            invocation.key(self.answer_key(hash));
        }
        invocation.arg(millis(ASK_WINDOW)).arg(hashes);
        let mut conn = self.conn.clone();
        let reply: Vec<redis::Value> = invocation.invoke_async(&mut conn).await.map_err(|e| unavailable(&e))?;
        let mut values = reply.into_iter();
        let (now, listened) = match (values.next(), values.next()) {
            (Some(redis::Value::Int(now)), Some(redis::Value::Int(listened))) => (now, listened),
            other => {
                return Err(AccountsError::Unavailable(format!(
                    "the key relay (redis) answered {other:?} for the time"
                )));
            }
        };
        let listened = (listened >= 0).then(|| Duration::from_millis(u64::try_from(now - listened).unwrap_or(0)));
        let now = u64::try_from(now).unwrap_or(0);
        let keys = hashes
            .iter()
            .zip(values)
            .filter_map(|(hash, value)| match value {
                redis::Value::BulkString(bytes) if !bytes.is_empty() => {
                    parse_answer(hash, std::str::from_utf8(&bytes).ok()?, now, fresher_than)
                }
                _ => None,
            })
            .collect();
        Ok(RelayAnswers { keys, listened })
    }

    async fn listen(&self, limit: usize) -> Result<Vec<String>, AccountsError> {
        let mut conn = self.conn.clone();
        self.listen
            .key(self.asked_key())
            .key(self.listened_key())
            .arg(millis(ASK_WINDOW))
            .arg(limit)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| unavailable(&e))
    }

    async fn answer(
        &self,
        found: &[(String, Option<KeyEntry>)],
        age: Duration,
        keep: Duration,
    ) -> Result<(), AccountsError> {
        if found.is_empty() {
            return Ok(());
        }
        let mut invocation = self.answer.prepare_invoke();
        invocation.arg(millis(age)).arg(millis(keep));
        for (hash, entry) in found {
            let wire = entry.as_ref().map(|e| Wire {
                key: e.0.clone(),
                customer: e.1.clone(),
            });
            let json = serde_json::to_string(&wire)
                .map_err(|e| AccountsError::Unavailable(format!("encoding a relayed key record: {e}")))?;
            invocation.key(self.answer_key(hash)).arg(json);
        }
        let mut conn = self.conn.clone();
        invocation
            .invoke_async::<i64>(&mut conn)
            .await
            .map(drop)
            .map_err(|e| unavailable(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_read_with_its_age_and_dropped_once_too_old() {
        let fresh = parse_answer("h", "1000|null", 4_000, Duration::from_secs(10)).unwrap();
        assert_eq!(fresh.age, Duration::from_secs(3));
        assert!(fresh.entry.is_none(), "null is a hash no key has");
        assert!(parse_answer("h", "1000|null", 11_000, Duration::from_secs(10)).is_none());
        assert!(parse_answer("h", "garbage", 4_000, Duration::from_secs(10)).is_none());
        assert!(parse_answer("h", "1000|{", 4_000, Duration::from_secs(10)).is_none());
    }
}
