//! What one client may hold of the server: large downloads in flight,
//! slow readers and slow bodies, the heavy-work threads, and open
//! connections (under the process's descriptor limit).

use std::time::Duration;

use super::SettingsError;
use super::value::{at_least_one, seconds, small};

/// Limits on heavy reads and slow clients (docs/operations.md, "What one
/// customer can hold").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeavyReads {
    /// `LINECAST_MAX_DOWNLOADS_PER_CUSTOMER`: exports one customer may
    /// have in flight at once (default 2).
    pub max_downloads_per_customer: u32,
    /// `LINECAST_STALL_TIMEOUT_SECS`: a response whose bytes the client has
    /// not taken for this long is ended and logged (default 30; decimals
    /// allowed).
    pub stall_timeout: Duration,
    /// `LINECAST_BODY_TIMEOUT_SECS`: a request body not received whole
    /// this long after its head is answered 408 and its connection closed
    /// (default 10; decimals allowed).
    pub body_timeout: Duration,
    /// `LINECAST_HEAVY_THREADS`: threads that load, render and compress
    /// large bodies (exports, results pages), off the request threads
    /// (default: half the cores, at least 1).
    pub heavy_threads: usize,
    /// `LINECAST_MAX_CONNECTIONS`: open connections the server accepts at
    /// once, over all workers (default: the descriptor limit less 512 kept
    /// for the database, the store and logs, at least 64).
    pub max_connections: usize,
}

impl HeavyReads {
    /// Two downloads per customer, a 30 s stall bound, 10 s for a request
    /// body, half the cores, and connections from the descriptor limit.
    pub fn defaults() -> Self {
        Self {
            max_downloads_per_customer: 2,
            stall_timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(10),
            heavy_threads: (std::thread::available_parallelism().map_or(2, std::num::NonZero::get) / 2).max(1),
            max_connections: connections_under_descriptor_limit(descriptor_limit()),
        }
    }
}

/// Descriptors kept for everything but client connections.
const RESERVED_DESCRIPTORS: u64 = 512;

/// The default connection cap under a descriptor limit of `limit`.
pub fn connections_under_descriptor_limit(limit: u64) -> usize {
    usize::try_from(limit.saturating_sub(RESERVED_DESCRIPTORS).clamp(64, 1_000_000)).unwrap_or(64)
}

/// This process's soft limit on open descriptors, from
/// `/proc/self/limits` (1024 where that cannot be read).
pub fn descriptor_limit() -> u64 {
    std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|limits| soft_descriptor_limit(&limits))
        .unwrap_or(1024)
}

/// The soft limit in the `Max open files` line of `/proc/self/limits`.
fn soft_descriptor_limit(limits: &str) -> Option<u64> {
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    let soft = line.trim_start_matches("Max open files").split_whitespace().next()?;
    if soft == "unlimited" {
        return Some(u64::MAX);
    }
    soft.parse().ok()
}

/// `LINECAST_MAX_DOWNLOADS_PER_CUSTOMER`, `LINECAST_STALL_TIMEOUT_SECS`,
/// `LINECAST_BODY_TIMEOUT_SECS`, `LINECAST_HEAVY_THREADS` and
/// `LINECAST_MAX_CONNECTIONS`, each [`HeavyReads::defaults`]' when unset.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<HeavyReads, SettingsError> {
    let defaults = HeavyReads::defaults();
    let timeout = |name: &'static str, default: Duration| {
        Ok::<_, SettingsError>(
            seconds(env, name, |d| d >= Duration::from_millis(100), "seconds, at least 0.1")?.unwrap_or(default),
        )
    };
    let stall_timeout = timeout("LINECAST_STALL_TIMEOUT_SECS", defaults.stall_timeout)?;
    let body_timeout = timeout("LINECAST_BODY_TIMEOUT_SECS", defaults.body_timeout)?;
    let positive = |name: &'static str, default: u32| at_least_one(name, small(env, name, default)?);
    Ok(HeavyReads {
        max_downloads_per_customer: positive(
            "LINECAST_MAX_DOWNLOADS_PER_CUSTOMER",
            defaults.max_downloads_per_customer,
        )?,
        stall_timeout,
        body_timeout,
        heavy_threads: positive(
            "LINECAST_HEAVY_THREADS",
            u32::try_from(defaults.heavy_threads).unwrap_or(1),
        )? as usize,
        max_connections: positive(
            "LINECAST_MAX_CONNECTIONS",
            u32::try_from(defaults.max_connections).unwrap_or(u32::MAX),
        )? as usize,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::file::FileSettings;
    use crate::{Settings, env_of};

    #[test]
    fn heavy_reads_take_their_defaults_and_a_bad_value_names_its_variable() {
        let defaults = HeavyReads::defaults();
        assert_eq!(read(&env_of(&[])).unwrap(), defaults);
        assert_eq!(defaults.max_downloads_per_customer, 2);
        assert!(defaults.heavy_threads >= 1 && defaults.max_connections >= 64);
        let err = read(&env_of(&[("LINECAST_STALL_TIMEOUT_SECS", "0.05")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_STALL_TIMEOUT_SECS: seconds, at least 0.1"
        );
        let err = read(&env_of(&[("LINECAST_MAX_CONNECTIONS", "0")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_MAX_CONNECTIONS: must be at least 1"
        );
    }

    #[test]
    fn heavy_read_limits_are_read_from_the_environment_and_bad_values_name_the_setting() {
        let none = FileSettings::default();
        let s = Settings::from_sources(&none, |k| match k {
            "LINECAST_STALL_TIMEOUT_SECS" => Some("2.5".to_owned()),
            "LINECAST_BODY_TIMEOUT_SECS" => Some("1.5".to_owned()),
            "LINECAST_MAX_DOWNLOADS_PER_CUSTOMER" => Some("3".to_owned()),
            "LINECAST_HEAVY_THREADS" => Some("4".to_owned()),
            "LINECAST_MAX_CONNECTIONS" => Some("900".to_owned()),
            _ => None,
        })
        .unwrap();
        assert_eq!(
            s.heavy,
            HeavyReads {
                max_downloads_per_customer: 3,
                stall_timeout: Duration::from_millis(2500),
                body_timeout: Duration::from_millis(1500),
                heavy_threads: 4,
                max_connections: 900,
            }
        );
        let defaults = Settings::from_sources(&none, |_| None).unwrap().heavy;
        assert_eq!(defaults.stall_timeout, Duration::from_secs(30));
        assert_eq!(defaults.body_timeout, Duration::from_secs(10));
        assert_eq!(defaults.max_downloads_per_customer, 2);
        for (name, value) in [
            ("LINECAST_STALL_TIMEOUT_SECS", "0.01"),
            ("LINECAST_STALL_TIMEOUT_SECS", "soon"),
            ("LINECAST_BODY_TIMEOUT_SECS", "0"),
            ("LINECAST_BODY_TIMEOUT_SECS", "ten"),
            ("LINECAST_MAX_DOWNLOADS_PER_CUSTOMER", "0"),
            ("LINECAST_HEAVY_THREADS", "0"),
            ("LINECAST_MAX_CONNECTIONS", "-1"),
        ] {
            let err = Settings::from_sources(&none, |k| (k == name).then(|| value.to_owned())).unwrap_err();
            assert_eq!(err.name, name, "{value}");
        }
    }

    #[test]
    fn the_connection_cap_keeps_512_descriptors_and_reads_the_soft_limit() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max processes             95324                95324                processes\n\
                      Max open files            20000                524288               files\n";
        assert_eq!(soft_descriptor_limit(limits), Some(20_000));
        assert_eq!(
            soft_descriptor_limit("Max open files            unlimited            unlimited            files"),
            Some(u64::MAX)
        );
        assert_eq!(soft_descriptor_limit("Max processes 1 1 processes"), None);
        assert_eq!(connections_under_descriptor_limit(20_000), 19_488);
        assert_eq!(connections_under_descriptor_limit(1024), 512);
        assert_eq!(connections_under_descriptor_limit(256), 64);
        assert_eq!(connections_under_descriptor_limit(u64::MAX), 1_000_000);
    }
}
