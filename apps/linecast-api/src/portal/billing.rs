//! `GET /portal/billing`: the customer's plan and subscription status, the
//! newest billing events of the ledger (the audit lines Stripe's webhook
//! writes), and two actions, both Stripe's hosted pages opened through its
//! REST API (`ports::billing_pages`, `linecast-stripe`'s `api`):
//!
//! - `POST /portal/billing/subscribe`: a Checkout session for the price on
//!   sale (the first price id of `LINECAST_STRIPE_PLANS`), carrying a
//!   subscribe reference linecast signed, so its completion names this
//!   customer (`client_reference_id`, operations.md, Billing);
//! - `POST /portal/billing/manage`: a Customer Portal session for the
//!   customer's Stripe customer.
//!
//! Both answer `303 See Other` to the page Stripe made. Which is offered is
//! core's rule (`services::billing::billing_actions`), and a POST is refused
//! by the same rule. Without `LINECAST_STRIPE_API_KEY` there is no
//! `Storefront` (`crate::storefront`): the page shows no button and says how to subscribe.
//!
//! Each form carries an `attempt` drawn when the page is shown; the
//! `Idempotency-Key` is made of the action, the customer and that attempt,
//! so a form posted twice opens one session and a new view of the page a
//! new one.

use actix_web::http::StatusCode;
use actix_web::http::header::{HeaderValue, LOCATION};
use actix_web::{HttpResponse, web};
use askama::Template;
use chrono::{DateTime, Utc};
use linecast_core::ports::billing_pages::{BillingPagesError, CheckoutRequest, ManageRequest};
use linecast_core::services::billing::{BillingActions, billing_actions};
use rand::RngCore;

use super::html::{PageError, api_error_page, error_page, filters, page};
use crate::auth::session::SignedIn;
use crate::error::ApiError;
use crate::state::AppState;
use crate::storefront::Storefront;

/// How many billing events the page lists.
pub const EVENTS_SHOWN: usize = 10;

/// How long a subscribe reference made by the page names the customer: at
/// least a day (a Checkout session's default lifetime) from when it is
/// made. It ends on a whole hour, so a form posted twice within the hour
/// sends Stripe the same parameters (and gets the same session back).
fn reference_expiry(now: DateTime<Utc>) -> i64 {
    let hour = now.timestamp() - now.timestamp().rem_euclid(3600);
    hour + 25 * 3600
}

struct EventRow {
    at: String,
    detail: String,
}

/// The plan sold online: the price on sale (the first price id of
/// `LINECAST_STRIPE_PLANS`) and what its entry there grants.
struct Offer {
    /// The `api_plan` it grants.
    plan: String,
    /// The monthly quota it sets (the entry's limit; an entry without one
    /// leaves the account's quota as it is).
    monthly_limit: u64,
    /// `LINECAST_STRIPE_PRICE_TEXT`: what it costs, as the operator
    /// states Stripe's price; `None`: Stripe's checkout shows it.
    price: Option<String>,
}

#[derive(Template)]
#[template(path = "portal/billing.html")]
struct BillingPage {
    csrf: String,
    attempt: String,
    plan: String,
    tier: String,
    /// The account's monthly request quota.
    limit: u64,
    /// The per-key rate: calls a second sustained, and the burst.
    rate: Option<(u32, u32)>,
    status: String,
    serves: bool,
    linked: bool,
    /// The current period's end as Stripe last reported it, with its
    /// label: `Current period ends`, or `Period ended` once the
    /// subscription has ended.
    period: Option<(&'static str, String)>,
    events: Vec<EventRow>,
    /// Stripe's API is configured.
    online: bool,
    /// The plan sold online, when Stripe is configured with a price.
    offer: Option<Offer>,
    subscribe: bool,
    manage: bool,
    returned: bool,
}

/// 128 random bits as hex: the page's `attempt`.
fn attempt() -> String {
    let mut bytes = [0_u8; 16];
    rand::rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

fn offered(
    state: &AppState,
    signed: &SignedIn,
    link: Option<&linecast_core::ports::billing::StripeLink>,
) -> BillingActions {
    let customer = &signed.0.entry.1;
    let rule = billing_actions(customer.api_subscription_status, link);
    let store = state.storefront.as_deref();
    BillingActions {
        subscribe: rule.subscribe && store.is_some_and(Storefront::sells),
        manage: rule.manage && store.is_some(),
    }
}

/// `GET /portal/billing`.
pub async fn billing(
    state: web::Data<AppState>,
    signed: SignedIn,
    req: actix_web::HttpRequest,
) -> Result<HttpResponse, PageError> {
    let customer = &signed.0.entry.1;
    let account = state.billing.account(customer.customer_id, EVENTS_SHOWN).await?;
    let actions = offered(&state, &signed, account.link.as_ref());
    let offer = state.storefront.as_deref().and_then(|store| {
        let price = store.price.as_deref()?;
        let grant = state.stripe.plans().grant(None, Some(price))?;
        Some(Offer {
            plan: grant.plan.clone(),
            monthly_limit: grant.monthly_limit.unwrap_or(customer.monthly_limit),
            price: store.price_text.clone(),
        })
    });
    Ok(page(
        StatusCode::OK,
        &BillingPage {
            csrf: signed.0.csrf_token.clone(),
            attempt: attempt(),
            plan: customer.api_plan.clone().unwrap_or_else(|| "none".to_owned()),
            tier: customer.tier.clone(),
            limit: customer.monthly_limit,
            rate: state.gate.access.as_ref().map(|a| {
                let rate = a.rate();
                (rate.per_second, rate.burst)
            }),
            status: customer.api_subscription_status.code().to_owned(),
            serves: customer.api_subscription_status.grants_access(),
            linked: account.link.is_some(),
            period: account.link.as_ref().and_then(period_shown),
            events: account
                .events
                .into_iter()
                .map(|e| EventRow {
                    at: e.at.format("%Y-%m-%d %H:%M UTC").to_string(),
                    detail: e.detail,
                })
                .collect(),
            online: state.storefront.is_some(),
            offer,
            subscribe: actions.subscribe,
            manage: actions.manage,
            returned: req.query_string() == "checkout=done",
        },
    ))
}

/// The period end of `link` as the page shows it, if Stripe reported one.
fn period_shown(link: &linecast_core::ports::billing::StripeLink) -> Option<(&'static str, String)> {
    let end = chrono::DateTime::from_timestamp(link.period_end?, 0)?;
    let label = if link
        .last_status
        .is_some_and(linecast_core::SubscriptionStatus::is_terminal)
    {
        "Period ended"
    } else {
        "Current period ends"
    };
    Some((label, end.format("%Y-%m-%d %H:%M UTC").to_string()))
}

/// The form's `attempt`: 32 hex digits, as the page drew it.
fn form_attempt(body: &[u8]) -> Option<String> {
    url::form_urlencoded::parse(body)
        .find(|(k, _)| k == "attempt")
        .map(|(_, v)| v.into_owned())
        .filter(|v| v.len() == 32 && v.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// `303 See Other` to a page Stripe made.
fn to_stripe(url: &str) -> HttpResponse {
    let Ok(location) = HeaderValue::from_str(url) else {
        tracing::warn!("stripe answered a session url that is not a header value");
        return error_page(
            StatusCode::BAD_GATEWAY,
            "Stripe answered something unusable. Nothing was charged. Please try again later.",
        );
    };
    let mut res = HttpResponse::SeeOther().finish();
    res.headers_mut().insert(LOCATION, location);
    res
}

/// Stripe's failure as a page: never a 500, never Stripe's own sentence
/// (it is logged).
fn stripe_failed(what: &str, e: &BillingPagesError) -> HttpResponse {
    match e {
        BillingPagesError::Refused {
            status,
            kind,
            code,
            message,
        } => {
            tracing::warn!(
                status,
                kind,
                code = code.as_deref().unwrap_or(""),
                message,
                "stripe refused to open {what}"
            );
            error_page(
                StatusCode::BAD_GATEWAY,
                &format!(
                    "Stripe refused to open {what} ({kind}{}). Nothing was charged. Please try again later, or tell your linecast contact.",
                    code.as_deref().map(|c| format!(", {c}")).unwrap_or_default()
                ),
            )
        }
        BillingPagesError::Unusable(cause) => {
            tracing::warn!(cause, "stripe answered an unusable page for {what}");
            error_page(
                StatusCode::BAD_GATEWAY,
                "Stripe answered something unusable. Nothing was charged. Please try again later, or tell your linecast contact.",
            )
        }
        BillingPagesError::Unavailable(cause) => {
            tracing::warn!(cause, "stripe did not open {what}");
            error_page(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!(
                    "Stripe did not answer, so {what} could not be opened. Nothing was charged. Please try again in a moment."
                ),
            )
        }
    }
}

/// The parts every action needs, or the page that refuses it.
async fn prepare(
    state: &AppState,
    signed: &SignedIn,
    body: &[u8],
) -> Result<
    (
        String,
        Option<linecast_core::ports::billing::StripeLink>,
        BillingActions,
    ),
    HttpResponse,
> {
    if state.storefront.is_none() {
        return Err(error_page(
            StatusCode::NOT_FOUND,
            "Subscribing online is not set up on this server.",
        ));
    }
    let Some(attempt) = form_attempt(body) else {
        return Err(error_page(
            StatusCode::BAD_REQUEST,
            "This form is incomplete. Reload the Billing page and try again.",
        ));
    };
    let link = state
        .billing
        .account(signed.0.entry.1.customer_id, 0)
        .await
        .map_err(|e| api_error_page(&ApiError::from(e)))?
        .link;
    let actions = offered(state, signed, link.as_ref());
    Ok((attempt, link, actions))
}

/// `POST /portal/billing/subscribe`.
pub async fn subscribe(state: web::Data<AppState>, signed: SignedIn, body: web::Bytes) -> HttpResponse {
    let (attempt, link, actions) = match prepare(&state, &signed, &body).await {
        Ok(p) => p,
        Err(res) => return res,
    };
    let (Some(store), true) = (state.storefront.as_deref(), actions.subscribe) else {
        return error_page(
            StatusCode::CONFLICT,
            "There is nothing to subscribe to here: your subscription may still serve (use Manage billing), or subscribing online is not offered.",
        );
    };
    let (Some(price), Some(references)) = (&store.price, &store.references) else {
        return error_page(StatusCode::CONFLICT, "Subscribing online is not offered.");
    };
    let customer = &signed.0.entry.1;
    let request = CheckoutRequest {
        price: price.clone(),
        // The wall clock, never `LINECAST_NOW`'s: the webhook checks the
        // reference against the event's `created`, Stripe's clock.
        client_reference: references.sign(customer.customer_id, reference_expiry(Utc::now())),
        provider_customer: link.map(|l| l.stripe_customer),
        email: customer.email.clone(),
        success_url: format!("{}?checkout=done", store.back()),
        cancel_url: store.back(),
        idempotency_key: format!("linecast_subscribe_{}_{attempt}", customer.customer_id),
    };
    match store.pages.checkout(&request).await {
        Ok(page) => to_stripe(&page.url),
        Err(e) => stripe_failed("the checkout", &e),
    }
}

/// `POST /portal/billing/manage`.
pub async fn manage(state: web::Data<AppState>, signed: SignedIn, body: web::Bytes) -> HttpResponse {
    let (attempt, link, actions) = match prepare(&state, &signed, &body).await {
        Ok(p) => p,
        Err(res) => return res,
    };
    let (Some(store), Some(link), true) = (state.storefront.as_deref(), link, actions.manage) else {
        return error_page(
            StatusCode::CONFLICT,
            "Your account is not billed through Stripe yet: subscribe first.",
        );
    };
    let request = ManageRequest {
        provider_customer: link.stripe_customer,
        return_url: store.back(),
        idempotency_key: format!("linecast_manage_{}_{attempt}", signed.0.entry.1.customer_id),
    };
    match store.pages.manage(&request).await {
        Ok(page) => to_stripe(&page.url),
        Err(e) => stripe_failed("the billing page", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reference_made_by_the_page_lasts_a_day_and_the_same_within_the_hour() {
        let at = |t: &str| t.parse::<DateTime<Utc>>().unwrap();
        let a = reference_expiry(at("2026-11-25T14:00:00Z"));
        assert_eq!(a, reference_expiry(at("2026-11-25T14:59:59Z")));
        assert_eq!(a, at("2026-11-26T15:00:00Z").timestamp());
        let late = at("2026-11-25T14:59:59Z");
        assert!(a - late.timestamp() >= 24 * 3600);
    }
}
