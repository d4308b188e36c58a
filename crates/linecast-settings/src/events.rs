//! The change stream: how often its watcher looks at the store, and how
//! many streams one customer may hold.

use std::time::Duration;

use super::SettingsError;
use super::value::{at_least_one, seconds, small};

/// The settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Events {
    pub(super) watch_interval: Duration,
    pub(super) max_streams_per_customer: u32,
}

/// `LINECAST_WATCH_INTERVAL` (seconds, default 5) and
/// `LINECAST_MAX_STREAMS_PER_CUSTOMER` (default 5).
pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<Events, SettingsError> {
    let watch_interval = seconds(
        env,
        "LINECAST_WATCH_INTERVAL",
        |d| d >= Duration::from_millis(10),
        "seconds, at least 0.01",
    )?
    .unwrap_or(Duration::from_secs(5));
    let max_streams_per_customer = at_least_one(
        "LINECAST_MAX_STREAMS_PER_CUSTOMER",
        small(env, "LINECAST_MAX_STREAMS_PER_CUSTOMER", 5)?,
    )?;
    Ok(Events {
        watch_interval,
        max_streams_per_customer,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::env_of;

    #[test]
    fn the_watcher_looks_every_five_seconds_by_default_and_a_bad_value_names_its_variable() {
        let e = read(&env_of(&[])).unwrap();
        assert_eq!(
            (e.watch_interval, e.max_streams_per_customer),
            (Duration::from_secs(5), 5)
        );
        let e = read(&env_of(&[("LINECAST_WATCH_INTERVAL", "0.25")])).unwrap();
        assert_eq!(e.watch_interval, Duration::from_millis(250));
        let err = read(&env_of(&[("LINECAST_WATCH_INTERVAL", "0.001")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_WATCH_INTERVAL: seconds, at least 0.01"
        );
        for (name, value) in [
            ("LINECAST_WATCH_INTERVAL", "often"),
            ("LINECAST_MAX_STREAMS_PER_CUSTOMER", "0"),
        ] {
            assert_eq!(read(&env_of(&[(name, value)])).unwrap_err().name, name, "{value}");
        }
    }
}
