//! Limits and Redis: the per-address rate of the public routes, a key's
//! burst, and the Redis the limits are shared through (its URL, CA,
//! namespace, timeout and whether quota is leased in blocks).

use std::path::PathBuf;
use std::time::Duration;

use linecast_core::services::access::DEFAULT_BURST;

use super::SettingsError;
use super::value::{at_least_one, bad, flag_or, number, small};

/// The settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Limits {
    pub(super) public_rate_per_second: u32,
    pub(super) rate_burst: u32,
    pub(super) redis_url: Option<String>,
    pub(super) redis_ca_file: Option<PathBuf>,
    pub(super) redis_namespace: String,
    pub(super) redis_timeout: Duration,
    pub(super) redis_leases: bool,
}

/// `LINECAST_PUBLIC_RATE`, `LINECAST_RATE_BURST`, `LINECAST_REDIS_URL`,
/// `LINECAST_REDIS_CA_FILE` (only with a `rediss://` URL),
/// `LINECAST_REDIS_NAMESPACE`, `LINECAST_REDIS_TIMEOUT_MS` and
/// `LINECAST_REDIS_LEASES`.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<Limits, SettingsError> {
    let redis_url = env("LINECAST_REDIS_URL").filter(|s| !s.is_empty());
    let redis_ca_file = env("LINECAST_REDIS_CA_FILE")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    if redis_ca_file.is_some()
        && !redis_url
            .as_deref()
            .is_some_and(|url| url.get(..9).is_some_and(|s| s.eq_ignore_ascii_case("rediss://")))
    {
        return Err(bad(
            "LINECAST_REDIS_CA_FILE",
            "set, but LINECAST_REDIS_URL is not a rediss:// URL: the CA file is only used for TLS to Redis \
             (rediss://host:port); a redis:// connection is not encrypted",
        ));
    }
    Ok(Limits {
        public_rate_per_second: small(env, "LINECAST_PUBLIC_RATE", 20)?,
        rate_burst: at_least_one("LINECAST_RATE_BURST", small(env, "LINECAST_RATE_BURST", DEFAULT_BURST)?)?,
        redis_url,
        redis_ca_file,
        redis_namespace: env("LINECAST_REDIS_NAMESPACE").unwrap_or_else(|| "linecast".to_owned()),
        redis_timeout: Duration::from_millis(number(env, "LINECAST_REDIS_TIMEOUT_MS", 500)?),
        redis_leases: flag_or(env, "LINECAST_REDIS_LEASES", true)?,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::file::FileSettings;
    use crate::{Settings, env_of, file};

    #[test]
    fn limits_are_counted_in_process_by_default_and_a_bad_value_names_its_variable() {
        let l = read(&env_of(&[])).unwrap();
        assert_eq!((l.public_rate_per_second, l.rate_burst), (20, 100));
        assert_eq!((l.redis_url, l.redis_ca_file), (None, None));
        assert_eq!(l.redis_namespace, "linecast");
        assert_eq!(l.redis_timeout, Duration::from_millis(500));
        assert!(l.redis_leases);
        for (name, value) in [
            ("LINECAST_PUBLIC_RATE", "lots"),
            ("LINECAST_RATE_BURST", "0"),
            ("LINECAST_REDIS_TIMEOUT_MS", "0.5"),
            ("LINECAST_REDIS_LEASES", "sometimes"),
            ("LINECAST_REDIS_CA_FILE", "/ca.pem"),
        ] {
            let err = read(&env_of(&[(name, value)])).unwrap_err();
            assert_eq!(err.name, name, "{value}");
        }
        let err = read(&env_of(&[("LINECAST_PUBLIC_RATE", "lots")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_PUBLIC_RATE: 'lots': invalid digit found in string"
        );
    }

    /// A CA file is taken only for a `rediss://` URL, from the environment
    /// or the file.
    #[test]
    fn the_redis_ca_file_goes_with_a_rediss_url_only() {
        let none = FileSettings::default();
        let with = |vars: &'static [(&'static str, &'static str)]| Settings::from_sources(&none, env_of(vars));
        let s = with(&[
            ("LINECAST_REDIS_URL", "rediss://:pw@10.0.0.3:6378"),
            ("LINECAST_REDIS_CA_FILE", "/etc/linecast/redis-ca.pem"),
        ])
        .unwrap();
        assert_eq!(s.redis_ca_file, Some(PathBuf::from("/etc/linecast/redis-ca.pem")));
        assert_eq!(
            with(&[("LINECAST_REDIS_URL", "rediss://h:6378")])
                .unwrap()
                .redis_ca_file,
            None
        );
        for refused in [
            &[("LINECAST_REDIS_CA_FILE", "/ca.pem")][..],
            &[
                ("LINECAST_REDIS_URL", "redis://h:6379"),
                ("LINECAST_REDIS_CA_FILE", "/ca.pem"),
            ],
        ] {
            let err = Settings::from_sources(&none, env_of(refused)).unwrap_err();
            assert_eq!(err.name, "LINECAST_REDIS_CA_FILE");
            assert!(err.reason.contains("rediss://"), "{err}");
        }
        let in_file = file("redis_url = \"rediss://h:6378\"\nredis_ca_file = \"ca.pem\"");
        assert_eq!(
            Settings::from_sources(&in_file, |_| None).unwrap().redis_ca_file,
            Some(PathBuf::from("ca.pem"))
        );
    }
}
