//! In-memory per-key fixed one-second windows.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use chrono::{DateTime, Utc};
use linecast_core::ports::limits::SecondDecision;

/// Shards keep unrelated keys from contending on one lock.
const SHARDS: usize = 16;

/// One entry per key (the current window only), so memory is bounded by the
/// number of keys seen.
#[derive(Debug)]
pub(crate) struct SecondWindows {
    shards: Vec<Mutex<HashMap<i64, Window>>>,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    unix_second: i64,
    seen: u32,
}

impl SecondWindows {
    pub(crate) fn new() -> Self {
        Self {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }

    pub(crate) fn check(&self, key_id: i64, limit: u32, now: DateTime<Utc>) -> SecondDecision {
        let second = now.timestamp();
        let shard = &self.shards[key_id.rem_euclid(SHARDS as i64) as usize];
        let mut map = shard.lock().unwrap_or_else(PoisonError::into_inner);
        let window = map.entry(key_id).or_insert(Window {
            unix_second: second,
            seen: 0,
        });
        // A call stamped earlier than the current window (callers race on the
        // clock) counts against the current one: never more lenient.
        if second > window.unix_second {
            *window = Window {
                unix_second: second,
                seen: 0,
            };
        }
        window.seen = window.seen.saturating_add(1);
        if window.seen > limit {
            SecondDecision::Refused { retry_after_secs: 1 }
        } else {
            SecondDecision::Allowed
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::collections::BTreeMap;

    use chrono::TimeZone;
    use proptest::prelude::*;

    use super::*;

    fn at(second: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_773_000_000 + second, 0).unwrap()
    }

    proptest! {
        /// For calls of several keys in non-decreasing seconds, each key is
        /// allowed exactly min(calls, limit) times in every second, and every
        /// refusal says to retry after one second.
        #[test]
        fn each_key_gets_exactly_its_limit_in_every_second(
            limit in 0u32..8,
            calls in proptest::collection::vec((0i64..3, 0i64..4), 0..120),
        ) {
            let mut calls = calls;
            calls.sort_by_key(|&(_, second)| second);
            let windows = SecondWindows::new();
            let mut allowed = BTreeMap::<(i64, i64), u32>::new();
            let mut made = BTreeMap::<(i64, i64), u32>::new();
            for &(key, second) in &calls {
                *made.entry((key, second)).or_default() += 1;
                match windows.check(key, limit, at(second)) {
                    SecondDecision::Allowed => *allowed.entry((key, second)).or_default() += 1,
                    SecondDecision::Refused { retry_after_secs } => prop_assert_eq!(retry_after_secs, 1),
                }
            }
            for (window, n) in made {
                prop_assert_eq!(allowed.get(&window).copied().unwrap_or(0), n.min(limit));
            }
        }
    }
}
