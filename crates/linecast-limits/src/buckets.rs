//! In-memory per-key rate buckets: one GCRA timestamp per key.

use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Utc};
use linecast_core::ports::limits::{Rate, RateDecision};

use crate::gcra::{Gcra, Step};

/// Shards keep unrelated keys from contending on one lock.
const SHARDS: usize = 16;

/// Stored TATs by key. One entry per key seen; an entry whose TAT has passed
/// is a full bucket, the same as no entry, so a shard drops those whenever
/// it has grown past `PRUNE_AT` entries.
#[derive(Debug)]
pub(crate) struct RateBuckets {
    shards: Vec<Mutex<foldhash::HashMap<i64, i64>>>,
}

/// Entries per shard above which passed ones are dropped.
const PRUNE_AT: usize = 4096;

impl RateBuckets {
    pub(crate) fn new() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(foldhash::HashMap::default())).collect(),
        }
    }

    pub(crate) fn check(&self, key_id: i64, rate: Rate, now: DateTime<Utc>) -> RateDecision {
        let gcra = Gcra::new(rate);
        let now_us = now.timestamp_micros();
        let shard = &self.shards[key_id.rem_euclid(SHARDS as i64) as usize];
        let mut map = shard.lock().unwrap_or_else(PoisonError::into_inner);
        let step = gcra.step(map.get(&key_id).copied(), now_us);
        if let Step::Admit { tat, .. } = step {
            if map.len() >= PRUNE_AT && !map.contains_key(&key_id) {
                map.retain(|_, &mut t| t > now_us);
            }
            map.insert(key_id, tat);
        }
        gcra.decision(step)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use chrono::TimeZone;

    use super::*;

    const RATE: Rate = Rate {
        per_second: 50,
        burst: 100,
    };

    fn at_ms(ms: i64) -> DateTime<Utc> {
        Utc.timestamp_millis_opt(1_773_000_000_000 + ms).unwrap()
    }

    #[test]
    fn each_key_has_its_own_bucket() {
        let b = RateBuckets::new();
        for _ in 0..100 {
            assert!(matches!(b.check(1, RATE, at_ms(0)), RateDecision::Allowed { .. }));
        }
        assert_eq!(
            b.check(1, RATE, at_ms(0)),
            RateDecision::Refused { retry_after_secs: 1 }
        );
        assert!(matches!(
            b.check(2, RATE, at_ms(0)),
            RateDecision::Allowed { remaining: 99, .. }
        ));
        // 40 ms later two tokens are back for key 1.
        assert!(matches!(
            b.check(1, RATE, at_ms(40)),
            RateDecision::Allowed { remaining: 1, .. }
        ));
    }

    #[test]
    fn passed_entries_are_pruned_once_a_shard_is_large_and_pruning_changes_no_decision() {
        let b = RateBuckets::new();
        // Keys 0, 16, 32, ... share shard 0.
        for i in 0..PRUNE_AT as i64 {
            b.check(i * 16, RATE, at_ms(0));
        }
        assert_eq!(b.shards[0].lock().unwrap().len(), PRUNE_AT);
        // Ten seconds on, every stored bucket is full again: a new key prunes them.
        let late = at_ms(10_000);
        assert!(matches!(
            b.check(-16, RATE, late),
            RateDecision::Allowed { remaining: 99, .. }
        ));
        assert_eq!(b.shards[0].lock().unwrap().len(), 1);
        assert!(matches!(
            b.check(0, RATE, late),
            RateDecision::Allowed { remaining: 99, .. }
        ));
    }
}
