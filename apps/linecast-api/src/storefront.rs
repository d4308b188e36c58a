//! What the portal sells through Stripe's REST API: the storefront the
//! settings describe (the API client, the price on sale, the key that signs
//! subscribe references, the public URL Stripe sends customers back to).
//! Held by the app's state; the Billing page (`portal::billing`) uses it.

use std::sync::Arc;

use linecast_core::ports::billing_pages::BillingPages;

/// What the Billing page's actions need: Stripe's API, the price on sale,
/// the key subscribe references are signed with and the portal's address
/// (Stripe sends the browser back to it).
pub struct Storefront {
    pub pages: Arc<dyn BillingPages>,
    /// The first price id of `LINECAST_STRIPE_PLANS`; `None`: nothing to
    /// subscribe to, no Subscribe button.
    pub price: Option<String>,
    /// `LINECAST_STRIPE_PRICE_TEXT`: what the price on sale costs, as the
    /// Billing page states it (`None`: the page says Stripe's checkout
    /// shows it).
    pub price_text: Option<String>,
    /// `LINECAST_SIGNING_KEY`'s reference key; `None` (no key configured):
    /// no Subscribe button, since no instance could verify the reference.
    pub references: Option<linecast_stripe::ReferenceKey>,
    /// `LINECAST_PUBLIC_URL`, without a trailing `/`.
    pub public_url: String,
}

impl Storefront {
    pub(crate) fn back(&self) -> String {
        format!("{}/portal/billing", self.public_url.trim_end_matches('/'))
    }

    pub(crate) fn sells(&self) -> bool {
        self.price.is_some() && self.references.is_some()
    }
}

/// The storefront the settings describe: `None` without
/// `LINECAST_STRIPE_API_KEY`. With a key but no price id in
/// `LINECAST_STRIPE_PLANS`, or no `LINECAST_SIGNING_KEY`, only Manage
/// billing is offered (a warning says why at start).
pub fn storefront(settings: &crate::settings::Settings) -> anyhow::Result<Option<Arc<Storefront>>> {
    let Some(api_key) = settings.stripe_api_key.clone() else {
        return Ok(None);
    };
    let mut config = linecast_stripe::StripeApiConfig::new(api_key);
    if let Some(base) = &settings.stripe_api_base {
        config.base_url.clone_from(base);
    }
    let api = linecast_stripe::StripeApi::new(config).map_err(|e| anyhow::anyhow!("{e}"))?;
    let price = settings.stripe_plans.subscribe_price().map(str::to_owned);
    // A reference signed with a per-process random key verifies nowhere.
    let references = settings
        .signing_key
        .as_ref()
        .map(|k| linecast_stripe::ReferenceKey::new(k.as_bytes()));
    if price.is_none() {
        tracing::warn!(
            "LINECAST_STRIPE_API_KEY is set but LINECAST_STRIPE_PLANS names no price id (price_...): the portal offers no Subscribe"
        );
    }
    if references.is_none() {
        tracing::warn!(
            "LINECAST_STRIPE_API_KEY is set without LINECAST_SIGNING_KEY: the portal offers no Subscribe (its reference could not be verified)"
        );
    }
    Ok(Some(Arc::new(Storefront {
        pages: Arc::new(api),
        price,
        price_text: settings.stripe_price_text.clone(),
        references,
        public_url: settings.public_url.clone(),
    })))
}
