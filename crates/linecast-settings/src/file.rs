//! The config file: `linecast.toml` (or the file `LINECAST_CONFIG` names),
//! its keys (each setting's variable name without `LINECAST_`, lower-cased),
//! and the layering of the environment over it.

use std::path::Path;

use super::SettingsError;
use super::value::bad;

/// Every `LINECAST_*` variable the server reads, each of which may also be
/// set in the config file under its name without `LINECAST_`, lower-cased
/// (`public_rate` is `LINECAST_PUBLIC_RATE`). `RUST_LOG` is `rust_log`
/// there; `PORT` and `LINECAST_CONFIG` are read from the environment only.
pub const FILE_SETTINGS: &[&str] = &[
    "LINECAST_BIND",
    "LINECAST_VAR_DIR",
    "LINECAST_DATABASE_URL",
    "LINECAST_MIGRATE",
    "LINECAST_STORE_URL",
    "LINECAST_REDIS_URL",
    "LINECAST_REDIS_CA_FILE",
    "LINECAST_REDIS_NAMESPACE",
    "LINECAST_SIGNING_KEY",
    "LINECAST_NOW",
    "LINECAST_LOG_FORMAT",
    "LINECAST_CACHE_BYTES",
    "LINECAST_SPOOL_BYTES",
    "LINECAST_DEMO",
    "LINECAST_PUBLIC_RATE",
    "LINECAST_CLIENT_IP_HEADER",
    "LINECAST_TRUSTED_PROXY_CIDRS",
    "LINECAST_TRUSTED_PROXIES",
    "LINECAST_RATE_BURST",
    "LINECAST_AUTH_FAILURE_RATE",
    "LINECAST_AUTH_FAILURE_BURST",
    "LINECAST_MAX_KEYS_PER_CUSTOMER",
    "LINECAST_WATCH_INTERVAL",
    "LINECAST_MAX_STREAMS_PER_CUSTOMER",
    "LINECAST_MAX_DOWNLOADS_PER_CUSTOMER",
    "LINECAST_STALL_TIMEOUT_SECS",
    "LINECAST_BODY_TIMEOUT_SECS",
    "LINECAST_HEAVY_THREADS",
    "LINECAST_MAX_CONNECTIONS",
    "LINECAST_DATABASE_TIMEOUT_MS",
    "LINECAST_REDIS_LEASES",
    "LINECAST_REDIS_TIMEOUT_MS",
    "LINECAST_DB_OUTAGE_GRACE_SECS",
    "LINECAST_USAGE_STALE_AFTER_MS",
    "LINECAST_SHUTDOWN_TIMEOUT_SECS",
    "LINECAST_STORE_TIMEOUT_SECS",
    "LINECAST_RELEASE_RETENTION_DAYS",
    "LINECAST_REQUEST_LOG_DAYS",
    "LINECAST_DRAIN_GRACE_SECS",
    "LINECAST_METRICS_BIND",
    "LINECAST_PUBLIC_URL",
    "LINECAST_MARKETS",
    "LINECAST_KALSHI_BASE_URL",
    "LINECAST_PRIMARY_BOOK",
    "LINECAST_PRIMARY_BOOK_TITLE",
    "LINECAST_WEBHOOK_ALLOW_LOOPBACK",
    "LINECAST_WEBHOOK_ATTEMPT_DAYS",
    "LINECAST_WEBHOOK_INTERVAL",
    "LINECAST_WEBHOOK_TIMEOUT_SECS",
    "LINECAST_WEBHOOK_SCHEDULE_SCALE",
    "LINECAST_STRIPE_WEBHOOK_SECRETS",
    "LINECAST_STRIPE_PLANS",
    "LINECAST_STRIPE_LIVEMODE",
    "LINECAST_STRIPE_API_KEY",
    "LINECAST_STRIPE_API_BASE",
    "LINECAST_STRIPE_PRICE_TEXT",
    "LINECAST_AUTH_DISABLED",
    "RUST_LOG",
];

/// The key of `name` in the config file: the name without `LINECAST_`,
/// lower-cased.
pub fn file_key(name: &str) -> String {
    name.strip_prefix("LINECAST_").unwrap_or(name).to_ascii_lowercase()
}

/// The config file's settings by variable name, each value spelled as the
/// environment would spell it (a TOML number or boolean as its text, an
/// array of strings joined with commas), so both sources go through one
/// reading of every setting.
#[derive(Debug, Default)]
pub(super) struct FileSettings {
    pub(super) values: std::collections::HashMap<&'static str, String>,
    /// Where the values were read, for error messages.
    pub(super) path: String,
}

impl FileSettings {
    /// `linecast.toml`, or the file `LINECAST_CONFIG` names; empty when
    /// there is none.
    pub(super) fn load() -> Result<Self, SettingsError> {
        let path = std::env::var("LINECAST_CONFIG").unwrap_or_else(|_| "linecast.toml".to_owned());
        Self::read(Path::new(&path))
    }

    /// The settings of the file at `path`; empty when it does not exist.
    pub(super) fn read(path: &Path) -> Result<Self, SettingsError> {
        if !path.exists() {
            return Ok(Self::default());
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| bad("LINECAST_CONFIG", format!("{}: {e}", path.display())))?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Reads the TOML text of the file at `path`. A key that names no
    /// setting, or a value that is a table (or an array holding one), is
    /// an error naming the key.
    pub(super) fn parse(text: &str, path: &str) -> Result<Self, SettingsError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| bad("LINECAST_CONFIG", format!("{path}: {e}")))?;
        let mut values = std::collections::HashMap::new();
        for (key, value) in table {
            let Some(name) = FILE_SETTINGS.iter().copied().find(|name| file_key(name) == key) else {
                return Err(bad(
                    "LINECAST_CONFIG",
                    format!(
                        "{path}: unknown key '{key}'; a key is a setting's variable name without LINECAST_, in \
                         lower case (docs/configuration.md lists them)"
                    ),
                ));
            };
            let text = as_setting_text(&value).ok_or_else(|| {
                bad(
                    name,
                    format!(
                        "'{key}' in {path} is a {}; expected a string, number or boolean",
                        value.type_str()
                    ),
                )
            })?;
            values.insert(name, text);
        }
        Ok(Self {
            values,
            path: path.to_owned(),
        })
    }

    /// The file's value of the variable `name`.
    fn get(&self, name: &str) -> Option<String> {
        self.values.get(name).cloned()
    }
}

/// A TOML value as the environment would spell it: strings as they are,
/// numbers, booleans and date-times as their text, an array of those
/// joined with commas (`trusted_proxy_cidrs = ["10.0.0.0/8", "::1/128"]`).
fn as_setting_text(value: &toml::Value) -> Option<String> {
    match value {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        toml::Value::Datetime(d) => Some(d.to_string()),
        toml::Value::Array(items) => items
            .iter()
            .map(|item| match item {
                toml::Value::Array(_) | toml::Value::Table(_) => None,
                other => as_setting_text(other),
            })
            .collect::<Option<Vec<_>>>()
            .map(|parts| parts.join(",")),
        toml::Value::Table(_) => None,
    }
}

/// The value of a setting: the environment's, else the file's. `PORT` is
/// the environment's only (a platform's, never the file's).
pub(super) fn layered<'a>(
    file: &'a FileSettings,
    env: impl Fn(&str) -> Option<String> + 'a,
) -> impl Fn(&str) -> Option<String> + 'a {
    move |name: &str| {
        if name == "PORT" {
            env(name)
        } else {
            env(name).or_else(|| file.get(name))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::{Settings, file};
    use linecast_http::client_address::parse_ranges;

    /// A key is the variable's name without `LINECAST_`, lower-cased
    /// (`public_rate = 10`, which once stopped the server); the environment
    /// wins; a key naming no setting, or a table, stops the start naming it;
    /// a bad value from the file says where it came from.
    #[test]
    fn the_config_file_takes_every_setting_under_its_variable_name() {
        let s = Settings::from_sources(&file("public_rate = 10\nredis_leases = false"), |_| None).unwrap();
        assert_eq!((s.public_rate_per_second, s.redis_leases), (10, false));
        let env_wins = Settings::from_sources(&file("public_rate = 10"), |k| {
            (k == "LINECAST_PUBLIC_RATE").then(|| "3".to_owned())
        });
        assert_eq!(env_wins.unwrap().public_rate_per_second, 3);
        let listed = Settings::from_sources(
            &file("client_ip_header = \"X-Forwarded-For\"\ntrusted_proxy_cidrs = [\"10.0.0.0/8\", \"::1/128\"]"),
            |_| None,
        )
        .unwrap();
        assert_eq!(listed.trusted_proxy_cidrs, parse_ranges("10.0.0.0/8,::1/128").unwrap());
        for (text, named) in [
            ("public_rate_per_second = 10", "public_rate_per_second"),
            ("LINECAST_BIND = \"127.0.0.1:1\"", "LINECAST_BIND"),
            ("port = 8080", "port"),
            ("config = \"x.toml\"", "config"),
        ] {
            let err = FileSettings::parse(text, "linecast.toml").unwrap_err();
            assert_eq!(err.name, "LINECAST_CONFIG", "{text}");
            assert!(err.reason.contains(&format!("unknown key '{named}'")), "{err}");
        }
        let err = FileSettings::parse("[public_rate]\nx = 1", "linecast.toml").unwrap_err();
        assert_eq!(err.name, "LINECAST_PUBLIC_RATE");
        let err = Settings::from_sources(&file("public_rate = \"lots\""), |_| None).unwrap_err();
        assert_eq!(err.name, "LINECAST_PUBLIC_RATE");
        assert!(err.reason.contains("(from 'public_rate' in linecast.toml)"), "{err}");
        // PORT is never the file's, whatever it says.
        assert_eq!(file_key("LINECAST_PUBLIC_RATE"), "public_rate");
        assert_eq!(file_key("RUST_LOG"), "rust_log");
    }
}
