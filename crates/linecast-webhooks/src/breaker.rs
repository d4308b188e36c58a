//! The circuit breaker kept per endpoint, so one dead receiver does not
//! hold the worker's time (each attempt at it may wait out the 15 s
//! timeout) while the others wait.
//!
//! Closed, it lets every attempt through and counts consecutive failures;
//! the [`TRIP_AFTER`]th opens it. Open, it lets nothing through until its
//! cool-down has passed ([`COOL_DOWN`], doubled at each trip since the
//! last success, at most [`MAX_COOL_DOWN`]). Then it is half-open: it lets
//! one probe through; the probe's success closes it, its failure opens it
//! again for the next, longer, cool-down.
//!
//! Owns the states and the numbers. Knows nothing of the clock: instants
//! come in as arguments. A message held back by an open breaker keeps its
//! attempt (the worker defers it; it is not a failure).

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};

/// Consecutive failures that open a closed breaker.
pub const TRIP_AFTER: u32 = 5;
/// The cool-down after the first trip.
pub const COOL_DOWN: Duration = Duration::from_mins(1);
/// The longest cool-down, reached at the 7th trip in a row.
pub const MAX_COOL_DOWN: Duration = Duration::from_hours(1);

/// A breaker's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Attempts go through; `failures` in a row so far.
    Closed {
        /// Consecutive failures since the last success.
        failures: u32,
    },
    /// Nothing goes through before `until`.
    Open {
        /// The end of the cool-down.
        until: DateTime<Utc>,
    },
    /// One probe is out; nothing else goes through until it ends.
    HalfOpen,
}

/// One endpoint's breaker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breaker {
    state: State,
    /// Trips since the last success (sets the cool-down).
    trips: u32,
}

impl Default for Breaker {
    fn default() -> Self {
        Self::new()
    }
}

/// The cool-down after the `trips`th trip in a row (from 1): 60 s doubled
/// at each trip, at most an hour.
pub fn cool_down(trips: u32) -> Duration {
    let doublings = trips.saturating_sub(1).min(6);
    (COOL_DOWN * (1 << doublings)).min(MAX_COOL_DOWN)
}

impl Breaker {
    /// A closed breaker with no failure.
    pub fn new() -> Self {
        Self {
            state: State::Closed { failures: 0 },
            trips: 0,
        }
    }

    /// The current state.
    pub fn state(&self) -> State {
        self.state
    }

    /// Whether an attempt may go out at `now`. When an open breaker's
    /// cool-down has passed, this attempt is the probe: the breaker turns
    /// half-open and lets nothing else through until the probe ends.
    pub fn allow(&mut self, now: DateTime<Utc>) -> bool {
        match self.state {
            State::Closed { .. } => true,
            State::Open { until } if now >= until => {
                self.state = State::HalfOpen;
                true
            }
            State::Open { .. } | State::HalfOpen => false,
        }
    }

    /// An attempt succeeded (a 2xx): the breaker closes and forgets its trips.
    pub fn success(&mut self) {
        *self = Self::new();
    }

    /// An attempt failed at `now` (a timeout, a failed connection or a
    /// status that is retried). The [`TRIP_AFTER`]th failure in a row, or
    /// a failed probe, opens the breaker.
    pub fn failure(&mut self, now: DateTime<Utc>) {
        match self.state {
            State::Closed { failures } if failures + 1 < TRIP_AFTER => {
                self.state = State::Closed { failures: failures + 1 };
            }
            State::Closed { .. } | State::HalfOpen => {
                self.trips += 1;
                let wait = TimeDelta::from_std(cool_down(self.trips)).unwrap_or(TimeDelta::MAX);
                self.state = State::Open { until: now + wait };
            }
            // A late result of an attempt let through before the trip.
            State::Open { .. } => {}
        }
    }
}
