//! Signed webhooks: which receivers may be reached, how long the attempts'
//! log is kept, how often the delivery worker looks for due deliveries,
//! and the two settings a test shortens (the attempt's timeout and the
//! retry schedule).

use std::time::Duration;

use super::SettingsError;
use super::value::{bad, flag_or, seconds, small};

/// The settings of the same names in [`super::Settings`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Webhooks {
    /// `LINECAST_WEBHOOK_ALLOW_LOOPBACK`: let endpoints on loopback
    /// addresses (and `http` to them) through, for tests and local use
    /// (default false: https only, public addresses only).
    pub allow_loopback: bool,
    /// `LINECAST_WEBHOOK_ATTEMPT_DAYS`: how many days each attempt stays in
    /// the log (default 30; whole days, 1 to 365).
    pub attempt_days: u32,
    /// `LINECAST_WEBHOOK_INTERVAL`: seconds between the delivery worker's
    /// rounds (default 1; decimals allowed, at least 0.01).
    pub interval: Duration,
    /// `LINECAST_WEBHOOK_TIMEOUT_SECS`: the most one attempt may take,
    /// connection and response included (default 15, the Standard
    /// Webhooks timeout; decimals allowed, 0.1 to 60).
    pub timeout: Duration,
    /// `LINECAST_WEBHOOK_SCHEDULE_SCALE`: the factor on every retry delay,
    /// breaker cool-down and the five days that disable a failing endpoint
    /// (default 1; more than 0, at most 1). A test sets 0.001 to run
    /// three days of retries in minutes.
    pub schedule_scale: f64,
}

impl Default for Webhooks {
    fn default() -> Self {
        Self {
            allow_loopback: false,
            attempt_days: 30,
            interval: Duration::from_secs(1),
            timeout: linecast_webhooks::schedule::TIMEOUT,
            schedule_scale: 1.0,
        }
    }
}

pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<Webhooks, SettingsError> {
    let defaults = Webhooks::default();
    let attempt_days = small(env, "LINECAST_WEBHOOK_ATTEMPT_DAYS", defaults.attempt_days)?;
    if !(1..=365).contains(&attempt_days) {
        return Err(bad("LINECAST_WEBHOOK_ATTEMPT_DAYS", "whole days, 1 to 365"));
    }
    let interval = seconds(
        env,
        "LINECAST_WEBHOOK_INTERVAL",
        |d| d >= Duration::from_millis(10),
        "seconds, at least 0.01",
    )?
    .unwrap_or(defaults.interval);
    let timeout = seconds(
        env,
        "LINECAST_WEBHOOK_TIMEOUT_SECS",
        |d| d >= Duration::from_millis(100) && d <= Duration::from_mins(1),
        "seconds, 0.1 to 60",
    )?
    .unwrap_or(defaults.timeout);
    let schedule_scale = match env("LINECAST_WEBHOOK_SCHEDULE_SCALE") {
        None => defaults.schedule_scale,
        Some(v) => v.parse::<f64>().ok().filter(|s| *s > 0.0 && *s <= 1.0).ok_or_else(|| {
            bad(
                "LINECAST_WEBHOOK_SCHEDULE_SCALE",
                format!("'{v}': more than 0, at most 1"),
            )
        })?,
    };
    Ok(Webhooks {
        allow_loopback: flag_or(env, "LINECAST_WEBHOOK_ALLOW_LOOPBACK", defaults.allow_loopback)?,
        attempt_days,
        interval,
        timeout,
        schedule_scale,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::env_of;

    #[test]
    fn defaults_are_the_standard_ones_and_a_bad_value_names_its_variable() {
        let w = read(&env_of(&[])).unwrap();
        assert_eq!(
            (
                w.allow_loopback,
                w.attempt_days,
                w.interval,
                w.timeout,
                w.schedule_scale
            ),
            (false, 30, Duration::from_secs(1), Duration::from_secs(15), 1.0)
        );
        let w = read(&env_of(&[
            ("LINECAST_WEBHOOK_ALLOW_LOOPBACK", "true"),
            ("LINECAST_WEBHOOK_SCHEDULE_SCALE", "0.001"),
            ("LINECAST_WEBHOOK_TIMEOUT_SECS", "0.5"),
        ]))
        .unwrap();
        assert!(w.allow_loopback);
        assert!((w.schedule_scale - 0.001).abs() < 1e-12);
        assert_eq!(w.timeout, Duration::from_millis(500));
        for (name, value) in [
            ("LINECAST_WEBHOOK_ATTEMPT_DAYS", "0"),
            ("LINECAST_WEBHOOK_ATTEMPT_DAYS", "366"),
            ("LINECAST_WEBHOOK_SCHEDULE_SCALE", "0"),
            ("LINECAST_WEBHOOK_SCHEDULE_SCALE", "2"),
            ("LINECAST_WEBHOOK_TIMEOUT_SECS", "61"),
            ("LINECAST_WEBHOOK_INTERVAL", "0.001"),
            ("LINECAST_WEBHOOK_ALLOW_LOOPBACK", "maybe"),
        ] {
            assert_eq!(read(&env_of(&[(name, value)])).unwrap_err().name, name, "{value}");
        }
    }
}
