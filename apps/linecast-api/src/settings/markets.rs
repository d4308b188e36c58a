//! Prediction markets: where their prices come from.

use super::SettingsError;
use super::value::bad;

/// The settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Markets {
    pub(super) markets_source: String,
    pub(super) kalshi_base_url: Option<String>,
}

/// `LINECAST_MARKETS` (`file`, the default, or `kalshi`) and
/// `LINECAST_KALSHI_BASE_URL`.
pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<Markets, SettingsError> {
    let markets_source = env("LINECAST_MARKETS").unwrap_or_else(|| "file".to_owned());
    if !matches!(markets_source.as_str(), "file" | "kalshi") {
        return Err(bad(
            "LINECAST_MARKETS",
            format!("'{markets_source}'; expected file or kalshi"),
        ));
    }
    Ok(Markets {
        markets_source,
        kalshi_base_url: env("LINECAST_KALSHI_BASE_URL"),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::settings::env_of;

    #[test]
    fn markets_come_from_the_store_by_default_and_a_bad_value_names_its_variable() {
        let m = read(&env_of(&[])).unwrap();
        assert_eq!((m.markets_source.as_str(), m.kalshi_base_url), ("file", None));
        assert_eq!(
            read(&env_of(&[("LINECAST_MARKETS", "kalshi")])).unwrap().markets_source,
            "kalshi"
        );
        let err = read(&env_of(&[("LINECAST_MARKETS", "polymarket")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_MARKETS: 'polymarket'; expected file or kalshi"
        );
    }
}
