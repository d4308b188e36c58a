//! The per-second side of the leased limiter: one instance's borrowed
//! tokens of one key's GCRA bucket. The one definition of how long taken
//! tokens may be used, how many are taken at once, and when leftover ones
//! go back. Pure: the adapter (`leased.rs`) holds it under a lock and makes
//! the Redis calls it asks for.
//!
//! **Bound.** Tokens come out of the shared bucket, so the tokens *taken*
//! over any span of `d` seconds number at most `burst + rate × d`
//! ([`crate::Gcra`]). An instance uses a token before [`token_ttl_ms`] has
//! passed since the instant the bucket was stepped at (the asking
//! request's own), so the tokens *used* in any 3 s window were taken
//! within `3 s + ttl`. The ttl is one interval short
//! of `k` token intervals, `k` a tenth of the 3 s bound `burst + 3 × rate`:
//! any 3 s window admits at most 10% more than that bound, however many
//! instances share the key (499 ms at the spec's 50/s and burst 100). When a
//! tenth is under one call (tiny plans) the ttl is under one interval and
//! the bound is exact.
//!
//! **Size.** One instance holds at most one take, at most an eighth of the
//! burst (and at most `k`), so on one instance the excess is smaller still
//! (12 calls at the spec's rate, 4.8%). The next take doubles when the last
//! one was used up before it died and shrinks to what was used otherwise:
//! a key used at 10 req/s settles at takes of 5 and 10, about five requests
//! per Redis call.
//!
//! **Leftovers** go back (the bucket's TAT moves back by their intervals)
//! with the key's next take, or from the sync round once they have been
//! dead for a whole ttl (the key went quiet), when the slot is dropped.

use linecast_core::ports::limits::{Rate, RateDecision};

use crate::gcra::Gcra;

/// The window of the bound, in seconds.
pub const WINDOW_SECS: u64 = 3;

/// The excess allowed over the window's bound: one part in this many.
pub const EXCESS_PARTS: u64 = 10;

/// The longest ttl whatever the plan (a plan of 1/s with a large burst
/// would otherwise hold tokens for seconds).
pub const MAX_TTL_MS: u64 = 2_000;

/// `burst + WINDOW_SECS × rate`: calls a bucket admits in one window.
fn window_bound(rate: Rate) -> u64 {
    u64::from(rate.burst.max(1)) + WINDOW_SECS * u64::from(rate.per_second.max(1))
}

/// How long taken tokens may be used, in milliseconds from the sending of
/// the call that took them.
pub fn token_ttl_ms(rate: Rate) -> u64 {
    let interval_us = u64::try_from(Gcra::new(rate).interval_us()).unwrap_or(u64::MAX);
    let k = window_bound(rate) / EXCESS_PARTS;
    let ttl_us = k.max(1).saturating_mul(interval_us).saturating_sub(1_000);
    (ttl_us / 1_000).clamp(1, MAX_TTL_MS)
}

/// The largest take: an eighth of the burst, at most a tenth of the
/// window's bound, at least one.
pub fn take_cap(rate: Rate) -> u32 {
    let k = u32::try_from(window_bound(rate) / EXCESS_PARTS).unwrap_or(u32::MAX);
    (rate.burst / 8).min(k).max(1)
}

/// A call to make on the key's bucket: give `give_back` first, then take up
/// to `want`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TakeCall {
    pub want: u32,
    pub give_back: u32,
}

/// One key's tokens on this instance.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Tokens left to use.
    left: u32,
    /// Until when they may be used (the adapter's monotonic ms).
    deadline: u64,
    /// What the bucket could still give when they were taken.
    room_after: u32,
    full_in_secs: u64,
    /// The size of the current take, and how many of it were used.
    taken: u32,
    used: u32,
    /// Dead tokens not yet given back.
    give_back: u32,
    /// The rate they were taken under (for giving back from the sync round).
    rate: Option<Rate>,
}

impl Tokens {
    /// Uses one held token, if any is alive. Dead ones are set aside to go
    /// back with the next call.
    pub fn use_one(&mut self, now_ms: u64) -> Option<RateDecision> {
        if self.left > 0 && now_ms < self.deadline {
            self.left -= 1;
            self.used += 1;
            return Some(RateDecision::Allowed {
                remaining: self.room_after.saturating_add(self.left),
                full_in_secs: self.full_in_secs,
            });
        }
        self.retire_dead(now_ms);
        None
    }

    fn retire_dead(&mut self, now_ms: u64) {
        if now_ms >= self.deadline {
            self.give_back += std::mem::take(&mut self.left);
        }
    }

    /// The call to make now that no token is left: the next take's size
    /// and the dead tokens to give back with it.
    pub fn next_call(&self, rate: Rate) -> TakeCall {
        let want = if self.taken > 0 && self.used >= self.taken {
            self.taken.saturating_mul(2)
        } else {
            self.used
        };
        TakeCall {
            want: want.clamp(1, take_cap(rate)),
            give_back: self.give_back,
        }
    }

    /// Takes the reply to `call`, which stepped the bucket at `at_ms` (this
    /// side's clock; the tokens live `token_ttl_ms` from there): `taken`
    /// tokens (the first used by the request that asked) and the bucket's
    /// decision for that first one. Returns the request's decision.
    pub fn took(&mut self, call: TakeCall, rate: Rate, at_ms: u64, taken: u32, first: RateDecision) -> RateDecision {
        self.gave_back(call.give_back, rate);
        let RateDecision::Allowed {
            remaining,
            full_in_secs,
        } = first
        else {
            return first;
        };
        if taken == 0 {
            return first;
        }
        self.left = taken - 1;
        self.taken = taken;
        self.used = 1;
        self.deadline = at_ms.saturating_add(token_ttl_ms(rate));
        self.room_after = remaining;
        self.full_in_secs = full_in_secs;
        RateDecision::Allowed {
            remaining: remaining.saturating_add(self.left),
            full_in_secs,
        }
    }

    /// Records that `n` set-aside tokens reached the bucket.
    pub fn gave_back(&mut self, n: u32, rate: Rate) {
        self.give_back -= n.min(self.give_back);
        self.rate = Some(rate);
    }

    /// For the sync round: once the tokens have been dead for a whole ttl
    /// (the key is quiet), what to give back (possibly 0) before the slot
    /// is dropped; `None` while the key may still take again soon.
    pub fn quiet(&mut self, now_ms: u64) -> Option<(u32, Option<Rate>)> {
        let ttl = self.rate.map_or(0, token_ttl_ms);
        if now_ms < self.deadline.saturating_add(ttl) {
            return None;
        }
        self.retire_dead(now_ms);
        Some((self.give_back, self.rate))
    }
}

#[cfg(test)]
mod tests;
