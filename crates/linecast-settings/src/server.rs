//! The server: where it listens, whether it runs the demo, its clock, and
//! how long a stop may take.

use std::net::SocketAddr;
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::SettingsError;
use super::value::{bad, flag, number, seconds};

/// Seconds readiness fails after a stop signal before the server stops
/// accepting (`LINECAST_DRAIN_GRACE_SECS`): a few load-balancer health-check
/// rounds.
pub const DEFAULT_DRAIN_GRACE_SECS: f64 = 5.0;

/// The longest drain grace accepted.
const MAX_DRAIN_GRACE: Duration = Duration::from_hours(1);

/// After SIGTERM the process exits within the drain grace, the in-flight
/// allowance and this, whatever its dependencies do.
pub const STOP_BOUND: Duration = Duration::from_secs(2);

/// The server's settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Server {
    pub(super) bind: SocketAddr,
    pub(super) demo: bool,
    pub(super) now: Option<DateTime<Utc>>,
    pub(super) drain_grace: Duration,
    pub(super) shutdown_timeout: u64,
}

/// `LINECAST_BIND` (or `PORT`), `LINECAST_DEMO` (its default decided by
/// whether `no_storage`), `LINECAST_NOW`, `LINECAST_DRAIN_GRACE_SECS` and
/// How long requests in flight may take to finish once the server stops
/// accepting; past it their connections are closed (the default).
pub const SHUTDOWN_TIMEOUT_SECS: u64 = 10;

/// `LINECAST_SHUTDOWN_TIMEOUT_SECS`.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>, no_storage: bool) -> Result<Server, SettingsError> {
    let bind = bind_address(env)?;
    let demo = match env("LINECAST_DEMO") {
        Some(v) => flag("LINECAST_DEMO", &v)?,
        None => demo_by_default(no_storage, bind)?,
    };
    let drain_grace = seconds(
        env,
        "LINECAST_DRAIN_GRACE_SECS",
        |d| d <= MAX_DRAIN_GRACE,
        "seconds, from 0 to 3600",
    )?
    .unwrap_or(Duration::from_secs_f64(DEFAULT_DRAIN_GRACE_SECS));
    let shutdown_timeout = number(env, "LINECAST_SHUTDOWN_TIMEOUT_SECS", SHUTDOWN_TIMEOUT_SECS)?;
    if shutdown_timeout > 3600 {
        return Err(bad("LINECAST_SHUTDOWN_TIMEOUT_SECS", "whole seconds, from 0 to 3600"));
    }
    let now = env("LINECAST_NOW")
        .map(|v| DateTime::parse_from_rfc3339(&v).map(|t| t.with_timezone(&Utc)))
        .transpose()
        .map_err(|e| bad("LINECAST_NOW", format!("{e}; expected an RFC 3339 instant")))?;
    Ok(Server {
        bind,
        demo,
        now,
        drain_grace,
        shutdown_timeout,
    })
}

/// The address the server listens on: `LINECAST_BIND` (environment, then
/// `bind` in the file); else `0.0.0.0:$PORT` when `PORT` is set (Cloud Run
/// and other platforms that name the port); else `127.0.0.1:8080`.
pub(super) fn bind_address(env: impl Fn(&str) -> Option<String>) -> Result<SocketAddr, SettingsError> {
    if let Some(bind) = env("LINECAST_BIND") {
        return bind.parse().map_err(|e| bad("LINECAST_BIND", format!("'{bind}': {e}")));
    }
    match env("PORT").filter(|p| !p.is_empty()) {
        Some(port) => {
            let port: u16 = port
                .parse()
                .map_err(|e| bad("PORT", format!("'{port}': {e}; expected a TCP port")))?;
            Ok(SocketAddr::from(([0, 0, 0, 0], port)))
        }
        None => Ok(SocketAddr::from(([127, 0, 0, 1], 8080))),
    }
}

/// Demo mode when nobody asked either way (`LINECAST_DEMO` and `demo` in
/// the file unset): on while no storage is configured, but only on a
/// loopback address. Demo mode invents a customer and a key and serves
/// generated data; on any other address (the image's `0.0.0.0:8080`, or
/// `PORT`) that is refused unless asked for with `LINECAST_DEMO=true`, so an
/// instance deployed without its database and store URLs stops instead of
/// serving made-up data to the network.
fn demo_by_default(no_storage: bool, bind: SocketAddr) -> Result<bool, SettingsError> {
    if no_storage && !bind.ip().is_loopback() {
        return Err(bad(
            "LINECAST_DEMO",
            format!(
                "no LINECAST_DATABASE_URL or LINECAST_STORE_URL is configured, which means demo mode (generated \
                 data, a demo customer and key), and demo mode listens on {bind}, not a loopback address, only \
                 on request: set LINECAST_DEMO=true to serve the demo there, or configure the database and store \
                 URLs for production"
            ),
        ));
    }
    Ok(no_storage)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::file::FileSettings;
    use crate::{Settings, env_of, file};

    #[test]
    fn the_server_listens_on_loopback_by_default_and_a_bad_value_names_its_variable() {
        let s = read(&env_of(&[]), true).unwrap();
        assert_eq!(s.bind, "127.0.0.1:8080".parse().unwrap());
        assert!(s.demo);
        assert!(!read(&env_of(&[]), false).unwrap().demo);
        assert_eq!(
            (s.now, s.drain_grace, s.shutdown_timeout),
            (None, Duration::from_secs(5), 10)
        );
        for (name, value) in [
            ("LINECAST_BIND", "localhost"),
            ("LINECAST_DEMO", "maybe"),
            ("LINECAST_NOW", "yesterday"),
            ("LINECAST_DRAIN_GRACE_SECS", "3601"),
            ("LINECAST_SHUTDOWN_TIMEOUT_SECS", "3601"),
        ] {
            let err = read(&env_of(&[(name, value)]), false).unwrap_err();
            assert_eq!(err.name, name, "{value}");
        }
        let err = read(&env_of(&[("LINECAST_SHUTDOWN_TIMEOUT_SECS", "3601")]), false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_SHUTDOWN_TIMEOUT_SECS: whole seconds, from 0 to 3600"
        );
    }

    /// `PORT` (Cloud Run's) is the port on every interface while
    /// `LINECAST_BIND` is set neither in the environment nor in the file.
    #[test]
    fn port_is_listened_on_every_interface_when_linecast_bind_is_not_set() {
        let none = FileSettings::default();
        let with = |vars: &[(&str, &str)]| Settings::from_sources(&none, env_of(vars));
        let db = ("LINECAST_DATABASE_URL", "postgres://db/x");
        assert_eq!(
            with(&[db, ("PORT", "9090")]).unwrap().bind,
            "0.0.0.0:9090".parse().unwrap()
        );
        assert_eq!(
            with(&[db, ("PORT", "9090"), ("LINECAST_BIND", "127.0.0.1:7000")])
                .unwrap()
                .bind,
            "127.0.0.1:7000".parse().unwrap()
        );
        // An empty PORT is unset; neither set: loopback, 8080.
        assert_eq!(
            with(&[db, ("PORT", "")]).unwrap().bind,
            "127.0.0.1:8080".parse().unwrap()
        );
        assert_eq!(
            Settings::from_sources(&none, |_| None).unwrap().bind,
            "127.0.0.1:8080".parse().unwrap()
        );
        // `bind` in the file is LINECAST_BIND too.
        let in_file = file("bind = \"127.0.0.1:7001\"");
        let port = |k: &str| (k == "PORT").then(|| "9090".to_owned());
        assert_eq!(Settings::from_sources(&in_file, port).unwrap().bind.port(), 7001);
        assert_eq!(bind_address(port).unwrap(), "0.0.0.0:9090".parse().unwrap());
        for bad_port in ["http", "70000", "-1"] {
            let err = bind_address(|k| (k == "PORT").then(|| bad_port.to_owned())).unwrap_err();
            assert_eq!(err.name, "PORT", "{bad_port}");
            assert!(err.reason.contains(bad_port), "{err}");
        }
        let err = bind_address(|k| (k == "LINECAST_BIND").then(|| "localhost".to_owned())).unwrap_err();
        assert_eq!(err.name, "LINECAST_BIND");
    }

    /// Without storage and without `LINECAST_DEMO`, demo mode starts only on
    /// a loopback address; any other bind (the image's `0.0.0.0:8080`,
    /// `PORT`) stops the start naming `LINECAST_DEMO`, unless the demo is
    /// asked for or storage is configured.
    #[test]
    fn demo_mode_on_a_non_loopback_address_only_on_request() {
        let none = FileSettings::default();
        let env = |vars: Vec<(&'static str, &'static str)>| {
            move |k: &str| vars.iter().find(|(name, _)| *name == k).map(|(_, v)| (*v).to_owned())
        };
        for bind in ["0.0.0.0:8080", "[::]:8080", "10.1.2.3:8080"] {
            let err = Settings::from_sources(&none, env(vec![("LINECAST_BIND", bind)])).unwrap_err();
            assert_eq!(err.name, "LINECAST_DEMO", "{bind}");
            assert!(err.reason.contains("LINECAST_DEMO=true"), "{err}");
            let asked = Settings::from_sources(&none, env(vec![("LINECAST_BIND", bind), ("LINECAST_DEMO", "true")]));
            assert!(asked.unwrap().demo, "{bind}");
            let production = env(vec![("LINECAST_BIND", bind), ("LINECAST_STORE_URL", "s3://bucket/p")]);
            assert!(!Settings::from_sources(&none, production).unwrap().demo, "{bind}");
            let off = env(vec![("LINECAST_BIND", bind), ("LINECAST_DEMO", "false")]);
            assert!(!Settings::from_sources(&none, off).unwrap().demo, "{bind}");
        }
        let err = Settings::from_sources(&none, env(vec![("PORT", "8080")])).unwrap_err();
        assert_eq!(err.name, "LINECAST_DEMO");
        for bind in ["127.0.0.1:8080", "[::1]:8080", "127.0.0.2:0"] {
            assert!(
                Settings::from_sources(&none, env(vec![("LINECAST_BIND", bind)]))
                    .unwrap()
                    .demo,
                "{bind}"
            );
        }
        // `demo = true` in the file is a request too.
        let in_file = file("bind = \"0.0.0.0:8080\"\ndemo = true");
        assert!(Settings::from_sources(&in_file, |_| None).unwrap().demo);
    }

    #[test]
    fn demo_mode_is_the_default_only_while_no_storage_is_configured() {
        let none = FileSettings::default();
        assert!(Settings::from_sources(&none, |_| None).unwrap().demo);
        let db = |k: &str| (k == "LINECAST_DATABASE_URL").then(|| "postgres://db/x".to_owned());
        assert!(!Settings::from_sources(&none, db).unwrap().demo);
        let store = |k: &str| (k == "LINECAST_STORE_URL").then(|| "s3://bucket/p".to_owned());
        assert!(!Settings::from_sources(&none, store).unwrap().demo);
        let in_file = file("store_url = \"file:///srv/store\"");
        assert!(!Settings::from_sources(&in_file, |_| None).unwrap().demo);
        // Asked for explicitly, either way.
        let forced = |k: &str| match k {
            "LINECAST_DEMO" => Some("true".to_owned()),
            "LINECAST_STORE_URL" => Some("file:///srv/store".to_owned()),
            _ => None,
        };
        assert!(Settings::from_sources(&none, forced).unwrap().demo);
        let off = |k: &str| (k == "LINECAST_DEMO").then(|| "false".to_owned());
        assert!(!Settings::from_sources(&none, off).unwrap().demo);
        let err = Settings::from_sources(&none, |k| (k == "LINECAST_DEMO").then(|| "maybe".to_owned())).unwrap_err();
        assert_eq!(err.name, "LINECAST_DEMO");
    }

    #[test]
    fn the_drain_grace_defaults_to_five_seconds_and_takes_decimals_and_zero() {
        let none = FileSettings::default();
        let grace = |value: &'static str| {
            Settings::from_sources(&none, move |k| {
                (k == "LINECAST_DRAIN_GRACE_SECS").then(|| value.to_owned())
            })
        };
        assert_eq!(
            Settings::from_sources(&none, |_| None).unwrap().drain_grace,
            std::time::Duration::from_secs(5)
        );
        assert_eq!(grace("0.5").unwrap().drain_grace, std::time::Duration::from_millis(500));
        assert_eq!(grace("0").unwrap().drain_grace, std::time::Duration::ZERO);
        let in_file = file("drain_grace_secs = 2.0");
        assert_eq!(
            Settings::from_sources(&in_file, |_| None).unwrap().drain_grace,
            std::time::Duration::from_secs(2)
        );
        for bad in ["-1", "soon", "86400"] {
            assert_eq!(grace(bad).unwrap_err().name, "LINECAST_DRAIN_GRACE_SECS", "{bad}");
        }
    }
}
