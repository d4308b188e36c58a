//! Caches: the one memory budget every cache shares, and (tests only) how
//! long a seen version and a request's resolution are trusted.

use std::time::Duration;

use super::SettingsError;
use super::value::bad;

/// How long the store trusts a seen object version and the pipeline a
/// request's resolution (see `responses::RESOLUTION_TTL`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreshnessWindows {
    pub version_ttl: Duration,
    pub resolution_ttl: Duration,
    /// How long a prediction market's prices are reused (`CachedMarkets`).
    pub markets_ttl: Duration,
}

impl Default for FreshnessWindows {
    fn default() -> Self {
        Self {
            version_ttl: linecast_store::StoreOptions::default().version_ttl,
            resolution_ttl: linecast_http::responses::RESOLUTION_TTL,
            markets_ttl: linecast_markets::CachedMarkets::DEFAULT_TTL,
        }
    }
}

/// `LINECAST_CACHE_BYTES`: the memory budget, in bytes, of everything
/// cached (core's `memory::Budget::DEFAULT_BYTES` when unset).
pub(super) fn cache_bytes(env: &impl Fn(&str) -> Option<String>) -> Result<u64, SettingsError> {
    match env("LINECAST_CACHE_BYTES") {
        Some(v) => v.parse().map_err(|e| bad("LINECAST_CACHE_BYTES", e)),
        None => Ok(linecast_core::memory::Budget::DEFAULT_BYTES),
    }
}

/// The default disk budget of spooled files: 1 GiB.
pub const SPOOL_BYTES: u64 = 1 << 30;

/// `LINECAST_SPOOL_BYTES`: the disk budget, in bytes, of spooled files
/// (default [`SPOOL_BYTES`]).
pub(super) fn spool_bytes(env: &impl Fn(&str) -> Option<String>) -> Result<u64, SettingsError> {
    match env("LINECAST_SPOOL_BYTES") {
        Some(v) => v.parse().map_err(|e| bad("LINECAST_SPOOL_BYTES", e)),
        None => Ok(SPOOL_BYTES),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::env_of;

    #[test]
    fn the_budget_is_160_mib_by_default_and_a_bad_value_names_its_variable() {
        assert_eq!(cache_bytes(&env_of(&[])).unwrap(), 160 * 1024 * 1024);
        assert_eq!(cache_bytes(&env_of(&[("LINECAST_CACHE_BYTES", "1024")])).unwrap(), 1024);
        let err = cache_bytes(&env_of(&[("LINECAST_CACHE_BYTES", "160MiB")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_CACHE_BYTES: invalid digit found in string"
        );
        assert_eq!(spool_bytes(&env_of(&[])).unwrap(), 1 << 30);
        assert_eq!(spool_bytes(&env_of(&[("LINECAST_SPOOL_BYTES", "4096")])).unwrap(), 4096);
        let err = spool_bytes(&env_of(&[("LINECAST_SPOOL_BYTES", "1GiB")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_SPOOL_BYTES: invalid digit found in string"
        );
        let windows = FreshnessWindows::default();
        assert_eq!(windows.resolution_ttl, linecast_http::responses::RESOLUTION_TTL);
    }
}
