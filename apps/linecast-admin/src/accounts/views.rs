//! The JSON shapes of customers, keys and entitlements printed by `--json`.
//! Field names follow the HTTP API's where both show the same thing; a key is
//! only ever shown masked here.

use linecast_core::{ApiKeyRecord, Customer, Entitlement};
use serde_json::{Value, json};

use super::output::instant;

pub fn customer(c: &Customer) -> Value {
    json!({
        "customer_id": c.customer_id,
        "email": c.email,
        "name": c.name,
        "tier": c.tier,
        "api_plan": c.api_plan,
        "api_subscription_status": c.api_subscription_status.code(),
        "subscription_status": c.subscription_status.code(),
        "monthly_limit": c.monthly_limit,
        "created_at": instant(c.created_at),
    })
}

/// A stored key: masked, with its state.
pub fn key(k: &ApiKeyRecord) -> Value {
    json!({
        "key_id": k.id,
        "masked": k.masked(),
        "name": k.name,
        "tier": k.tier,
        "is_active": k.is_active && k.revoked_at.is_none(),
        "created_at": instant(k.created_at),
        "expires_at": k.expires_at.map(instant),
        "revoked_at": k.revoked_at.map(instant),
        "last_used_at": k.last_used_at.map(instant),
    })
}

/// The Stripe link of a customer.
pub fn stripe_link(l: &linecast_core::ports::billing::StripeLink) -> Value {
    json!({
        "stripe_customer": l.stripe_customer,
        "stripe_subscription": l.stripe_subscription,
        "last_event_id": l.last_event_id,
        "last_event_created": l.last_created,
        "last_status": l.last_status.map(linecast_core::SubscriptionStatus::code),
    })
}

pub fn entitlement(e: &Entitlement) -> Value {
    json!({
        "owned_products": e.owned_products,
        "owned_sports": e.owned_sports.iter().map(|s| s.code()).collect::<Vec<_>>(),
        "expires_at": e.expires_at.map(instant),
    })
}
