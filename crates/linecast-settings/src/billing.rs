//! Billing through Stripe: the webhook's secrets, which plan each price
//! grants, which mode's events are acted on, and the API key and root the
//! portal's Billing page calls.

use super::SettingsError;
use super::value::{bad, flag_or};

/// The settings of the same names in [`super::Settings`].
#[derive(Debug)]
pub(super) struct Billing {
    pub(super) webhook_secrets: linecast_stripe::signature::WebhookSecrets,
    pub(super) plans: linecast_core::services::billing::PlanTable,
    pub(super) livemode: bool,
    pub(super) api_key: Option<linecast_stripe::ApiKey>,
    pub(super) api_base: Option<String>,
    pub(super) price_text: Option<String>,
}

/// The longest `LINECAST_STRIPE_PRICE_TEXT`, in characters.
const MAX_PRICE_TEXT_CHARS: usize = 80;

/// `LINECAST_STRIPE_WEBHOOK_SECRETS`, `LINECAST_STRIPE_PLANS`,
/// `LINECAST_STRIPE_LIVEMODE`, `LINECAST_STRIPE_API_KEY` and
/// `LINECAST_STRIPE_API_BASE` and `LINECAST_STRIPE_PRICE_TEXT` (trimmed;
/// at most 80 printable characters: it is printed on a page).
pub(super) fn read(env: &impl Fn(&str) -> Option<String>) -> Result<Billing, SettingsError> {
    let webhook_secrets =
        linecast_stripe::signature::WebhookSecrets::parse(&env("LINECAST_STRIPE_WEBHOOK_SECRETS").unwrap_or_default())
            .map_err(|e| bad("LINECAST_STRIPE_WEBHOOK_SECRETS", e))?;
    let plans = linecast_core::services::billing::PlanTable::parse(&env("LINECAST_STRIPE_PLANS").unwrap_or_default())
        .map_err(|e| bad("LINECAST_STRIPE_PLANS", e))?;
    let livemode = flag_or(env, "LINECAST_STRIPE_LIVEMODE", false)?;
    let api_key = env("LINECAST_STRIPE_API_KEY")
        .filter(|k| !k.trim().is_empty())
        .map(|k| linecast_stripe::ApiKey::parse(&k))
        .transpose()
        .map_err(|e| bad("LINECAST_STRIPE_API_KEY", e))?;
    let price_text = env("LINECAST_STRIPE_PRICE_TEXT")
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
        .map(|t| {
            if t.chars().count() > MAX_PRICE_TEXT_CHARS || t.chars().any(linecast_domain::text::is_unprintable) {
                Err(bad(
                    "LINECAST_STRIPE_PRICE_TEXT",
                    format!(
                        "expected at most {MAX_PRICE_TEXT_CHARS} printable characters, such as 'USD 49.00 a month'"
                    ),
                ))
            } else {
                Ok(t)
            }
        })
        .transpose()?;
    Ok(Billing {
        webhook_secrets,
        plans,
        livemode,
        api_key,
        api_base: env("LINECAST_STRIPE_API_BASE").filter(|b| !b.trim().is_empty()),
        price_text,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::env_of;

    #[test]
    fn billing_is_off_by_default_and_a_bad_value_names_its_variable() {
        let s = read(&env_of(&[
            ("LINECAST_STRIPE_API_KEY", " "),
            ("LINECAST_STRIPE_API_BASE", ""),
        ]))
        .unwrap();
        assert!(!s.livemode);
        assert!(s.api_key.is_none() && s.api_base.is_none() && s.price_text.is_none());
        let priced = read(&env_of(&[("LINECAST_STRIPE_PRICE_TEXT", " USD 49.00 a month ")])).unwrap();
        assert_eq!(priced.price_text.as_deref(), Some("USD 49.00 a month"));
        assert_eq!(s.plans.subscribe_price(), None);
        let long = "9".repeat(81);
        for (name, value) in [
            ("LINECAST_STRIPE_WEBHOOK_SECRETS", "not-a-secret"),
            ("LINECAST_STRIPE_PLANS", "price_1"),
            ("LINECAST_STRIPE_LIVEMODE", "live"),
            ("LINECAST_STRIPE_API_KEY", "pk_test_1"),
            ("LINECAST_STRIPE_PRICE_TEXT", "USD 49\nfree"),
            ("LINECAST_STRIPE_PRICE_TEXT", long.as_str()),
        ] {
            let err = read(&env_of(&[(name, value)])).unwrap_err();
            assert_eq!(err.name, name, "{value}");
        }
        let err = read(&env_of(&[("LINECAST_STRIPE_LIVEMODE", "live")])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting LINECAST_STRIPE_LIVEMODE: 'live'; expected true or false"
        );
    }
}
