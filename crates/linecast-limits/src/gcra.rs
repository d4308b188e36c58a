//! The token bucket in its GCRA form (generic cell rate algorithm): the one
//! definition of the per-key rate limit, shared by the in-process buckets,
//! the per-address buckets of the HTTP shell and the interpretation of the
//! Redis script's answer (the script does the same state step in Lua).
//!
//! State is one instant per bucket, the theoretical arrival time (TAT): when
//! the bucket would be full again had no further call come. A call at `now`
//! moves it to `max(TAT, now) + interval` and is admitted while that lies at
//! most `burst × interval` ahead of `now`. A missing state, or a TAT in the
//! past, is a full bucket. Times are whole microseconds on any clock, so the
//! arithmetic is exact (a Unix time in microseconds stays below 2^53, where
//! Lua's numbers are exact too).
//!
//! Properties (pinned by the tests below):
//! - from a full bucket, exactly `burst` calls at one instant are admitted;
//! - over any span of `d` seconds, at most `burst + per_second × d` calls
//!   are admitted;
//! - a refused call changes nothing, and `Retry-After` seconds later the
//!   next call is admitted.

use linecast_core::ports::limits::{Rate, RateDecision};

const MICROS: i64 = 1_000_000;

/// The bucket of one `Rate`, in whole microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gcra {
    /// Time one call's token takes to come back (rounded up, so the bucket
    /// is never more lenient than its rate).
    interval_us: i64,
    /// How far ahead of `now` the TAT may run: `burst × interval`.
    tolerance_us: i64,
}

/// What one call does to a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Admitted: store `tat` (it may be forgotten `ahead_us` after `now`,
    /// when the bucket is full again).
    Admit { tat: i64, ahead_us: i64 },
    /// Refused: the stored state stays as it was; the next call fits
    /// `wait_us` after `now`.
    Refuse { wait_us: i64 },
}

impl Gcra {
    /// A rate of 0 per second or a burst of 0 is read as 1.
    pub fn new(rate: Rate) -> Self {
        let per_second = i64::from(rate.per_second.max(1));
        let interval_us = (MICROS + per_second - 1) / per_second;
        Self {
            interval_us,
            tolerance_us: interval_us * i64::from(rate.burst.max(1)),
        }
    }

    pub fn interval_us(&self) -> i64 {
        self.interval_us
    }

    pub fn tolerance_us(&self) -> i64 {
        self.tolerance_us
    }

    /// One call at `now_us` on a bucket whose stored TAT is `tat` (`None`
    /// when nothing is stored).
    pub fn step(&self, tat: Option<i64>, now_us: i64) -> Step {
        let next = tat.unwrap_or(now_us).max(now_us) + self.interval_us;
        let ahead_us = next - now_us;
        if ahead_us > self.tolerance_us {
            Step::Refuse {
                wait_us: ahead_us - self.tolerance_us,
            }
        } else {
            Step::Admit { tat: next, ahead_us }
        }
    }

    /// Whether a call at `now_us` would be admitted, taking nothing.
    pub fn would_admit(&self, tat: Option<i64>, now_us: i64) -> bool {
        matches!(self.step(tat, now_us), Step::Admit { .. })
    }

    /// The decision an admitted call reports, `ahead_us` being how far its
    /// new TAT lies ahead of `now`.
    pub fn admitted(&self, ahead_us: i64) -> RateDecision {
        let room = (self.tolerance_us - ahead_us).max(0) / self.interval_us;
        RateDecision::Allowed {
            remaining: u32::try_from(room).unwrap_or(u32::MAX),
            full_in_secs: ceil_secs(ahead_us),
        }
    }

    /// The decision a refused call reports, `wait_us` being how long until
    /// the next call fits.
    pub fn refused(&self, wait_us: i64) -> RateDecision {
        RateDecision::Refused {
            retry_after_secs: ceil_secs(wait_us).max(1),
        }
    }

    /// The decision of one step.
    pub fn decision(&self, step: Step) -> RateDecision {
        match step {
            Step::Admit { ahead_us, .. } => self.admitted(ahead_us),
            Step::Refuse { wait_us } => self.refused(wait_us),
        }
    }
}

/// Whole seconds, rounded up, of a non-negative microsecond span.
fn ceil_secs(us: i64) -> u64 {
    u64::try_from((us.max(0) + MICROS - 1) / MICROS).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    fn bucket(per_second: u32, burst: u32) -> Gcra {
        Gcra::new(Rate { per_second, burst })
    }

    /// Runs calls at the given instants (µs) on one bucket; returns the
    /// decisions.
    fn run(g: &Gcra, instants: &[i64]) -> Vec<RateDecision> {
        let mut tat = None;
        instants
            .iter()
            .map(|&now| {
                let step = g.step(tat, now);
                if let Step::Admit { tat: t, .. } = step {
                    tat = Some(t);
                }
                g.decision(step)
            })
            .collect()
    }

    fn admitted(decisions: &[RateDecision]) -> usize {
        decisions
            .iter()
            .filter(|d| matches!(d, RateDecision::Allowed { .. }))
            .count()
    }

    #[test]
    fn fifty_per_second_with_a_burst_of_one_hundred_admits_one_hundred_at_once_then_one_every_twenty_ms() {
        let g = bucket(50, 100);
        let at_once = run(&g, &[0; 101]);
        assert_eq!(admitted(&at_once), 100);
        assert_eq!(
            at_once[0],
            RateDecision::Allowed {
                remaining: 99,
                full_in_secs: 1
            }
        );
        assert_eq!(
            at_once[99],
            RateDecision::Allowed {
                remaining: 0,
                full_in_secs: 2
            }
        );
        assert_eq!(at_once[100], RateDecision::Refused { retry_after_secs: 1 });

        // After the burst, one call per 20 ms gets through, and no more.
        let mut instants = vec![0; 100];
        instants.extend([19_999, 20_000, 20_000, 40_000]);
        let d = run(&g, &instants);
        assert_eq!(
            &d[100..]
                .iter()
                .map(|d| matches!(d, RateDecision::Allowed { .. }))
                .collect::<Vec<_>>(),
            &[false, true, false, true]
        );
    }

    #[test]
    fn a_sequential_client_at_any_pace_never_meets_the_limit_within_its_burst() {
        // 58 pages, one every 200 µs (a fast local server): all admitted.
        let g = bucket(50, 100);
        let instants: Vec<i64> = (0..58).map(|i| i * 200).collect();
        assert_eq!(admitted(&run(&g, &instants)), 58);
    }

    #[test]
    fn retry_after_is_the_whole_seconds_until_the_next_call_fits() {
        // 1 per second, burst 2: the third call at t=0 fits at t=1 s.
        let g = bucket(1, 2);
        let d = run(&g, &[0, 0, 0]);
        assert_eq!(d[2], RateDecision::Refused { retry_after_secs: 1 });
        // 1 per 4 s is not expressible; 1 per second with the bucket run
        // far ahead is: a refused call waits for exactly one token.
        assert_eq!(
            run(&g, &[0, 0, 999_999, 1_000_000])[2..],
            [
                RateDecision::Refused { retry_after_secs: 1 },
                RateDecision::Allowed {
                    remaining: 0,
                    full_in_secs: 2
                }
            ]
        );
    }

    #[test]
    fn a_rate_that_does_not_divide_a_second_rounds_towards_strict() {
        // 3 per second: 333,334 µs per token, so three tokens take just over
        // a second and the fourth call of a sustained stream waits.
        let g = bucket(3, 1);
        assert_eq!(g.interval_us(), 333_334);
        assert_eq!(admitted(&run(&g, &[0, 333_333, 333_334])), 2);
    }

    proptest! {
        /// Over any window of calls, admitted ≤ burst + per_second × span
        /// (span in seconds, the window's last instant minus its first).
        #[test]
        fn no_window_admits_more_than_burst_plus_rate_times_span(
            per_second in 1u32..100,
            burst in 1u32..50,
            gaps in proptest::collection::vec(0i64..60_000, 1..300),
        ) {
            let g = bucket(per_second, burst);
            let instants: Vec<i64> = gaps.iter().scan(0i64, |t, gap| { *t += gap; Some(*t) }).collect();
            let d = run(&g, &instants);
            for i in 0..instants.len() {
                let mut n = 0u64;
                for j in i..instants.len() {
                    if matches!(d[j], RateDecision::Allowed { .. }) { n += 1; }
                    let span = (instants[j] - instants[i]) as f64 / 1e6;
                    let bound = f64::from(burst) + f64::from(per_second) * span;
                    prop_assert!(n as f64 <= bound + 1e-9, "{n} admitted in {span} s, bound {bound}");
                }
            }
        }

        /// A refused call is admitted if retried after its Retry-After.
        #[test]
        fn retrying_after_retry_after_is_admitted(
            per_second in 1u32..100,
            burst in 1u32..50,
            extra in 1usize..20,
        ) {
            let g = bucket(per_second, burst);
            let mut instants = vec![0i64; burst as usize + extra];
            let d = run(&g, &instants);
            let Some(RateDecision::Refused { retry_after_secs }) = d.last().copied() else {
                return Err(TestCaseError::fail("the call past the burst was admitted"));
            };
            instants.push(i64::try_from(retry_after_secs).unwrap() * MICROS);
            let d = run(&g, &instants);
            let admitted_on_retry = matches!(d.last(), Some(RateDecision::Allowed { .. }));
            prop_assert!(admitted_on_retry);
        }
    }
}
