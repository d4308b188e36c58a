//! Telemetry: how log lines are written and filtered, and where metrics
//! are served.

use std::net::SocketAddr;

use serde::Deserialize;

use super::SettingsError;
use super::value::bad;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Human,
    Json,
}

/// The settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Telemetry {
    pub(super) log_format: LogFormat,
    pub(super) log_filter: Option<String>,
    pub(super) metrics_bind: Option<SocketAddr>,
}

/// `LINECAST_LOG_FORMAT`, `RUST_LOG` and `LINECAST_METRICS_BIND`.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<Telemetry, SettingsError> {
    let metrics_bind = env("LINECAST_METRICS_BIND")
        .filter(|s| !s.is_empty())
        .map(|v| v.parse().map_err(|e| bad("LINECAST_METRICS_BIND", e)))
        .transpose()?;
    let log_format = match env("LINECAST_LOG_FORMAT").as_deref() {
        None | Some("human") => LogFormat::Human,
        Some("json") => LogFormat::Json,
        Some(other) => return Err(bad("LINECAST_LOG_FORMAT", format!("'{other}'; expected human or json"))),
    };
    Ok(Telemetry {
        log_format,
        log_filter: env("RUST_LOG").filter(|f| !f.trim().is_empty()),
        metrics_bind,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::env_of;

    #[test]
    fn logs_are_human_and_metrics_off_by_default_and_a_bad_value_names_its_variable() {
        let t = read(&env_of(&[("RUST_LOG", " ")])).unwrap();
        assert_eq!(
            (t.log_format, t.log_filter, t.metrics_bind),
            (LogFormat::Human, None, None)
        );
        let t = read(&env_of(&[
            ("LINECAST_LOG_FORMAT", "json"),
            ("RUST_LOG", "warn"),
            ("LINECAST_METRICS_BIND", "127.0.0.1:9100"),
        ]))
        .unwrap();
        assert_eq!(t.log_format, LogFormat::Json);
        assert_eq!(t.log_filter.as_deref(), Some("warn"));
        assert_eq!(t.metrics_bind.map(|a| a.port()), Some(9100));
        let err = read(&env_of(&[("LINECAST_LOG_FORMAT", "xml")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_LOG_FORMAT: 'xml'; expected human or json"
        );
        let err = read(&env_of(&[("LINECAST_METRICS_BIND", "9100")])).unwrap_err();
        assert_eq!(err.name, "LINECAST_METRICS_BIND");
    }
}
