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
