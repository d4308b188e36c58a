//! The billing webhook's answer.

use serde::Serialize;
use utoipa::ToSchema;

/// What the webhook did with a delivery. Any 2xx tells Stripe to stop
/// retrying it.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookAck {
    /// Always true.
    pub received: bool,
    /// Stripe's event id.
    pub event_id: String,
    /// `applied` (status and plan set), `linked` (a checkout linked the
    /// customer), `pending` (a subscription event kept until its checkout
    /// arrives, or a checkout kept for an operator), `stale` (older than
    /// what was applied), `duplicate` (applied before), `ignored` (a type,
    /// mode, price or subscription this service does not act on),
    /// `conflict` (refused: it would move a customer's Stripe link) or
    /// `no_buyer` (a checkout naming nobody).
    pub outcome: String,
}

/// A Stripe event as Stripe sends it (documented for readers; the webhook
/// reads only the fields named in docs/operations.md, "Billing", and
/// ignores the rest).
#[derive(Debug, Serialize, ToSchema)]
pub struct StripeEvent {
    /// `evt_...`
    pub id: String,
    /// For example `customer.subscription.updated`.
    #[serde(rename = "type")]
    pub event_type: String,
    /// Unix seconds.
    pub created: i64,
    pub data: StripeEventData,
}

/// The event's payload.
#[derive(Debug, Serialize, ToSchema)]
pub struct StripeEventData {
    /// The Stripe object the event is about (a subscription, a checkout
    /// session), with all of Stripe's fields.
    pub object: std::collections::BTreeMap<String, serde_json::Value>,
}
