//! The clock port. Use cases never read the system clock directly, so demos
//! and tests can freeze time (`LINECAST_NOW`).

use chrono::{DateTime, Utc};

/// A source of "now".
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A frozen clock.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub DateTime<Utc>);

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}

/// A clock that stays where it is set: frozen like `FixedClock`, but a test
/// can move it while the application runs (to cross an ET midnight or a
/// deadline and check that nothing computed earlier is served after).
#[derive(Debug)]
pub struct ManualClock(std::sync::RwLock<DateTime<Utc>>);

impl ManualClock {
    pub fn new(at: DateTime<Utc>) -> Self {
        Self(std::sync::RwLock::new(at))
    }

    /// Moves the clock to `at`.
    pub fn set(&self, at: DateTime<Utc>) {
        if let Ok(mut now) = self.0.write() {
            *now = at;
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.read().map_or_else(|e| *e.into_inner(), |now| *now)
    }
}
