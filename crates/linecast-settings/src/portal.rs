//! The public URL and the portal: the base of signed download links, the
//! one origin the portal's sign-in forms are accepted from, and how long
//! the portal's request log keeps a request.

use std::net::SocketAddr;

use super::SettingsError;
use super::value::{bad, number};

/// The settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Portal {
    pub(super) public_url: String,
    pub(super) origin: Option<String>,
    pub(super) request_log_days: u32,
}

/// `LINECAST_PUBLIC_URL` (default `http://<bind>`; its origin, when set,
/// is the portal's) and `LINECAST_REQUEST_LOG_DAYS`.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>, bind: SocketAddr) -> Result<Portal, SettingsError> {
    let request_log_days = number(
        env,
        "LINECAST_REQUEST_LOG_DAYS",
        u64::from(linecast_core::services::request_log::DEFAULT_RETENTION_DAYS),
    )?;
    let request_log_days = u32::try_from(request_log_days)
        .ok()
        .filter(|d| (1..=90).contains(d))
        .ok_or_else(|| bad("LINECAST_REQUEST_LOG_DAYS", "whole days, from 1 to 90"))?;
    let public_url = env("LINECAST_PUBLIC_URL");
    let portal_origin = public_url
        .as_deref()
        .map(linecast_http::sign_in_origin::origin_of)
        .transpose()
        .map_err(|e| bad("LINECAST_PUBLIC_URL", e))?;
    Ok(Portal {
        public_url: public_url.unwrap_or_else(|| format!("http://{bind}")),
        origin: portal_origin,
        request_log_days,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::file::FileSettings;
    use crate::{Settings, env_of};

    #[test]
    fn the_public_url_is_the_bind_address_by_default_and_a_bad_value_names_its_variable() {
        let bind: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let p = read(&env_of(&[]), bind).unwrap();
        assert_eq!((p.public_url.as_str(), p.origin), ("http://127.0.0.1:8080", None));
        assert_eq!(p.request_log_days, 7);
        for bad in ["0", "91", "a week"] {
            let err = read(&env_of(&[("LINECAST_REQUEST_LOG_DAYS", bad)]), bind).unwrap_err();
            assert_eq!(err.name, "LINECAST_REQUEST_LOG_DAYS", "{bad}");
        }
        let err = read(&env_of(&[("LINECAST_REQUEST_LOG_DAYS", "91")]), bind).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_REQUEST_LOG_DAYS: whole days, from 1 to 90"
        );
        let err = read(&env_of(&[("LINECAST_PUBLIC_URL", "api.example.com")]), bind).unwrap_err();
        assert_eq!(err.name, "LINECAST_PUBLIC_URL");
    }

    /// The portal's sign-in origin is `LINECAST_PUBLIC_URL`'s when it is
    /// set (none when unset: the request's own host); a value that is not
    /// an http(s) URL stops the start, naming the setting.
    #[test]
    fn the_public_url_gives_the_portals_sign_in_origin() {
        let file = FileSettings::default();
        let with = |url: &'static str| {
            Settings::from_sources(&file, move |k| (k == "LINECAST_PUBLIC_URL").then(|| url.to_owned()))
        };
        let s = with("https://API.example.com/base/").unwrap();
        assert_eq!(s.portal_origin.as_deref(), Some("https://api.example.com"));
        assert_eq!(s.public_url, "https://API.example.com/base/");
        let unset = Settings::from_sources(&file, |_| None).unwrap();
        assert_eq!(unset.portal_origin, None);
        assert!(unset.public_url.starts_with("http://"));
        for bad in ["api.example.com", "ftp://example.com/"] {
            assert_eq!(with(bad).unwrap_err().name, "LINECAST_PUBLIC_URL", "{bad}");
        }
    }
}
