//! Authentication and keys: whether keys are checked at all, the signing
//! key, who the client is behind proxies, how many failed key checks an
//! address may make, and how many keys a customer may hold.

use linecast_http::client_address::{ProxyRange, parse_ranges};

use super::SettingsError;
use super::value::{at_least_one, bad, flag, number, small};

/// The settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Auth {
    pub(super) enabled: bool,
    pub(super) signing_key: Option<String>,
    pub(super) client_ip_header: Option<String>,
    pub(super) trusted_proxy_cidrs: Vec<ProxyRange>,
    pub(super) trusted_proxies: u32,
    pub(super) failure_rate: u32,
    pub(super) failure_burst: u32,
    pub(super) max_keys_per_customer: usize,
}

/// `LINECAST_AUTH_DISABLED` (honoured only in `demo` mode),
/// `LINECAST_SIGNING_KEY`, `LINECAST_CLIENT_IP_HEADER`,
/// `LINECAST_TRUSTED_PROXY_CIDRS`, `LINECAST_TRUSTED_PROXIES`,
/// `LINECAST_AUTH_FAILURE_RATE`, `LINECAST_AUTH_FAILURE_BURST` and
/// `LINECAST_MAX_KEYS_PER_CUSTOMER`.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>, demo: bool) -> Result<Auth, SettingsError> {
    let trusted_proxies = at_least_one("LINECAST_TRUSTED_PROXIES", small(env, "LINECAST_TRUSTED_PROXIES", 1)?)?;
    let (client_ip_header, trusted_proxy_cidrs) = client_ip_header(
        env("LINECAST_CLIENT_IP_HEADER"),
        env("LINECAST_TRUSTED_PROXY_CIDRS").as_deref(),
    )?;
    let auth_failure_rate = small(env, "LINECAST_AUTH_FAILURE_RATE", 20)?;
    let auth_failure_burst = at_least_one(
        "LINECAST_AUTH_FAILURE_BURST",
        small(env, "LINECAST_AUTH_FAILURE_BURST", 40)?,
    )?;
    let max_keys_per_customer = usize::try_from(number(env, "LINECAST_MAX_KEYS_PER_CUSTOMER", 25)?)
        .map_err(|e| bad("LINECAST_MAX_KEYS_PER_CUSTOMER", e))?;
    let auth_enabled = match env("LINECAST_AUTH_DISABLED") {
        Some(v) => !flag("LINECAST_AUTH_DISABLED", &v)?,
        None => true,
    };
    if !auth_enabled && !demo {
        return Err(bad(
            "LINECAST_AUTH_DISABLED",
            "honoured only in demo mode; unset it (production mode: a database or store URL is configured)",
        ));
    }
    Ok(Auth {
        enabled: auth_enabled,
        signing_key: env("LINECAST_SIGNING_KEY").filter(|s| !s.is_empty()),
        client_ip_header,
        trusted_proxy_cidrs,
        trusted_proxies,
        failure_rate: auth_failure_rate,
        failure_burst: auth_failure_burst,
        max_keys_per_customer,
    })
}

/// The client IP header and the proxies it is read from. A header without
/// proxies is refused rather than read from every peer (any client reaching
/// the server directly would choose its own address).
fn client_ip_header(
    header: Option<String>,
    cidrs: Option<&str>,
) -> Result<(Option<String>, Vec<ProxyRange>), SettingsError> {
    let header = header.filter(|h| !h.trim().is_empty());
    let ranges = parse_ranges(cidrs.unwrap_or("")).map_err(|e| {
        bad(
            "LINECAST_TRUSTED_PROXY_CIDRS",
            format!("{e}; expected comma-separated CIDRs"),
        )
    })?;
    if header.is_some() && ranges.is_empty() {
        return Err(bad(
            "LINECAST_TRUSTED_PROXY_CIDRS",
            "required when LINECAST_CLIENT_IP_HEADER is set: the CIDRs of the proxies that set that header \
             (e.g. 10.0.0.0/8,::1/128); it is never read from other peers",
        ));
    }
    Ok((header, ranges))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::file::FileSettings;
    use crate::{Settings, env_of, file};

    #[test]
    fn keys_are_checked_by_default_and_a_bad_value_names_its_variable() {
        let a = read(&env_of(&[]), false).unwrap();
        assert!(a.enabled);
        assert_eq!((a.signing_key, a.client_ip_header), (None, None));
        assert_eq!((a.trusted_proxies, a.failure_rate, a.failure_burst), (1, 20, 40));
        assert_eq!(a.max_keys_per_customer, 25);
        let empty_key = read(&env_of(&[("LINECAST_SIGNING_KEY", "")]), false).unwrap();
        assert_eq!(empty_key.signing_key, None);
        for (name, value) in [
            ("LINECAST_TRUSTED_PROXIES", "0"),
            ("LINECAST_AUTH_FAILURE_RATE", "-1"),
            ("LINECAST_AUTH_FAILURE_BURST", "0"),
            ("LINECAST_MAX_KEYS_PER_CUSTOMER", "many"),
            ("LINECAST_TRUSTED_PROXY_CIDRS", "10.0.0.0/33"),
            ("LINECAST_AUTH_DISABLED", "perhaps"),
        ] {
            let err = read(&env_of(&[(name, value)]), true).unwrap_err();
            assert_eq!(err.name, name, "{value}");
        }
        let err = read(&env_of(&[("LINECAST_AUTH_DISABLED", "true")]), false).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_AUTH_DISABLED: honoured only in demo mode; unset it (production mode: a \
             database or store URL is configured)"
        );
        assert!(
            !read(&env_of(&[("LINECAST_AUTH_DISABLED", "true")]), true)
                .unwrap()
                .enabled
        );
    }

    #[test]
    fn the_client_ip_header_needs_trusted_proxy_cidrs_and_a_malformed_one_is_named() {
        let none = FileSettings::default();
        let s = Settings::from_sources(&none, |_| None).unwrap();
        assert_eq!((s.client_ip_header, s.trusted_proxy_cidrs), (None, Vec::new()));
        let s = Settings::from_sources(&none, |k| match k {
            "LINECAST_CLIENT_IP_HEADER" => Some("X-Forwarded-For".to_owned()),
            "LINECAST_TRUSTED_PROXY_CIDRS" => Some("10.0.0.0/8, 127.0.0.1,::1/128".to_owned()),
            _ => None,
        })
        .unwrap();
        assert_eq!(s.client_ip_header.as_deref(), Some("X-Forwarded-For"));
        assert_eq!(
            s.trusted_proxy_cidrs,
            parse_ranges("10.0.0.0/8,127.0.0.1/32,::1/128").unwrap()
        );
        // The header alone would be read from any peer: refused, naming both.
        let err = Settings::from_sources(&none, |k| {
            (k == "LINECAST_CLIENT_IP_HEADER").then(|| "X-Forwarded-For".to_owned())
        })
        .unwrap_err();
        assert_eq!(err.name, "LINECAST_TRUSTED_PROXY_CIDRS");
        assert!(err.to_string().contains("LINECAST_CLIENT_IP_HEADER"), "{err}");
        let err = Settings::from_sources(&none, |k| match k {
            "LINECAST_CLIENT_IP_HEADER" => Some("X-Forwarded-For".to_owned()),
            "LINECAST_TRUSTED_PROXY_CIDRS" => Some(" , ".to_owned()),
            _ => None,
        })
        .unwrap_err();
        assert_eq!(err.name, "LINECAST_TRUSTED_PROXY_CIDRS");
        let err = Settings::from_sources(&none, |k| match k {
            "LINECAST_CLIENT_IP_HEADER" => Some("X-Forwarded-For".to_owned()),
            "LINECAST_TRUSTED_PROXY_CIDRS" => Some("10.0.0.0/8,10.0.0.0/33".to_owned()),
            _ => None,
        })
        .unwrap_err();
        assert_eq!(err.name, "LINECAST_TRUSTED_PROXY_CIDRS");
        assert!(err.to_string().contains("'10.0.0.0/33'"), "{err}");
        // From the file too.
        let in_file = file("client_ip_header = \"X-Real-IP\"\ntrusted_proxy_cidrs = \"fd00::/8\"");
        let s = Settings::from_sources(&in_file, |_| None).unwrap();
        assert_eq!(s.trusted_proxy_cidrs, parse_ranges("fd00::/8").unwrap());
    }

    #[test]
    fn auth_disabled_is_refused_in_production_mode_and_honoured_only_in_demo_mode() {
        let none = FileSettings::default();
        let disabled_in_production = |k: &str| match k {
            "LINECAST_AUTH_DISABLED" => Some("true".to_owned()),
            "LINECAST_DATABASE_URL" => Some("postgres://db/x".to_owned()),
            _ => None,
        };
        let err = Settings::from_sources(&none, disabled_in_production).unwrap_err();
        assert_eq!(err.name, "LINECAST_AUTH_DISABLED");
        let demo = Settings::from_sources(&none, |k| (k == "LINECAST_AUTH_DISABLED").then(|| "1".to_owned())).unwrap();
        assert!(demo.demo && !demo.auth_enabled);
        let err = Settings::from_sources(&none, |k| (k == "LINECAST_AUTH_DISABLED").then(|| "perhaps".to_owned()))
            .unwrap_err();
        assert_eq!(err.name, "LINECAST_AUTH_DISABLED");
    }
}
